/*
 * test-stats.c - advisor/stats.c against reference values.
 *
 * Where the expected values come from (each table says which applies):
 *  [closed]  closed forms: df = 1 is the Cauchy distribution,
 *            P(|T| > t) = 1 - (2/pi) atan(t), quantile tan(pi (p - 1/2));
 *            df = 2 has P(|T| > t) = 1 - t / sqrt(2 + t^2) and quantile
 *            (2p - 1) / sqrt(2p(1 - p)); I_x(a, 1) = x^a,
 *            I_x(1, b) = 1 - (1 - x)^b, I_1/2(a, a) = 1/2.
 *  [table]   textbook t tables: t(0.975, 10) = 2.228139, two-sided p for
 *            t = 2.0, df = 10 is 0.073388.
 *  [mpmath]  mpmath 1.3 at 40 digits: betainc(df/2, 1/2, 0, df/(df+t^2),
 *            regularized=True) for two-sided p, findroot() on it for
 *            quantiles, Welch t/df/CI from the textbook formulas in mpf.
 *  [stdlib]  an independent Python 3 script using only the standard library
 *            (below). It evaluates I_x(a, b) by its power series, not by the
 *            continued fraction stats.c uses, and reproduces every [mpmath]
 *            value here to < 1e-13 relative.
 *
 *    def ibeta(a, b, x):             # I_x(a,b), power series
 *        if x > 0.5: return 1 - ibeta(b, a, 1 - x)
 *        lf = a*log(x) + b*log1p(-x) - log(a) - (lgamma(a)+lgamma(b)-lgamma(a+b))
 *        terms, t, n = [], 1.0, 0
 *        while not terms or t >= 1e-18 * sum(terms):
 *            terms.append(t); t *= (a + b + n) / (a + 1 + n) * x; n += 1
 *        return exp(lf) * fsum(terms)
 *    tail = lambda t, df: 0.5 * ibeta(df/2, 0.5, df/(df + t*t))
 *    # quantile: 400 bisection steps on tail(); welch(): statistics.mean,
 *    # statistics.variance, se, Welch-Satterthwaite df, diff -+ q(0.975) se
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "swaptune/advisor.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* Relative comparison; absolute below 1e-300 so exact zeros work. */
static void assert_close(double got, double want, double rel, const char *what)
{
	double tol = rel * fabs(want);

	if (tol < 1e-300)
		tol = 1e-300;
	if (!(fabs(got - want) <= tol))
		fail_msg("%s: got %.17g, want %.17g (rel tol %g)", what, got, want, rel);
}

static void test_mean_stddev(void **state)
{
	static const double x[] = { 2, 4, 4, 4, 5, 5, 7, 9 };
	static const double same[] = { 0.1, 0.1, 0.1 };
	const double bad[] = { 1.0, NAN, 3.0 };

	(void)state;
	/* hand-computed: sum 40 / 8; squared deviations sum 32, / 7 */
	assert_close(stats_mean(x, 8), 5.0, 1e-15, "mean");
	assert_close(stats_stddev(x, 8), sqrt(32.0 / 7.0), 1e-15, "stddev");
	/* 0.1 * 3 / 3 != 0.1 in binary; the shifted sum must still be exact */
	assert_true(stats_mean(same, 3) == 0.1);
	assert_true(stats_stddev(same, 3) == 0.0);
	assert_true(isnan(stats_mean(x, 0)));
	assert_true(isnan(stats_stddev(x, 1)));
	assert_true(isnan(stats_mean(bad, 3)));
	assert_true(isnan(stats_stddev(bad, 3)));
}

struct beta_case {
	double a, b, x, want;
	const char *src;
};

static void test_beta_inc_reg(void **state)
{
	/* [closed] rows, then [mpmath] rows confirmed by [stdlib] */
	static const struct beta_case cases[] = {
		{ 1.0, 1.0, 0.37, 0.37, "I_x(1,1) = x" },
		{ 3.5, 1.0, 0.6, 0.1673128805561604, "I_x(a,1) = x^a = 0.6^3.5" },
		{ 1.0, 4.2, 0.3, 0.7764309053857296, "I_x(1,b) = 1-(1-x)^b" },
		{ 7.3, 7.3, 0.5, 0.5, "I_1/2(a,a) = 1/2" },
		{ 2.5, 0.5, 0.3, 0.01892712407194565, "mpmath" },
		{ 0.5, 3.7, 0.2, 0.7862344416969649, "mpmath" },
		{ 10.0, 20.0, 0.4, 0.7853183897628262, "mpmath" },
		{ 3.2, 1.0, 0.77, 0.4332816739667256, "mpmath" },
		{ 2.0, 3.0, 0.0, 0.0, "endpoint" },
		{ 2.0, 3.0, 1.0, 1.0, "endpoint" },
	};

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++)
		assert_close(stats_beta_inc_reg(cases[i].a, cases[i].b, cases[i].x),
			     cases[i].want, 1e-12, cases[i].src);
	assert_true(isnan(stats_beta_inc_reg(0.0, 1.0, 0.5)));
	assert_true(isnan(stats_beta_inc_reg(1.0, 1.0, 1.5)));
	assert_true(isnan(stats_beta_inc_reg(1.0, NAN, 0.5)));
}

struct tp_case {
	double t, df, p_two_sided;
	const char *src;
};

static void test_t_p_two_sided(void **state)
{
	static const struct tp_case cases[] = {
		/* [table] t = 2.0, df = 10 -> 0.073388; digits from [mpmath] */
		{ 2.0, 10.0, 0.07338803477074037, "table" },
		{ 2.228138851986273, 10.0, 0.05, "table t(0.975,10)" },
		/* [closed] Cauchy: 1 - 2/pi atan(1) = 1/2 */
		{ 1.0, 1.0, 0.5, "cauchy" },
		{ -3.0, 1.0, 0.20483276469913336, "cauchy 1 - 2/pi atan(3)" },
		/* [closed] df = 2: 1 - 1.5 / sqrt(4.25) */
		{ 1.5, 2.0, 0.2723931248910011, "df=2 closed form" },
		/* [mpmath], non-integer df and far tails */
		{ 3.5, 4.7, 0.01912959350027643, "mpmath" },
		{ 0.3, 2.5, 0.7873423714951973, "mpmath" },
		{ 10.0, 3.0, 0.0021283990584141503, "mpmath" },
		{ 25.0, 60.0, 2.014237305795252e-33, "mpmath far tail" },
		{ 0.7, 123.4, 0.4852448836283855, "mpmath large df" },
		{ 4.0, 1.3, 0.11040123666631853, "mpmath" },
		{ 0.0, 5.0, 1.0, "t = 0" },
	};

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		const struct tp_case *c = &cases[i];
		double tail = c->p_two_sided / 2.0;

		assert_close(stats_t_p_two_sided(c->t, c->df), c->p_two_sided,
			     1e-10, c->src);
		/* the CDF is the same tail seen from one side */
		assert_close(stats_t_cdf(c->t, c->df), c->t > 0 ? 1.0 - tail : tail,
			     1e-10, c->src);
	}
	assert_true(isnan(stats_t_p_two_sided(1.0, 0.0)));
	assert_true(isnan(stats_t_p_two_sided(1.0, -2.0)));
	assert_true(isnan(stats_t_cdf(NAN, 4.0)));
	assert_true(isnan(stats_t_cdf(1.0, INFINITY)));
	assert_true(stats_t_cdf(INFINITY, 4.0) == 1.0);
}

struct tq_case {
	double p, df, t;
	const char *src;
};

static void test_t_quantile(void **state)
{
	static const struct tq_case cases[] = {
		/* [table] 2.228139; digits from [mpmath] */
		{ 0.975, 10.0, 2.2281388519862744, "table" },
		{ 0.025, 10.0, -2.2281388519862744, "table, lower" },
		/* [closed] Cauchy tan(0.475 pi) */
		{ 0.975, 1.0, 12.706204736174694, "cauchy" },
		/* [closed] df = 2: 0.9 / sqrt(2 * 0.95 * 0.05) */
		{ 0.95, 2.0, 2.9199855803537256, "df=2 closed form" },
		/* [mpmath] */
		{ 0.995, 7.3, 3.4510316556221845, "mpmath" },
		{ 0.95, 30.0, 1.6972608865939574, "mpmath" },
		{ 0.975, 2.5, 3.5746548420036817, "mpmath" },
		{ 0.9999, 3.2, 19.363883218821407, "mpmath" },
		{ 0.975, 126.0, 1.9789706019906284, "mpmath" },
		{ 0.5, 4.0, 0.0, "median" },
	};

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++)
		assert_close(stats_t_quantile(cases[i].p, cases[i].df), cases[i].t,
			     1e-10, cases[i].src);
	/* round trip where the quantile is astronomically large */
	assert_close(stats_t_cdf(stats_t_quantile(0.999, 0.2), 0.2), 0.999,
		     1e-10, "round trip df 0.2");
	assert_true(isnan(stats_t_quantile(0.0, 5.0)));
	assert_true(isnan(stats_t_quantile(1.0, 5.0)));
	assert_true(isnan(stats_t_quantile(0.9, 0.0)));
}

struct welch_case {
	const char *name;
	double a[10], b[10];
	size_t n_a, n_b;
	double t, df, p, ci_low, ci_high, diff_pct, ci_low_pct, ci_high_pct;
};

static void test_welch_table(void **state)
{
	/*
	 * [mpmath] with exact decimal inputs (mpf(str(v))), confirmed by the
	 * [stdlib] welch() to < 1e-12; percentages are the interval / |mean_b|.
	 * "one constant" has sd_a = 0, so df = n_b - 1 = 3 exactly.
	 */
	static const struct welch_case cases[] = {
		{ "clear", { 10.2, 11.1, 9.8, 10.5, 10.9 }, { 12.0, 12.4, 11.7, 12.9, 12.2 }, 5, 5,
		  -5.627562177972413, 7.822517417874933, 0.0005354180252298114,
		  -2.4558248408817924, -1.0241751591182078,
		  -14.215686274509807, -20.063928438576735, -8.367444110442879 },
		{ "unequal n and variance", { 5, 7, 6, 9, 8, 7, 6 }, { 4.1, 4.4, 3.9 }, 7, 3,
		  5.151063217895378, 6.882313052997933, 0.0013932473136556533,
		  1.4690821191570236, 3.978536928462024,
		  65.89861751152075, 35.542309334444184, 96.2549256885973 },
		{ "one constant", { 3, 3, 3 }, { 1, 2, 3, 4 }, 3, 4,
		  0.7745966692414834, 3.0, 0.49502534605971094,
		  -1.554260256760521, 2.554260256760521,
		  20.0, -62.17041027042084, 102.17041027042083 },
		{ "no difference", { 101.5, 98.2, 103.9, 99.7, 100.4, 102.2 },
		  { 100.9, 99.1, 101.7, 98.8, 100.2, 101.3 }, 6, 6,
		  0.6851390137636132, 8.124102923478448, 0.5123272034528163,
		  -1.5319316254147657, 2.8319316254147657,
		  0.6478405315614675, -1.52684215157619, 2.8225232146991255 },
		{ "ns scale", { 1.52e9, 1.49e9, 1.61e9, 1.55e9 },
		  { 1.71e9, 1.78e9, 1.69e9, 1.74e9, 1.80e9 }, 4, 5,
		  -6.125072776426132, 6.199672883793357, 0.0007648603562308174,
		  -281373158.26819587, -121626841.73180415,
		  -11.553899082568808, -16.133782010791045, -6.974016154346571 },
	};

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		const struct welch_case *c = &cases[i];
		struct stats_welch w;
		struct st_err e = { 0 };

		assert_int_equal(stats_welch(&(struct stats_pair){ c->a, c->n_a, c->b, c->n_b }, 0.95, &w, &e), 0);
		assert_int_equal(w.flag, STATS_WELCH_OK);
		assert_close(w.t, c->t, 1e-9, c->name);
		assert_close(w.df, c->df, 1e-9, c->name);
		assert_close(w.p, c->p, 1e-8, c->name);
		assert_close(w.ci_low, c->ci_low, 1e-9, c->name);
		assert_close(w.ci_high, c->ci_high, 1e-9, c->name);
		assert_close(w.diff_pct, c->diff_pct, 1e-9, c->name);
		assert_close(w.ci_low_pct, c->ci_low_pct, 1e-9, c->name);
		assert_close(w.ci_high_pct, c->ci_high_pct, 1e-9, c->name);
		assert_int_equal(w.n_a, c->n_a);
		assert_int_equal(w.n_b, c->n_b);
	}
}

/*
 * Fieller's interval of the ratio of means: the reference values come from
 * the quadratic solved in mpmath at 30 digits with its own t quantile
 * (df 8.4507, t 2.28477); a zero arm gives exactly -100 %; a baseline whose
 * mean is not clear of 0 is unbounded; constant arms give the exact ratio.
 */
static void test_welch_ratio_fieller(void **state)
{
	static const double a[] = { 105, 98, 110, 102, 107, 99 };
	static const double b[] = { 100, 96, 104, 101, 99 };
	static const double zeros[] = { 0, 0, 0, 0 };
	static const double big[] = { 90000, 100000, 110000, 95000 };
	static const double near0[] = { -5, 1, 6, -2 }, unclear[] = { 1, 10, -3, 8 };
	static const double flat4[] = { 4, 4, 4 }, flat5[] = { 5, 5, 5 };
	struct stats_welch w;
	double lo, hi;

	(void)state;
	assert_int_equal(stats_welch(&(struct stats_pair){ a, 6, b, 5 }, 0.95, &w, NULL), 0);
	assert_int_equal(stats_welch_ratio_ci(&w, &lo, &hi), 0);
	assert_true(fabs(lo - -1.7553917916347851) < 1e-9);
	assert_true(fabs(hi - 8.93925311018448) < 1e-9);
	/* the interval of the difference over the baseline is narrower: it ignores the baseline's error */
	assert_true(hi - lo > w.ci_high_pct - w.ci_low_pct);

	assert_int_equal(stats_welch(&(struct stats_pair){ zeros, 4, big, 4 }, 0.95, &w, NULL), 0);
	assert_int_equal(stats_welch_ratio_ci(&w, &lo, &hi), 0);
	assert_true(fabs(lo + 100) < 1e-12 && fabs(hi + 100) < 1e-12);
	assert_true(w.ci_low_pct < -100);	/* what the old column printed */

	assert_int_equal(stats_welch(&(struct stats_pair){ big, 4, near0, 4 }, 0.95, &w, NULL), 0);
	assert_int_equal(stats_welch_ratio_ci(&w, &lo, &hi), -ERANGE);
	assert_true(isnan(lo) && isnan(hi));
	/* mean 4 but sd 6: not clear of 0 at 95 % */
	assert_int_equal(stats_welch(&(struct stats_pair){ big, 4, unclear, 4 }, 0.95, &w, NULL), 0);
	assert_int_equal(stats_welch_ratio_ci(&w, &lo, &hi), -ERANGE);

	assert_int_equal(stats_welch(&(struct stats_pair){ flat5, 3, flat4, 3 }, 0.95, &w, NULL), 0);
	assert_int_equal(stats_welch_ratio_ci(&w, &lo, &hi), 0);
	assert_true(fabs(lo - 25) < 1e-12 && fabs(hi - 25) < 1e-12);
	assert_int_equal(stats_welch_ratio_ci(NULL, &lo, &hi), -EINVAL);
}

static void test_welch_degenerate(void **state)
{
	static const double one[] = { 5.0 };
	static const double three[] = { 1.0, 2.0, 3.0 };
	static const double flat_a[] = { 4.0, 4.0, 4.0 };
	static const double flat_b[] = { 4.0, 4.0, 4.0, 4.0 };
	static const double flat_c[] = { 5.0, 5.0, 5.0 };
	static const double zero_mean[] = { -1.0, 0.0, 1.0 };
	const double with_nan[] = { 1.0, NAN, 2.0 };
	struct stats_welch w;
	struct st_err e = { 0 };

	(void)state;
	assert_int_equal(stats_welch(&(struct stats_pair){ one, 1, three, 3 }, 0.95, &w, &e), -EINVAL);
	assert_non_null(strstr(e.msg, "1 value, need at least 2"));
	err_reset(&e);
	assert_int_equal(stats_welch(&(struct stats_pair){ three, 3, with_nan, 3 }, 0.95, &w, &e), -EINVAL);
	assert_non_null(strstr(e.msg, "not a finite number"));
	err_reset(&e);
	assert_int_equal(stats_welch(&(struct stats_pair){ three, 3, three, 3 }, 1.0, &w, &e), -EINVAL);
	err_reset(&e);
	assert_int_equal(stats_welch(&(struct stats_pair){ three, STATS_SAMPLES_MAX + 1, three, 3 }, 0.95, &w, &e),
			 -EINVAL);
	err_reset(&e);

	/* identical constant arms: flagged, no p-value invented */
	assert_int_equal(stats_welch(&(struct stats_pair){ flat_a, 3, flat_b, 4 }, 0.95, &w, &e), 0);
	assert_int_equal(w.flag, STATS_WELCH_IDENTICAL);
	assert_true(isnan(w.p));
	assert_true(isnan(w.t));
	assert_true(w.diff == 0.0 && w.ci_low == 0.0 && w.ci_high == 0.0);

	/* constant arms that differ: t infinite, p still undefined */
	assert_int_equal(stats_welch(&(struct stats_pair){ flat_c, 3, flat_a, 3 }, 0.95, &w, &e), 0);
	assert_int_equal(w.flag, STATS_WELCH_CONSTANT);
	assert_true(isinf(w.t) && w.t > 0);
	assert_true(isnan(w.p));
	assert_close(w.diff_pct, 25.0, 1e-15, "constant diff pct");

	/* baseline mean 0: no percentages */
	assert_int_equal(stats_welch(&(struct stats_pair){ three, 3, zero_mean, 3 }, 0.95, &w, &e), 0);
	assert_int_equal(w.flag, STATS_WELCH_OK);
	assert_true(isnan(w.diff_pct) && isnan(w.ci_low_pct) && isnan(w.ci_high_pct));
	assert_close(w.diff, 2.0, 1e-15, "diff with zero baseline");
}

/* the probe's per-arm summary (moved from test-probe.c) */
static void test_summarize(void **state)
{
	static const double x[] = { 1, 2, 3, 4, 5 }, same[] = { 7, 7, 7 };
	struct stats_summary s;

	(void)state;
	stats_summarize(x, 5, 0.95, &s);
	assert_int_equal(s.n, 5);
	assert_float_equal(s.mean, 3.0, 1e-12);
	assert_float_equal(s.stddev, sqrt(2.5), 1e-12);
	assert_float_equal(s.ci_low, 3.0 - 1.9632432, 1e-6);
	assert_float_equal(s.ci_high, 3.0 + 1.9632432, 1e-6);

	stats_summarize(same, 3, 0.95, &s);
	assert_float_equal(s.mean, 7, 0);
	assert_float_equal(s.stddev, 0, 0);
	assert_float_equal(s.ci_low, 7, 0);
	assert_float_equal(s.ci_high, 7, 0);

	stats_summarize(x, 1, 0.95, &s);
	assert_float_equal(s.mean, 1, 0);
	assert_true(isnan(s.stddev));
	assert_true(isnan(s.ci_low) && isnan(s.ci_high));

	stats_summarize(x, 0, 0.95, &s);
	assert_int_equal(s.n, 0);
	assert_true(isnan(s.mean));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_mean_stddev),
		cmocka_unit_test(test_beta_inc_reg),
		cmocka_unit_test(test_t_p_two_sided),
		cmocka_unit_test(test_t_quantile),
		cmocka_unit_test(test_welch_table),
		cmocka_unit_test(test_welch_degenerate),
		cmocka_unit_test(test_welch_ratio_fieller),
		cmocka_unit_test(test_summarize),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
