/*
 * fmt.h - units for people, used by the commands and the TUI alike: sizes
 * formatted with binary units, parsers for the durations and sizes given
 * on the command line, and the one rule for numbers in JSON output. No I/O.
 */
#ifndef SWAPTUNE_FMT_H
#define SWAPTUNE_FMT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdint.h>

/*
 * Parse "200ms", "2s", "1m", "1h" (bare number = seconds) into ns: a plain
 * decimal number (digits, optionally ".digits") and a unit. -EINVAL for
 * anything else (empty, "nan", "inf", leading blanks, a sign, hex "0x10s",
 * an exponent "1e3s"), -ERANGE past about 292 years.
 */
int fmt_parse_duration(const char *s, long long *ns);
/* Largest size accepted: 1 EiB, so that sums of sizes cannot wrap. */
#define FMT_SIZE_MAX (1024.0 * 1024 * 1024 * 1024 * 1024 * 1024)
/* Parse "512M", "1G", "4096" (bytes) with binary units; the number as above; -EINVAL, -ERANGE as above. */
int fmt_parse_size(const char *s, unsigned long long *bytes);
/*
 * Strict numbers for options: the whole string, decimal, no blanks, within
 * [min, max]. -EINVAL for empty, trailing junk, "nan"/"inf"; -ERANGE
 * outside the range.
 */
int fmt_parse_i64(const char *s, long long min, long long max, long long *out);
int fmt_parse_real(const char *s, double min, double max, double *out);
/* "1.5 GiB", "512 B": into buf, which is returned. */
const char *fmt_bytes(unsigned long long b, char *buf, size_t len);

/*
 * Text from outside (hostname, /proc/swaps paths, store rows) for a
 * human-readable line: control bytes (newline, ESC...), DEL, C1 controls and
 * invalid UTF-8 become \xNN; printable UTF-8 is kept. fmt_escape() writes
 * into buf (truncating) and returns it; fmt_printable() uses one of
 * FMT_PRINTABLE_SLOTS buffers of the calling thread in turn, so up to that
 * many results may be used in one printf (truncates at FMT_PRINTABLE_LEN).
 * JSON output needs neither: cJSON escapes.
 */
const char *fmt_escape(const char *s, char *buf, size_t len);
/* The length of s escaped (no limit). */
size_t fmt_escape_len(const char *s);
/* Write s escaped to f, whole (no length limit): error lines, reports. */
void fmt_fputs(FILE *f, const char *s);
/* The same, padded with blanks to width escaped characters (right: aligned right). */
void fmt_fputs_pad(FILE *f, const char *s, size_t width, bool right);
#define FMT_PRINTABLE_SLOTS 16
#define FMT_PRINTABLE_LEN 2048
const char *fmt_printable(const char *s);

/*
 * The one quoting of words in shell lines swaptune prints (rollback
 * --print, the report's rerun line): s as one word for sh, bare when it
 * holds nothing special (unless always), else single-quoted (' as '\'').
 * Into out; -ENOSPC and "" when it does not fit (a word is never cut).
 * The line is then shown through fmt_fputs(): a control byte inside the
 * quotes reaches the terminal as \xNN, and stays inert when pasted.
 */
int fmt_shell_quote(const char *s, bool always, char *out, size_t len);

/*
 * The one number style of human output (reports, status, history, fleet,
 * sample, the TUI): never an exponent.
 *
 * fmt_num(): at most 4 significant digits; from 10 000 up with an SI prefix
 * (12.35k, 28.00k, 1.235M, 2.500G, T, P, E: a prefixed number keeps its
 * 4 digits); below 1 with as many decimals as 4 significant digits need
 * (0.01315), down to 1e-9 (smaller is "0"); a number without a prefix
 * drops trailing zeros after the point (3, 64, 2.5); "-" when not finite.
 * Into buf, which is returned (FMT_NUM_LEN is always enough).
 */
#define FMT_NUM_LEN 24
const char *fmt_num(double v, char *buf, size_t len);
/* The same with at most sig (1..4) significant digits. */
const char *fmt_num_sig(double v, int sig, char *buf, size_t len);
/*
 * A p-value: "<0.001" below 0.001, else two significant digits (0.56,
 * 0.048, 0.0013; 1.0 at the top); "-" when not finite.
 */
const char *fmt_p(double p, char *buf, size_t len);
/*
 * A percentage in the one style, one decimal and a space before the sign:
 * "+5.0 %" (signed) or "5.0 %"; "-" when not finite. Values past 10 000 %
 * use fmt_num's prefixes ("+12.35k %") rather than an exponent.
 */
const char *fmt_pct(double v, bool sign, char *buf, size_t len);
/*
 * A size as swaptune's options take it (fmt_parse_size() reads it back to
 * the same byte): the largest binary unit it is a whole number of: 256M,
 * 1536M, 4K, 1G, 1000 (bytes).
 */
const char *fmt_size_arg(unsigned long long bytes, char *buf, size_t len);
/*
 * A time for people, in UTC with a Z: a stored ISO 8601 time
 * ("2026-11-30T09:00:00.000Z") to seconds ("2026-11-30T09:00:00Z"). Text
 * that is not such a time is copied escaped (fmt_escape). With space, a
 * blank replaces the T (narrow tables: "2026-11-30 09:00:00Z").
 */
#define FMT_TIME_LEN 24
const char *fmt_time(const char *iso, bool space, char *buf, size_t len);
/*
 * A stored ISO 8601 UTC time ("2026-11-30T09:00:00.000Z", the fraction
 * and the Z optional) as Unix time; -EINVAL for anything else.
 */
int fmt_parse_time(const char *iso, double *unix_s);

/*
 * A value in at most 5 characters for tables, in fmt_num's style with 3
 * significant digits: 0, 1.23, 45.6, 789, 9999, 12.3k, 123k, 12.3M, 1.20G;
 * negative values as 0; "n/a" when !ok. Written into b.
 */
const char *fmt_short(char *b, size_t len, bool ok, double v);

/*
 * Human output for a terminal: a stream whose lines reach to folded at
 * blanks to width display columns, each continuation under the column the
 * line's text belongs to (a table's last column, a bullet's text). Lines
 * reach to when they end; fclose() writes an unended rest and leaves to
 * open. NULL when out of memory.
 */
#define FMT_HUMAN_WIDTH 100
FILE *fmt_wrap_open(FILE *to, int width);
/* Display columns of s[0..n): one per UTF-8 character, none for a colour escape. */
int fmt_display_width(const char *s, size_t n);

/* o[key] = v; NAN and infinities are not JSON numbers: they become null. */
struct cJSON;
void fmt_json_num(struct cJSON *o, const char *key, double v);
/*
 * o[key] = v, an integer below 2^53 (a seed), written digit for digit:
 * cJSON prints a double with 15 significant digits when that compares
 * "equal" within a relative DBL_EPSILON, which drops the last unit of a
 * 16-digit seed above about 4.5e15, so a stored seed would not make the
 * stored schedule again.
 */
void fmt_json_u53(struct cJSON *o, const char *key, uint64_t v);

#endif
