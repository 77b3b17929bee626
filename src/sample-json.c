/*
 * sample-json.c - a tick as its JSON line (swaptune.sample/1,
 * share/schema/sample.schema.json), printed from its numbers
 * (struct sample_tick, sampler.h): the one place that line is written.
 * The live sampler fills a struct sample_tick and prints it here; a line
 * read back (an import, an old store's row) is read into one with cJSON
 * (sample_tick_parse()).
 */
#include <cjson/cJSON.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "swaptune/sampler.h"

/* ---- appended in place, printf only where its rounding is the format ---- */

struct jbuf {
	char *p;
	size_t len, used;	/* used < len: room for the final NUL */
	bool overflow;
};

static void jmem(struct jbuf *j, const char *s, size_t n)
{
	if (j->overflow || n >= j->len - j->used) {
		j->overflow = true;
		return;
	}
	memcpy(j->p + j->used, s, n);
	j->used += n;
}

static void jlit(struct jbuf *j, const char *s)
{
	jmem(j, s, strlen(s));
}

static void ju64(struct jbuf *j, uint64_t v)
{
	char d[24];
	int n = (int)sizeof(d);

	do {
		d[--n] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	jmem(j, d + n, sizeof(d) - (size_t)n);
}

/* printf's digits (n: what snprintf returned) */
static void jprinted(struct jbuf *j, const char *t, int n, size_t len)
{
	if (n < 0 || (size_t)n >= len)
		j->overflow = true;
	else
		jmem(j, t, (size_t)n);
}

/*
 * "%.10g" of v in [1e-4, 1e10) without printf, into out (n bytes): the ten
 * significant digits are v x 10^k rounded to an integer, k = 9 - v's
 * decimal exponent. In a long double (64-bit mantissa) 10^k (k <= 14) is
 * exact and the product is off by less than 1e-9, so the rounding is
 * printf's unless the product lies that close to a half: then, or for a
 * number %g would print with an exponent, false (printf decides).
 */
static bool g10(double v, char *out, size_t *n)
{
	static const long double p10[] = {
		1e0L, 1e1L, 1e2L, 1e3L, 1e4L, 1e5L, 1e6L, 1e7L, 1e8L, 1e9L, 1e10L, 1e11L, 1e12L,
		1e13L, 1e14L,
	};
	char dig[10];
	long double x, fl;
	uint64_t d;
	int e, len = 0, last;

	if (!(v >= 1e-4 && v < 1e10))
		return false;
	e = (int)floor(log10(v));
	for (int tries = 0; tries < 3; tries++) {
		if (e < -5 || e > 9)
			return false;
		x = (long double)v * p10[9 - e];
		if (x < 1e9L)
			e--;
		else if (x >= 1e10L)
			e++;
		else
			break;
	}
	if (x < 1e9L || x >= 1e10L)
		return false;
	fl = floorl(x);
	if (fabsl(x - fl - 0.5L) < 1e-7L)
		return false;
	d = (uint64_t)fl + (x - fl > 0.5L);
	if (d == 10000000000ULL) {	/* 9.9999999995 -> 10.00000000 */
		d = 1000000000ULL;
		e++;
	}
	if (e < -4 || e > 9)
		return false;	/* %g's exponent form */
	for (int i = 9; i >= 0; i--, d /= 10)
		dig[i] = (char)('0' + d % 10);
	for (last = 9; last > e && last > 0 && dig[last] == '0'; last--)
		;	/* trailing zeros of the fraction go */
	if (e < 0) {
		out[len++] = '0';
		out[len++] = '.';
		for (int i = -1; i > e; i--)
			out[len++] = '0';
		memcpy(out + len, dig, (size_t)last + 1);
		len += last + 1;
	} else {
		memcpy(out + len, dig, (size_t)e + 1);
		len += e + 1;
		if (last > e) {
			out[len++] = '.';
			memcpy(out + len, dig + e + 1, (size_t)(last - e));
			len += last - e;
		}
	}
	*n = (size_t)len;
	return true;
}

/*
 * A value as "%.0f" (integral) or "%.10g" prints it: a whole number that
 * fits is those formats' very digits, a fraction g10()'s; printf is left
 * the rest.
 */
static void jnum(struct jbuf *j, double v, bool integral)
{
	char t[400];
	size_t n;

	if (v >= 0 && v < 1e10 && v == floor(v) && !(v == 0 && signbit(v)))
		ju64(j, (uint64_t)v);
	else if (integral)
		jprinted(j, t, snprintf(t, sizeof(t), "%.0f", v), sizeof(t));
	else if (g10(v, t, &n))
		jmem(j, t, n);
	else
		jprinted(j, t, snprintf(t, sizeof(t), "%.10g", v), sizeof(t));
}

/*
 * ns as seconds with 6 decimals, as "%.6f" of ns / 1e9 prints them: the
 * microseconds rounded from the integer; a tie (or a number so large that
 * the double loses the nanoseconds) goes to printf, whose rounding of the
 * double is the format.
 */
static void jsecs6(struct jbuf *j, uint64_t ns)
{
	uint64_t us = ns / 1000, rem = ns % 1000;
	char frac[8];

	if (rem == 500 || ns >= 1000000000000000ULL) {
		char t[64];

		jprinted(j, t, snprintf(t, sizeof(t), "%.6f", (double)ns / 1e9), sizeof(t));
		return;
	}
	us += rem > 500;
	ju64(j, us / 1000000);
	snprintf(frac, sizeof(frac), ".%06u", (unsigned)(us % 1000000));
	jmem(j, frac, 7);
}

static void jstr(struct jbuf *j, const char *s)
{
	const char *run = s;

	jmem(j, "\"", 1);
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		char esc[8];

		if (c != '"' && c != '\\' && c >= 0x20)
			continue;
		jmem(j, run, (size_t)(s - run));
		if (c == '"' || c == '\\')
			snprintf(esc, sizeof(esc), "\\%c", c);
		else
			snprintf(esc, sizeof(esc), "\\u%04x", c);
		jlit(j, esc);
		run = s + 1;
	}
	jmem(j, run, (size_t)(s - run));
	jmem(j, "\"", 1);
}

/* ,"key": (n: strlen(key)) */
static void jkey_n(struct jbuf *j, const char *key, size_t n, bool comma)
{
	if (comma)
		jmem(j, ",", 1);
	jmem(j, "\"", 1);
	jmem(j, key, n);
	jmem(j, "\":", 2);
}

static void jkey(struct jbuf *j, const char *key, bool comma)
{
	jkey_n(j, key, strlen(key), comma);
}

static void jgroup(struct jbuf *j, const struct sample_tick *t, const struct sample_tick_keys *k,
		   enum sample_group g, bool open)
{
	bool first = !open;

	if (!open) {
		jkey(j, vocab_group_name(g), true);
		jmem(j, "{", 1);
	}
	for (int m = 0; m < SM_COUNT; m++) {
		const struct sample_metric_def *d = &sample_metric_defs[m];

		if (d->group != g || (k && !k->val[m] && !t->ok[m]))
			continue;
		jkey(j, d->key, !first);
		if (t->ok[m])
			jnum(j, t->val[m], d->integral);
		else
			jmem(j, "null", 4);
		first = false;
	}
	jmem(j, "}", 1);
}

/* the raw counters, kernel units; the cgroup's only with its group */
static void jcounters(struct jbuf *j, const struct sample_tick *t,
		      const struct sample_tick_keys *k)
{
	bool first = true;

	jlit(j, ",\"counters\":{");
	for (int c = 0; c < SC_COUNT; c++) {
		if ((sample_counter_defs[c].group == SG_CGROUP && !t->cgroup) ||
		    (k && !k->counter[c] && !t->has[c]))
			continue;
		jkey(j, sample_counter_defs[c].key, !first);
		if (t->has[c])
			ju64(j, t->counter[c]);
		else
			jmem(j, "null", 4);
		first = false;
	}
	jmem(j, "}", 1);
}

/* "time": UTC to the millisecond (the date part made once a second per thread) */
static void jtime(struct jbuf *j, uint64_t wall_ns)
{
	static _Thread_local time_t secs = -1;
	static _Thread_local char text[24];
	time_t now = (time_t)(wall_ns / 1000000000ULL);
	char ms[8];

	if (now != secs) {
		struct tm tm;

		gmtime_r(&now, &tm);
		strftime(text, sizeof(text), "%Y-%m-%dT%H:%M:%S", &tm);
		secs = now;
	}
	jlit(j, ",\"time\":\"");
	jlit(j, text);
	snprintf(ms, sizeof(ms), ".%03uZ\"", (unsigned)(wall_ns / 1000000ULL % 1000));
	jmem(j, ms, 6);
}

int sample_tick_json(const struct sample_tick *t, char *buf, size_t len)
{
	return sample_tick_json_keys(t, NULL, buf, len);
}

int sample_tick_json_keys(const struct sample_tick *t, const struct sample_tick_keys *k,
			  char *buf, size_t len)
{
	struct jbuf j = { buf, len, 0, false };
	bool any = false;

	if (len == 0)
		return -ENOSPC;
	jlit(&j, "{\"schema\":\"" SAMPLE_SCHEMA "\",");
	if (t->members && t->members[0]) {
		jlit(&j, t->members);
		jmem(&j, ",", 1);
	}
	jlit(&j, "\"seq\":");
	ju64(&j, t->seq);
	jtime(&j, t->wall_ns);
	jlit(&j, ",\"elapsed_s\":");
	jsecs6(&j, t->elapsed_ns);
	jlit(&j, ",\"interval_s\":");
	jsecs6(&j, t->interval_ns);
	jlit(&j, ",\"page_size\":");
	ju64(&j, t->page_size);
	jgroup(&j, t, k, SG_VMSTAT, false);
	jgroup(&j, t, k, SG_ZSWAP, false);
	jgroup(&j, t, k, SG_PSI, false);
	jgroup(&j, t, k, SG_MEMINFO, false);
	if (t->cgroup) {
		jlit(&j, ",\"cgroup\":{\"path\":");
		jstr(&j, t->cgroup_path ? t->cgroup_path : "");
		jlit(&j, t->cgroup_v2 ? ",\"version\":\"v2\"" : ",\"version\":\"v1\"");
		jgroup(&j, t, k, SG_CGROUP, true);
	}
	jlit(&j, ",\"cpu\":{\"source\":\"");
	jlit(&j, t->cpu_source ? t->cpu_source : "none");
	jlit(&j, "\",\"target\":\"");
	jlit(&j, t->cpu_target ? t->cpu_target : "none");
	jlit(&j, "\",\"note\":");
	if (t->cpu_note)
		jstr(&j, t->cpu_note);
	else
		jmem(&j, "null", 4);
	jgroup(&j, t, k, SG_CPU, true);
	jgroup(&j, t, k, SG_DERIVED, false);
	jcounters(&j, t, k);
	jlit(&j, ",\"unavailable\":{");
	for (int g = 0; g < SG_COUNT; g++) {
		const char *why = t->unavailable[g];

		if (!why || g == SG_CPU)	/* cpu.note already says it */
			continue;
		if (g == SG_CGROUP && !t->cgroup)
			continue;
		jkey(&j, vocab_group_name((enum sample_group)g), any);
		jstr(&j, why);
		any = true;
	}
	jmem(&j, "}}", 2);
	if (j.overflow)
		return -ENOSPC;
	buf[j.used] = '\0';
	return (int)j.used;
}

/* ---- a line read back into numbers ---- */

/* a string member's text: false unless a string without a control byte */
static bool clean_string(const cJSON *x, const char **out)
{
	if (!cJSON_IsString(x) || !x->valuestring)
		return false;
	for (const unsigned char *c = (const unsigned char *)x->valuestring; *c; c++)
		if (*c < 0x20 || *c == 0x7f)
			return false;
	*out = x->valuestring;
	return true;
}

/* a whole number in [0, 2^53] (a double holds it exactly) */
static bool whole(const cJSON *x, uint64_t *v)
{
	if (!cJSON_IsNumber(x) || !(x->valuedouble >= 0 && x->valuedouble <= 9007199254740992.0) ||
	    x->valuedouble != floor(x->valuedouble))
		return false;
	*v = (uint64_t)x->valuedouble;
	return true;
}

/* seconds with at most 6 decimals as ns (the line prints "%.6f") */
static bool secs6(const cJSON *x, uint64_t *ns)
{
	double us;

	if (!cJSON_IsNumber(x) || !(x->valuedouble >= 0 && x->valuedouble < 1e9))
		return false;
	us = floor(x->valuedouble * 1e6 + 0.5);
	*ns = (uint64_t)us * 1000ULL;
	return true;
}

/* "YYYY-MM-DDTHH:MM:SS.mmmZ" as ns since the epoch */
static bool utc_ms(const cJSON *x, uint64_t *ns)
{
	const char *t;
	struct tm tm = { 0 };
	int ms = -1, n = 0;
	time_t secs;

	if (!clean_string(x, &t) || strlen(t) != 24 ||
	    sscanf(t, "%4d-%2d-%2dT%2d:%2d:%2d.%3dZ%n", &tm.tm_year, &tm.tm_mon, &tm.tm_mday,
		   &tm.tm_hour, &tm.tm_min, &tm.tm_sec, &ms, &n) != 7 || n != 24 || ms < 0)
		return false;
	tm.tm_year -= 1900;
	tm.tm_mon -= 1;
	secs = timegm(&tm);
	if (secs < 0)
		return false;
	*ns = (uint64_t)secs * 1000000000ULL + (uint64_t)ms * 1000000ULL;
	return true;
}

/* the members of group g (null or a number each), from the object's child `from` on */
static bool group_values(const cJSON *from, enum sample_group g, struct sample_tick *t)
{
	for (const cJSON *x = from; x; x = x->next) {
		int m;

		for (m = 0; m < SM_COUNT; m++)
			if (sample_metric_defs[m].group == g && x->string &&
			    !strcmp(sample_metric_defs[m].key, x->string))
				break;
		if (m == SM_COUNT || t->ok[m] || (!cJSON_IsNull(x) && !cJSON_IsNumber(x)))
			return false;	/* unknown, twice, or not a value */
		if (cJSON_IsNumber(x)) {
			if (!isfinite(x->valuedouble))
				return false;
			t->ok[m] = true;
			t->val[m] = x->valuedouble;
		}
	}
	return true;
}

static bool counters(const cJSON *o, struct sample_tick *t)
{
	if (!cJSON_IsObject(o))
		return false;
	for (const cJSON *x = o->child; x; x = x->next) {
		int c;

		for (c = 0; c < SC_COUNT; c++)
			if (x->string && !strcmp(sample_counter_defs[c].key, x->string))
				break;
		if (c == SC_COUNT || t->has[c])
			return false;
		if (!cJSON_IsNull(x)) {
			if (!whole(x, &t->counter[c]))
				return false;
			t->has[c] = true;
		}
	}
	return true;
}

static bool unavailable(const cJSON *o, struct sample_tick *t)
{
	if (!cJSON_IsObject(o))
		return false;
	for (const cJSON *x = o->child; x; x = x->next) {
		int g;

		for (g = 0; g < SG_COUNT; g++)
			if (x->string && !strcmp(vocab_group_name((enum sample_group)g), x->string))
				break;
		if (g == SG_COUNT || g == SG_CPU || t->unavailable[g] ||
		    !clean_string(x, &t->unavailable[g]))
			return false;
	}
	return true;
}

/* the identity members between "schema" and "seq", printed compactly into members */
static bool identity(const cJSON *from, const cJSON *seq, char *members, size_t cap)
{
	size_t used = 0;

	members[0] = '\0';
	for (const cJSON *x = from; x && x != seq; x = x->next) {
		char *v = cJSON_PrintUnformatted(x);
		int n;

		if (!v)
			return false;
		for (const char *c = x->string; *c; c++)
			if ((unsigned char)*c < 0x20 || *c == '"' || *c == '\\')
				v[0] = '\0';	/* a key the line would have to escape */
		n = v[0] ? snprintf(members + used, cap - used, "%s\"%s\":%s", used ? "," : "",
				    x->string, v) : -1;
		cJSON_free(v);
		if (n < 0 || (size_t)n >= cap - used)
			return false;
		used += (size_t)n;
	}
	return true;
}

/* *x when it is member name (then *x moves on), else NULL */
static const cJSON *take(const cJSON **x, const char *name)
{
	const cJSON *m = *x;

	if (!m || !m->string || strcmp(m->string, name))
		return NULL;
	*x = m->next;
	return m;
}

int sample_tick_parse(const cJSON *d, struct sample_tick *t, char *members, size_t cap)
{
	const cJSON *x, *seq, *schema = d ? d->child : NULL;
	enum sample_group plain[] = { SG_VMSTAT, SG_ZSWAP, SG_PSI, SG_MEMINFO };

	memset(t, 0, sizeof(*t));
	if (!cJSON_IsObject(d) || !schema || !schema->string || strcmp(schema->string, "schema") ||
	    !cJSON_IsString(schema) || strcmp(schema->valuestring, SAMPLE_SCHEMA) || !cap)
		return -EBADMSG;
	for (seq = schema->next; seq && strcmp(seq->string ? seq->string : "", "seq"); seq = seq->next)
		;
	if (!seq || !identity(schema->next, seq, members, cap) || !whole(seq, &t->seq))
		return -EBADMSG;
	t->members = members;
	x = seq->next;
#define NEXT(name) take(&x, name)
	if (!utc_ms(NEXT("time"), &t->wall_ns) || !secs6(NEXT("elapsed_s"), &t->elapsed_ns) ||
	    !secs6(NEXT("interval_s"), &t->interval_ns) || !whole(NEXT("page_size"), &t->page_size))
		return -EBADMSG;
	for (size_t i = 0; i < sizeof(plain) / sizeof(plain[0]); i++) {
		const cJSON *o = NEXT(vocab_group_name(plain[i]));

		if (!cJSON_IsObject(o) || !group_values(o->child, plain[i], t))
			return -EBADMSG;
	}
	if (x && x->string && !strcmp(x->string, "cgroup")) {
		const cJSON *o = NEXT("cgroup"), *p = o ? o->child : NULL, *v = p ? p->next : NULL;
		const char *ver;

		if (!cJSON_IsObject(o) || !p || strcmp(p->string, "path") ||
		    !clean_string(p, &t->cgroup_path) || !v || strcmp(v->string, "version") ||
		    !clean_string(v, &ver) || (strcmp(ver, "v1") && strcmp(ver, "v2")) ||
		    !group_values(v->next, SG_CGROUP, t))
			return -EBADMSG;
		t->cgroup = true;
		t->cgroup_v2 = !strcmp(ver, "v2");
	}
	{
		const cJSON *o = NEXT("cpu"), *src = o ? o->child : NULL;
		const cJSON *tgt = src ? src->next : NULL, *note = tgt ? tgt->next : NULL;

		if (!cJSON_IsObject(o) || !src || strcmp(src->string, "source") ||
		    !clean_string(src, &t->cpu_source) || !tgt || strcmp(tgt->string, "target") ||
		    !clean_string(tgt, &t->cpu_target) || !note || strcmp(note->string, "note") ||
		    (!cJSON_IsNull(note) && !clean_string(note, &t->cpu_note)) ||
		    !group_values(note->next, SG_CPU, t))
			return -EBADMSG;
	}
	{
		const cJSON *o = NEXT("derived");

		if (!cJSON_IsObject(o) || !group_values(o->child, SG_DERIVED, t) ||
		    !counters(NEXT("counters"), t) || !unavailable(NEXT("unavailable"), t) || x)
			return -EBADMSG;
	}
#undef NEXT
	return 0;
}

/* The sampler's current tick as its JSON line (sampler.h). */
int sampler_format_json(const struct sampler *s, char *buf, size_t len)
{
	struct sample_tick t;

	sampler_tick_get(s, &t);
	return sample_tick_json(&t, buf, len);
}
