/*
 * test-opt.c - option tables (src/opt.c, src/cmd.c): the shared typed
 * parsers and their messages, the getopt driver (permutation, "--", unknown
 * and ambiguous options, a flag given a value, which rows were given), "did
 * you mean", and every command's tables: unique names, help on every shown
 * row, a value name exactly where the parser takes a value, and every
 * option the hand-written usage names is a row.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <ctype.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "swaptune/cmd.h"
#include "swaptune/opt.h"

struct args {
	bool flag, off;
	uint64_t count;
	unsigned reps;
	int limit, mode;
	long long id, ns;
	double secs, pct, theta;
	uint64_t bytes;
	const char *name, *dir;
	char re[8];
};

static const char *const modes[] = { "auto", "tty", "plain", "none", NULL };

static const struct opt_spec rows[] = {
	OPT_FLAG("yes", 'y', "do not ask", struct args, flag),
	OPT_FLAG_OFF("no-cpu", "no counters", struct args, off),
	OPT_U64("count", 'n', "N", "ticks", struct args, count, 1, INT64_MAX),
	OPT_UINT("reps", "N", "rounds", struct args, reps, 1, 63),
	OPT_INT("limit", "N", "rows", struct args, limit, 1, 1000000),
	OPT_CHOICE("progress", "MODE", "how", struct args, mode, modes),
	OPT_ID("run", "ID", "a run", struct args, id, "a run id", OPT_COMPLETE_PROBE_RUN),
	OPT_DURATION("interval", 'i', "period", struct args, ns, 10000000LL, 86400LL * 1000000000LL),
	OPT_SECONDS("max-time", "budget", struct args, secs, 0, 86400LL * 1000000000LL),
	OPT_PERCENT("min-effect", "gain", struct args, pct, 0, 1000),
	OPT_REAL("zipf-theta", "X", "exponent", struct args, theta, 1e-9, 100),
	OPT_SIZE("working-set", "memory", struct args, bytes, 1, 0),
	OPT_STRING("name", 0, "NAME", "a name", struct args, name, "a name", OPT_COMPLETE_NONE),
	OPT_DIR("scratch-dir", "DIR", "a directory", struct args, dir),
	OPT_STRBUF("metric-regex", "RE", "a pattern", struct args, re),
	{ NULL },
};

/* parse WORDS... (argv[0] is the command) into a; the result, e the message */
static int parse(struct args *a, struct opt_given *g, const char **unknown, struct st_err *e,
		 int n, ...)
{
	static char *argv[32];
	struct opt_set set = { rows, a };
	va_list ap;

	va_start(ap, n);
	argv[0] = "test";
	for (int i = 0; i < n; i++)
		argv[i + 1] = va_arg(ap, char *);
	va_end(ap);
	argv[n + 1] = NULL;
	memset(a, 0, sizeof(*a));
	err_reset(e);
	return opt_parse(&(struct opt_tables){ &set, 1 }, n + 1, argv, g, unknown, e);
}

static void test_parsers(void **state)
{
	struct args a;
	struct opt_given g;
	struct st_err e = { 0 };
	const char *unk;

	(void)state;
	assert_int_equal(parse(&a, &g, &unk, &e, 13, "-y", "--no-cpu", "-n", "5", "--reps=7",
			       "--progress", "plain", "--run", "12", "-i", "200ms", "--working-set", "256M"), 14);
	assert_true(a.flag);
	assert_false(a.off);
	assert_true(a.count == 5);
	assert_int_equal(a.reps, 7);
	assert_int_equal(a.mode, 2);
	assert_int_equal(a.id, 12);
	assert_int_equal(a.ns, 200000000LL);
	assert_true(a.bytes == 256ULL << 20);
	assert_int_equal(parse(&a, &g, &unk, &e, 6, "--max-time", "3m", "--min-effect", "2.5",
			       "--metric-regex", "x(1)"), 7);
	assert_true(a.secs == 180.0);
	assert_true(a.pct == 2.5);
	assert_string_equal(a.re, "x(1)");

	/* each failure: one line naming the option and the value */
	static const struct { const char *opt, *val, *msg; } bad[] = {
		{ "--count", "0", "--count needs a whole number of at least 1, not \"0\"" },
		{ "--count", "-3", "--count needs a whole number of at least 1, not \"-3\"" },
		{ "--reps", "64", "--reps needs a whole number from 1 to 63, not \"64\"" },
		{ "--limit", "1e3", "--limit needs a whole number from 1 to 1000000, not \"1e3\"" },
		{ "--progress", "bogus", "--progress is auto, tty, plain or none, not \"bogus\"" },
		{ "--run", "abc", "--run needs a run id, not \"abc\"" },
		{ "--run", "0", "--run needs a run id, not \"0\"" },
		{ "--interval", "1ms", "--interval needs a duration from 10ms to 24h (like 200ms, 30s, 5m), not \"1ms\"" },
		{ "--interval", "0x10s", "--interval needs a duration from 10ms to 24h (like 200ms, 30s, 5m), not \"0x10s\"" },
		{ "--max-time", "2d", "--max-time needs a duration of at most 24h (like 200ms, 30s, 5m), not \"2d\"" },
		{ "--min-effect", "nan", "--min-effect needs a percentage from 0 to 1000, not \"nan\"" },
		{ "--min-effect", "5%", "--min-effect needs a percentage from 0 to 1000, not \"5%\"" },
		{ "--zipf-theta", "0", "--zipf-theta needs a number from 1e-09 to 100, not \"0\"" },
		{ "--working-set", "nan", "--working-set: \"nan\" is not a size like 256M" },
		{ "--working-set", "0", "--working-set: \"0\" is not a size like 256M" },
		{ "--working-set", "0x10M", "--working-set: \"0x10M\" is not a size like 256M" },
		{ "--name", "", "--name needs a value, not \"\"" },
		{ "--scratch-dir", "/nonexistent-dir", "--scratch-dir /nonexistent-dir: No such file or directory" },
		{ "--scratch-dir", "/etc/hostname", "--scratch-dir /etc/hostname: not a directory" },
		{ "--metric-regex", "12345678", "--metric-regex is too long (at most 7 bytes)" },
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		int r = parse(&a, &g, &unk, &e, 2, bad[i].opt, bad[i].val);

		if (r != -EINVAL || strcmp(e.msg, bad[i].msg))
			fail_msg("%s %s: %d \"%s\", want \"%s\"", bad[i].opt, bad[i].val, r, e.msg, bad[i].msg);
		assert_null(unk);
	}
}

static void test_driver(void **state)
{
	struct args a;
	struct opt_given g;
	struct st_err e = { 0 };
	struct opt_set set = { rows, NULL };
	const char *unk;

	(void)state;
	/* options anywhere (GNU order); "--" ends them; words after come back */
	assert_int_equal(parse(&a, &g, &unk, &e, 5, "word", "-y", "--", "--count", "x"), 3);
	assert_true(a.flag);
	assert_true(opt_was_given(&set, 1, &g, "yes"));
	assert_false(opt_was_given(&set, 1, &g, "count"));
	/* a unique prefix of a long name is the option */
	assert_int_equal(parse(&a, &g, &unk, &e, 2, "--cou", "3"), 3);
	assert_true(a.count == 3);
	assert_int_equal(parse(&a, &g, &unk, &e, 1, "--jsno"), -EINVAL);
	assert_string_equal(e.msg, "unknown option --jsno");
	assert_string_equal(unk, "--jsno");
	assert_int_equal(parse(&a, &g, &unk, &e, 1, "-z"), -EINVAL);
	assert_string_equal(e.msg, "unknown option -z");
	assert_int_equal(parse(&a, &g, &unk, &e, 1, "--count"), -EINVAL);
	assert_string_equal(e.msg, "option --count needs a value");
	assert_int_equal(parse(&a, &g, &unk, &e, 1, "--yes=1"), -EINVAL);
	assert_string_equal(e.msg, "option --yes takes no value");
	assert_int_equal(parse(&a, &g, &unk, &e, 1, "--m"), -EINVAL);
	assert_string_equal(e.msg, "option --m is ambiguous: --max-time, --min-effect, --metric-regex");
	assert_null(unk);
}

static const char *const names[] = { "status", "doctor", "sample", "history", "help", "json",
				     "apply", "report", "recommend", NULL };

static const char *name_at(size_t i, void *arg)
{
	(void)arg;
	return names[i];
}

static void test_closest(void **state)
{
	(void)state;
	assert_string_equal(opt_closest("stauts", name_at, NULL), "status");
	assert_string_equal(opt_closest("jsno", name_at, NULL), "json");
	assert_string_equal(opt_closest("hist", name_at, NULL), "history");
	assert_string_equal(opt_closest("apply", name_at, NULL), "apply");
	assert_string_equal(opt_closest("sampel", name_at, NULL), "sample");
	assert_null(opt_closest("frob", name_at, NULL));
	assert_null(opt_closest("frobnicate", name_at, NULL));
	assert_null(opt_closest("re", name_at, NULL));		/* report or recommend: no guess */
	assert_null(opt_closest("", name_at, NULL));
}

static void test_bounds_words(void **state)
{
	char b[32];

	(void)state;
	assert_string_equal(opt_fmt_ns(100000000LL, b, sizeof(b)), "100ms");
	assert_string_equal(opt_fmt_ns(86400LL * 1000000000LL, b, sizeof(b)), "24h");
	assert_string_equal(opt_fmt_ns(90LL * 1000000000LL, b, sizeof(b)), "90s");
	assert_string_equal(opt_fmt_ns(1500, b, sizeof(b)), "1500ns");
	assert_string_equal(opt_fmt_size(1048576, b, sizeof(b)), "1M");
	assert_string_equal(opt_fmt_size(1536ULL << 20, b, sizeof(b)), "1536M");
	assert_string_equal(opt_fmt_size(1000, b, sizeof(b)), "1000");
}

/* every --word of usage is a row of c or a common option */
static void check_usage(const struct cmd_entry *c)
{
	for (const char *p = strstr(c->usage, "--"); p; p = strstr(p + 2, "--")) {
		char name[64];
		size_t n = 0;
		bool found = false;

		for (const char *q = p + 2; (isalnum((unsigned char)*q) || *q == '-') && n + 1 < sizeof(name); q++)
			name[n++] = *q;
		name[n] = '\0';
		if (n == 0)
			continue;	/* "-- PROG ARGS..." */
		for (size_t t = 0; t < OPT_TABLES_MAX && c->opts[t]; t++)
			found |= opt_find(c->opts[t], name) != NULL;
		found |= opt_find(cmd_common_opts, name) != NULL;
		if (!found)
			fail_msg("%s: usage names --%s, which is not one of its options", c->name, name);
	}
}

static bool takes_value(const struct opt_spec *o)
{
	return o->parse != opt_set_true && o->parse != opt_set_false;
}

static void check_rows(const struct cmd_entry *c, const struct opt_spec *tab)
{
	size_t n = 0;

	for (const struct opt_spec *o = tab; o->name; o++, n++) {
		if (!(o->flags & OPT_HIDDEN) && (!o->help || !o->help[0]))
			fail_msg("%s --%s: no help", c ? c->name : "swaptune", o->name);
		if (!o->arg != !takes_value(o))
			fail_msg("%s --%s: a value name where the parser takes none, or none where it does",
				 c ? c->name : "swaptune", o->name);
		if (o->parse == opt_parse_choice && !o->choices)
			fail_msg("%s --%s: a choice without choices", c ? c->name : "swaptune", o->name);
		if (o->complete == OPT_COMPLETE_CHOICES && !opt_choice(o, 0))
			fail_msg("%s --%s: completes choices it does not have", c ? c->name : "swaptune", o->name);
		/* a name once among the command's and the common options */
		for (size_t t = 0; c && t < OPT_TABLES_MAX && c->opts[t]; t++)
			for (const struct opt_spec *x = c->opts[t]; x->name; x++)
				if (x != o && (!strcmp(x->name, o->name) ||
					       (o->short_name && x->short_name == o->short_name)))
					fail_msg("%s: --%s twice", c->name, o->name);
		if (c && (opt_find(cmd_common_opts, o->name) || opt_find(cmd_global_opts, o->name)))
			fail_msg("%s: --%s is a common option too", c->name, o->name);
	}
	assert_true(n <= OPT_ROWS_MAX);
}

static void test_tables(void **state)
{
	(void)state;
	assert_true(cmd_count() > 10);
	check_rows(NULL, cmd_common_opts);
	check_rows(NULL, cmd_global_opts);
	for (size_t i = 0; i < cmd_count(); i++) {
		const struct cmd_entry *c = cmd_at(i);

		assert_non_null(c->usage);
		assert_true(c->group < CMD_GROUP_COUNT);
		assert_true(!c->args_help || c->args);
		check_usage(c);
		for (size_t t = 0; t < OPT_TABLES_MAX && c->opts[t]; t++)
			check_rows(c, c->opts[t]);
		assert_ptr_equal(cmd_find(c->name), c);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parsers),
		cmocka_unit_test(test_driver),
		cmocka_unit_test(test_closest),
		cmocka_unit_test(test_bounds_words),
		cmocka_unit_test(test_tables),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
