/*
 * stats.c - the statistics behind the verdict: mean and standard deviation,
 * the Student-t distribution for non-integer degrees of freedom, Welch's
 * t-test with its confidence interval, and a seeded permutation test.
 * Contracts are in include/swaptune/advisor.h.
 */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "swaptune/advisor.h"

#define BETA_EPS	1e-15
#define BETA_TINY	1e-300
#define BETA_MAXIT	10000

static bool all_finite(const double *x, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!isfinite(x[i]))
			return false;
	return true;
}

double stats_mean(const double *x, size_t n)
{
	double sum = 0.0;

	if (n == 0 || !x || !all_finite(x, n))
		return NAN;
	/* Summing offsets from x[0] keeps identical samples exactly constant,
	 * which is what lets stats_welch() recognise zero variance. */
	for (size_t i = 1; i < n; i++)
		sum += x[i] - x[0];
	return x[0] + sum / (double)n;
}

double stats_stddev(const double *x, size_t n)
{
	double mean, ss = 0.0;

	if (n < 2 || !x)
		return NAN;
	mean = stats_mean(x, n);
	if (isnan(mean))
		return NAN;
	for (size_t i = 0; i < n; i++) {
		double d = x[i] - mean;

		ss += d * d;
	}
	return sqrt(ss / (double)(n - 1));
}

/* One modified-Lentz step with coefficient aa: updates c and d, returns the factor. */
static double lentz_step(double aa, double *c, double *d)
{
	*d = 1.0 + aa * *d;
	if (fabs(*d) < BETA_TINY)
		*d = BETA_TINY;
	*c = 1.0 + aa / *c;
	if (fabs(*c) < BETA_TINY)
		*c = BETA_TINY;
	*d = 1.0 / *d;
	return *d * *c;
}

/* Continued fraction for I_x(a, b), Numerical Recipes' betacf with the
 * modified Lentz method (an even and an odd step per m); NAN if it does not
 * converge. */
static double beta_cf(double a, double b, double x)
{
	double qab = a + b, qap = a + 1.0, qam = a - 1.0;
	double c = 1.0, d = 1.0 - qab * x / qap, h;

	if (fabs(d) < BETA_TINY)
		d = BETA_TINY;
	d = 1.0 / d;
	h = d;
	for (int m = 1; m <= BETA_MAXIT; m++) {
		double m2 = 2.0 * m, del;

		h *= lentz_step(m * (b - m) * x / ((qam + m2) * (a + m2)), &c, &d);
		del = lentz_step(-(a + m) * (qab + m) * x / ((a + m2) * (qap + m2)), &c, &d);
		h *= del;
		if (fabs(del - 1.0) < BETA_EPS)
			return h;
	}
	return NAN;
}

/* I_x(a, b) given both x and y = 1 - x, so callers that know y more
 * precisely than 1 - x (the t tail for large t) do not lose it. */
static double beta_inc_xy(double a, double b, double x, double y)
{
	double lbeta, front, cf;
	int sign;

	if (!(a > 0.0) || !(b > 0.0) || !isfinite(a) || !isfinite(b) ||
	    !(x >= 0.0) || !(x <= 1.0) || !(y >= 0.0) || !(y <= 1.0))
		return NAN;
	if (x == 0.0)
		return 0.0;
	if (y == 0.0)
		return 1.0;
	/* lgamma_r: plain lgamma() writes the global signgam. */
	lbeta = lgamma_r(a + b, &sign) - lgamma_r(a, &sign) - lgamma_r(b, &sign);
	front = exp(lbeta + a * log(x) + b * log(y));
	/* The fraction converges fast only on this side of the mean; use the
	 * symmetry I_x(a, b) = 1 - I_y(b, a) on the other. */
	if (x < (a + 1.0) / (a + b + 2.0)) {
		cf = beta_cf(a, b, x);
		return front * cf / a;
	}
	cf = beta_cf(b, a, y);
	return 1.0 - front * cf / b;
}

double stats_beta_inc_reg(double a, double b, double x)
{
	return beta_inc_xy(a, b, x, 1.0 - x);
}

/* P(T > |t|) for the Student-t. */
static double t_upper_tail(double t, double df)
{
	double t2 = t * t;

	if (isinf(t))
		return 0.0;
	return 0.5 * beta_inc_xy(df / 2.0, 0.5, df / (df + t2), t2 / (df + t2));
}

static bool df_valid(double df)
{
	return isfinite(df) && df > 0.0;
}

double stats_t_cdf(double t, double df)
{
	double tail;

	if (!df_valid(df) || isnan(t))
		return NAN;
	tail = t_upper_tail(t, df);
	return t > 0.0 ? 1.0 - tail : tail;
}

double stats_t_p_two_sided(double t, double df)
{
	double p;

	if (!df_valid(df) || isnan(t))
		return NAN;
	p = 2.0 * t_upper_tail(t, df);
	return p > 1.0 ? 1.0 : p;
}

double stats_t_quantile(double p, double df)
{
	double target, lo = 0.0, hi = 1.0;

	if (!df_valid(df) || !(p > 0.0) || !(p < 1.0))
		return NAN;
	if (p == 0.5)
		return 0.0;
	if (p < 0.5)
		return -stats_t_quantile(1.0 - p, df);
	/* Solve on the upper tail rather than the CDF: the tail keeps its
	 * precision where 1 - CDF would cancel. */
	target = 1.0 - p;
	while (t_upper_tail(hi, df) > target) {
		lo = hi;
		hi *= 2.0;
		if (!isfinite(hi))
			return NAN;
	}
	for (int i = 0; i < 2000 && hi - lo > 1e-15 * hi; i++) {
		/* Geometric steps while the bracket spans orders of magnitude
		 * (tiny df puts quantiles near 1e30), then halving. */
		double mid = (lo > 0.0 && hi > 4.0 * lo) ? sqrt(lo * hi)
							  : 0.5 * (lo + hi);
		double tail = t_upper_tail(mid, df);

		if (isnan(tail))
			return NAN;
		if (tail > target)
			lo = mid;
		else
			hi = mid;
	}
	return 0.5 * (lo + hi);
}

static int check_sample(const char *what, const double *x, size_t n,
			size_t n_min, struct st_err *e)
{
	if (!x && n > 0)
		return err_set(e, -EINVAL, "%s: no values", what);
	if (n < n_min)
		return err_set(e, -EINVAL, "%s: %zu value%s, need at least %zu",
			       what, n, n == 1 ? "" : "s", n_min);
	if (n > STATS_SAMPLES_MAX)
		return err_set(e, -EINVAL, "%s: %zu values, at most %d supported",
			       what, n, STATS_SAMPLES_MAX);
	if (!all_finite(x, n))
		return err_set(e, -EINVAL, "%s: value is not a finite number", what);
	return 0;
}

int stats_welch(const struct stats_pair *x, double level, struct stats_welch *out, struct st_err *e)
{
	double va, vb, tq;
	const double *a, *b;
	size_t n_a, n_b;
	int rc;

	if (!x || !out)
		return err_set(e, -EINVAL, "welch test: no %s", x ? "result struct" : "arms");
	a = x->a;
	n_a = x->n_a;
	b = x->b;
	n_b = x->n_b;
	if ((rc = check_sample("welch test, first sample", a, n_a, 2, e)) ||
	    (rc = check_sample("welch test, second sample", b, n_b, 2, e)))
		return rc;
	if (!(level > 0.0) || !(level < 1.0))
		return err_set(e, -EINVAL, "welch test: confidence level %g not in (0, 1)",
			       level);

	memset(out, 0, sizeof(*out));
	out->n_a = n_a;
	out->n_b = n_b;
	out->level = level;
	out->mean_a = stats_mean(a, n_a);
	out->mean_b = stats_mean(b, n_b);
	out->sd_a = stats_stddev(a, n_a);
	out->sd_b = stats_stddev(b, n_b);
	out->diff = out->mean_a - out->mean_b;
	va = out->sd_a * out->sd_a / (double)n_a;
	vb = out->sd_b * out->sd_b / (double)n_b;
	out->se = sqrt(va + vb);

	if (out->se == 0.0) {
		/* Both arms constant: any t-based p-value would be invented. */
		out->flag = out->diff == 0.0 ? STATS_WELCH_IDENTICAL
					     : STATS_WELCH_CONSTANT;
		out->t = out->diff == 0.0 ? NAN : copysign(INFINITY, out->diff);
		out->df = NAN;
		out->p = NAN;
		out->ci_low = out->ci_high = out->diff;
	} else {
		out->flag = STATS_WELCH_OK;
		out->t = out->diff / out->se;
		out->df = (va + vb) * (va + vb) /
			  (va * va / (double)(n_a - 1) + vb * vb / (double)(n_b - 1));
		out->p = stats_t_p_two_sided(out->t, out->df);
		tq = stats_t_quantile(1.0 - (1.0 - level) / 2.0, out->df);
		out->ci_low = out->diff - tq * out->se;
		out->ci_high = out->diff + tq * out->se;
	}

	if (out->mean_b != 0.0) {
		double base = fabs(out->mean_b);

		out->diff_pct = 100.0 * out->diff / base;
		out->ci_low_pct = 100.0 * out->ci_low / base;
		out->ci_high_pct = 100.0 * out->ci_high / base;
	} else {
		out->diff_pct = out->ci_low_pct = out->ci_high_pct = NAN;
	}
	return 0;
}

int stats_welch_ratio_ci(const struct stats_welch *w, double *lo_pct, double *hi_pct)
{
	double va, vb, tq, qa, qb, qc, disc;

	if (!w || !lo_pct || !hi_pct)
		return -EINVAL;
	*lo_pct = *hi_pct = NAN;
	if (!(w->mean_b > 0))
		return -ERANGE;
	if (w->flag != STATS_WELCH_OK) {
		*lo_pct = *hi_pct = (w->mean_a / w->mean_b - 1) * 100;
		return 0;
	}
	va = w->sd_a * w->sd_a / (double)w->n_a;
	vb = w->sd_b * w->sd_b / (double)w->n_b;
	tq = stats_t_quantile(1.0 - (1.0 - w->level) / 2.0, w->df);
	/* (mean_a - R mean_b)^2 <= tq^2 (va + R^2 vb), a quadratic in R */
	qa = w->mean_b * w->mean_b - tq * tq * vb;
	qb = -2 * w->mean_a * w->mean_b;
	qc = w->mean_a * w->mean_a - tq * tq * va;
	disc = qb * qb - 4 * qa * qc;
	if (!(qa > 0) || disc < 0)
		return -ERANGE;
	*lo_pct = ((-qb - sqrt(disc)) / (2 * qa) - 1) * 100;
	*hi_pct = ((-qb + sqrt(disc)) / (2 * qa) - 1) * 100;
	return 0;
}

int stats_summarize(const double *x, size_t n, double level, struct stats_summary *out)
{
	out->n = n;
	out->mean = out->stddev = out->ci_low = out->ci_high = NAN;
	if (n == 0)
		return 0;
	out->mean = stats_mean(x, n);
	if (n < 2)
		return 0;
	out->stddev = stats_stddev(x, n);
	if (isfinite(out->stddev)) {
		double t = stats_t_quantile(0.5 + level / 2, (double)(n - 1));
		double half = t * out->stddev / sqrt((double)n);

		out->ci_low = out->mean - half;
		out->ci_high = out->mean + half;
	}
	return 0;
}
