/*
 * test-verdict.c - advisor/verdict.c on a table of probe outcomes.
 *
 * Effects, intervals and p-values in the tables were computed with the
 * standard-library Python reference described in test-stats.c (tests/unit):
 * welch(candidate, baseline) from statistics.mean/variance and the
 * power-series t distribution, effect = +-diff_pct so that positive = better;
 * permutation p by exact enumeration. The reason strings are those numbers
 * printed with "%.1f" and p with three decimals.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "swaptune/advisor.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define NONE (-1)

/* baseline wall times used by several cases: mean 100, sd 1.58 */
#define PC3_WALL { 100.0, 102.0, 98.0, 101.0, 99.0 }
/* baseline throughput and zswpout: mean 1000 and 10000 */
#define PC3_TP { 1000, 1010, 990, 1005, 995 }
#define PC3_ZSWPOUT { 10000, 10200, 9800, 10100, 9900 }

struct arm_spec {
	const char *name;
	bool base;
	size_t n;
	double v[8];
	unsigned oom;
	bool has_zswpout, has_majflt;
	double zswpout[8];
	double majflt[8];
};

struct vcase {
	const char *name;
	enum verdict_metric metric;
	const char *metric_name;
	size_t n_arms;
	struct arm_spec arms[4];
	enum verdict_kind kind;
	int chosen;			/* arm index, NONE for INCONCLUSIVE */
	enum verdict_confidence conf;
	bool decisive;
	enum verdict_arm_status status[4];
	const char *headline;		/* the exact first reason */
	const char *also;		/* a later reason, exactly; NULL = none */
	/* optional numeric check of one arm against the Python reference */
	int check;
	double effect, lo, hi, p_welch, p_perm;
};

static const struct vcase cases[] = {
	{
		.name = "clear win, lower is better",
		.metric = VERDICT_METRIC_WALL_TIME, .metric_name = "wall time",
		.n_arms = 2,
		.arms = {
			{ "pc3", true, 5, PC3_WALL, 0 },
			{ "pc0", false, 5, { 88.0, 87.5, 89.0, 88.5, 87.0 }, 0 },
		},
		.kind = VERDICT_CHANGE, .chosen = 1, .conf = VERDICT_CONF_HIGH, .decisive = true,
		.status = { VERDICT_ARM_BASELINE, VERDICT_ARM_BETTER },
		.headline = "pc0 is 12.0 % faster than pc3 (95 % CI 10.1 % .. 13.9 %, p < 0.001, n = 5 vs 5)",
		.check = 1, .effect = 12.0, .lo = 10.056129178131513, .hi = 13.943870821868487,
		.p_welch = 6.103438751613368e-06, .p_perm = 2.0 / 252,
	},
	{
		.name = "A/A: same distribution",
		.metric = VERDICT_METRIC_WALL_TIME, .metric_name = "wall time",
		.n_arms = 2,
		.arms = {
			{ "pc3", true, 8, { 100.2, 99.7, 100.0, 100.3, 99.8, 100.1, 99.9, 100.4 }, 0 },
			{ "pc1", false, 8, { 100.3, 99.6, 100.1, 99.8, 100.4, 99.9, 100.0, 100.2 }, 0 },
		},
		.kind = VERDICT_KEEP, .chosen = 0, .conf = VERDICT_CONF_HIGH, .decisive = true,
		.status = { VERDICT_ARM_BASELINE, VERDICT_ARM_EQUIVALENT },
		.headline = "keep pc3: no arm is significantly faster by at least 2 % (95 % confidence)",
		.also = "pc1: no difference from pc3 (+0.0 %, 95 % CI -0.3 % .. 0.3 % lies within 2 % either way)",
		.check = 1, .effect = 0.012493753123441122, .lo = -0.26227738067669387,
		.hi = 0.28726488692357616, .p_welch = 0.9236513130816247, .p_perm = 1.0,
	},
	{
		.name = "significant but below the minimum effect",
		.metric = VERDICT_METRIC_WALL_TIME, .metric_name = "wall time",
		.n_arms = 2,
		.arms = {
			{ "pc3", true, 6, { 100.0, 100.2, 99.8, 100.1, 99.9, 100.0 }, 0 },
			{ "pc1", false, 6, { 99.0, 99.2, 98.8, 99.1, 98.9, 99.0 }, 0 },
		},
		.kind = VERDICT_KEEP, .chosen = 0, .conf = VERDICT_CONF_HIGH, .decisive = true,
		.status = { VERDICT_ARM_BASELINE, VERDICT_ARM_BELOW_MIN },
		.headline = "keep pc3: no arm is significantly faster by at least 2 % (95 % confidence)",
		.also = "pc1: difference 1.0 % is below the 2 % minimum effect (95 % CI 0.8 % .. 1.2 %, p < 0.001)",
		.check = 1, .effect = 1.0, .lo = 0.8180732245520985, .hi = 1.1819267754479013,
		.p_welch = 2.4106242088140947e-07, .p_perm = 2.0 / 924,
	},
	{
		.name = "small gain whose CI still reaches the minimum effect",
		.metric = VERDICT_METRIC_WALL_TIME, .metric_name = "wall time",
		.n_arms = 2,
		.arms = {
			{ "pc3", true, 5, { 100, 101, 99, 100.5, 99.5 }, 0 },
			{ "pc1", false, 5, { 98.8, 99.8, 97.8, 99.3, 98.3 }, 0 },
		},
		.kind = VERDICT_KEEP, .chosen = 0, .conf = VERDICT_CONF_MEDIUM, .decisive = false,
		.status = { VERDICT_ARM_BASELINE, VERDICT_ARM_BELOW_MIN },
		.headline = "keep pc3: no arm is significantly faster by at least 2 % (95 % confidence)",
		.also = "pc1: difference 1.2 % is below the 2 % minimum effect (95 % CI 0.0 % .. 2.4 %, p = 0.043)",
		.check = 1, .effect = 1.2000000000000028, .lo = 0.04699793239791994,
		.hi = 2.3530020676020857, .p_welch = 0.04317672782784665, .p_perm = 14.0 / 252,
	},
	{
		.name = "noisy",
		.metric = VERDICT_METRIC_WALL_TIME, .metric_name = "wall time",
		.n_arms = 2,
		.arms = {
			{ "pc3", true, 5, { 100, 112, 91, 105, 95 }, 0 },
			{ "pc0", false, 5, { 93, 104, 85, 99, 88 }, 0 },
		},
		.kind = VERDICT_INCONCLUSIVE, .chosen = NONE, .conf = VERDICT_CONF_LOW, .decisive = false,
		.status = { VERDICT_ARM_BASELINE, VERDICT_ARM_NOISY },
		.headline = "inconclusive: not enough evidence to change from pc3 or to keep it; run more trials",
		.also = "pc0: +6.8 % vs pc3 but not significant (95 % CI -4.9 % .. 18.4 %, p = 0.218): too noisy, more trials needed",
		.check = 1, .effect = 6.759443339960237, .lo = -4.890783995807821,
		.hi = 18.409670675728293, .p_welch = 0.21756959915594487, .p_perm = 58.0 / 252,
	},
	{
		.name = "baseline OOM-killed in every trial",
		.metric = VERDICT_METRIC_WALL_TIME, .metric_name = "wall time",
		.n_arms = 3,
		.arms = {
			{ "pc3", true, 0, { 0 }, 3 },
			{ "pc1", false, 3, { 67.0, 66.5, 67.8 }, 0 },
			{ "pc0", false, 3, { 60.0, 61.0, 59.5 }, 0 },
		},
		.kind = VERDICT_CHANGE, .chosen = 2, .conf = VERDICT_CONF_HIGH, .decisive = true,
		.status = { VERDICT_ARM_BASELINE, VERDICT_ARM_COMPLETED, VERDICT_ARM_COMPLETED },
		.headline = "pc3 (current) was OOM-killed in its memory cgroup in 3 of 3 trials; pc0 completed all 3: change to pc0",
		/* 10.3 % = (67.1 - 60.17) / 67.1, Welch p 0.00032 */
		.also = "pc1 also completed; pc0 is 10.3 % faster (p < 0.001)",
		.check = NONE,
	},
	{
		.name = "baseline OOM-killed in some trials, a faster arm too",
		.metric = VERDICT_METRIC_WALL_TIME, .metric_name = "wall time",
		.n_arms = 3,
		.arms = {
			{ "pc3", true, 2, { 50.0, 51.0 }, 1 },
			{ "pc1", false, 2, { 40.0, 41.0 }, 1 },
			{ "pc0", false, 3, { 60.0, 61.0, 59.5 }, 0 },
		},
		.kind = VERDICT_CHANGE, .chosen = 2, .conf = VERDICT_CONF_MEDIUM, .decisive = true,
		.status = { VERDICT_ARM_BASELINE, VERDICT_ARM_OOM_FAILED, VERDICT_ARM_COMPLETED },
		.headline = "pc3 (current) was OOM-killed in its memory cgroup in 1 of 3 trials; pc0 completed all 3: change to pc0",
		.also = "pc1 was OOM-killed in its memory cgroup in 1 of 3 trials; it loses to every arm that completed",
		.check = NONE,
	},
	{
		.name = "candidate OOM-killed",
		.metric = VERDICT_METRIC_WALL_TIME, .metric_name = "wall time",
		.n_arms = 3,
		.arms = {
			{ "pc3", true, 5, PC3_WALL, 0 },
			{ "pc0", false, 0, { 0 }, 3 },
			{ "pc1", false, 5, { 110, 111, 109, 110.5, 109.5 }, 0 },
		},
		.kind = VERDICT_KEEP, .chosen = 0, .conf = VERDICT_CONF_HIGH, .decisive = true,
		.status = { VERDICT_ARM_BASELINE, VERDICT_ARM_OOM_FAILED, VERDICT_ARM_WORSE },
		.headline = "keep pc3: no arm is significantly faster by at least 2 % (95 % confidence)",
		.also = "pc0 was OOM-killed in its memory cgroup in 3 of 3 trials; it loses to every arm that completed",
		.check = NONE,
	},
	{
		.name = "candidate OOM-killed once, faster when it survived",
		.metric = VERDICT_METRIC_WALL_TIME, .metric_name = "wall time",
		.n_arms = 2,
		.arms = {
			{ "pc3", true, 5, PC3_WALL, 0 },
			{ "pc0", false, 4, { 70, 71, 70.5, 69.5 }, 1 },
		},
		.kind = VERDICT_KEEP, .chosen = 0, .conf = VERDICT_CONF_HIGH, .decisive = true,
		.status = { VERDICT_ARM_BASELINE, VERDICT_ARM_OOM_FAILED },
		.headline = "keep pc3: no arm is significantly faster by at least 2 % (95 % confidence)",
		.also = "pc0 was OOM-killed in its memory cgroup in 1 of 5 trials; it loses to every arm that completed",
		.check = NONE,
	},
	{
		.name = "secondary veto",
		.metric = VERDICT_METRIC_THROUGHPUT, .metric_name = "throughput",
		.n_arms = 2,
		.arms = {
			{ "pc3", true, 5, PC3_TP, 0, true, false, PC3_ZSWPOUT, { 0 } },
			{ "pc0", false, 5, { 1120, 1130, 1110, 1125, 1115 }, 0, true, false,
			  { 14000, 14200, 13800, 14100, 13900 }, { 0 } },
		},
		.kind = VERDICT_KEEP, .chosen = 0, .conf = VERDICT_CONF_MEDIUM, .decisive = true,
		.status = { VERDICT_ARM_BASELINE, VERDICT_ARM_VETOED },
		.headline = "keep pc3: the arms that are significantly faster by at least 2 % cost too much elsewhere",
		.also = "pc0 wins throughput (12.0 % faster) but costs 40.0 % more zswpout (p < 0.001): vetoed",
		.check = 1, .effect = 12.0, .lo = 10.846997932397917, .hi = 13.153002067602083,
		.p_welch = 9.681893407564791e-09, .p_perm = 2.0 / 252,
	},
	{
		.name = "veto passes the win to the next arm",
		.metric = VERDICT_METRIC_THROUGHPUT, .metric_name = "throughput",
		.n_arms = 3,
		.arms = {
			{ "pc3", true, 5, PC3_TP, 0, true, false, PC3_ZSWPOUT, { 0 } },
			{ "pc0", false, 5, { 1120, 1130, 1110, 1125, 1115 }, 0, true, false,
			  { 14000, 14200, 13800, 14100, 13900 }, { 0 } },
			{ "pc1", false, 5, { 1060, 1068, 1052, 1064, 1056 }, 0, true, false,
			  { 10500, 10700, 10300, 10600, 10400 }, { 0 } },
		},
		.kind = VERDICT_CHANGE, .chosen = 2, .conf = VERDICT_CONF_HIGH, .decisive = true,
		.status = { VERDICT_ARM_BASELINE, VERDICT_ARM_VETOED, VERDICT_ARM_BETTER },
		.headline = "pc1 is 6.0 % faster than pc3 (95 % CI 4.9 % .. 7.1 %, p < 0.001, n = 5 vs 5)",
		.also = "pc0 wins throughput (12.0 % faster) but costs 40.0 % more zswpout (p < 0.001): vetoed",
		.check = 2, .effect = 6.0, .lo = 4.947089918543102, .hi = 7.052910081456897,
		.p_welch = 1.5348190800010246e-06, .p_perm = 2.0 / 252,
	},
	{
		.name = "more major faults do not veto",
		.metric = VERDICT_METRIC_THROUGHPUT, .metric_name = "throughput",
		.n_arms = 2,
		.arms = {
			{ "pc3", true, 5, PC3_TP, 0, false, true, { 0 }, { 100, 110, 90, 105, 95 } },
			{ "pc0", false, 5, { 1120, 1130, 1110, 1125, 1115 }, 0, false, true, { 0 },
			  { 800, 810, 790, 805, 795 } },
		},
		.kind = VERDICT_CHANGE, .chosen = 1, .conf = VERDICT_CONF_HIGH, .decisive = true,
		.status = { VERDICT_ARM_BASELINE, VERDICT_ARM_BETTER },
		.headline = "pc0 is 12.0 % faster than pc3 (95 % CI 10.8 % .. 13.2 %, p < 0.001, n = 5 vs 5)",
		.check = NONE,
	},
	{
		.name = "regression",
		.metric = VERDICT_METRIC_THROUGHPUT, .metric_name = "throughput",
		.n_arms = 2,
		.arms = {
			{ "pc3", true, 5, PC3_TP, 0 },
			{ "pc1", false, 5, { 940, 950, 930, 945, 935 }, 0 },
		},
		.kind = VERDICT_KEEP, .chosen = 0, .conf = VERDICT_CONF_HIGH, .decisive = true,
		.status = { VERDICT_ARM_BASELINE, VERDICT_ARM_WORSE },
		.headline = "keep pc3: no arm is significantly faster by at least 2 % (95 % confidence)",
		.also = "pc1 is 6.0 % slower than pc3 (95 % CI 4.8 % .. 7.2 %, p < 0.001): regression risk",
		.check = 1, .effect = -6.0, .lo = -7.153002067602082, .hi = -4.846997932397918,
		.p_welch = 2.143866747688766e-06, .p_perm = 2.0 / 252,
	},
	{
		.name = "arm with one trial",
		.metric = VERDICT_METRIC_WALL_TIME, .metric_name = "wall time",
		.n_arms = 2,
		.arms = {
			{ "pc3", true, 5, PC3_WALL, 0 },
			{ "pc0", false, 1, { 80.0 }, 0 },
		},
		.kind = VERDICT_INCONCLUSIVE, .chosen = NONE, .conf = VERDICT_CONF_LOW, .decisive = false,
		.status = { VERDICT_ARM_BASELINE, VERDICT_ARM_TOO_FEW },
		.headline = "inconclusive: not enough evidence to change from pc3 or to keep it; run more trials",
		.also = "pc0: only 1 completed trial, need at least 3",
		.check = NONE,
	},
	{
		.name = "baseline with too few trials",
		.metric = VERDICT_METRIC_WALL_TIME, .metric_name = "wall time",
		.n_arms = 2,
		.arms = {
			{ "pc3", true, 2, { 100.0, 101.0 }, 0 },
			{ "pc0", false, 5, { 88.0, 87.5, 89.0, 88.5, 87.0 }, 0 },
		},
		.kind = VERDICT_INCONCLUSIVE, .chosen = NONE, .conf = VERDICT_CONF_LOW, .decisive = false,
		.status = { VERDICT_ARM_BASELINE, VERDICT_ARM_TOO_FEW },
		.headline = "inconclusive: not enough evidence to change from pc3 or to keep it; run more trials",
		.also = "pc3 (current): only 2 completed trials, need at least 3",
		.check = NONE,
	},
	{
		.name = "n = 3 win the permutation test cannot confirm",
		.metric = VERDICT_METRIC_WALL_TIME, .metric_name = "wall time",
		.n_arms = 2,
		.arms = {
			{ "pc3", true, 3, { 100.0, 101.0, 99.0 }, 0 },
			{ "pc0", false, 3, { 88.0, 89.0, 87.0 }, 0 },
		},
		.kind = VERDICT_CHANGE, .chosen = 1, .conf = VERDICT_CONF_MEDIUM, .decisive = true,
		.status = { VERDICT_ARM_BASELINE, VERDICT_ARM_BETTER },
		.headline = "pc0 is 12.0 % faster than pc3 (95 % CI 9.7 % .. 14.3 %, p < 0.001, n = 3 vs 3)",
		.also = "pc0: the distribution-free permutation test does not confirm it (p = 0.100, n = 3 vs 3)",
		.check = NONE,
	},
	{
		.name = "constant arms",
		.metric = VERDICT_METRIC_WALL_TIME, .metric_name = "wall time",
		.n_arms = 2,
		.arms = {
			{ "pc3", true, 5, { 5, 5, 5, 5, 5 }, 0 },
			{ "pc0", false, 5, { 4, 4, 4, 4, 4 }, 0 },
		},
		.kind = VERDICT_CHANGE, .chosen = 1, .conf = VERDICT_CONF_MEDIUM, .decisive = true,
		.status = { VERDICT_ARM_BASELINE, VERDICT_ARM_BETTER },
		.headline = "pc0 is 20.0 % faster than pc3 (95 % CI 20.0 % .. 20.0 %, p undefined, n = 5 vs 5)",
		.also = "pc0: every trial of both arms gave the same value, so the Welch test is undefined; "
			"significance comes from the permutation test (p = 0.008)",
		.check = NONE,
	},
	{
		.name = "only the baseline",
		.metric = VERDICT_METRIC_LOWER_BETTER, .metric_name = "",
		.n_arms = 1,
		.arms = { { "pc3", true, 5, PC3_WALL, 0 } },
		.kind = VERDICT_INCONCLUSIVE, .chosen = NONE, .conf = VERDICT_CONF_LOW, .decisive = true,
		.status = { VERDICT_ARM_BASELINE },
		.headline = "only pc3 was measured: there is nothing to compare it with",
		.check = NONE,
	},
	{
		.name = "every arm OOM-killed",
		.metric = VERDICT_METRIC_WALL_TIME, .metric_name = "wall time",
		.n_arms = 2,
		.arms = {
			{ "pc3", true, 0, { 0 }, 3 },
			{ "pc0", false, 1, { 50.0 }, 2 },
		},
		.kind = VERDICT_INCONCLUSIVE, .chosen = NONE, .conf = VERDICT_CONF_LOW, .decisive = true,
		.status = { VERDICT_ARM_BASELINE, VERDICT_ARM_OOM_FAILED },
		.headline = "inconclusive: no arm completed its trials without an OOM kill; "
			    "raise the probe's memory limit or shrink its working set",
		.also = "pc0 was OOM-killed in its memory cgroup in 2 of 3 trials; it loses to every arm that completed",
		.check = NONE,
	},
	{
		.name = "score metric wording",
		.metric = VERDICT_METRIC_HIGHER_BETTER, .metric_name = "score",
		.n_arms = 2,
		.arms = {
			{ "pc3", true, 5, PC3_TP, 0 },
			{ "pc1", false, 5, { 940, 950, 930, 945, 935 }, 0 },
		},
		.kind = VERDICT_KEEP, .chosen = 0, .conf = VERDICT_CONF_HIGH, .decisive = true,
		.status = { VERDICT_ARM_BASELINE, VERDICT_ARM_WORSE },
		.headline = "keep pc3: no arm is significantly better by at least 2 % (95 % confidence)",
		.also = "pc1 is 6.0 % worse than pc3 (95 % CI 4.8 % .. 7.2 %, p < 0.001): regression risk",
		.check = NONE,
	},
};

static void build(const struct vcase *c, struct verdict_input *in)
{
	memset(in, 0, sizeof(*in));
	in->metric = c->metric;
	snprintf(in->metric_name, sizeof(in->metric_name), "%s", c->metric_name);
	in->n_arms = c->n_arms;
	for (size_t i = 0; i < c->n_arms; i++) {
		const struct arm_spec *s = &c->arms[i];
		struct verdict_arm *a = &in->arms[i];

		snprintf(a->name, sizeof(a->name), "%s", s->name);
		a->is_baseline = s->base;
		a->n_trials = s->n;
		a->n_oom_killed = s->oom;
		memcpy(a->primary, s->v, s->n * sizeof(double));
		a->has_secondary[VERDICT_SEC_ZSWPOUT_PAGES] = s->has_zswpout;
		memcpy(a->secondary[VERDICT_SEC_ZSWPOUT_PAGES], s->zswpout, s->n * sizeof(double));
		a->has_secondary[VERDICT_SEC_MAJOR_FAULTS] = s->has_majflt;
		memcpy(a->secondary[VERDICT_SEC_MAJOR_FAULTS], s->majflt, s->n * sizeof(double));
	}
}

static const struct vcase *find_case(const char *name)
{
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++)
		if (!strcmp(cases[i].name, name))
			return &cases[i];
	fail_msg("no case %s", name);
	return NULL;
}

static bool has_reason(const struct verdict_result *r, const char *want)
{
	for (size_t i = 0; i < r->n_reasons; i++)
		if (!strcmp(r->reasons[i], want))
			return true;
	return false;
}

static void dump_reasons(const struct verdict_result *r)
{
	for (size_t i = 0; i < r->n_reasons; i++)
		print_message("  reason %zu: %s\n", i, r->reasons[i]);
}

static void assert_close(double got, double want, double rel, const char *what)
{
	double tol = rel * fabs(want);

	if (tol < 1e-12)
		tol = 1e-12;
	if (!(fabs(got - want) <= tol))
		fail_msg("%s: got %.17g, want %.17g", what, got, want);
}

static void test_verdict_table(void **state)
{
	static struct verdict_input in;
	static struct verdict_result r;

	(void)state;
	for (size_t k = 0; k < ARRAY_SIZE(cases); k++) {
		const struct vcase *c = &cases[k];
		struct st_err e = { 0 };
		bool decisive = !c->decisive;

		build(c, &in);
		if (verdict_compute(&in, NULL, &r, &e) != 0)
			fail_msg("%s: %s", c->name, e.msg);
		if (r.kind != c->kind || r.chosen != (c->kind == VERDICT_KEEP ? 0 : c->chosen) ||
		    r.confidence != c->conf || r.decisive != c->decisive) {
			dump_reasons(&r);
			fail_msg("%s: got %s/%d/%s/decisive=%d", c->name,
				 verdict_kind_name(r.kind), r.chosen,
				 verdict_confidence_name(r.confidence), r.decisive);
		}
		assert_int_equal(r.n_arms, c->n_arms);
		for (size_t i = 0; i < c->n_arms; i++)
			if (r.arms[i].status != c->status[i]) {
				dump_reasons(&r);
				fail_msg("%s: arm %zu is %s, want %s", c->name, i,
					 verdict_arm_status_name(r.arms[i].status),
					 verdict_arm_status_name(c->status[i]));
			}
		assert_true(r.n_reasons >= 1);
		if (strcmp(r.reasons[0], c->headline)) {
			dump_reasons(&r);
			fail_msg("%s: headline\n  got  %s\n  want %s", c->name, r.reasons[0], c->headline);
		}
		if (c->also && !has_reason(&r, c->also)) {
			dump_reasons(&r);
			fail_msg("%s: missing reason \"%s\"", c->name, c->also);
		}
		if (c->check != NONE) {
			const struct verdict_arm_result *a = &r.arms[c->check];

			assert_true(a->compared);
			assert_close(a->effect_pct, c->effect, 1e-9, c->name);
			assert_close(a->ci_low_pct, c->lo, 1e-9, c->name);
			assert_close(a->ci_high_pct, c->hi, 1e-9, c->name);
			assert_close(a->p_welch, c->p_welch, 1e-8, c->name);
			assert_close(a->p_perm, c->p_perm, 1e-12, c->name);
			assert_true(a->perm_exact);
		}
		/* the stopping helper agrees with the full verdict */
		assert_int_equal(verdict_is_decisive(&in, NULL, &decisive, &e), 0);
		assert_int_equal(decisive, c->decisive);
	}
}

static void test_verdict_arm_fields(void **state)
{
	static struct verdict_input in;
	static struct verdict_result r;
	struct st_err e = { 0 };
	const struct verdict_secondary_result *sec;

	(void)state;
	/* "secondary veto": zswpout +40 %, [stdlib] welch p 1.6785718879145748e-10 */
	build(find_case("secondary veto"), &in);
	assert_int_equal(verdict_compute(&in, NULL, &r, &e), 0);
	sec = &r.arms[1].sec[VERDICT_SEC_ZSWPOUT_PAGES];
	assert_true(sec->compared && sec->significant && sec->vetoes);
	assert_close(sec->change_pct, 40.0, 1e-12, "zswpout change");
	assert_close(sec->p, 1.6785718879145748e-10, 1e-8, "zswpout p");
	assert_close(sec->mean, 14000.0, 1e-15, "zswpout mean");
	assert_false(r.arms[1].sec[VERDICT_SEC_CPU_NS_PER_OP].compared);
	/* per-arm summary: baseline mean 1000, sd sqrt(62.5) */
	assert_close(r.arms[0].mean, 1000.0, 1e-15, "baseline mean");
	assert_close(r.arms[0].stddev, sqrt(62.5), 1e-14, "baseline sd");
	assert_false(r.arms[0].compared);
	assert_true(isnan(r.arms[0].effect_pct));
	assert_int_equal(r.baseline, 0);

	/* "more major faults do not veto": +700 % and significant, not in the mask */
	build(find_case("more major faults do not veto"), &in);
	assert_int_equal(verdict_compute(&in, NULL, &r, &e), 0);
	sec = &r.arms[1].sec[VERDICT_SEC_MAJOR_FAULTS];
	assert_true(sec->compared && sec->significant);
	assert_false(sec->vetoes);
	assert_close(sec->change_pct, 700.0, 1e-12, "major faults change");

	/* ...but it does when the caller puts major faults in the mask */
	{
		struct verdict_opts o;

		verdict_opts_init(&o);
		o.veto_mask |= VERDICT_SEC_BIT(VERDICT_SEC_MAJOR_FAULTS);
		assert_int_equal(verdict_compute(&in, &o, &r, &e), 0);
		assert_int_equal(r.kind, VERDICT_KEEP);
		assert_int_equal(r.arms[1].status, VERDICT_ARM_VETOED);
		assert_true(has_reason(&r, "pc0 wins throughput (12.0 % faster) but costs 700.0 % more major faults (p < 0.001): vetoed"));
	}
}

/* A cost that grows less than the win is paid: a 2x faster arm with 40 % more zswpout. */
static void test_cost_below_win_does_not_veto(void **state)
{
	static struct verdict_input in;
	static struct verdict_result r;
	static const double tp3[] = PC3_TP, zs3[] = PC3_ZSWPOUT;
	struct st_err e = { 0 };

	(void)state;
	memset(&in, 0, sizeof(in));
	in.metric = VERDICT_METRIC_THROUGHPUT;
	snprintf(in.metric_name, sizeof(in.metric_name), "throughput");
	in.n_arms = 2;
	for (int a = 0; a < 2; a++) {
		struct verdict_arm *arm = &in.arms[a];

		snprintf(arm->name, sizeof(arm->name), "%s", a ? "pc0" : "pc3");
		arm->is_baseline = a == 0;
		arm->n_trials = 5;
		arm->has_secondary[VERDICT_SEC_ZSWPOUT_PAGES] = true;
		for (int t = 0; t < 5; t++) {
			arm->primary[t] = a ? 2.0 * tp3[t] : tp3[t];		/* +100 % */
			arm->secondary[VERDICT_SEC_ZSWPOUT_PAGES][t] = a ? 1.4 * zs3[t] : zs3[t];	/* +40 % */
		}
	}
	assert_int_equal(verdict_compute(&in, NULL, &r, &e), 0);
	assert_true(r.arms[1].sec[VERDICT_SEC_ZSWPOUT_PAGES].significant);
	assert_close(r.arms[1].sec[VERDICT_SEC_ZSWPOUT_PAGES].change_pct, 40.0, 1e-9, "zswpout change");
	assert_false(r.arms[1].sec[VERDICT_SEC_ZSWPOUT_PAGES].vetoes);
	assert_int_equal(r.arms[1].status, VERDICT_ARM_BETTER);
	assert_int_equal(r.kind, VERDICT_CHANGE);
	assert_int_equal(r.chosen, 1);
}

/*
 * Holm's correction: an arm significant alone (p ~ 0.032) is not once a
 * second arm (p ~ 0.043) is compared too: 0.032 is not below 0.05 / 2.
 */
static void fill_arm(struct verdict_arm *arm, const char *name, bool base, const double *v)
{
	snprintf(arm->name, sizeof(arm->name), "%s", name);
	arm->is_baseline = base;
	arm->n_trials = 5;
	for (int t = 0; t < 5; t++)
		arm->primary[t] = v[t];
}

static void test_holm_correction(void **state)
{
	static struct verdict_input in;
	static struct verdict_result r;
	static const double base[] = { 1000, 1100, 900, 1050, 950 };
	static const double a1[] = { 1130, 1230, 1030, 1180, 1080 };	/* t = 2.6, df 8 */
	static const double a2[] = { 1120, 1220, 1020, 1170, 1070 };	/* t = 2.4, df 8 */
	struct st_err e = { 0 };

	(void)state;
	memset(&in, 0, sizeof(in));
	in.metric = VERDICT_METRIC_THROUGHPUT;
	snprintf(in.metric_name, sizeof(in.metric_name), "throughput");
	in.n_arms = 2;
	fill_arm(&in.arms[0], "pc3", true, base);
	fill_arm(&in.arms[1], "pc1", false, a1);
	assert_int_equal(verdict_compute(&in, NULL, &r, &e), 0);
	/* [mpmath] two-sided p for t = 2.6, df = 8: I_{8/(8+t^2)}(4, 1/2) */
	assert_close(r.arms[1].p_welch, 0.0316178115645298, 1e-9, "p alone");
	assert_true(r.arms[1].significant);
	assert_false(r.arms[1].holm_demoted);
	assert_close(r.arms[1].alpha_used, 0.05, 0, "alpha alone");

	in.n_arms = 3;
	fill_arm(&in.arms[2], "pc0", false, a2);
	assert_int_equal(verdict_compute(&in, NULL, &r, &e), 0);
	assert_close(r.arms[1].alpha_used, 0.025, 1e-15, "holm threshold, smallest p");
	assert_false(r.arms[1].significant);
	assert_true(r.arms[1].holm_demoted);
	/* [mpmath] t = 2.4, df = 8: 0.0431767278278467 */
	assert_close(r.arms[2].p_welch, 0.0431767278278467, 1e-9, "p second arm");
	assert_false(r.arms[2].significant);
	assert_true(r.arms[2].holm_demoted);
	assert_int_not_equal(r.kind, VERDICT_CHANGE);
	assert_true(has_reason(&r, "pc1: p = 0.032 would be significant alone, but not below 0.025, Holm's threshold for this arm with several arms compared"));
}

static void test_verdict_options(void **state)
{
	static struct verdict_input in;
	static struct verdict_result r;
	struct verdict_opts o;
	struct st_err e = { 0 };

	(void)state;
	verdict_opts_init(&o);
	assert_close(o.min_effect_pct, 2.0, 0, "default min effect");
	assert_close(o.alpha, 0.05, 0, "default alpha");
	assert_close(o.veto_pct, 25.0, 0, "default veto");
	assert_int_equal(o.min_trials, 3);

	/* "significant but below the minimum effect" becomes a change at 0.5 % */
	build(find_case("significant but below the minimum effect"), &in);
	o.min_effect_pct = 0.5;
	assert_int_equal(verdict_compute(&in, &o, &r, &e), 0);
	assert_int_equal(r.kind, VERDICT_CHANGE);
	assert_int_equal(r.chosen, 1);
	assert_string_equal(r.reasons[0],
			    "pc1 is 1.0 % faster than pc3 (95 % CI 0.8 % .. 1.2 %, p < 0.001, n = 6 vs 6)");

	/* alpha 0.01 gives a 99 % interval and the same verdict as "noisy" */
	build(find_case("noisy"), &in);
	verdict_opts_init(&o);
	o.alpha = 0.01;
	assert_int_equal(verdict_compute(&in, &o, &r, &e), 0);
	assert_int_equal(r.kind, VERDICT_INCONCLUSIVE);
	assert_non_null(strstr(r.reasons[1], "99 % CI"));
}

static void test_verdict_errors(void **state)
{
	static struct verdict_input in;
	static struct verdict_result r;
	struct verdict_opts o;
	struct st_err e = { 0 };

	(void)state;
	build(find_case("clear win, lower is better"), &in);
	in.arms[0].is_baseline = false;
	assert_int_equal(verdict_compute(&in, NULL, &r, &e), -EINVAL);
	assert_string_equal(e.msg, "verdict: 0 arms marked as the current setting, need exactly 1");

	err_reset(&e);
	build(find_case("clear win, lower is better"), &in);
	in.arms[1].is_baseline = true;
	assert_int_equal(verdict_compute(&in, NULL, &r, &e), -EINVAL);
	assert_string_equal(e.msg, "verdict: 2 arms marked as the current setting, need exactly 1");

	err_reset(&e);
	build(find_case("clear win, lower is better"), &in);
	in.arms[1].primary[2] = NAN;
	assert_int_equal(verdict_compute(&in, NULL, &r, &e), -EINVAL);
	assert_string_equal(e.msg, "verdict: arm pc0 trial 3: wall time is not a finite number");

	err_reset(&e);
	build(find_case("secondary veto"), &in);
	in.arms[0].secondary[VERDICT_SEC_ZSWPOUT_PAGES][0] = INFINITY;
	assert_int_equal(verdict_compute(&in, NULL, &r, &e), -EINVAL);
	assert_string_equal(e.msg, "verdict: arm pc3 trial 1: zswpout_pages is not a finite number");

	err_reset(&e);
	build(find_case("clear win, lower is better"), &in);
	in.arms[1].n_trials = VERDICT_TRIALS_MAX + 1;
	assert_int_equal(verdict_compute(&in, NULL, &r, &e), -EINVAL);

	err_reset(&e);
	build(find_case("clear win, lower is better"), &in);
	in.n_arms = 0;
	assert_int_equal(verdict_compute(&in, NULL, &r, &e), -EINVAL);

	err_reset(&e);
	build(find_case("clear win, lower is better"), &in);
	verdict_opts_init(&o);
	o.alpha = 0.0;
	assert_int_equal(verdict_compute(&in, &o, &r, &e), -EINVAL);
	verdict_opts_init(&o);
	o.min_trials = 1;
	assert_int_equal(verdict_compute(&in, &o, &r, &e), -EINVAL);
	verdict_opts_init(&o);
	o.min_effect_pct = NAN;
	assert_int_equal(verdict_compute(&in, &o, &r, &e), -EINVAL);
	assert_int_equal(verdict_compute(NULL, NULL, &r, &e), -EINVAL);
}

static void test_reasons_overflow(void **state)
{
	static struct verdict_input in;
	static struct verdict_result r;
	struct st_err e = { 0 };

	(void)state;
	/* 16 arms: the headline, the short baseline, the one-trial arm1 and
	 * 14 OOM-killed arms make 17 reasons for 16 slots */
	memset(&in, 0, sizeof(in));
	in.metric = VERDICT_METRIC_WALL_TIME;
	in.n_arms = VERDICT_ARMS_MAX;
	for (size_t i = 0; i < VERDICT_ARMS_MAX; i++) {
		struct verdict_arm *a = &in.arms[i];

		snprintf(a->name, sizeof(a->name), "arm%zu", i);
		a->is_baseline = i == 0;
		a->n_trials = i == 0 ? 2 : 1;
		a->primary[0] = 100.0;
		a->primary[1] = 110.0;
		a->n_oom_killed = i <= 1 ? 0 : 1;
	}
	assert_int_equal(verdict_compute(&in, NULL, &r, &e), 0);
	assert_int_equal(r.kind, VERDICT_INCONCLUSIVE);
	assert_int_equal(r.n_reasons, VERDICT_REASONS_MAX);
	assert_int_equal(r.n_reasons_dropped, 1);
	assert_string_equal(r.reasons[1], "arm0 (current): only 2 completed trials, need at least 3");
	assert_string_equal(r.reasons[2], "arm1: only 1 completed trial, need at least 3");
	assert_int_equal(r.arms[1].status, VERDICT_ARM_TOO_FEW);
}

struct decisive_case {
	bool compared, significant;
	double lo, hi;
	bool want;
};

static void test_comparison_decisive(void **state)
{
	/* min effect 2 %; the definition in advisor.h, case by case */
	static const struct decisive_case cases_d[] = {
		{ true, true, 2.5, 9.0, true },		/* real gain >= m */
		{ true, true, 2.0, 9.0, true },		/* boundary counts */
		{ true, true, 0.4, 1.9, true },		/* real but small gain */
		{ true, true, -9.0, -3.0, true },	/* real loss */
		{ true, false, -1.5, 1.5, true },	/* equivalent */
		{ true, false, -4.0, 6.0, false },	/* could be anything */
		{ true, true, 0.5, 4.0, false },	/* real, but is it >= m? */
		{ true, false, -5.0, 1.0, false },	/* a 5 % loss not excluded */
		{ false, true, 3.0, 4.0, false },	/* not compared */
	};

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(cases_d); i++) {
		struct verdict_arm_result a;

		memset(&a, 0, sizeof(a));
		a.compared = cases_d[i].compared;
		a.significant = cases_d[i].significant;
		a.ci_low_pct = cases_d[i].lo;
		a.ci_high_pct = cases_d[i].hi;
		if (verdict_comparison_decisive(&a, 2.0) != cases_d[i].want)
			fail_msg("decisive case %zu: want %d", i, cases_d[i].want);
	}
	assert_false(verdict_comparison_decisive(NULL, 2.0));
}

static void test_names(void **state)
{
	(void)state;
	assert_string_equal(verdict_kind_name(VERDICT_CHANGE), "change");
	assert_string_equal(verdict_confidence_name(VERDICT_CONF_HIGH), "high");
	assert_string_equal(verdict_arm_status_name(VERDICT_ARM_OOM_FAILED), "oom_failed");
	assert_string_equal(verdict_secondary_name(VERDICT_SEC_WASTED_RA_PAGES), "wasted_ra_pages");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_verdict_table),
		cmocka_unit_test(test_verdict_arm_fields),
		cmocka_unit_test(test_cost_below_win_does_not_veto),
		cmocka_unit_test(test_holm_correction),
		cmocka_unit_test(test_verdict_options),
		cmocka_unit_test(test_verdict_errors),
		cmocka_unit_test(test_reasons_overflow),
		cmocka_unit_test(test_comparison_decisive),
		cmocka_unit_test(test_names),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
