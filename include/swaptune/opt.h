/*
 * opt.h - option tables. Each command describes its options once, as rows
 * of struct opt_spec (long name, short name, value name, help, a typed
 * parser with its destination, a completion kind); the getopt_long arrays,
 * `--help`, the bash/zsh/fish completion scripts and the man page's
 * OPTIONS are all made from the rows (git's parse-options, tmux's args
 * template). The typed parsers are shared: an option several commands take
 * (--run, --min-effect, --progress, sizes, durations) parses and fails the
 * same way everywhere.
 *
 * A destination is an offset into the caller's argument struct; the row
 * macros check the field's C type against the parser at compile time.
 * No I/O here except the optional stat() of opt_parse_dir().
 */
#ifndef SWAPTUNE_OPT_H
#define SWAPTUNE_OPT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "swaptune/err.h"

struct opt_spec;

/*
 * Parse arg (NULL for a flag) into dst. On bad input: -EINVAL with e set
 * to one line that starts with the option ("--count needs a whole number
 * from 1, not \"x\""); the caller adds the command and the help pointer.
 */
typedef int (*opt_parse_fn)(const struct opt_spec *o, const char *arg, void *dst,
			    struct st_err *e);

/* What a completion script offers for the option's value. */
enum opt_complete {
	OPT_COMPLETE_NONE = 0,		/* free text: nothing */
	OPT_COMPLETE_CHOICES,		/* the row's choices (or choice_at) */
	OPT_COMPLETE_FILE,
	OPT_COMPLETE_DIR,
	OPT_COMPLETE_USER,
	OPT_COMPLETE_RUN,		/* ids from the store (swaptune --list-ids KIND) */
	OPT_COMPLETE_PROBE_RUN,
	OPT_COMPLETE_APPLY_RUN,
	OPT_COMPLETE_RECORDING,
	OPT_COMPLETE_MEASURED_RUN,	/* a probe or switchback run: what recommend and apply judge */
	OPT_COMPLETE_SETTING,		/* NAME= of the settings registry */
	OPT_COMPLETE_SNAPSHOT,		/* snapshot ids (swaptune --list-ids snapshot) */
};

enum {
	OPT_HIDDEN = 1 << 0,		/* parsed, but not in help, completion or the man page */
	OPT_EMPTY_OK = 1 << 1,		/* "" is a value (otherwise "needs a value") */
	OPT_LIST = 1 << 2,		/* a comma-separated list of the choices (completion) */
	OPT_HELP_CHOICES = 1 << 3,	/* help and man page list the choices after the help */
	/*
	 * with OPT_HELP_CHOICES: choices a table grows (vocab-rows.h), which
	 * --help lists and the man page sends to (`swaptune CMD --help`), so
	 * a new one does not change the page
	 */
	OPT_CHOICES_GROW = 1 << 4,
};

struct opt_spec {
	const char *name;		/* long name without "--"; NULL ends a table */
	char short_name;		/* 'y' for -y, 0 = none */
	const char *arg;		/* the value's name in help ("N", "DUR"); NULL = a flag */
	const char *help;		/* one sentence, no full stop; printers wrap it */
	const char *section;		/* a heading printed before this row in --help, or NULL */
	opt_parse_fn parse;
	size_t off;			/* parse writes at (char *)args + off */
	long long min, max;		/* integer, id, duration (ns) and size (bytes) bounds */
	double lo, hi;			/* real and percentage bounds */
	const char *const *choices;	/* opt_parse_choice: NULL-terminated; the index is written */
	const char *(*choice_at)(size_t i);	/* completion only: names, NULL past the end */
	const char *what;		/* the noun in messages: "a run id", "a cgroup path" */
	enum opt_complete complete;
	unsigned flags;
};

/* ---- shared typed parsers (dst type in brackets) ---- */
int opt_set_true(const struct opt_spec *o, const char *arg, void *dst, struct st_err *e);	/* [bool] */
int opt_set_false(const struct opt_spec *o, const char *arg, void *dst, struct st_err *e);	/* [bool] */
/* A whole decimal number in [min, max]: [uint64_t], [unsigned], [int] */
int opt_parse_u64(const struct opt_spec *o, const char *arg, void *dst, struct st_err *e);
int opt_parse_uint(const struct opt_spec *o, const char *arg, void *dst, struct st_err *e);
int opt_parse_int(const struct opt_spec *o, const char *arg, void *dst, struct st_err *e);
/* An id in [max(min, 1), max]: [long long] */
int opt_parse_id(const struct opt_spec *o, const char *arg, void *dst, struct st_err *e);
/* fmt_parse_duration() in [min, max] ns: [long long] ns, or [double] seconds */
int opt_parse_ns(const struct opt_spec *o, const char *arg, void *dst, struct st_err *e);
int opt_parse_seconds(const struct opt_spec *o, const char *arg, void *dst, struct st_err *e);
/* fmt_parse_size() in [min, max] bytes: [uint64_t] */
int opt_parse_size(const struct opt_spec *o, const char *arg, void *dst, struct st_err *e);
/* fmt_parse_real() in [lo, hi]: [double]; a percentage says so in its message */
int opt_parse_real(const struct opt_spec *o, const char *arg, void *dst, struct st_err *e);
int opt_parse_percent(const struct opt_spec *o, const char *arg, void *dst, struct st_err *e);
/* One of o->choices: its index [int] */
int opt_parse_choice(const struct opt_spec *o, const char *arg, void *dst, struct st_err *e);
/* The text as given [const char *]; at most max bytes when max > 0 */
int opt_parse_string(const struct opt_spec *o, const char *arg, void *dst, struct st_err *e);
/* The text copied into a char array of o->max + 1 bytes [char[]] */
int opt_parse_strbuf(const struct opt_spec *o, const char *arg, void *dst, struct st_err *e);
/* An existing directory [const char *] */
int opt_parse_dir(const struct opt_spec *o, const char *arg, void *dst, struct st_err *e);

/*
 * Row macros. T is the argument struct, f the field the value goes to;
 * OPT_AT() refuses to compile when f's type is not the parser's.
 */
#define OPT_AT(T, f, type) (offsetof(T, f) + 0 * sizeof(struct { \
	int field_type_matches_parser : __builtin_types_compatible_p(__typeof__(((T *)0)->f), type) ? 1 : -1; }))

/* The fields every row has; the macros below add their parser's own. */
#define OPT_ROW(n, s, a, h, fn, offset) \
	.name = n, .short_name = s, .arg = a, .help = h, .parse = fn, .off = offset

#define OPT_FLAG(n, s, h, T, f) { OPT_ROW(n, s, NULL, h, opt_set_true, OPT_AT(T, f, bool)) }
#define OPT_FLAG_OFF(n, h, T, f) { OPT_ROW(n, 0, NULL, h, opt_set_false, OPT_AT(T, f, bool)) }
#define OPT_U64(n, s, a, h, T, f, mn, mx) \
	{ OPT_ROW(n, s, a, h, opt_parse_u64, OPT_AT(T, f, uint64_t)), .min = mn, .max = mx }
#define OPT_UINT(n, a, h, T, f, mn, mx) \
	{ OPT_ROW(n, 0, a, h, opt_parse_uint, OPT_AT(T, f, unsigned)), .min = mn, .max = mx }
#define OPT_INT(n, a, h, T, f, mn, mx) \
	{ OPT_ROW(n, 0, a, h, opt_parse_int, OPT_AT(T, f, int)), .min = mn, .max = mx }
#define OPT_ID(n, a, h, T, f, noun, comp) \
	{ OPT_ROW(n, 0, a, h, opt_parse_id, OPT_AT(T, f, long long)), .min = 1, .max = INT64_MAX, \
	  .what = noun, .complete = comp }
#define OPT_DURATION(n, s, h, T, f, mn, mx) \
	{ OPT_ROW(n, s, "DUR", h, opt_parse_ns, OPT_AT(T, f, long long)), .min = mn, .max = mx }
#define OPT_SECONDS(n, h, T, f, mn, mx) \
	{ OPT_ROW(n, 0, "DUR", h, opt_parse_seconds, OPT_AT(T, f, double)), .min = mn, .max = mx }
#define OPT_SIZE(n, h, T, f, mn, mx) \
	{ OPT_ROW(n, 0, "SIZE", h, opt_parse_size, OPT_AT(T, f, uint64_t)), .min = mn, .max = mx }
#define OPT_REAL(n, a, h, T, f, l, u) \
	{ OPT_ROW(n, 0, a, h, opt_parse_real, OPT_AT(T, f, double)), .lo = l, .hi = u }
#define OPT_PERCENT(n, h, T, f, l, u) \
	{ OPT_ROW(n, 0, "PCT", h, opt_parse_percent, OPT_AT(T, f, double)), .lo = l, .hi = u }
#define OPT_CHOICE(n, a, h, T, f, names) \
	{ OPT_ROW(n, 0, a, h, opt_parse_choice, OPT_AT(T, f, int)), .choices = names, \
	  .complete = OPT_COMPLETE_CHOICES }
#define OPT_STRING(n, s, a, h, T, f, noun, comp) \
	{ OPT_ROW(n, s, a, h, opt_parse_string, OPT_AT(T, f, const char *)), .what = noun, \
	  .complete = comp }
/* a char array f: the text copied into it, at most its size - 1 bytes */
#define OPT_STRBUF(n, a, h, T, f) \
	{ OPT_ROW(n, 0, a, h, opt_parse_strbuf, offsetof(T, f)), \
	  .max = sizeof(((T *)0)->f) - 1 + 0 * sizeof(struct { \
		int field_is_a_char_array : __builtin_types_compatible_p(__typeof__(((T *)0)->f), \
			char[sizeof(((T *)0)->f)]) ? 1 : -1; }) }
#define OPT_DIR(n, a, h, T, f) \
	{ OPT_ROW(n, 0, a, h, opt_parse_dir, OPT_AT(T, f, const char *)), .what = "a directory", \
	  .complete = OPT_COMPLETE_DIR }
/* A parser of the command's own; dst points at field f, whatever its type. */
#define OPT_CUSTOM(n, s, a, h, T, f, fn, comp) \
	{ OPT_ROW(n, s, a, h, fn, offsetof(T, f)), .complete = comp }

/* ---- the getopt driver ---- */

#define OPT_TABLES_MAX 4		/* tables one command parses at once */
#define OPT_ROWS_MAX 64			/* rows of one table (bits of struct opt_given) */

/* One table and the struct its offsets point into. */
struct opt_set {
	const struct opt_spec *rows;
	void *args;
};

/* The tables one command parses at once (at most OPT_TABLES_MAX). */
struct opt_tables {
	const struct opt_set *sets;
	size_t n;
};

/* Which rows were given: bit i of given[t] is row i of table t. */
struct opt_given {
	uint64_t given[OPT_TABLES_MAX];
};

/*
 * Parse argv[1..] (argv[0] is the command's name) with getopt_long over
 * the tables (GNU order: options anywhere, "--" ends them, unique prefixes
 * of long names accepted). Returns the index of the first non-option word,
 * or -EINVAL with e set; *unknown then points at the option that is not
 * one (for a suggestion), else is NULL. given may be NULL.
 */
int opt_parse(const struct opt_tables *tables, int argc, char **argv,
	      struct opt_given *given, const char **unknown, struct st_err *e);

/* Whether the row called name of table t was given; aborts if there is none (a BUG). */
bool opt_was_given(const struct opt_set *sets, size_t nsets, const struct opt_given *g,
		   const char *name);

/* The row of the tables called name (without "--"), or NULL. */
const struct opt_spec *opt_find(const struct opt_spec *rows, const char *name);

/*
 * "--count N", "-y, --yes": how help and the man page spell a row, into buf
 * (returned).
 */
const char *opt_spelling(const struct opt_spec *o, char *buf, size_t len);

/* A row's help as printed: with OPT_HELP_CHOICES, ": a, b or c" appended (into buf). */
const char *opt_help(const struct opt_spec *o, char *buf, size_t len);

/* The n-th choice a row offers for completion (choices or choice_at), NULL past the end. */
const char *opt_choice(const struct opt_spec *o, size_t n);

/*
 * "did you mean": the candidate closest to word (optimal string alignment
 * distance, a transposition counting as one edit; a candidate word is a
 * prefix of counts too), or NULL when none is close enough to be what was
 * meant. at(i, arg) gives candidate i, NULL past the end.
 */
const char *opt_closest(const char *word, const char *(*at)(size_t i, void *arg), void *arg);

/* opt_closest() over a row's choices (opt_choice()): the value meant by word, or NULL. */
const char *opt_closest_choice(const struct opt_spec *o, const char *word);

/* Human bounds for messages: 100000000 ns -> "100ms", 1048576 -> "1M". */
const char *opt_fmt_ns(long long ns, char *buf, size_t len);
const char *opt_fmt_size(unsigned long long b, char *buf, size_t len);

#endif
