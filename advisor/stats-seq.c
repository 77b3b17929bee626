/*
 * stats-seq.c - statistics for sequential, outcome-aware verdicts: the
 * normal distribution, group-sequential crossing probabilities and
 * Lan-DeMets O'Brien-Fleming bounds, Fisher's exact test, MAD outliers and
 * DerSimonian-Laird pooling. Contracts are in include/swaptune/advisor.h.
 */
#include <errno.h>
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
