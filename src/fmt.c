/*
 * fmt.c - units for people: sizes as "1.5 GiB", and the parsers of the
 * durations ("200ms", "2s") and sizes ("512M") users type. Shared by the
 * commands and the TUI (see fmt.h).
 */
#include <cjson/cJSON.h>
#include <ctype.h>
#include <math.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "swaptune/fmt.h"

/*
 * A plain decimal number at the start of s: digits, optionally a point and
 * digits. strtod() alone also reads "0x10" (hex), "1e3", "nan", "inf",
 * blanks and signs, none of which a duration or a size is. Its value and
 * *end after it; false when s does not start with one.
 */
static bool plain_decimal(const char *s, double *v, char **end)
{
	const char *p = s;

	while (isdigit((unsigned char)*p))
		p++;
	if (p == s)
		return false;
	if (*p == '.') {
		const char *q = ++p;

		while (isdigit((unsigned char)*p))
			p++;
		if (p == q)
			return false;
	}
	errno = 0;
	*v = strtod(s, end);
	return *end == p && !errno && isfinite(*v);
}

int fmt_parse_duration(const char *s, long long *ns)
{
	char *end;
	double v;

	if (!plain_decimal(s, &v, &end))
		return -EINVAL;
	if (!*end || !strcmp(end, "s"))
		v *= 1e9;
	else if (!strcmp(end, "ms"))
		v *= 1e6;
	else if (!strcmp(end, "us"))
		v *= 1e3;
	else if (!strcmp(end, "ns"))
		;
	else if (!strcmp(end, "m") || !strcmp(end, "min"))
		v *= 60e9;
	else if (!strcmp(end, "h"))
		v *= 3600e9;
	else
		return -EINVAL;
	if (v > 9.2e18)
		return -ERANGE;
	*ns = (long long)v;
	return 0;
}

int fmt_parse_size(const char *s, unsigned long long *bytes)
{
	char *end;
	double v;
	double mult = 1;

	if (!plain_decimal(s, &v, &end))
		return -EINVAL;
	switch (toupper((unsigned char)*end)) {
	case '\0': break;
	case 'K': mult = 1024.0; end++; break;
	case 'M': mult = 1024.0 * 1024; end++; break;
	case 'G': mult = 1024.0 * 1024 * 1024; end++; break;
	case 'T': mult = 1024.0 * 1024 * 1024 * 1024; end++; break;
	default: return -EINVAL;
	}
	if (*end == 'i' || *end == 'I')
		end++;
	if (*end == 'B' || *end == 'b')
		end++;
	if (*end)
		return -EINVAL;
	/* far beyond any memory, and keeps sums of sizes from wrapping */
	if (v * mult > FMT_SIZE_MAX)
		return -ERANGE;
	*bytes = (unsigned long long)(v * mult);
	return 0;
}

int fmt_parse_i64(const char *s, long long min, long long max, long long *out)
{
	char *end;
	long long v;

	if (!s || !*s || isspace((unsigned char)*s))
		return -EINVAL;
	errno = 0;
	v = strtoll(s, &end, 10);
	if (*end)
		return -EINVAL;
	if (errno == ERANGE || v < min || v > max)
		return -ERANGE;
	*out = v;
	return 0;
}

int fmt_parse_real(const char *s, double min, double max, double *out)
{
	char *end;
	double v;

	if (!s || !*s || isspace((unsigned char)*s))
		return -EINVAL;
	/* decimal only: strtod would take 0x10 as 16 and "infinity" */
	if (s[strspn(s, "0123456789+-.eE")])
		return -EINVAL;
	errno = 0;
	v = strtod(s, &end);
	if (*end)
		return -EINVAL;
	if (errno == ERANGE)	/* overflow: +-HUGE_VAL */
		return -ERANGE;
	if (!isfinite(v))	/* "nan", "inf" spelled out */
		return -EINVAL;
	if (v < min || v > max)
		return -ERANGE;
	*out = v;
	return 0;
}

const char *fmt_bytes(unsigned long long b, char *buf, size_t len)
{
	static const char *const unit[] = { "B", "KiB", "MiB", "GiB", "TiB" };
	double v = (double)b;
	int u = 0;

	while (v >= 1024 && u < 4) {
		v /= 1024;
		u++;
	}
	if (u == 0)
		snprintf(buf, len, "%llu B", b);
	else
		snprintf(buf, len, "%.1f %s", v, unit[u]);
	return buf;
}

/*
 * The one escaper of human output. At p: how many bytes one character
 * takes (n), and whether it passes as it is. What does not pass is one
 * byte shown as \xNN: C0 controls (newline and ESC included), DEL, C1
 * controls (U+0080-U+009F: their UTF-8 form, such as C2 9B, the one-byte
 * CSI, as well as a raw 9B), and bytes that are not valid UTF-8 (overlong
 * forms, surrogates, beyond U+10FFFF, cut sequences).
 */
static bool char_ok(const unsigned char *p, int *len)
{
	int n = *p < 0x80 ? 1 : (*p & 0xe0) == 0xc0 ? 2 : (*p & 0xf0) == 0xe0 ? 3 :
		(*p & 0xf8) == 0xf0 ? 4 : 0;
	bool ok = n > 0;

	for (int k = 1; ok && k < n; k++)
		ok = (p[k] & 0xc0) == 0x80;
	if (ok && n == 1)
		ok = *p >= 0x20 && *p != 0x7f;
	if (ok && n == 2)
		ok = *p >= 0xc2 && !(*p == 0xc2 && p[1] < 0xa0);	/* overlong, C1 */
	if (ok && n == 3)
		ok = !(*p == 0xe0 && p[1] < 0xa0) &&			/* overlong */
		     !(*p == 0xed && p[1] >= 0xa0);			/* surrogates */
	if (ok && n == 4)
		ok = *p <= 0xf4 && !(*p == 0xf0 && p[1] < 0x90) && !(*p == 0xf4 && p[1] >= 0x90);
	*len = ok ? n : 1;
	return ok;
}

const char *fmt_escape(const char *s, char *buf, size_t len)
{
	const unsigned char *p = (const unsigned char *)(s ? s : "");
	size_t o = 0;

	if (len == 0)
		return buf;
	while (*p && o + 5 < len) {
		int n;

		if (!char_ok(p, &n)) {
			o += (size_t)snprintf(buf + o, len - o, "\\x%02x", *p++);
			continue;
		}
		if (o + (size_t)n >= len)
			break;
		memcpy(buf + o, p, (size_t)n);
		o += (size_t)n;
		p += n;
	}
	buf[o] = '\0';
	return buf;
}

size_t fmt_escape_len(const char *s)
{
	const unsigned char *p = (const unsigned char *)(s ? s : "");
	size_t o = 0;

	while (*p) {
		int n;

		o += char_ok(p, &n) ? (size_t)n : 4;
		p += n;
	}
	return o;
}

void fmt_fputs(FILE *f, const char *s)
{
	const unsigned char *p = (const unsigned char *)(s ? s : "");

	while (*p) {
		const unsigned char *run = p;
		int n;

		while (*p && char_ok(p, &n))
			p += n;
		if (p > run)
			fwrite(run, 1, (size_t)(p - run), f);
		if (*p)
			fprintf(f, "\\x%02x", *p++);
	}
}

void fmt_fputs_pad(FILE *f, const char *s, size_t width, bool right)
{
	size_t n = fmt_escape_len(s);

	for (size_t i = n; right && i < width; i++)
		fputc(' ', f);
	fmt_fputs(f, s);
	for (size_t i = n; !right && i < width; i++)
		fputc(' ', f);
}

/*
 * One shell word: as it is when it holds nothing a shell treats specially
 * (and not always), else in single quotes with each ' written '\''.
 * -ENOSPC (out "") when it does not fit: a word is never cut.
 */
int fmt_shell_quote(const char *s, bool always, char *out, size_t len)
{
	size_t o = 0;

	if (len == 0)
		return -ENOSPC;
	out[0] = '\0';
	if (!always && *s && !strpbrk(s, " \t\n\r'\"\\$`;&|<>()*?[]{}!#~") &&
	    fmt_escape_len(s) == strlen(s)) {
		if (strlen(s) >= len)
			return -ENOSPC;
		memcpy(out, s, strlen(s) + 1);
		return 0;
	}
	out[o++] = '\'';
	for (; *s; s++) {
		const char *piece = *s == '\'' ? "'\\''" : NULL;
		size_t k = piece ? 4 : 1;

		if (o + k + 2 > len) {
			out[0] = '\0';
			return -ENOSPC;
		}
		memcpy(out + o, piece ? piece : s, k);
		o += k;
	}
	out[o++] = '\'';
	out[o] = '\0';
	return 0;
}

const char *fmt_printable(const char *s)
{
	/* one ring per thread: the TUI's engine thread formats as its screen does */
	static _Thread_local char ring[FMT_PRINTABLE_SLOTS][FMT_PRINTABLE_LEN];
	static _Thread_local unsigned next;

	return fmt_escape(s, ring[next++ % FMT_PRINTABLE_SLOTS], FMT_PRINTABLE_LEN);
}

/*
 * v (finite, |v| < 10 000 or scaled into [1, 1000)) with sig significant
 * digits but never fewer than the integer part, "-0" as "0". A plain
 * number drops trailing zeros after the point (3, 64, 2.5: often exact);
 * a scaled one keeps them, since they are digits it measured (28.00k is
 * not 28k).
 */
static void plain_digits(double v, int sig, const char *suffix, char *buf, size_t len)
{
	double a = fabs(v);
	int mag = a >= 1 ? (int)floor(log10(a)) : a > 0 ? (int)floor(log10(a)) : 0;
	int dec = sig - 1 - mag;
	char *dot, *end;

	if (dec < 0)
		dec = 0;
	if (dec > 9)
		dec = 9;
	snprintf(buf, len, "%.*f", dec, v);
	dot = *suffix ? NULL : strchr(buf, '.');
	if (dot) {
		end = buf + strlen(buf);
		while (end > dot + 1 && end[-1] == '0')
			*--end = '\0';
		if (end == dot + 1)
			*dot = '\0';
	}
	if (!strcmp(buf, "-0"))
		snprintf(buf, len, "0");
	if (*suffix && strlen(buf) + strlen(suffix) < len)
		strcat(buf, suffix);
}

const char *fmt_num_sig(double v, int sig, char *buf, size_t len)
{
	static const char *const prefix[] = { "", "k", "M", "G", "T", "P", "E" };
	double a = fabs(v);
	int p = 0;

	if (len == 0)
		return buf;
	if (!isfinite(v)) {
		snprintf(buf, len, "-");
		return buf;
	}
	if (sig < 1)
		sig = 1;
	if (sig > 4)
		sig = 4;
	if (a < 0.5e-9) {
		snprintf(buf, len, "0");
		return buf;
	}
	if (a < 9999.5) {
		plain_digits(v, sig, "", buf, len);
		return buf;
	}
	while (p < 6) {
		double s = a / 1000, r;
		int dec;

		p++;
		a = s;
		v /= 1000;
		/* what it rounds to with the digits it would get: 999.96k is 1M */
		dec = sig - 1 - (a >= 100 ? 2 : a >= 10 ? 1 : 0);
		r = round(a * pow(10, dec < 0 ? 0 : dec)) / pow(10, dec < 0 ? 0 : dec);
		if (r < 1000 || p == 6)
			break;
	}
	if (a < 1)	/* 999.96k went up a prefix: it is 1.000M */
		v = v < 0 ? -1 : 1;
	plain_digits(v, sig, prefix[p], buf, len);
	return buf;
}

const char *fmt_num(double v, char *buf, size_t len)
{
	return fmt_num_sig(v, 4, buf, len);
}

const char *fmt_p(double p, char *buf, size_t len)
{
	if (!isfinite(p))
		snprintf(buf, len, "-");
	else if (p < 0.001)
		snprintf(buf, len, "<0.001");
	else if (p >= 0.995)
		snprintf(buf, len, "1.0");
	else
		/* two significant digits, the zeros kept: 0.10 is not 0.1 of a p-value */
		snprintf(buf, len, "%.*f", p >= 0.0995 ? 2 : p >= 0.00995 ? 3 : 4, p);
	return buf;
}

const char *fmt_pct(double v, bool sign, char *buf, size_t len)
{
	char n[FMT_NUM_LEN];

	if (!isfinite(v))
		snprintf(buf, len, "-");
	else if (fabs(v) < 9999.95)
		snprintf(buf, len, sign ? "%+.1f %%" : "%.1f %%", v);
	else
		snprintf(buf, len, "%s%s %%", sign && v > 0 ? "+" : "", fmt_num(v, n, sizeof(n)));
	return buf;
}

const char *fmt_size_arg(unsigned long long b, char *buf, size_t len)
{
	static const char unit[] = "KMGT";
	int u = -1;

	while (b && u < 3 && b % 1024 == 0) {
		b /= 1024;
		u++;
	}
	if (u < 0)
		snprintf(buf, len, "%llu", b);
	else
		snprintf(buf, len, "%llu%c", b, unit[u]);
	return buf;
}

const char *fmt_time(const char *iso, bool space, char *buf, size_t len)
{
	const char *pat = "dddd-dd-ddTdd:dd:dd";
	size_t i;

	if (!iso)
		iso = "";
	for (i = 0; pat[i] && iso[i]; i++)
		if (pat[i] == 'd' ? !isdigit((unsigned char)iso[i]) : iso[i] != pat[i])
			break;
	/* the seconds, then an optional fraction, then Z (or nothing: stored UTC) */
	if (!pat[i]) {
		const char *p = iso + i;

		if (*p == '.')
			for (p++; isdigit((unsigned char)*p); p++)
				;
		if ((*p == 'Z' && !p[1]) || !*p) {
			snprintf(buf, len, "%.10s%c%.8sZ", iso, space ? ' ' : 'T', iso + 11);
			return buf;
		}
	}
	return fmt_escape(iso, buf, len);
}

int fmt_parse_time(const char *iso, double *unix_s)
{
	struct tm tm;
	const char *p;
	double frac = 0;

	memset(&tm, 0, sizeof(tm));
	if (!iso || !(p = strptime(iso, "%Y-%m-%dT%H:%M:%S", &tm)))
		return -EINVAL;
	if (*p == '.') {
		const char *q = p + 1;

		while (isdigit((unsigned char)*q))
			q++;
		if (q == p + 1)
			return -EINVAL;
		frac = strtod(p, NULL);
		p = q;
	}
	if (*p == 'Z')
		p++;
	if (*p)
		return -EINVAL;
	{
		/* a date the calendar has: strptime takes February 30 and hour 24 */
		struct tm back = tm;
		time_t t = timegm(&back);
		struct tm chk;

		if (!gmtime_r(&t, &chk) || chk.tm_year != tm.tm_year || chk.tm_mon != tm.tm_mon ||
		    chk.tm_mday != tm.tm_mday || chk.tm_hour != tm.tm_hour || chk.tm_min != tm.tm_min ||
		    chk.tm_sec != tm.tm_sec)
			return -EINVAL;
		*unix_s = (double)t + frac;
	}
	return 0;
}

const char *fmt_short(char *b, size_t len, bool ok, double v)
{
	if (!ok)
		return "n/a";
	if (v < 0)
		v = 0;
	/* at most two decimals: five columns */
	if (v < 0.995 && v >= 0.005) {
		char *end;

		snprintf(b, len, "%.2f", v);
		end = b + strlen(b);
		while (end[-1] == '0')
			*--end = '\0';
		return b;
	}
	return fmt_num_sig(v < 0.005 ? 0 : v, 3, b, len);
}

void fmt_json_num(cJSON *o, const char *key, double v)
{
	if (isfinite(v))
		cJSON_AddNumberToObject(o, key, v);
	else
		cJSON_AddNullToObject(o, key);
}

void fmt_json_u53(cJSON *o, const char *key, uint64_t v)
{
	char buf[24];

	snprintf(buf, sizeof(buf), "%llu", (unsigned long long)v);
	cJSON_AddRawToObject(o, key, buf);
}
