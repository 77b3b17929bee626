/*
 * store-tick-numbers.c - a tick as the store's own binary row (struct
 * sample_tick <-> bytes; see store-int.h). The strings of a tick (identity
 * members, cgroup path, cpu source/target/note, unavailable reasons) are not
 * in the row: they are the recording's strings row (a sample_shapes row of
 * kind 1, one per distinct set), which the row's shape_id names.
 *
 * Row, version 1:
 *   byte    1 (version)
 *   byte    flags: 1 cgroup, 2 cgroup v2
 *   varint  seq - the previous numbers row's seq (the reader checks the chain)
 *   varint  wall_ms - prev wall_ms (zigzag), elapsed_us, interval_us, page_size
 *   bitmap  one bit per value key of the strings row: value present (else null)
 *   bitmap  one bit per counter key of the strings row: counter present
 *   bitmap  one bit per value key: value as the previous row's (only over present ones)
 *   per present, changed value: varint v = payload << 2 | kind
 *           kind 0: whole number, payload zigzag
 *           kind 1: decimal, payload zigzag mantissa, then one byte: digits after the point
 *           kind 2: the double's 8 bytes follow (a value %.10g prints with an exponent,
 *                   or a fraction of an integral key)
 *   per present counter: varint zigzag(counter - previous row's counter)
 * "previous row" is the previous row of the same read (a reader decodes in
 * seq order; the first row of a recording has a zeroed previous).
 *
 * The bits follow the keys in the order the strings row spells them
 * (struct tick_keys), never the vocabulary's enum order: a row added to or
 * moved in vocab-rows.h leaves the rows of older stores meaning what they
 * meant (a key they do not have reads as null).
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "store-int.h"

static size_t put_varint(uint8_t *p, uint64_t v)
{
	size_t n = 0;

	do {
		p[n++] = (uint8_t)((v & 0x7f) | (v > 0x7f ? 0x80 : 0));
		v >>= 7;
	} while (v);
	return n;
}

static bool get_varint(const uint8_t **p, const uint8_t *end, uint64_t *v)
{
	*v = 0;
	for (int s = 0; s < 64 && *p < end; s += 7) {
		uint8_t b = *(*p)++;

		*v |= (uint64_t)(b & 0x7f) << s;
		if (!(b & 0x80))
			return true;
	}
	return false;
}

static uint64_t zz(int64_t v)
{
	return ((uint64_t)v << 1) ^ (uint64_t)(v >> 63);
}

static int64_t unzz(uint64_t v)
{
	return (int64_t)(v >> 1) ^ -(int64_t)(v & 1);
}

static const double p10[] = { 1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11,
			      1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22 };

/*
 * one value: its bytes at p (room for 24); an integral key's line prints
 * "%.0f", which "%.10g" digits of a fraction need not keep (243269632.5)
 */
static size_t put_value(uint8_t *p, double v, bool integral)
{
	char t[64];
	int64_t m = 0;
	int k = -1;
	size_t n;

	if (v == floor(v) && fabs(v) < 9007199254740992.0 && !(v == 0 && signbit(v)))
		return put_varint(p, zz((int64_t)v) << 2);
	snprintf(t, sizeof(t), "%.10g", v);
	if (!integral && !strchr(t, 'e') && !strchr(t, 'n') && !strchr(t, 'i')) {
		const char *c = t;
		bool neg = *c == '-';

		for (c += neg; *c; c++) {
			if (*c == '.')
				k = 0;
			else {
				m = m * 10 + (*c - '0');
				k += k >= 0;
			}
		}
		if (neg)
			m = -m;
		/* the decimal must print as v does (the line prints "%.10g" of it) */
		if (k > 0 && k <= 22 && (double)m / p10[k] == strtod(t, NULL)) {
			n = put_varint(p, zz(m) << 2 | 1);
			p[n] = (uint8_t)k;
			return n + 1;
		}
	}
	n = put_varint(p, 2);
	memcpy(p + n, &v, sizeof(v));
	return n + sizeof(v);
}

/* one value's stored form (kind | digits << 2, payload) at *p, checked, not yet a double */
static bool get_raw(const uint8_t **p, const uint8_t *end, uint64_t *raw, uint8_t *rk)
{
	uint64_t x;

	if (!get_varint(p, end, &x))
		return false;
	switch (x & 3) {
	case 0:
		*raw = x >> 2;
		*rk = 0;
		return true;
	case 1:
		if (*p >= end || **p == 0 || **p > 22)
			return false;
		*raw = x >> 2;
		*rk = (uint8_t)(1 | *(*p)++ << 2);
		return true;
	case 2:
		if (x != 2 || end - *p < 8)
			return false;
		memcpy(raw, *p, 8);
		*p += 8;
		*rk = 2;
		return true;
	}
	return false;
}

double tick_numbers_value(const struct tick_prev *prev, int m)
{
	uint64_t raw = prev->raw[m];
	double v;

	switch (prev->rk[m] & 3) {
	case 0:
		return (double)unzz(raw);
	case 1:	/* a division, not a product: m / 10^k is strtod() of the digits */
		return (double)unzz(raw) / p10[prev->rk[m] >> 2];
	default:
		memcpy(&v, &raw, sizeof(v));
		return v;
	}
}

void tick_numbers_cook(const struct tick_prev *prev, struct sample_tick *t)
{
	for (int m = 0; m < SM_COUNT; m++)
		if (t->ok[m])
			t->val[m] = tick_numbers_value(prev, m);
}

/* the microseconds "%.6f" of ns / 1e9 prints (sample-json.c's jsecs6()) */
static uint64_t printed_us(uint64_t ns)
{
	char t[64];
	uint64_t us = 0;

	if (ns % 1000 != 500 && ns < 1000000000000000ULL)
		return ns / 1000 + (ns % 1000 > 500);
	snprintf(t, sizeof(t), "%.6f", (double)ns / 1e9);
	for (const char *c = t; *c; c++)
		if (*c != '.')
			us = us * 10 + (uint64_t)(*c - '0');
	return us;
}

#define BITS(n) (((n) + 7) / 8)

double tick_numbers_leaf(double v, bool integral)
{
	char t[400];

	if (v >= 0 && v < 1e10 && v == floor(v) && !(v == 0 && signbit(v)))
		return v;
	/* a whole number below 2^53 prints exactly with "%.0f" */
	if (integral && v == floor(v) && fabs(v) < 9007199254740992.0)
		return v;
	/*
	 * a fraction "%.10g" prints without an exponent was stored as its
	 * decimal and decodes as m / 10^k, which is strtod() of those digits
	 */
	if (!integral && fabs(v) >= 1e-4 && fabs(v) < 1e10 && v != floor(v))
		return v;
	snprintf(t, sizeof(t), integral ? "%.0f" : "%.10g", v);
	return strtod(t, NULL);
}

/* the vocabulary row of group g's key, or -1 */
static int metric_of(enum sample_group g, const char *key)
{
	for (int m = 0; m < SM_COUNT; m++)
		if (sample_metric_defs[m].group == g && !strcmp(sample_metric_defs[m].key, key))
			return m;
	return -1;
}

static int counter_of(const char *key)
{
	for (int c = 0; c < SC_COUNT; c++)
		if (!strcmp(sample_counter_defs[c].key, key))
			return c;
	return -1;
}

int tick_keys_from_line(const cJSON *d, struct tick_keys *k)
{
	const cJSON *o, *x;

	memset(k, 0, sizeof(*k));
	/* the groups come after "seq" (before it: identity members) */
	for (o = d ? d->child : NULL; o && (!o->string || strcmp(o->string, "seq")); o = o->next)
		;
	for (; o; o = o->next) {
		int g;

		if (!cJSON_IsObject(o) || !strcmp(o->string, "unavailable"))
			continue;
		if (!strcmp(o->string, "counters")) {
			cJSON_ArrayForEach(x, o) {
				int c = x->string ? counter_of(x->string) : -1;

				if (c < 0 || k->n_c >= SC_COUNT)
					return -EBADMSG;
				k->c[k->n_c++] = (uint16_t)c;
			}
			continue;
		}
		for (g = 0; g < SG_COUNT; g++)
			if (!strcmp(vocab_group_name((enum sample_group)g), o->string))
				break;
		if (g == SG_COUNT)
			return -EBADMSG;
		cJSON_ArrayForEach(x, o) {
			int m;

			if (!x->string || (g == SG_CGROUP && (!strcmp(x->string, "path") ||
							       !strcmp(x->string, "version"))) ||
			    (g == SG_CPU && (!strcmp(x->string, "source") || !strcmp(x->string, "target") ||
					     !strcmp(x->string, "note"))))
				continue;	/* the group's strings */
			m = metric_of((enum sample_group)g, x->string);
			if (m < 0 || k->n_m >= SM_COUNT)
				return -EBADMSG;
			k->m[k->n_m++] = (uint16_t)m;
		}
	}
	return 0;
}

size_t tick_numbers_encode(const struct sample_tick *t, const struct tick_keys *k,
			   struct tick_prev *prev, uint8_t *out)
{
	uint8_t *p = out, *okb, *hasb, *same;
	uint64_t wall_ms = t->wall_ns / 1000000ULL;

	*p++ = 1;
	*p++ = (uint8_t)((t->cgroup ? 1 : 0) | (t->cgroup_v2 ? 2 : 0));
	p += put_varint(p, t->seq - prev->seq);
	p += put_varint(p, zz((int64_t)(wall_ms - prev->wall_ms)));
	p += put_varint(p, printed_us(t->elapsed_ns));
	p += put_varint(p, printed_us(t->interval_ns));
	p += put_varint(p, t->page_size);
	okb = p;
	hasb = okb + BITS(k->n_m);
	same = hasb + BITS(k->n_c);
	p = same + BITS(k->n_m);
	memset(okb, 0, (size_t)(p - okb));
	for (int i = 0; i < k->n_m; i++) {
		int m = k->m[i];

		if (!t->ok[m])
			continue;
		okb[i / 8] |= (uint8_t)(1 << (i % 8));
		if (prev->ok[m] && !memcmp(&prev->val[m], &t->val[m], sizeof(double)))
			same[i / 8] |= (uint8_t)(1 << (i % 8));
		else
			p += put_value(p, t->val[m], sample_metric_defs[m].integral);
	}
	for (int i = 0; i < k->n_c; i++) {
		int c = k->c[i];

		if (!t->has[c])
			continue;
		hasb[i / 8] |= (uint8_t)(1 << (i % 8));
		p += put_varint(p, zz((int64_t)(t->counter[c] - prev->counter[c])));
		prev->counter[c] = t->counter[c];
	}
	prev->wall_ms = wall_ms;
	prev->seq = t->seq;
	memcpy(prev->val, t->val, sizeof(prev->val));
	memcpy(prev->ok, t->ok, sizeof(prev->ok));
	return (size_t)(p - out);
}

int tick_numbers_decode(const uint8_t *b, size_t len, const struct tick_keys *k,
			struct tick_prev *prev, struct sample_tick *t)
{
	const uint8_t *p = b, *end = b + len, *okb, *hasb, *same;
	uint64_t d, el, iv, ps, gap;

	if (len < 2 || b[0] != 1 || b[1] > 3)
		return -EBADMSG;
	t->cgroup = b[1] & 1;
	t->cgroup_v2 = b[1] & 2;
	p += 2;
	/* a row follows the numbers row before it: one missing or replaced breaks the chain */
	if (!get_varint(&p, end, &gap) || gap == 0 || prev->seq + gap != t->seq)
		return -EBADMSG;
	prev->seq = t->seq;
	if (!get_varint(&p, end, &d) || !get_varint(&p, end, &el) || !get_varint(&p, end, &iv) ||
	    !get_varint(&p, end, &ps) || end - p < 2 * BITS(k->n_m) + BITS(k->n_c))
		return -EBADMSG;
	/* times whose nanoseconds do not fit 64 bits are no writer's (they would wrap) */
	if (el > UINT64_MAX / 1000 || iv > UINT64_MAX / 1000 ||
	    prev->wall_ms + (uint64_t)unzz(d) > UINT64_MAX / 1000000)
		return -EBADMSG;
	prev->wall_ms += (uint64_t)unzz(d);
	t->wall_ns = prev->wall_ms * 1000000ULL;
	t->elapsed_ns = el * 1000;
	t->interval_ns = iv * 1000;
	t->page_size = ps;
	okb = p;
	hasb = okb + BITS(k->n_m);
	same = hasb + BITS(k->n_c);
	p = same + BITS(k->n_m);
	/* values stay in their stored form in prev until read (tick_numbers_value()) */
	memset(t->ok, 0, sizeof(t->ok));
	memset(t->has, 0, sizeof(t->has));
	for (int i = 0; i < k->n_m; i++) {
		int m = k->m[i];

		t->ok[m] = okb[i / 8] & (1 << (i % 8));
		if (!t->ok[m])
			continue;
		if (same[i / 8] & (1 << (i % 8))) {
			if (!prev->ok[m])
				return -EBADMSG;
		} else if (!get_raw(&p, end, &prev->raw[m], &prev->rk[m])) {
			return -EBADMSG;
		}
	}
	for (int i = 0; i < k->n_c; i++) {
		int c = k->c[i];

		t->has[c] = hasb[i / 8] & (1 << (i % 8));
		if (!t->has[c])
			continue;
		if (!get_varint(&p, end, &d))
			return -EBADMSG;
		prev->counter[c] += (uint64_t)unzz(d);
		t->counter[c] = prev->counter[c];
	}
	memcpy(prev->ok, t->ok, sizeof(prev->ok));
	return p == end ? 0 : -EBADMSG;
}
