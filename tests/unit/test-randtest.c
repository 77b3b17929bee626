/*
 * test-randtest.c - advisor/randtest.c, the sequential sign-flip
 * randomisation engine: its defining property checked by enumeration (over
 * every sign assignment of fixed magnitudes at most the level rejects,
 * with several looks, for both scores), that a longer test repeats the
 * decisions of a shorter one on its prefix (continuation), the bounded
 * influence of a wild round, the estimate and interval that go with the
 * test, and bad input.
 *
 * Where the expected values come from:
 *  [hand] 6 contrasts all positive: the observed pattern is the largest of
 *         2^6 = 64, p = 1/64 when the magnitudes are distinct.
 *  [enum] the rejection counts, by enumerating every assignment in the
 *         test itself.
 */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "swaptune/randtest.h"

static struct rt_work w;

static void assert_close(double got, double want, double tol, const char *what)
{
	if (!(fabs(got - want) <= tol))
		fail_msg("%s: got %.12g, want %.12g (abs tol %g)", what, got, want, tol);
}

static void test_exact_by_enumeration(void **state)
{
	static const double mag[12] = { 0.01, 0.5, 0.03, 0.02, 0.07, 0.011, 0.04, 0.09, 0.013, 0.06,
					 0.8, 0.05 };
	struct rt_design d = { .n_looks = 3, .n_at = { 4, 8, 12 }, .spend_cum = { 0.002, 0.01, 0.03 },
			       .enum_max = 12 };

	(void)state;
	for (int sc = 0; sc < 2; sc++) {
		unsigned rejected = 0;

		d.score = sc ? RT_SCORE_HUBER : RT_SCORE_SUM;
		for (unsigned m = 0; m < 4096; m++) {
			double c[12];
			struct rt_result r;

			for (unsigned b = 0; b < 12; b++)
				c[b] = (m >> b & 1) ? -mag[b] : mag[b];
			assert_int_equal(rt_seq_test(&d, &(struct rt_contrasts){ c, 12 }, 0.0, 1, &w, &r), 0);
			assert_true(r.exact);
			assert_int_equal(r.n_pool, 4096);
			rejected += r.rejects;
			/* a rejection's stagewise p is within the level spent by its look */
			if (r.rejects && !(r.p_stage <= d.spend_cum[r.reject_look] + 1e-12))
				fail_msg("pattern %u: p_stage %g above %g", m, r.p_stage,
					 d.spend_cum[r.reject_look]);
		}
		/* at most floor(0.03 x 4096) = 122 of the 4096 equally likely assignments */
		if (rejected > 122 || rejected < 100)
			fail_msg("score %d: %u of 4096 rejected", sc, rejected);
	}
}

static void test_fixed_p(void **state)
{
	double c[6] = { 0.01, 0.02, 0.03, 0.04, 0.05, 0.06 };

	(void)state;
	assert_close(rt_p_one(RT_SCORE_SUM, &(struct rt_contrasts){ c, 6 }, 0.0, 1, &w), 1.0 / 64, 1e-15, "all positive [hand]");
	assert_close(rt_p_one(RT_SCORE_SUM, &(struct rt_contrasts){ c, 6 }, 0.0, -1, &w), 1.0, 1e-15, "the other tail");
	/* drawn (13 contrasts: beyond the enumeration of rt_p_one) */
	{
		double d[13];

		for (int i = 0; i < 13; i++)
			d[i] = 0.01 * (i + 1);
		assert_close(rt_p_one(RT_SCORE_HUBER, &(struct rt_contrasts){ d, 13 }, 0.0, 1, &w),
			     1.0 / (RT_DRAWS_DEFAULT + 1), 1.0 / 1024, "the observed alone at the top");
	}
}

/* A test over more contrasts and looks repeats what a test over a prefix decided. */
static void test_prefix_consistent(void **state)
{
	double c[40];
	struct rt_design a = { .score = RT_SCORE_HUBER, .n_looks = 2, .n_at = { 10, 20 },
			       .spend_cum = { 0.004, 0.012 } }, b = a;
	unsigned seed = 7, agree = 0, tried = 0;

	(void)state;
	b.n_looks = 4;
	b.n_at[2] = 30;
	b.n_at[3] = 40;
	b.spend_cum[2] = 0.014;
	b.spend_cum[3] = 0.015;
	for (int t = 0; t < 60; t++) {
		struct rt_result ra, rb;

		for (int i = 0; i < 40; i++) {
			seed = seed * 1103515245u + 12345u;
			c[i] = 0.02 + 0.05 * ((double)(seed >> 8 & 0xffff) / 65536.0 - 0.5) + 0.004 * (t % 5);
		}
		assert_int_equal(rt_seq_test(&a, &(struct rt_contrasts){ c, 20 }, 0.0, 1, &w, &ra), 0);
		assert_int_equal(rt_seq_test(&b, &(struct rt_contrasts){ c, 40 }, 0.0, 1, &w, &rb), 0);
		assert_false(ra.exact || rb.exact);
		tried++;
		if (ra.rejects) {
			assert_true(rb.rejects);
			assert_int_equal(rb.reject_look, ra.reject_look);
			assert_close(rb.p_stage, ra.p_stage, 0.0, "the same stop");
		} else if (rb.rejects) {
			assert_true(rb.reject_look >= 2);
		}
		agree += ra.rejects == (rb.rejects && rb.reject_look < 2);
	}
	assert_int_equal(agree, tried);
}

static void test_bounded_influence(void **state)
{
	double c[16];
	double p1, p2, p3;

	(void)state;
	for (int i = 0; i < 16; i++)
		c[i] = 0.05 + 0.01 * (i % 4);
	c[3] = -0.3;
	p1 = rt_p_one(RT_SCORE_HUBER, &(struct rt_contrasts){ c, 16 }, 0.0, 1, &w);
	c[3] = -30.0;	/* a round a hundred times wilder */
	p2 = rt_p_one(RT_SCORE_HUBER, &(struct rt_contrasts){ c, 16 }, 0.0, 1, &w);
	assert_close(p2, p1, 0.0, "the wild round counts as a typical one at most");
	/* the mean's test is ruled by it */
	p3 = rt_p_one(RT_SCORE_SUM, &(struct rt_contrasts){ c, 16 }, 0.0, 1, &w);
	assert_true(p1 < 0.001 && p3 > 0.4);
}

static void test_estimate_and_interval(void **state)
{
	double c[20], lo, hi, est;
	struct rt_design d = { .score = RT_SCORE_HUBER, .n_looks = 1, .n_at = { 20 }, .spend_cum = { 0.025 } };
	struct rt_result r;

	(void)state;
	for (int i = 0; i < 20; i++)
		c[i] = 0.07 + 0.02 * ((i * 7) % 5 - 2) / 2.0;
	assert_close(rt_estimate(RT_SCORE_SUM, c, 20), 0.07, 1e-12, "the mean");
	c[0] = -0.9;
	c[1] = 2.0;
	est = rt_estimate(RT_SCORE_HUBER, c, 20);
	assert_true(est > 0.06 && est < 0.08);	/* the typical round's, not the wild ones' */
	rt_interval(&d, &(struct rt_contrasts){ c, 20 }, est, &w, &lo, &hi);
	assert_true(lo < est && est < hi);
	assert_int_equal(rt_seq_test(&d, &(struct rt_contrasts){ c, 20 }, 0.0, 1, &w, &r), 0);
	assert_true(r.rejects == (lo > 0.0));
	/* shifts inside the interval are not rejected either way, outside they are */
	assert_int_equal(rt_seq_test(&d, &(struct rt_contrasts){ c, 20 }, lo + 0.3 * (est - lo), 1, &w, &r), 0);
	assert_false(r.rejects);
	assert_int_equal(rt_seq_test(&d, &(struct rt_contrasts){ c, 20 }, lo - 0.05, 1, &w, &r), 0);
	assert_true(r.rejects);
	assert_true(isnan(rt_estimate(RT_SCORE_HUBER, c, 0)));
}

static void test_errors(void **state)
{
	double c[3] = { 1, 2, NAN };
	struct rt_design d = { .n_looks = 1, .n_at = { 3 }, .spend_cum = { 0.01 } };
	struct rt_result r;

	(void)state;
	assert_int_equal(rt_seq_test(&d, &(struct rt_contrasts){ c, 3 }, 0.0, 1, &w, &r), -EINVAL);
	c[2] = 3;
	assert_int_equal(rt_seq_test(&d, &(struct rt_contrasts){ c, 3 }, 0.0, 2, &w, &r), -EINVAL);
	d.spend_cum[0] = 0.6;
	assert_int_equal(rt_seq_test(&d, &(struct rt_contrasts){ c, 3 }, 0.0, 1, &w, &r), -EINVAL);
	d.spend_cum[0] = 0.01;
	d.n_looks = 2;
	d.n_at[1] = 2;	/* decreasing */
	d.spend_cum[1] = 0.02;
	assert_int_equal(rt_seq_test(&d, &(struct rt_contrasts){ c, 3 }, 0.0, 1, &w, &r), -EINVAL);
	d.n_looks = 0;
	assert_int_equal(rt_seq_test(&d, &(struct rt_contrasts){ c, 3 }, 0.0, 1, &w, &r), -EINVAL);
	d.n_looks = 1;
	d.n_at[0] = 4;	/* more than given */
	assert_int_equal(rt_seq_test(&d, &(struct rt_contrasts){ c, 3 }, 0.0, 1, &w, &r), -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_exact_by_enumeration),
		cmocka_unit_test(test_fixed_p),
		cmocka_unit_test(test_prefix_consistent),
		cmocka_unit_test(test_bounded_influence),
		cmocka_unit_test(test_estimate_and_interval),
		cmocka_unit_test(test_errors),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
