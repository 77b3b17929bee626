/*
 * randtest.c - the sequential sign-flip randomisation engine shared by the
 * probe's verdict and switchback (contract and argument in
 * include/swaptune/randtest.h). A pattern's statistic is summed from byte
 * tables: eight contrasts' signed scores for each of the 256 sign
 * combinations, so a look costs N * n / 8 additions.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "swaptune/randtest.h"

/* the engine's own stream of drawn patterns, the same in every call */
#define RT_SEED_FIXED	0x7a3c5e9b1d2f4a68ULL

static uint64_t sm64(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

struct pool {
	bool exact;
	uint64_t n;		/* patterns: the observed one is pattern 0 */
	uint64_t seed;
};

/*
 * A per-thread memo of the survivors after a look of a drawn pool, keyed
 * by everything they depend on (the design up to that look, its contrasts,
 * shift, sign): a caller that judges look after look of one run (the
 * probe's engine, the simulator) pays for each look once. Drawn pools of
 * the default size only; an entry is never wrong, at worst missing.
 */
#define MEMO_ENTRIES	8
#define MEMO_WORDS	((RT_DRAWS_DEFAULT + 1) / 64)

struct memo {
	uint64_t key;
	size_t look;
	uint64_t stopped;
	uint64_t alive[MEMO_WORDS];
};

static _Thread_local struct memo memo[MEMO_ENTRIES];
static _Thread_local unsigned memo_next;

static uint64_t mix(uint64_t h, uint64_t v)
{
	h ^= v + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2);
	return h * 0xff51afd7ed558ccdULL;
}

static uint64_t bits_of(double x)
{
	uint64_t u;

	memcpy(&u, &x, sizeof(u));
	return u;
}

/* The key of look j given the key of look j - 1 (or the start). */
static uint64_t look_key(uint64_t h, const struct rt_design *d, size_t j, const double *x)
{
	size_t from = j ? d->n_at[j - 1] : 0;

	h = mix(h, (uint64_t)j);
	h = mix(h, d->n_at[j]);
	h = mix(h, bits_of(d->spend_cum[j]));
	for (size_t b = from; b < d->n_at[j]; b++)
		h = mix(h, bits_of(x[b]));
	return h;
}

static const struct memo *memo_find(uint64_t key, size_t look)
{
	for (unsigned i = 0; i < MEMO_ENTRIES; i++)
		if (memo[i].key == key && memo[i].look == look && key)
			return &memo[i];
	return NULL;
}

static void memo_put(uint64_t key, size_t look, uint64_t stopped, const uint64_t *alive)
{
	struct memo *m = &memo[memo_next++ % MEMO_ENTRIES];

	m->key = key;
	m->look = look;
	m->stopped = stopped;
	memcpy(m->alive, alive, sizeof(m->alive));
}

uint64_t rt_pool_size(const struct rt_design *d, size_t n)
{
	unsigned draws = d->draws ? d->draws : RT_DRAWS_DEFAULT;

	if (n <= d->enum_max && d->enum_max <= RT_ENUM_MAX)
		return (uint64_t)1 << n;
	return (uint64_t)draws + 1;
}

/*
 * Word wi (contrasts 64 wi .. 64 wi + 63) of pattern i's signs, a set bit
 * flipping a contrast: the enumeration index itself, or a draw that depends
 * on (seed, i, wi) only. For wi 0 the draw is the one switchback drew
 * before the engine was shared, so its verdicts did not move.
 */
static uint64_t pattern_word(const struct pool *p, uint64_t i, size_t wi)
{
	uint64_t st;

	if (p->exact)
		return wi == 0 ? i : 0;
	if (i == 0)
		return 0;
	st = p->seed + i * 0xd1342543de82ef95ULL + (uint64_t)wi * 0x8cb92ba72f3d8dd7ULL;
	return sm64(&st);
}

static double kth_largest(double *v, size_t n, size_t k);

/* median |x[0..m)| (m >= 1), using tmp (which may be x itself) */
static double median_abs(const double *x, size_t m, double *tmp)
{
	double hi;

	for (size_t i = 0; i < m; i++)
		tmp[i] = fabs(x[i]);
	hi = kth_largest(tmp, m, (m - 1) / 2);
	if (m % 2)
		return hi;
	/* the next one down: the largest of the lower half, which quickselect left below */
	{
		double lo = -INFINITY;

		for (size_t i = (m - 1) / 2 + 1; i < m; i++)
			lo = fmax(lo, tmp[i]);
		return 0.5 * (hi + lo);
	}
}

/* Signed scores of x[0..m) into a[]; tmp is scratch of m doubles. */
static void scores(enum rt_score score, const double *x, size_t m, double *a, double *tmp)
{
	double s;

	if (score == RT_SCORE_SUM || m == 0) {
		memcpy(a, x, m * sizeof(*a));
		return;
	}
	{
		/*
		 * Two estimates of the noise's sd from |x| alone, both right for
		 * normal noise with no effect: the median of |x|, and the median
		 * distance of |x| from that median (0.40 sd). The first grows with
		 * the effect itself, the second does not: with a tight core of
		 * rounds and a few wild ones the smaller keeps the core's scale.
		 */
		double med = median_abs(x, m, tmp), mad;

		for (size_t i = 0; i < m; i++)
			tmp[i] = fabs(x[i]) - med;
		mad = median_abs(tmp, m, tmp);
		s = med / 0.6745;
		if (mad > 0.0 && mad / 0.40 < s)
			s = mad / 0.40;
	}
	if (!(s > 0.0)) {
		/* more than half the contrasts are 0: the smallest nonzero one sets the scale */
		s = INFINITY;
		for (size_t i = 0; i < m; i++)
			if (x[i] != 0.0 && fabs(x[i]) < s)
				s = fabs(x[i]);
		if (!isfinite(s))
			s = 1.0;
	}
	for (size_t i = 0; i < m; i++) {
		double u = fabs(x[i]) / s;

		a[i] = copysign(u < RT_HUBER_K ? u : RT_HUBER_K, x[i]);
		if (x[i] == 0.0)
			a[i] = 0.0;
	}
}

/* Byte tables of a[0..m): table[g][mask] = sum over the group's 8 of (bit set ? -a : a). */
static size_t build_tables(const double *a, size_t m, double (*table)[256])
{
	size_t groups = (m + 7) / 8;

	for (size_t g = 0; g < groups; g++) {
		double v[8] = { 0 }, all = 0.0;

		for (size_t i = 0; i < 8 && 8 * g + i < m; i++) {
			v[i] = a[8 * g + i];
			all += v[i];
		}
		table[g][0] = all;
		for (unsigned mask = 1; mask < 256; mask++) {
			unsigned low = (unsigned)__builtin_ctz(mask);

			table[g][mask] = table[g][mask & (mask - 1)] - 2.0 * v[low];
		}
	}
	return groups;
}

static double pattern_stat(const struct pool *p, uint64_t i, size_t groups, double (*table)[256])
{
	double s = 0.0;
	uint64_t word = 0;

	for (size_t g = 0; g < groups; g++) {
		if (g % 8 == 0)
			word = pattern_word(p, i, g / 8);
		s += table[g][(word >> (8 * (g % 8))) & 0xff];
	}
	return s;
}

/* The (k+1)-th largest of v[0..n) (k < n), by quickselect; v is reordered. */
static double kth_largest(double *v, size_t n, size_t k)
{
	size_t lo = 0, hi = n - 1;

	while (lo < hi) {
		double pivot = v[lo + (hi - lo) / 2];
		size_t i = lo, j = hi;

		while (i <= j) {
			while (v[i] > pivot)
				i++;
			while (v[j] < pivot)
				j--;
			if (i <= j) {
				double t = v[i];

				v[i] = v[j];
				v[j] = t;
				i++;
				if (j == 0)
					break;
				j--;
			}
		}
		if (k <= j)
			hi = j;
		else if (k >= i)
			lo = i;
		else
			return v[k];
	}
	return v[k];
}

static bool is_alive(const uint64_t *alive, uint64_t i)
{
	return alive[i / 64] >> (i % 64) & 1;
}

static int check_design(const struct rt_design *d, size_t n)
{
	if (!d || d->n_looks < 1 || d->n_looks > RT_LOOKS_MAX || n > RT_CONTRASTS_MAX ||
	    d->draws > RT_DRAWS_MAX || (d->score != RT_SCORE_SUM && d->score != RT_SCORE_HUBER))
		return -EINVAL;
	for (size_t j = 0; j < d->n_looks; j++) {
		if (d->n_at[j] > RT_CONTRASTS_MAX || !(d->spend_cum[j] >= 0.0 && d->spend_cum[j] < 0.5))
			return -EINVAL;
		if (j && (d->n_at[j] < d->n_at[j - 1] || d->spend_cum[j] < d->spend_cum[j - 1]))
			return -EINVAL;
	}
	return 0;
}

/* The p-values of the observed pattern at look j, whose statistics are in w->s. */
static void observed_ps(const struct pool *p, const struct rt_work *w, uint64_t stopped_before,
			double tol, struct rt_result *out)
{
	uint64_t ge_all = 0, ge_alive = 0;
	double obs = w->s[0];

	for (uint64_t i = 0; i < p->n; i++)
		if (w->s[i] >= obs - tol) {
			ge_all++;
			ge_alive += is_alive(w->alive, i);
		}
	out->stat = obs;
	out->p_fixed = (double)ge_all / (double)p->n;
	out->p_survivors = (double)ge_alive / (double)p->n;
	out->p_stage = (double)(stopped_before + ge_alive) / (double)p->n;
}

int rt_seq_test(const struct rt_design *d, const struct rt_contrasts *cs, double shift, int sign,
		struct rt_work *w, struct rt_result *out)
{
	const double *c = cs ? cs->c : NULL;
	size_t n = cs ? cs->n : 0;
	struct pool p;
	double x[RT_CONTRASTS_MAX], sabs = 0.0;
	uint64_t stopped = 0, key[RT_LOOKS_MAX], h;
	size_t last, start = 0;
	bool memo_ok;

	memset(out, 0, sizeof(*out));
	if (!w || !c || check_design(d, n) < 0 || (sign != 1 && sign != -1))
		return -EINVAL;
	for (size_t b = 0; b < n; b++) {
		x[b] = sign * (c[b] - shift);
		if (!isfinite(x[b]))
			return -EINVAL;
	}
	/* the looks taken: those the contrasts reach */
	for (last = 0; last + 1 < d->n_looks && d->n_at[last + 1] <= n; last++)
		;
	if (d->n_at[last] > n)
		return -EINVAL;
	p.n = rt_pool_size(d, d->n_at[last]);
	p.exact = d->n_at[last] <= d->enum_max && d->enum_max <= RT_ENUM_MAX;
	p.seed = (d->seed ? d->seed : RT_SEED_FIXED) ^ 0x243f6a8885a308d3ULL;
	out->n_pool = p.n;
	out->exact = p.exact;
	out->p_floor = 1.0 / (double)p.n;
	memset(w->alive, 0xff, (size_t)((p.n + 63) / 64) * sizeof(uint64_t));
	/* resume after the latest look a call before this one judged the same way */
	memo_ok = !p.exact && p.n == RT_DRAWS_DEFAULT + 1;
	h = mix(mix(p.seed, (uint64_t)d->score), p.n);
	for (size_t j = 0; j <= last; j++)
		key[j] = h = look_key(h, d, j, x);
	for (size_t j = last; memo_ok && j-- > 0;) {
		const struct memo *m = memo_find(key[j], j);

		if (m) {
			memcpy(w->alive, m->alive, sizeof(m->alive));
			stopped = m->stopped;
			start = j + 1;
			break;
		}
	}
	for (size_t j = start; j <= last; j++) {
		size_t m = d->n_at[j], groups, k = 0;
		int64_t allowed;
		double tol, u;

		scores(d->score, x, m, w->score, w->v);
		sabs = 0.0;
		for (size_t b = 0; b < m; b++)
			sabs += fabs(w->score[b]);
		tol = 1e-10 * (sabs + 1e-300);
		groups = build_tables(w->score, m, w->table);
		for (uint64_t i = 0; i < p.n; i++)
			w->s[i] = pattern_stat(&p, i, groups, w->table);
		allowed = (int64_t)floor(d->spend_cum[j] * (double)p.n + 1e-9) - (int64_t)stopped;
		for (uint64_t i = 0; i < p.n; i++)
			if (is_alive(w->alive, i))
				w->v[k++] = w->s[i];
		/* stop the survivors strictly above the (allowed + 1)-th largest */
		u = allowed <= 0 ? INFINITY : (size_t)allowed >= k ? -INFINITY :
		    kth_largest(w->v, k, (size_t)allowed);
		out->look = j;
		if (j == last || w->s[0] > u + tol)
			observed_ps(&p, w, stopped, tol, out);
		if (w->s[0] > u + tol) {
			out->rejects = true;
			out->reject_look = j;
			return 0;
		}
		if (j == last)
			break;
		for (uint64_t i = 0; i < p.n; i++)
			if (is_alive(w->alive, i) && w->s[i] > u + tol) {
				w->alive[i / 64] &= ~((uint64_t)1 << (i % 64));
				stopped++;
			}
		if (memo_ok)
			memo_put(key[j], j, stopped, w->alive);
	}
	return 0;
}

bool rt_rejects(enum rt_score score, const struct rt_contrasts *cs, double shift, int sign,
		double level, struct rt_work *w)
{
	const double *c = cs ? cs->c : NULL;
	size_t n = cs ? cs->n : 0;
	struct rt_design d = { .score = score, .n_looks = 1, .enum_max = 12 };
	struct pool p;
	double x[RT_CONTRASTS_MAX], sabs = 0.0, tol, obs;
	uint64_t allowed, count = 0;
	size_t groups;

	d.n_at[0] = (unsigned)n;
	d.spend_cum[0] = level;
	if (!w || !c || check_design(&d, n) < 0 || (sign != 1 && sign != -1))
		return false;
	for (size_t b = 0; b < n; b++) {
		x[b] = sign * (c[b] - shift);
		if (!isfinite(x[b]))
			return false;
	}
	p.n = rt_pool_size(&d, n);
	p.exact = n <= d.enum_max;
	p.seed = RT_SEED_FIXED ^ 0x243f6a8885a308d3ULL;
	allowed = (uint64_t)floor(level * (double)p.n + 1e-9);
	if (allowed == 0)
		return false;
	scores(score, x, n, w->score, w->v);
	for (size_t b = 0; b < n; b++)
		sabs += fabs(w->score[b]);
	tol = 1e-10 * (sabs + 1e-300);
	groups = build_tables(w->score, n, w->table);
	obs = pattern_stat(&p, 0, groups, w->table);
	/* rejects when at most `allowed` patterns, the observed among them, reach it */
	for (uint64_t i = 0; i < p.n; i++)
		if (pattern_stat(&p, i, groups, w->table) >= obs - tol && ++count > allowed)
			return false;
	return true;
}

double rt_p_one(enum rt_score score, const struct rt_contrasts *cs, double shift, int sign,
		struct rt_work *w)
{
	struct rt_design d = { .score = score, .n_looks = 1, .enum_max = 12 };
	struct rt_result r;

	if (!cs)
		return NAN;
	d.n_at[0] = (unsigned)cs->n;
	if (rt_seq_test(&d, cs, shift, sign, w, &r) < 0)
		return NAN;
	return r.p_fixed;
}

/* The observed statistic of c - shift (direction +1) with its own scores. */
static double observed_stat(enum rt_score score, const double *c, size_t n, double shift)
{
	double x[RT_CONTRASTS_MAX] = { 0 }, a[RT_CONTRASTS_MAX], tmp[RT_CONTRASTS_MAX], s = 0.0;

	for (size_t b = 0; b < n; b++)
		x[b] = c[b] - shift;
	scores(score, x, n, a, tmp);
	for (size_t b = 0; b < n; b++)
		s += a[b];
	return s;
}

double rt_z(enum rt_score score, const double *x, size_t n)
{
	double a[RT_CONTRASTS_MAX], tmp[RT_CONTRASTS_MAX], sa = 0.0, saa = 0.0;

	if (!x || n == 0 || n > RT_CONTRASTS_MAX)
		return NAN;
	scores(score, x, n, a, tmp);
	for (size_t b = 0; b < n; b++) {
		sa += a[b];
		saa += a[b] * a[b];
	}
	return saa > 0.0 ? sa / sqrt(saa) : 0.0;
}

double rt_estimate(enum rt_score score, const double *c, size_t n)
{
	double lo = INFINITY, hi = -INFINITY, sum = 0.0;

	if (!c || n == 0 || n > RT_CONTRASTS_MAX)
		return NAN;
	for (size_t b = 0; b < n; b++) {
		if (!isfinite(c[b]))
			return NAN;
		lo = fmin(lo, c[b]);
		hi = fmax(hi, c[b]);
		sum += c[b];
	}
	if (score == RT_SCORE_SUM || lo == hi)
		return score == RT_SCORE_SUM ? sum / (double)n : lo;
	/* the statistic falls from >= 0 at the smallest contrast to <= 0 at the largest */
	for (int it = 0; it < 100 && hi - lo > 1e-12 * (1.0 + fabs(lo) + fabs(hi)); it++) {
		double mid = 0.5 * (lo + hi), s = observed_stat(score, c, n, mid);

		if (s > 0.0)
			lo = mid;
		else if (s < 0.0)
			hi = mid;
		else
			return mid;
	}
	return 0.5 * (lo + hi);
}

static bool rejects_at(const struct rt_design *d, const double *c, size_t n, double shift, int sign,
		       struct rt_work *w)
{
	struct rt_result r;

	return rt_seq_test(d, &(struct rt_contrasts){ c, n }, shift, sign, w, &r) == 0 && r.rejects;
}

void rt_interval(const struct rt_design *d, const struct rt_contrasts *cs, double est,
		 struct rt_work *w, double *lo, double *hi)
{
	const double *c = cs ? cs->c : NULL;
	size_t n = cs ? cs->n : 0;
	double span = 0.0;

	*lo = -INFINITY;
	*hi = INFINITY;
	if (!c || n == 0 || !isfinite(est))
		return;
	for (size_t b = 0; b < n; b++)
		span = fmax(span, fabs(c[b] - est));
	span = 4.0 * span + 1e-6;
	for (int side = 0; side < 2; side++) {
		int sign = side ? -1 : 1;
		double in = est, out = est - sign * span;	/* not rejected, rejected */

		if (rejects_at(d, c, n, in, sign, w))
			in = est + sign * span;	/* the estimate itself rejected: search the far side */
		if (!rejects_at(d, c, n, out, sign, w) || rejects_at(d, c, n, in, sign, w))
			continue;
		for (int it = 0; it < 50 && fabs(in - out) > 1e-9 * (1.0 + fabs(est)); it++) {
			double mid = 0.5 * (in + out);

			if (rejects_at(d, c, n, mid, sign, w))
				out = mid;
			else
				in = mid;
		}
		*(side ? hi : lo) = 0.5 * (in + out);
	}
}
