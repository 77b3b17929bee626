/*
 * opt.c - option tables (opt.h): the shared typed parsers, the getopt_long
 * driver that builds its arrays from the rows, and "did you mean".
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "swaptune/fmt.h"
#include "swaptune/opt.h"

/* ---- messages ---- */

const char *opt_fmt_ns(long long ns, char *buf, size_t len)
{
	static const struct { long long ns; const char *unit; } units[] = {
		{ 3600000000000LL, "h" }, { 60000000000LL, "m" }, { 1000000000LL, "s" },
		{ 1000000LL, "ms" }, { 1000LL, "us" },
	};

	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++)
		if (ns >= units[i].ns && ns % units[i].ns == 0) {
			snprintf(buf, len, "%lld%s", ns / units[i].ns, units[i].unit);
			return buf;
		}
	snprintf(buf, len, "%lldns", ns);
	return buf;
}

const char *opt_fmt_size(unsigned long long b, char *buf, size_t len)
{
	static const char units[] = "KMGTPE";
	int k = -1;

	while (k < 5 && b >= 1024 && b % 1024 == 0) {
		b /= 1024;
		k++;
	}
	if (k < 0)
		snprintf(buf, len, "%llu", b);
	else
		snprintf(buf, len, "%llu%c", b, units[k]);
	return buf;
}

/* "--NAME needs WHAT, not "ARG"" */
static int bad(const struct opt_spec *o, struct st_err *e, const char *what, const char *arg)
{
	return err_set(e, -EINVAL, "--%s needs %s, not \"%s\"", o->name, what, arg);
}

/* "a whole number from 1 to 100", "... of at least 1": lo or hi NULL when there is no such bound */
static const char *range_words(const char *noun, const char *lo, const char *hi, char *buf,
			       size_t len)
{
	if (lo && hi)
		snprintf(buf, len, "%s from %s to %s", noun, lo, hi);
	else if (lo)
		snprintf(buf, len, "%s of at least %s", noun, lo);
	else if (hi)
		snprintf(buf, len, "%s of at most %s", noun, hi);
	else
		snprintf(buf, len, "%s", noun);
	return buf;
}

/* ---- parsers ---- */

int opt_set_true(const struct opt_spec *o, const char *arg, void *dst, struct st_err *e)
{
	(void)o, (void)arg, (void)e;
	*(bool *)dst = true;
	return 0;
}

int opt_set_false(const struct opt_spec *o, const char *arg, void *dst, struct st_err *e)
{
	(void)o, (void)arg, (void)e;
	*(bool *)dst = false;
	return 0;
}

enum whole_type { WHOLE_U64, WHOLE_UINT, WHOLE_INT };

/* A whole number in [o->min, o->max] (and what the destination type holds) into dst. */
static int whole(const struct opt_spec *o, const char *arg, enum whole_type type, void *dst,
		 struct st_err *e)
{
	static const long long type_max[] = { LLONG_MAX, UINT_MAX, INT_MAX };
	long long hi = o->max < type_max[type] ? o->max : type_max[type], v;
	char lo_s[32], hi_s[32], words[128];

	if (fmt_parse_i64(arg, o->min, hi, &v) < 0) {
		snprintf(lo_s, sizeof(lo_s), "%lld", o->min);
		snprintf(hi_s, sizeof(hi_s), "%lld", hi);
		range_words("a whole number", o->min > LLONG_MIN && o->min != 0 ? lo_s : NULL,
			    hi < type_max[type] ? hi_s : NULL, words, sizeof(words));
		return bad(o, e, words, arg);
	}
	if (type == WHOLE_U64)
		*(uint64_t *)dst = (uint64_t)v;
	else if (type == WHOLE_UINT)
		*(unsigned *)dst = (unsigned)v;
	else
		*(int *)dst = (int)v;
	return 0;
}

int opt_parse_u64(const struct opt_spec *o, const char *arg, void *dst, struct st_err *e)
{
	return whole(o, arg, WHOLE_U64, dst, e);
}

int opt_parse_uint(const struct opt_spec *o, const char *arg, void *dst, struct st_err *e)
{
	return whole(o, arg, WHOLE_UINT, dst, e);
}

int opt_parse_int(const struct opt_spec *o, const char *arg, void *dst, struct st_err *e)
{
	return whole(o, arg, WHOLE_INT, dst, e);
}

int opt_parse_id(const struct opt_spec *o, const char *arg, void *dst, struct st_err *e)
{
	long long v;

	if (fmt_parse_i64(arg, o->min > 1 ? o->min : 1, o->max ? o->max : LLONG_MAX, &v) < 0)
		return bad(o, e, o->what ? o->what : "an id", arg);
	*(long long *)dst = v;
	return 0;
}

static int duration(const struct opt_spec *o, const char *arg, long long *ns, struct st_err *e)
{
	char lo[32], hi[32], words[160];

	if (fmt_parse_duration(arg, ns) == 0 && *ns >= o->min && (!o->max || *ns <= o->max))
		return 0;
	range_words("a duration", o->min > 0 ? opt_fmt_ns(o->min, lo, sizeof(lo)) : NULL,
		    o->max > 0 ? opt_fmt_ns(o->max, hi, sizeof(hi)) : NULL, words, sizeof(words));
	snprintf(words + strlen(words), sizeof(words) - strlen(words), " (like 200ms, 30s, 5m)");
	return bad(o, e, words, arg);
}

int opt_parse_ns(const struct opt_spec *o, const char *arg, void *dst, struct st_err *e)
{
	long long ns;

	if (duration(o, arg, &ns, e) < 0)
		return -EINVAL;
	*(long long *)dst = ns;
	return 0;
}

int opt_parse_seconds(const struct opt_spec *o, const char *arg, void *dst, struct st_err *e)
{
	long long ns;

	if (duration(o, arg, &ns, e) < 0)
		return -EINVAL;
	*(double *)dst = (double)ns / 1e9;
	return 0;
}

int opt_parse_size(const struct opt_spec *o, const char *arg, void *dst, struct st_err *e)
{
	unsigned long long b, hi = o->max > 0 ? (unsigned long long)o->max : (unsigned long long)FMT_SIZE_MAX;
	char lo_s[32], hi_s[32], words[128];

	if (fmt_parse_size(arg, &b) < 0 || (b == 0 && o->min <= 1))
		return err_set(e, -EINVAL, "--%s: \"%s\" is not a size like 256M", o->name, arg);
	if (b >= (unsigned long long)o->min && b <= hi) {
		*(uint64_t *)dst = b;
		return 0;
	}
	range_words("a size",
		    o->min > 1 ? opt_fmt_size((unsigned long long)o->min, lo_s, sizeof(lo_s)) : NULL,
		    o->max > 0 ? opt_fmt_size(hi, hi_s, sizeof(hi_s)) : NULL, words, sizeof(words));
	return err_set(e, -EINVAL, "--%s: \"%s\" is not %s", o->name, arg, words);
}

static int real(const struct opt_spec *o, const char *noun, const char *arg, void *dst,
		struct st_err *e)
{
	char lo[32], hi[32], words[128];
	double v;

	if (fmt_parse_real(arg, o->lo, o->hi, &v) == 0) {
		*(double *)dst = v;
		return 0;
	}
	snprintf(lo, sizeof(lo), "%g", o->lo);
	snprintf(hi, sizeof(hi), "%g", o->hi);
	return bad(o, e, range_words(noun, lo, hi, words, sizeof(words)), arg);
}

int opt_parse_real(const struct opt_spec *o, const char *arg, void *dst, struct st_err *e)
{
	return real(o, "a number", arg, dst, e);
}

int opt_parse_percent(const struct opt_spec *o, const char *arg, void *dst, struct st_err *e)
{
	return real(o, "a percentage", arg, dst, e);
}

/* "a, b, c or d" into buf */
static const char *choice_words(const struct opt_spec *o, char *buf, size_t len)
{
	size_t n = 0, off = 0;

	while (opt_choice(o, n))
		n++;
	buf[0] = '\0';
	for (size_t i = 0; i < n && off < len; i++)
		off += (size_t)snprintf(buf + off, len - off, "%s%s", i == 0 ? "" : i + 1 == n ? " or " : ", ",
					opt_choice(o, i));
	return buf;
}

int opt_parse_choice(const struct opt_spec *o, const char *arg, void *dst, struct st_err *e)
{
	char words[256];

	for (int i = 0; o->choices && o->choices[i]; i++)
		if (!strcmp(arg, o->choices[i])) {
			*(int *)dst = i;
			return 0;
		}
	const char *guess = opt_closest_choice(o, arg);

	if (guess)
		return err_set(e, -EINVAL, "--%s is %s, not \"%s\"; did you mean %s?", o->name,
			       choice_words(o, words, sizeof(words)), arg, guess);
	return err_set(e, -EINVAL, "--%s is %s, not \"%s\"", o->name,
		       choice_words(o, words, sizeof(words)), arg);
}

int opt_parse_string(const struct opt_spec *o, const char *arg, void *dst, struct st_err *e)
{
	if (o->max > 0 && strlen(arg) > (size_t)o->max)
		return err_set(e, -EINVAL, "--%s is longer than %lld bytes", o->name, o->max);
	*(const char **)dst = arg;
	return 0;
}

int opt_parse_strbuf(const struct opt_spec *o, const char *arg, void *dst, struct st_err *e)
{
	if (strlen(arg) > (size_t)o->max)
		return err_set(e, -EINVAL, "--%s is too long (at most %lld bytes)", o->name, o->max);
	memcpy(dst, arg, strlen(arg) + 1);
	return 0;
}

int opt_parse_dir(const struct opt_spec *o, const char *arg, void *dst, struct st_err *e)
{
	struct stat sb;

	/* checked now, so that a dry run says it too */
	if (stat(arg, &sb) < 0)
		return err_set(e, -EINVAL, "--%s %s: %s", o->name, arg, strerror(errno));
	if (!S_ISDIR(sb.st_mode))
		return err_set(e, -EINVAL, "--%s %s: not a directory", o->name, arg);
	*(const char **)dst = arg;
	return 0;
}

/* ---- tables ---- */

const struct opt_spec *opt_find(const struct opt_spec *rows, const char *name)
{
	for (; rows && rows->name; rows++)
		if (!strcmp(rows->name, name))
			return rows;
	return NULL;
}

const char *opt_choice(const struct opt_spec *o, size_t n)
{
	if (o->choice_at)
		return o->choice_at(n);
	if (!o->choices)
		return NULL;
	for (size_t i = 0; i < n; i++)
		if (!o->choices[i])
			return NULL;
	return o->choices[n];
}

const char *opt_help(const struct opt_spec *o, char *buf, size_t len)
{
	char words[512];

	if (!(o->flags & OPT_HELP_CHOICES))
		return o->help ? o->help : "";
	snprintf(buf, len, "%s: %s", o->help ? o->help : "", choice_words(o, words, sizeof(words)));
	return buf;
}

const char *opt_spelling(const struct opt_spec *o, char *buf, size_t len)
{
	if (o->short_name)
		snprintf(buf, len, "-%c, --%s%s%s", o->short_name, o->name, o->arg ? " " : "",
			 o->arg ? o->arg : "");
	else
		snprintf(buf, len, "--%s%s%s", o->name, o->arg ? " " : "", o->arg ? o->arg : "");
	return buf;
}

bool opt_was_given(const struct opt_set *sets, size_t nsets, const struct opt_given *g,
		   const char *name)
{
	for (size_t t = 0; t < nsets; t++)
		for (size_t i = 0; sets[t].rows[i].name; i++)
			if (!strcmp(sets[t].rows[i].name, name))
				return g->given[t] >> i & 1;
	fprintf(stderr, "BUG: no option --%s in the table\n", name);
	abort();
}

/* ---- the driver ---- */

#define LONG_VAL(t, i) (256 + (int)(t) * OPT_ROWS_MAX + (int)(i))

struct getopt_arrays {
	struct option lo[OPT_TABLES_MAX * OPT_ROWS_MAX + 1];
	char so[2 + 2 * OPT_TABLES_MAX * OPT_ROWS_MAX];
};

static void build(const struct opt_set *sets, size_t nsets, struct getopt_arrays *a)
{
	size_t nl = 0, ns = 0;

	a->so[ns++] = ':';	/* a missing value is reported as ':' */
	for (size_t t = 0; t < nsets && t < OPT_TABLES_MAX; t++)
		for (size_t i = 0; sets[t].rows[i].name && i < OPT_ROWS_MAX; i++) {
			const struct opt_spec *o = &sets[t].rows[i];

			a->lo[nl++] = (struct option){ o->name, o->arg ? required_argument : no_argument,
						       NULL, LONG_VAL(t, i) };
			if (o->short_name) {
				a->so[ns++] = o->short_name;
				if (o->arg)
					a->so[ns++] = ':';
			}
		}
	a->lo[nl] = (struct option){ 0, 0, 0, 0 };
	a->so[ns] = '\0';
}

/* The table and row of a getopt_long result. */
static bool row_of(const struct opt_set *sets, size_t nsets, int c, size_t *t, size_t *i)
{
	if (c >= 256) {
		*t = (size_t)(c - 256) / OPT_ROWS_MAX;
		*i = (size_t)(c - 256) % OPT_ROWS_MAX;
		return *t < nsets;
	}
	for (*t = 0; *t < nsets; (*t)++)
		for (*i = 0; sets[*t].rows[*i].name; (*i)++)
			if (sets[*t].rows[*i].short_name == c)
				return true;
	return false;
}

/* The long names word (without "--" and "=value") is a prefix of, as "--a, --b". */
static int ambiguous(const struct opt_set *sets, size_t nsets, const char *word, char *buf,
		     size_t len)
{
	size_t n = strcspn(word, "="), off = 0;
	int count = 0;

	buf[0] = '\0';
	for (size_t t = 0; t < nsets; t++)
		for (size_t i = 0; sets[t].rows[i].name; i++)
			if (!strncmp(sets[t].rows[i].name, word, n) && !(sets[t].rows[i].flags & OPT_HIDDEN)) {
				if (off < len)
					off += (size_t)snprintf(buf + off, len - off, "%s--%s", count ? ", " : "",
								sets[t].rows[i].name);
				count++;
			}
	return count;
}

static int unknown_option(const struct opt_set *sets, size_t nsets, char **argv,
			  const char **unknown, struct st_err *e)
{
	static _Thread_local char word[3];
	const char *a = argv[optind - 1];
	char names[256];
	size_t t, i;

	if (optopt >= 256 && row_of(sets, nsets, optopt, &t, &i))
		return err_set(e, -EINVAL, "option --%s takes no value", sets[t].rows[i].name);
	if (optopt) {
		snprintf(word, sizeof(word), "-%c", optopt);
		*unknown = word;
		return err_set(e, -EINVAL, "unknown option -%c", optopt);
	}
	if (!strncmp(a, "--", 2) && a[2] && ambiguous(sets, nsets, a + 2, names, sizeof(names)) > 1)
		return err_set(e, -EINVAL, "option %.*s is ambiguous: %s", (int)strcspn(a, "="), a, names);
	*unknown = a;
	return err_set(e, -EINVAL, "unknown option %s", a);
}

int opt_parse(const struct opt_tables *tables, int argc, char **argv,
	      struct opt_given *given, const char **unknown, struct st_err *e)
{
	const struct opt_set *sets = tables->sets;
	size_t nsets = tables->n;
	struct getopt_arrays a;
	int c;

	*unknown = NULL;
	if (given)
		memset(given, 0, sizeof(*given));
	build(sets, nsets, &a);
	optind = 0;	/* GNU: start over, argv[0] is the command */
	opterr = 0;
	while ((c = getopt_long(argc, argv, a.so, a.lo, NULL)) != -1) {
		const struct opt_spec *o;
		size_t t, i;

		if (c == '?')
			return unknown_option(sets, nsets, argv, unknown, e);
		if (c == ':')
			return err_set(e, -EINVAL, "option %s needs a value", argv[optind - 1]);
		if (!row_of(sets, nsets, c, &t, &i))
			return err_set(e, -EINVAL, "unexpected option");
		o = &sets[t].rows[i];
		if (o->arg && !optarg[0] && !(o->flags & OPT_EMPTY_OK))
			return err_set(e, -EINVAL, "--%s needs a value, not \"\"", o->name);
		if (o->parse(o, o->arg ? optarg : NULL, (char *)sets[t].args + o->off, e) < 0)
			return -EINVAL;
		if (given)
			given->given[t] |= 1ULL << i;
	}
	return optind;
}

/* ---- did you mean ---- */

/* Optimal string alignment distance (a swap of neighbours is one edit). */
static size_t distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b), d[32][32];

	if (la >= 32 || lb >= 32)
		return SIZE_MAX;
	for (size_t i = 0; i <= la; i++)
		d[i][0] = i;
	for (size_t j = 0; j <= lb; j++)
		d[0][j] = j;
	for (size_t i = 1; i <= la; i++)
		for (size_t j = 1; j <= lb; j++) {
			size_t best = d[i - 1][j - 1] + (a[i - 1] != b[j - 1]);

			if (d[i - 1][j] + 1 < best)
				best = d[i - 1][j] + 1;
			if (d[i][j - 1] + 1 < best)
				best = d[i][j - 1] + 1;
			if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] &&
			    d[i - 2][j - 2] + 1 < best)
				best = d[i - 2][j - 2] + 1;
			d[i][j] = best;
		}
	return d[la][lb];
}

/* word is c with letters left out ("anon-rnd" of "anon-random"), starting alike. */
static bool abbreviates(const char *word, const char *c)
{
	if (*word != *c)
		return false;
	for (; *c && *word; c++)
		if (*c == *word)
			word++;
	return !*word;
}

const char *opt_closest(const char *word, const char *(*at)(size_t i, void *arg), void *arg)
{
	size_t len = strlen(word), allowed = len / 3 ? len / 3 : 1, best = SIZE_MAX, pick = 0;
	char first[64] = "";
	const char *c;
	bool tie = false;

	if (len == 0)
		return NULL;
	/* at() may reuse one buffer: compare by copy, fetch the pick again at the end */
	for (size_t i = 0; (c = at(i, arg)); i++) {
		/* the start of a name, typed short, counts as one edit away, */
		size_t d = distance(word, c);

		/* and so does a name typed with letters left out */
		if (len >= 3 && d > 1 && (!strncmp(c, word, len) || abbreviates(word, c)))
			d = 1;

		if (d < best) {
			best = d;
			pick = i;
			tie = false;
			snprintf(first, sizeof(first), "%s", c);
		} else if (d == best && strcmp(c, first)) {
			tie = true;
		}
	}
	return best <= allowed && !tie ? at(pick, arg) : NULL;
}

static const char *choice_name_at(size_t i, void *arg)
{
	return opt_choice(arg, i);
}

const char *opt_closest_choice(const struct opt_spec *o, const char *word)
{
	return opt_closest(word, choice_name_at, (void *)o);
}
