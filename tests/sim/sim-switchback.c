/*
 * sim-switchback.c - offline simulator of switchback verdicts. It draws a
 * live metric, one value per second, from noise models of a service under
 * load, runs the switchback design over it (2 arms, randomised blocks from a
 * fresh seed per experiment, washout not counted) and feeds the windows to
 * the REAL decision code (sb_analyse() at every planned look), counting
 * CHANGE under A/A (false change) and under A/B with +5 % and +10 % on the
 * candidate (power).
 *
 * Models (per second: level x load x trend x bursts x effect x noise):
 *   iid       white lognormal noise, CV 10 % per second
 *   ar05      + AR(1) load, sd 10 %, correlation 0.5 between adjacent
 *             windows' starts (per-second phi = 0.5^(1/W))
 *   ar09      the same with 0.9 (load wanders over many windows)
 *   diurnal   ar05 + a 24 h sinusoid of amplitude 50 % at a random phase
 *             (at most ~3.5 % over a 16-minute run)
 *   warmup    ar05 + a +40 % warm-up ramp, time constant 5 min (measured
 *             on redis here: trends far larger than effects)
 *   bursts    ar05 + bursts that halve the rate, one per 4 min on average,
 *             15 s long on average
 *   hetero    ar05 + noise whose sd switches between 10 % and 40 %
 *             (Markov regime, mean stay 2 min)
 *   carry1    ar05 + carryover: the effect follows the assignment with a
 *             first-order lag of time constant W/3 (37 % of a switch left
 *             when the washout ends; gone within the next window)
 *   carry2    ar05 + carryover with time constant 2W/3 (into the window
 *             after next)
 *   all       ar09 + diurnal + bursts + hetero + carry1
 * Methods: "sb" (the real code), and two bad ones that exist to prove the
 * gates can fail: "naive-win" (Welch's t on window values by arm, one-sided
 * 0.025, after every block from 3 on, no correction: windows treated as
 * independent, optional stopping) and "naive-sec" (Welch's t on every
 * second's value by arm at each planned look: autocorrelation ignored).
 * Gates (sb and the naive ones): A/A false change <= -F (2.5 %, point) and
 * its one-sided 95 % Clopper-Pearson upper bound <= -f (3 %) in every model.
 * Power gate (sb, -p > 0): +10 % found with power >= 80 % in iid, ar05 and
 * ar09 - a method that never says CHANGE would pass the false-change gate.
 * -C N: for the first N runs of A/A and +10 %, the carryover check at the
 * last look (slices of 2-3 s): how often it flags, and how often the
 * stepwise carryover order says the washout is too short (not gated).
 * Exit 0 when every gated figure passes, 1 when one fails, 2 on usage.
 *
 * usage: sim-switchback [-n A/A runs] [-p power runs] [-m sb|naive-win|naive-sec|all]
 *                       [-c model] [-s seed] [-f pct] [-F pct] [-W s] [-w s] [-B blocks] [-C N]
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "swaptune/advisor.h"
#include "swaptune/switchback.h"
#include "sim-common.h"

#define MAX_S	(SB_BLOCKS_MAX * 2 * 600)

struct model {
	const char *name;
	double rho_win, load_sd, noise_cv, diurnal, warmup, burst_per_s, hetero, carry_w;
	bool gate_power;	/* sb: power for +10 % >= POWER_GATE */
};

#define POWER_GATE 0.80

static const struct model models[] = {
	{ "iid",     0,   0,    0.10, 0,   0,   0,         0, 0, true },
	{ "ar05",    0.5, 0.10, 0.10, 0,   0,   0,         0, 0, true },
	{ "ar09",    0.9, 0.10, 0.10, 0,   0,   0,         0, 0, true },
	{ "diurnal", 0.5, 0.10, 0.10, 0.5, 0,   0,         0, 0, false },
	{ "warmup",  0.5, 0.10, 0.10, 0,   0.4, 0,         0, 0, false },
	{ "bursts",  0.5, 0.10, 0.10, 0,   0,   1.0 / 240, 0, 0, false },
	{ "hetero",  0.5, 0.10, 0.10, 0,   0,   0,         1, 0, false },
	{ "carry1",  0.5, 0.10, 0.10, 0,   0,   0,         0, 1.0 / 3, false },
	{ "carry2",  0.5, 0.10, 0.10, 0,   0,   0,         0, 2.0 / 3, false },
	{ "all",     0.9, 0.10, 0.10, 0.5, 0,   1.0 / 240, 1, 1.0 / 3, false },
};

enum method { M_SB, M_NAIVE_WIN, M_NAIVE_SEC, M_COUNT };
static const char *const method_names[] = { "sb", "naive-win", "naive-sec" };

/* One experiment's per-second series y[0..T) and the arm of each second. */
static void draw(const struct model *m, const struct sb_design *d, double eff, uint64_t *s,
		 double *y, unsigned *arm_of, unsigned T)
{
	const struct sb_plan *p = &d->plan;
	unsigned W = (unsigned)p->window_s;
	double phi = m->rho_win > 0 ? pow(m->rho_win, 1.0 / W) : 0;
	double load = m->load_sd * rng_norm(s), phase = 2 * M_PI * rng_unif(s), e = 0;
	double keep = m->carry_w > 0 ? exp(-1.0 / (m->carry_w * W)) : 0;
	double burst_left = 0;
	int regime = 0;

	for (unsigned t = 0; t < T; t++) {
		unsigned a = d->order[t / W / p->n_arms][(t / W) % p->n_arms];
		double lv = 0, sd = m->noise_cv;

		arm_of[t] = a;
		load = phi * load + m->load_sd * sqrt(1 - phi * phi) * rng_norm(s);
		lv += m->load_sd > 0 ? load : 0;
		lv += m->diurnal * sin(phase + 2 * M_PI * t / 86400.0);
		lv += m->warmup > 0 ? log1p(m->warmup * (1 - exp(-(double)t / 300.0))) : 0;
		if (m->burst_per_s > 0) {
			if (burst_left <= 0 && rng_unif(s) < m->burst_per_s)
				burst_left = -15.0 * log(rng_unif(s));
			if (burst_left > 0) {
				lv += log(0.5);
				burst_left -= 1;
			}
		}
		if (m->hetero > 0) {
			if (rng_unif(s) < 1.0 / 120)
				regime = !regime;
			sd *= regime ? 4.0 : 1.0;
		}
		/* the effect follows the assignment, with a first-order lag under carryover */
		e = keep * e + (1 - keep) * (a == 1 ? 1.0 : 0.0);
		lv += log1p(eff) * e;
		sd = sqrt(log1p(sd * sd));
		y[t] = 1000.0 * exp(lv + sd * rng_norm(s) - sd * sd / 2);
	}
}

/* outcome: 1 = CHANGE to the candidate, 0 = KEEP, -1 = INCONCLUSIVE */
struct outcome {
	int kind;
	unsigned blocks;
	double effect;
};

static void windows(const struct sb_design *d, const double *y, struct sb_input *in)
{
	const struct sb_plan *p = &d->plan;
	unsigned W = (unsigned)p->window_s, wo = (unsigned)p->washout_s, sl = (W + 15) / 16;

	/* slices for the checks: the shortest that divides window and washout, at most 16 */
	while (sl < W && (W % sl || wo % sl))
		sl++;
	memset(in, 0, sizeof(*in));
	snprintf(in->metric.name, SB_NAME_MAX, "ops_per_s");
	in->metric.kind = SB_RATE;
	in->metric.higher_better = true;
	in->n_blocks = p->n_blocks;
	for (unsigned b = 0; b < p->n_blocks; b++)
		for (unsigned q = 0; q < p->n_arms; q++) {
			const double *yw = y + (b * p->n_arms + q) * W;
			double sum = 0;

			for (unsigned t = wo; t < W; t++)
				sum += yw[t];
			in->outcome[b][q] = SB_WIN_OK;
			in->value[b][q] = sum / (W - wo);
			/* slices from the switch, washout included, for the checks */
			for (unsigned j = 0; j < W / sl && j < SB_SLICES_MAX; j++) {
				double v = 0;

				for (unsigned u = 0; u < sl; u++)
					v += yw[j * sl + u];
				in->slice[b][q][j] = v / sl;
			}
		}
	in->n_slices = W / sl <= SB_SLICES_MAX ? W / sl : 0;
	in->n_washout_slices = wo / sl;
	in->slice_s = sl;
}

static int run_sb(const struct sb_design *d, const struct sb_input *in, const struct sb_opts *o,
		  struct sb_work *w, struct outcome *out)
{
	static struct sb_result r;
	struct st_err e = { 0 };

	for (unsigned k = 0; k < d->plan.n_looks; k++) {
		if (sb_analyse(&(struct sb_look){ d, k, in }, o, w, &r, &e) < 0) {
			fprintf(stderr, "sim-switchback: %s\n", e.msg);
			return -1;
		}
		out->blocks = r.n_blocks;
		out->effect = r.arms[1].effect;
		if (r.decision == SB_CONTINUE)
			continue;
		out->kind = r.decision == SB_CHANGE ? 1 : r.decision == SB_KEEP ? 0 : -1;
		return 0;
	}
	return 0;
}

/* one-sided Welch p of mean(a) > mean(b) and the relative difference */
static double welch_p(double sa, double qa, double na, double sb, double qb, double nb, double *rel)
{
	double ma = sa / na, mb = sb / nb;
	double va = (qa - na * ma * ma) / (na - 1), vb = (qb - nb * mb * mb) / (nb - 1);
	double se2 = va / na + vb / nb, df;

	*rel = ma / mb - 1;
	if (!(se2 > 0))
		return 1;
	df = se2 * se2 / (va * va / (na * na * (na - 1)) + vb * vb / (nb * nb * (nb - 1)));
	return 1 - stats_t_cdf((ma - mb) / sqrt(se2), df);
}

/* Bad on purpose: window values as independent samples, re-tested after every block. */
static void run_naive_win(const struct sb_design *d, const struct sb_input *in, double min_eff,
			  struct outcome *out)
{
	double s[2] = { 0 }, q[2] = { 0 }, n[2] = { 0 }, rel;

	out->kind = -1;
	for (unsigned b = 0; b < d->plan.n_blocks; b++) {
		for (unsigned p = 0; p < 2; p++) {
			unsigned a = d->order[b][p];
			double v = in->value[b][p];

			s[a] += v;
			q[a] += v * v;
			n[a]++;
		}
		out->blocks = b + 1;
		if (b + 1 < 3)
			continue;
		if (welch_p(s[1], q[1], n[1], s[0], q[0], n[0], &rel) < 0.025 && rel * 100 >= min_eff) {
			out->kind = 1;
			out->effect = rel * 100;
			return;
		}
	}
}

/* Bad on purpose: every second a sample, at the planned looks. */
static void run_naive_sec(const struct sb_design *d, const double *y, const unsigned *arm_of,
			  double min_eff, struct outcome *out)
{
	unsigned W = (unsigned)d->plan.window_s;
	double s[2] = { 0 }, q[2] = { 0 }, n[2] = { 0 }, rel;
	unsigned t = 0;

	out->kind = -1;
	for (unsigned k = 0; k < d->plan.n_looks; k++) {
		for (; t < d->plan.looks[k] * 2 * W; t++) {
			s[arm_of[t]] += y[t];
			q[arm_of[t]] += y[t] * y[t];
			n[arm_of[t]]++;
		}
		out->blocks = d->plan.looks[k];
		if (welch_p(s[1], q[1], n[1], s[0], q[0], n[0], &rel) < 0.025 && rel * 100 >= min_eff) {
			out->kind = 1;
			out->effect = rel * 100;
			return;
		}
	}
}

struct tally {
	unsigned n, change, keep, inconclusive;
	double blocks, effect_sum;
	unsigned n_checked, carry_flag, washout_short;	/* -C: the checks at the last look */
};

static unsigned checks_runs;	/* -C N: the first N runs of each power column */

static int one(const struct model *m, enum method me, struct sb_plan *pl, double eff,
	       uint64_t *s, struct tally *t)
{
	static double y[MAX_S];
	static unsigned arm_of[MAX_S];
	static struct sb_input in;
	static struct sb_work w;
	struct sb_design d;
	struct sb_opts o;
	struct outcome out = { .kind = -1, .effect = NAN };

	pl->seed = rng_next(s);		/* a fresh, recorded seed per experiment */
	if (sb_design_init(&d, pl, NULL) < 0)
		return -1;
	sb_opts_init(&o);
	o.checks = false;
	draw(m, &d, eff, s, y, arm_of, pl->n_blocks * pl->n_arms * (unsigned)pl->window_s);
	windows(&d, y, &in);
	if (me == M_SB) {
		if (run_sb(&d, &in, &o, &w, &out) < 0)
			return -1;
	} else if (me == M_NAIVE_WIN) {
		run_naive_win(&d, &in, o.min_effect, &out);
	} else {
		run_naive_sec(&d, y, arm_of, o.min_effect, &out);
	}
	if (me == M_SB && t->n_checked < checks_runs) {
		static struct sb_result r;

		o.checks = true;
		if (sb_analyse(&(struct sb_look){ &d, d.plan.n_looks - 1, &in }, &o, &w, &r, NULL) < 0)
			return -1;
		t->n_checked++;
		t->carry_flag += r.checks.carry_flag;
		t->washout_short += r.checks.washout_short;
	}
	t->n++;
	t->blocks += out.blocks;
	t->change += out.kind == 1;
	t->keep += out.kind == 0;
	t->inconclusive += out.kind == -1;
	if (isfinite(out.effect))
		t->effect_sum += out.effect;
	return 0;
}

static int usage(void)
{
	fprintf(stderr, "usage: sim-switchback [-n A/A runs] [-p power runs] "
		"[-m sb|naive-win|naive-sec|all] [-c model] [-s seed] [-f pct] [-F pct] [-W s] [-w s] "
		"[-B blocks] [-C N]\n");
	return 2;
}

int main(int argc, char **argv)
{
	struct sb_plan pl;
	unsigned n = 20000, np = 5000;
	uint64_t seed = 20261201;
	const char *only = NULL, *mname = "all";
	double fc_gate = 0.03, fc_point = 0.025;
	int failed = 0;

	setvbuf(stdout, NULL, _IOLBF, 0);
	sb_plan_init(&pl);
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "-n") && i + 1 < argc)
			n = (unsigned)strtoul(argv[++i], NULL, 10);
		else if (!strcmp(argv[i], "-p") && i + 1 < argc)
			np = (unsigned)strtoul(argv[++i], NULL, 10);
		else if (!strcmp(argv[i], "-m") && i + 1 < argc)
			mname = argv[++i];
		else if (!strcmp(argv[i], "-c") && i + 1 < argc)
			only = argv[++i];
		else if (!strcmp(argv[i], "-f") && i + 1 < argc)
			fc_gate = strtod(argv[++i], NULL) / 100.0;
		else if (!strcmp(argv[i], "-C") && i + 1 < argc)
			checks_runs = (unsigned)strtoul(argv[++i], NULL, 10);
		else if (!strcmp(argv[i], "-F") && i + 1 < argc)
			fc_point = strtod(argv[++i], NULL) / 100.0;
		else if (!strcmp(argv[i], "-s") && i + 1 < argc)
			seed = strtoull(argv[++i], NULL, 10);
		else if (!strcmp(argv[i], "-W") && i + 1 < argc)
			pl.window_s = strtod(argv[++i], NULL);
		else if (!strcmp(argv[i], "-w") && i + 1 < argc)
			pl.washout_s = strtod(argv[++i], NULL);
		else if (!strcmp(argv[i], "-B") && i + 1 < argc) {
			pl.n_blocks = (unsigned)strtoul(argv[++i], NULL, 10);
			pl.looks[0] = pl.n_blocks / 2;
			pl.looks[1] = pl.n_blocks * 3 / 4;
			pl.looks[2] = pl.n_blocks;
		} else
			return usage();
	}
	if (n < 10 || pl.window_s < 2 || pl.window_s > 600 || pl.window_s != floor(pl.window_s) ||
	    pl.washout_s != floor(pl.washout_s) || pl.n_blocks > SB_BLOCKS_MAX ||
	    (strcmp(mname, "all") && strcmp(mname, "sb") && strcmp(mname, "naive-win") &&
	     strcmp(mname, "naive-sec")))
		return usage();
	printf("# switchback: %u A/A and %u A/B (+5 %%, +10 %%) experiments per model, seed %llu\n",
	       n, np, (unsigned long long)seed);
	printf("# design: 2 arms, %u blocks of 2 x %g s windows, washout %g s, looks %u/%u/%u, "
	       "alpha %g, %.1f min\n", pl.n_blocks, pl.window_s, pl.washout_s, pl.looks[0],
	       pl.looks[1], pl.looks[2], pl.alpha, pl.n_blocks * 2 * pl.window_s / 60);
	printf("%-8s %-9s %8s %8s %8s %8s %8s %8s %8s %7s\n", "model", "method", "AA-chg%",
	       "CP95up%", "AA-keep%", "pow5%", "pow10%", "est10%", "keep10%", "blocks");
	for (size_t mi = 0; mi < sizeof(models) / sizeof(models[0]); mi++) {
		const struct model *m = &models[mi];

		if (only && strcmp(only, m->name))
			continue;
		for (int me = 0; me < M_COUNT; me++) {
			struct tally aa = { 0 }, p5 = { 0 }, p10 = { 0 };
			uint64_t s;
			double up;
			char note[48] = "";

			if (strcmp(mname, "all") && strcmp(mname, method_names[me]))
				continue;
			s = seed + mi * 1000003ULL;
			for (unsigned i = 0; i < n; i++)
				if (one(m, me, &pl, 0, &s, &aa) < 0)
					return 2;
			s = seed + mi * 1000003ULL + 7919;
			for (unsigned i = 0; i < np; i++)
				if (one(m, me, &pl, 0.05, &s, &p5) < 0 || one(m, me, &pl, 0.10, &s, &p10) < 0)
					return 2;
			up = cp_upper(aa.change, aa.n);
			if ((double)aa.change / aa.n > fc_point || up > fc_gate) {
				failed = 1;
				strcpy(note, " FAIL:false-change");
			}
			if (me == M_SB && checks_runs)
				printf("%-8s %-9s checks at the last look (%u runs each): carryover flagged "
				       "A/A %.1f %%, +10 %% %.1f %%; washout too short (+10 %%) %.1f %%\n",
				       m->name, method_names[me], checks_runs,
				       100.0 * aa.carry_flag / aa.n_checked,
				       100.0 * p10.carry_flag / p10.n_checked,
				       100.0 * p10.washout_short / p10.n_checked);
			if (me == M_SB && np && m->gate_power && (double)p10.change / np < POWER_GATE) {
				failed = 1;
				strcat(note, " FAIL:power");
			}
			printf("%-8s %-9s %8.2f %8.2f %8.1f %8.1f %8.1f %8.2f %8.1f %7.1f%s\n", m->name,
			       method_names[me], 100.0 * aa.change / aa.n, 100 * up,
			       100.0 * aa.keep / aa.n, np ? 100.0 * p5.change / np : NAN,
			       np ? 100.0 * p10.change / np : NAN,
			       np ? p10.effect_sum / np : NAN, np ? 100.0 * p10.keep / np : NAN,
			       aa.blocks / aa.n, note);
		}
	}
	printf("gates: A/A false change <= %.1f %% and its CP95 upper bound <= %.1f %% in every "
	       "model; sb: power for +10 %% >= %.0f %% in iid, ar05, ar09: %s\n", fc_point * 100,
	       fc_gate * 100, POWER_GATE * 100, failed ? "FAIL" : "pass");
	return failed;
}
