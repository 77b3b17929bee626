/*
 * stats-seq.c - statistics for sequential, outcome-aware verdicts: the
 * normal distribution, spending functions, the exact sequential sign test
 * and Clopper-Pearson intervals for failures, MAD outliers and
 * DerSimonian-Laird pooling; group-sequential normal crossing probabilities
 * (the power approximation and the stage bounds of a recipe's runs); and,
 * for the v2 method the simulator keeps, Lan-DeMets O'Brien-Fleming bounds
 * and Fisher's exact test. Contracts are in
 * include/swaptune/advisor.h.
 */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "swaptune/advisor.h"

/* Simpson points per look, odd: 101 agrees with 401 to ~1e-6 in crossing
 * probability and 1e-5 in the bounds, at 1/16 of the cost. */
#define GS_GRID		101
#define GS_SD_BELOW	10.0	/* grid starts this many sd below the mean */

double stats_norm_cdf(double z)
{
	return 0.5 * erfc(-z / M_SQRT2);
}

double stats_norm_quantile(double p)
{
	double lo = -40.0, hi = 40.0;

	if (!(p > 0.0 && p < 1.0))
		return NAN;
	/* Bisection on the smaller tail keeps relative accuracy for tiny p. */
	if (p > 0.5)
		return -stats_norm_quantile(1.0 - p);
	for (int i = 0; i < 200 && hi - lo > 1e-14; i++) {
		double mid = 0.5 * (lo + hi);

		if (0.5 * erfc(-mid / M_SQRT2) < p)
			lo = mid;
		else
			hi = mid;
	}
	return 0.5 * (lo + hi);
}

static double norm_pdf(double z)
{
	return exp(-0.5 * z * z) / sqrt(2.0 * M_PI);
}

/* Simpson weights for GS_GRID points spaced h. */
static double simpson_w(size_t i, double h)
{
	if (i == 0 || i == GS_GRID - 1)
		return h / 3.0;
	return (i % 2 ? 4.0 : 2.0) * h / 3.0;
}

int stats_gs_cross(const double *t, const double *b, size_t k, double drift,
		   double *cross, struct st_err *e)
{
	double x[GS_GRID], f[GS_GRID], y[GS_GRID], g[GS_GRID];
	double h = 0.0, prev_t = 0.0;

	if (!t || !b || !cross || k < 1 || k > STATS_GS_LOOKS_MAX || !isfinite(drift))
		return err_set(e, -EINVAL, "group-sequential: bad arguments");
	for (size_t i = 0; i < k; i++)
		if (!(t[i] > prev_t && t[i] <= 1.0 + 1e-12) || !isfinite(b[i]))
			return err_set(e, -EINVAL, "group-sequential: information fractions must "
				       "increase in (0, 1] and bounds be finite");
		else
			prev_t = t[i];
	/* Score S(t) = Z sqrt(t) ~ Brownian motion with drift: S(t) ~ N(drift t, t). */
	for (size_t i = 0; i < k; i++) {
		double bs = b[i] * sqrt(t[i]);
		double dt = i ? t[i] - t[i - 1] : t[0];
		double sdt = sqrt(dt);
		double lo = drift * t[i] - GS_SD_BELOW * sqrt(t[i]);
		double hh;

		if (i == 0) {
			cross[0] = 1.0 - stats_norm_cdf((bs - drift * t[0]) / sdt);
		} else {
			double c = 0.0;

			for (size_t j = 0; j < GS_GRID; j++)
				c += simpson_w(j, h) * f[j] *
				     0.5 * erfc((bs - x[j] - drift * dt) / sdt / M_SQRT2);
			cross[i] = c;
		}
		if (i + 1 == k)
			break;
		if (lo > bs)
			lo = bs - 1e-9;
		hh = (bs - lo) / (GS_GRID - 1);
		for (size_t j = 0; j < GS_GRID; j++) {
			y[j] = lo + hh * (double)j;
			if (i == 0) {
				g[j] = norm_pdf((y[j] - drift * t[0]) / sdt) / sdt;
			} else {
				double s = 0.0;

				for (size_t m = 0; m < GS_GRID; m++)
					s += simpson_w(m, h) * f[m] *
					     norm_pdf((y[j] - x[m] - drift * dt) / sdt);
				g[j] = s / sdt;
			}
		}
		memcpy(x, y, sizeof(x));
		memcpy(f, g, sizeof(f));
		h = hh;
	}
	return 0;
}

int stats_gs_obf_bounds(const double *t, size_t k, double alpha, double *b,
			struct st_err *e)
{
	double cross[STATS_GS_LOOKS_MAX];
	double za, spent = 0.0;
	int rc;

	if (!t || !b || k < 1 || k > STATS_GS_LOOKS_MAX || !(alpha > 0.0 && alpha < 0.5))
		return err_set(e, -EINVAL, "obf bounds: bad arguments");
	za = stats_norm_quantile(1.0 - alpha / 2.0);
	for (size_t i = 0; i < k; i++) {
		double ti = i + 1 == k ? 1.0 : t[i];
		double target = 2.0 - 2.0 * stats_norm_cdf(za / sqrt(ti)) - spent;
		double lo = 0.0, hi = 40.0;

		if (i + 1 == k)
			target = alpha - spent;	/* the last look spends what is left */
		for (int it = 0; it < 100 && hi - lo > 1e-10; it++) {
			b[i] = 0.5 * (lo + hi);
			rc = stats_gs_cross(t, b, i + 1, 0.0, cross, e);
			if (rc < 0)
				return rc;
			if (cross[i] > target)
				lo = b[i];
			else
				hi = b[i];
		}
		b[i] = 0.5 * (lo + hi);
		rc = stats_gs_cross(t, b, i + 1, 0.0, cross, e);
		if (rc < 0)
			return rc;
		spent += cross[i];
	}
	return 0;
}

/* log C(n, k) */
static double lchoose(unsigned n, unsigned k)
{
	return lgamma((double)n + 1.0) - lgamma((double)k + 1.0) - lgamma((double)(n - k) + 1.0);
}

double stats_fisher_greater(unsigned x_a, unsigned n_a, unsigned x_b, unsigned n_b)
{
	unsigned m, hi;
	double p = 0.0, base;

	if (x_a > n_a || x_b > n_b || n_a + n_b == 0)
		return NAN;
	m = x_a + x_b;		/* events in total */
	hi = m < n_a ? m : n_a;
	base = lchoose(n_a + n_b, m);
	for (unsigned x = x_a; x <= hi; x++) {
		if (m - x > n_b)
			continue;
		p += exp(lchoose(n_a, x) + lchoose(n_b, m - x) - base);
	}
	return p > 1.0 ? 1.0 : p;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static double median_of(double *s, size_t n)
{
	qsort(s, n, sizeof(*s), cmp_double);
	return n % 2 ? s[n / 2] : 0.5 * (s[n / 2 - 1] + s[n / 2]);
}

size_t stats_mad_outliers(const double *x, size_t n, bool *flag)
{
	double s[STATS_SAMPLES_MAX], med, mad;
	size_t count = 0;

	if (flag)
		for (size_t i = 0; i < n && i < STATS_SAMPLES_MAX; i++)
			flag[i] = false;
	if (!x || n < 3 || n > STATS_SAMPLES_MAX)
		return 0;
	memcpy(s, x, n * sizeof(*s));
	med = median_of(s, n);
	for (size_t i = 0; i < n; i++)
		s[i] = fabs(x[i] - med);
	mad = median_of(s, n);
	if (!(mad > 0.0))
		return 0;
	for (size_t i = 0; i < n; i++) {
		bool out = fabs(0.6745 * (x[i] - med) / mad) > 3.5;

		if (flag)
			flag[i] = out;
		count += out;
	}
	return count;
}

int stats_pool_dl(const double *y, const double *v, size_t k, double level,
		  struct stats_pool *out, struct st_err *e)
{
	double sw = 0.0, sw2 = 0.0, swy = 0.0, fixed, q = 0.0, c, ws = 0.0, wsy = 0.0, z;

	if (!y || !v || !out || k < 1 || k > STATS_SAMPLES_MAX || !(level > 0.0 && level < 1.0))
		return err_set(e, -EINVAL, "pooling: need 1 to %d runs and a level in (0, 1)",
			       STATS_SAMPLES_MAX);
	for (size_t i = 0; i < k; i++) {
		if (!isfinite(y[i]) || !isfinite(v[i]) || !(v[i] > 0.0))
			return err_set(e, -EINVAL, "pooling: run %zu has no finite effect and "
				       "positive variance", i + 1);
		sw += 1.0 / v[i];
		sw2 += 1.0 / (v[i] * v[i]);
		swy += y[i] / v[i];
	}
	fixed = swy / sw;
	for (size_t i = 0; i < k; i++)
		q += (y[i] - fixed) * (y[i] - fixed) / v[i];
	memset(out, 0, sizeof(*out));
	out->k = k;
	out->q = q;
	c = sw - sw2 / sw;
	out->tau2 = k > 1 && c > 0.0 && q > (double)(k - 1) ? (q - (double)(k - 1)) / c : 0.0;
	out->i2 = q > 0.0 && q > (double)(k - 1) ? (q - (double)(k - 1)) / q : 0.0;
	for (size_t i = 0; i < k; i++) {
		double w = 1.0 / (v[i] + out->tau2);

		ws += w;
		wsy += w * y[i];
	}
	out->pooled = wsy / ws;
	out->se = sqrt(1.0 / ws);
	z = stats_norm_quantile(1.0 - (1.0 - level) / 2.0);
	out->ci_low = out->pooled - z * out->se;
	out->ci_high = out->pooled + z * out->se;
	return 0;
}

double stats_hsd_spend(double t, double gamma)
{
	if (!(t >= 0.0 && t <= 1.0) || !isfinite(gamma))
		return NAN;
	if (fabs(gamma) < 1e-9)
		return t;
	return -expm1(-gamma * t) / -expm1(-gamma);
}

double stats_binom_half_upper(unsigned x, unsigned n)
{
	double p = 0.0;

	if (x == 0)
		return 1.0;
	if (x > n)
		return 0.0;
	for (unsigned j = x; j <= n; j++)
		p += exp(lgamma((double)n + 1) - lgamma((double)j + 1) - lgamma((double)(n - j) + 1) -
			 (double)n * M_LN2);
	return p > 1.0 ? 1.0 : p;
}

/* The p with I_p(a, b) = target (bisection; I is increasing in p). */
static double beta_inv(double a, double b, double target)
{
	double lo = 0.0, hi = 1.0;

	for (int i = 0; i < 60 && hi - lo > 1e-13; i++) {
		double mid = 0.5 * (lo + hi);

		if (stats_beta_inc_reg(a, b, mid) < target)
			lo = mid;
		else
			hi = mid;
	}
	return 0.5 * (lo + hi);
}

int stats_clopper_pearson(unsigned x, unsigned n, double level, double *lo, double *hi)
{
	double a;

	if (!lo || !hi || n == 0 || x > n || !(level > 0.0 && level < 1.0))
		return -EINVAL;
	a = (1.0 - level) / 2.0;
	/* closed forms at the ends: I_p(1, n) = 1 - (1 - p)^n, I_p(n, 1) = p^n */
	*lo = x == 0 ? 0.0 : x == n ? pow(a, 1.0 / n) : beta_inv((double)x, (double)(n - x) + 1.0, a);
	*hi = x == n ? 1.0 : x == 0 ? 1.0 - pow(a, 1.0 / n) :
	      beta_inv((double)x + 1.0, (double)(n - x), 1.0 - a);
	return 0;
}

#define SIGN_DISC_MAX 256

int stats_sign_seq(const unsigned *disc, const unsigned *wins, size_t k, const double *alpha_cum,
		   struct stats_sign_seq *out, struct st_err *e)
{
	double dist[SIGN_DISC_MAX + 1], next[SIGN_DISC_MAX + 1], size = 0.0;
	unsigned prev = 0;

	if (!disc || !wins || !alpha_cum || !out || k < 1 || k > STATS_GS_LOOKS_MAX)
		return err_set(e, -EINVAL, "sign test: 1 to %d looks", STATS_GS_LOOKS_MAX);
	for (size_t i = 0; i < k; i++)
		if (disc[i] < (i ? disc[i - 1] : 0) || disc[i] > SIGN_DISC_MAX || wins[i] > disc[i] ||
		    !(alpha_cum[i] >= 0.0))
			return err_set(e, -EINVAL, "sign test: bad counts or levels at look %zu", i + 1);
	memset(out, 0, sizeof(*out));
	out->k = k;
	out->rejected_at = -1;
	out->p_stage = NAN;
	dist[0] = 1.0;
	for (size_t i = 0; i < k; i++) {
		unsigned m = disc[i] - prev, c;
		double tail = 0.0, pmf[SIGN_DISC_MAX + 1];

		/* W_i = W_{i-1} + Binomial(m, 1/2), over the paths not yet rejected */
		pmf[0] = ldexp(1.0, -(int)m);
		for (unsigned j = 0; j < m; j++)
			pmf[j + 1] = pmf[j] * (double)(m - j) / (double)(j + 1);
		for (unsigned w = 0; w <= disc[i]; w++)
			next[w] = 0.0;
		for (unsigned w = 0; w <= prev; w++) {
			if (dist[w] == 0.0)
				continue;
			for (unsigned j = 0; j <= m; j++)
				next[w + j] += dist[w] * pmf[j];
		}
		/* the smallest critical count whose cumulative size stays within alpha_cum[i] */
		c = disc[i] + 1;
		while (c > 0 && size + tail + next[c - 1] <= alpha_cum[i] * (1.0 + 1e-12)) {
			tail += next[c - 1];
			c--;
		}
		if (c == 0)	/* rejecting always: no count is evidence; keep c >= 1 */
			tail -= next[c++];
		out->crit[i] = c;
		if (out->rejected_at < 0 && (wins[i] >= c || i + 1 == k)) {
			double t = 0.0;

			for (unsigned w = wins[i]; w <= disc[i]; w++)
				t += next[w];
			out->p_stage = size + t;
			out->p_at = next[wins[i]];
			if (wins[i] >= c)
				out->rejected_at = (int)i;
		}
		size += tail;
		out->size[i] = size;
		for (unsigned w = 0; w <= disc[i]; w++)
			dist[w] = w >= c ? 0.0 : next[w];
		prev = disc[i];
	}
	if (out->p_stage > 1.0)
		out->p_stage = 1.0;
	return 0;
}
