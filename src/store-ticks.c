/*
 * store-ticks.c - the reading half of the compact tick codec that schemas 4
 * to 8 wrote (see store-int.h), for the conversion only: a stored shape
 * cut into structure and scalar leaves, a row's vals decoded against it,
 * and the tick's exact JSON text. Nothing writes the codec any more, and
 * the reader of a converted store meets no compact row but a damaged one.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "store-int.h"

#define DEPTH_MAX 64
/* mantissas up to 18 digits fit the payload (60 bits after the tag) */
#define DIGITS_MAX 18
#define TICK_TIME_LEN 26	/* "YYYY-MM-DDTHH:MM:SS.mmmZ" with its quotes */

struct scan {
	struct tick_shape *sh;
	const char *s;
	size_t len, pos;
	uint32_t piece;		/* where the current structure text began */
};

static void ws(struct scan *c)
{
	while (c->pos < c->len && (c->s[c->pos] == ' ' || c->s[c->pos] == '\t' ||
				   c->s[c->pos] == '\n' || c->s[c->pos] == '\r'))
		c->pos++;
}

/*
 * Past a string at c->pos (its opening quote); -EBADMSG if unterminated. Its
 * bytes are kept verbatim, so they need no checking here: memchr() to the
 * next quote, and a quote after an odd run of backslashes is escaped.
 */
static int string_end(struct scan *c)
{
	size_t p = c->pos + 1;

	while (p < c->len) {
		const char *q = memchr(c->s + p, '"', c->len - p);
		size_t qi, bs = 0;

		if (!q)
			break;
		qi = (size_t)(q - c->s);
		while (qi - bs > c->pos + 1 && c->s[qi - 1 - bs] == '\\')
			bs++;
		if (bs % 2 == 0) {
			c->pos = qi + 1;
			return 0;
		}
		p = qi + 1;
	}
	return -EBADMSG;
}

static bool digit(char ch)
{
	return ch >= '0' && ch <= '9';
}

/* A JSON number at c->pos: -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)? */
static int number_end(struct scan *c)
{
	size_t p = c->pos;
	const char *s = c->s;

	if (p < c->len && s[p] == '-')
		p++;
	if (p >= c->len || !digit(s[p]))
		return -EBADMSG;
	if (s[p] == '0')
		p++;
	else
		while (p < c->len && digit(s[p]))
			p++;
	if (p < c->len && s[p] == '.') {
		if (++p >= c->len || !digit(s[p]))
			return -EBADMSG;
		while (p < c->len && digit(s[p]))
			p++;
	}
	if (p < c->len && (s[p] == 'e' || s[p] == 'E')) {
		p++;
		if (p < c->len && (s[p] == '+' || s[p] == '-'))
			p++;
		if (p >= c->len || !digit(s[p]))
			return -EBADMSG;
		while (p < c->len && digit(s[p]))
			p++;
	}
	c->pos = p;
	return 0;
}

/* Where a value sits: its containers' depth, its group (a member of the top object), its key. */
struct slot_place {
	int depth;
	uint32_t group_off, group_len;
	uint32_t key_off, key_len;
};

static int add_slot(struct scan *c, size_t start, char kind, const struct slot_place *at)
{
	struct tick_shape *sh = c->sh;
	struct tick_slot *t;

	if (sh->n == sh->cap) {
		size_t cap = sh->cap ? sh->cap * 2 : 64;
		struct tick_slot *ns = realloc(sh->slots, cap * sizeof(*ns));

		if (!ns)
			return -ENOMEM;
		sh->slots = ns;
		sh->cap = cap;
	}
	t = &sh->slots[sh->n++];
	memset(t, 0, sizeof(*t));
	t->off = (uint32_t)start;
	t->len = (uint32_t)(c->pos - start);
	t->piece = c->piece;
	t->depth = (uint16_t)at->depth;
	t->group_off = at->group_off;
	t->group_len = at->group_len;
	t->key_off = at->key_off;
	t->key_len = at->key_len;
	t->kind = kind;
	c->piece = (uint32_t)c->pos;
	return 0;
}

/* A value at c->pos, sitting where at says. */
static int value(struct scan *c, const struct slot_place *at)
{
	int depth = at->depth;
	size_t start = c->pos;
	int r;

	if (c->pos >= c->len)
		return -EBADMSG;
	switch (c->s[c->pos]) {
	case '{':
	case '[': {
		char close = c->s[c->pos] == '{' ? '}' : ']';
		bool obj = close == '}';

		if (depth >= DEPTH_MAX)
			return -EBADMSG;
		c->pos++;
		ws(c);
		if (c->pos < c->len && c->s[c->pos] == close) {
			c->pos++;
			return 0;
		}
		for (;;) {
			uint32_t ko = 0, kl = 0;

			ws(c);
			if (obj) {
				if (c->pos >= c->len || c->s[c->pos] != '"')
					return -EBADMSG;
				ko = (uint32_t)c->pos + 1;
				if ((r = string_end(c)) < 0)
					return r;
				kl = (uint32_t)c->pos - 1 - ko;
				ws(c);
				if (c->pos >= c->len || c->s[c->pos] != ':')
					return -EBADMSG;
				c->pos++;
				ws(c);
			}
			/* the members of the top object name the groups */
			struct slot_place in = {
				.depth = depth + 1,
				.group_off = depth == 0 ? ko : at->group_off,
				.group_len = depth == 0 ? kl : at->group_len,
				.key_off = ko,
				.key_len = kl,
			};

			if ((r = value(c, &in)) < 0)
				return r;
			ws(c);
			if (c->pos < c->len && c->s[c->pos] == ',') {
				c->pos++;
				continue;
			}
			if (c->pos < c->len && c->s[c->pos] == close) {
				c->pos++;
				return 0;
			}
			return -EBADMSG;
		}
	}
	case '"':
		if ((r = string_end(c)) < 0)
			return r;
		return add_slot(c, start, 's', at);
	case 't':
	case 'f':
	case 'n': {
		static const char *const lits[] = { "true", "false", "null" };

		for (int i = 0; i < 3; i++) {
			size_t l = strlen(lits[i]);

			if (c->len - c->pos >= l && !memcmp(c->s + c->pos, lits[i], l)) {
				c->pos += l;
				return add_slot(c, start, 'l', at);
			}
		}
		return -EBADMSG;
	}
	default:
		if ((r = number_end(c)) < 0)
			return r;
		return add_slot(c, start, 'n', at);
	}
}

/* json's slots into sh (sh->text is json): 0, -EBADMSG when it is no JSON the codec took */
static int tick_parse(struct tick_shape *sh, const char *json, size_t len)
{
	struct scan c = { sh, json, len, 0, 0 };
	int r;

	if (len >= UINT32_MAX)
		return -EBADMSG;
	sh->text = (char *)json;
	sh->len = len;
	sh->n = 0;
	ws(&c);
	if (c.pos >= len || (json[c.pos] != '{' && json[c.pos] != '['))
		return -EBADMSG;
	if ((r = value(&c, &(struct slot_place){ 0 })) < 0)
		return r;
	ws(&c);
	if (c.pos != len)
		return -EBADMSG;
	sh->tail = c.piece;
	return 0;
}

/* "YYYY-MM-DDTHH:MM:SS.mmmZ" with quotes -> ms since the epoch; false if not exactly that. */
static bool parse_time(const char *s, size_t len, int64_t *ms)
{
	static const char pat[] = "\"dddd-dd-ddTdd:dd:dd.dddZ\"";
	struct tm tm;
	int v[7] = { 0 }, k = 0;

	if (len != TICK_TIME_LEN)
		return false;
	for (size_t i = 0; i < len; i++) {
		if (pat[i] == 'd') {
			if (!digit(s[i]))
				return false;
			v[k] = v[k] * 10 + (s[i] - '0');
			if (pat[i + 1] != 'd')
				k++;
		} else if (s[i] != pat[i]) {
			return false;
		}
	}
	memset(&tm, 0, sizeof(tm));
	tm.tm_year = v[0] - 1900;
	tm.tm_mon = v[1] - 1;
	tm.tm_mday = v[2];
	tm.tm_hour = v[3];
	tm.tm_min = v[4];
	tm.tm_sec = v[5];
	*ms = (int64_t)timegm(&tm) * 1000 + v[6];
	return true;
}

static int format_time(int64_t ms, char *out, size_t cap)
{
	time_t secs;
	struct tm tm;
	char ts[32];

	if (ms > (1LL << 50) || ms < -(1LL << 50))	/* past any calendar gmtime_r() prints */
		return -EINVAL;
	secs = (time_t)(ms >= 0 ? ms / 1000 : (ms - 999) / 1000);
	if (!gmtime_r(&secs, &tm) || !strftime(ts, sizeof(ts), "%Y-%m-%dT%H:%M:%S", &tm))
		return -EINVAL;
	return snprintf(out, cap, "\"%s.%03dZ\"", ts, (int)(ms - (int64_t)secs * 1000));
}

int tick_shape_make(struct tick_shape *sh, int64_t id, const char *json, size_t len)
{
	char *copy = malloc(len + 1);
	int r;

	memset(sh, 0, sizeof(*sh));
	if (!copy)
		return -ENOMEM;
	memcpy(copy, json, len);
	copy[len] = '\0';
	if ((r = tick_parse(sh, copy, len)) < 0) {
		free(copy);
		free(sh->slots);
		memset(sh, 0, sizeof(*sh));
		return r;
	}
	sh->id = id;
	for (size_t i = 0; i < sh->n; i++) {
		struct tick_slot *t = &sh->slots[i];

		if (t->kind == 's')
			t->has_time = parse_time(copy + t->off, t->len, &t->time_ms);
	}
	return 0;
}

void tick_shape_free(struct tick_shape *sh, bool owns_text)
{
	if (owns_text)
		free(sh->text);
	free(sh->slots);
	memset(sh, 0, sizeof(*sh));
}

/* ---- varints ---- */

static int get_varint(const uint8_t **p, const uint8_t *end, uint64_t *v)
{
	uint64_t x = 0;

	for (int shift = 0; shift < 64 && *p < end; shift += 7) {
		uint8_t b = *(*p)++;

		x |= (uint64_t)(b & 0x7f) << shift;
		if (!(b & 0x80)) {
			*v = x;
			return 0;
		}
	}
	return -EBADMSG;
}

static int64_t zag(uint64_t u)
{
	return (int64_t)(u >> 1) ^ -(int64_t)(u & 1);
}

/* slots from .. to-1 from *pp (slot from starts there), advancing *pp: 0, -EBADMSG */
static int tick_decode_some(const struct tick_shape *sh, const uint8_t **pp, const uint8_t *end,
			    struct tick_val *v, size_t from, size_t to)
{
	const uint8_t *p = *pp;

	if (to > sh->n)
		to = sh->n;
	for (size_t i = from; i < to; i++) {
		uint64_t x;

		if (p < end && *p == TICK_SAME) {	/* most leaves: as in the shape */
			v[i].tag = TICK_SAME;
			p++;
			continue;
		}
		if (p < end && *p < 0x80) {
			x = *p++;
		} else if (end - p >= 10) {	/* room for any varint: no bound checks */
			uint8_t b;
			int shift = 0;

			x = 0;
			do {
				b = *p++;
				x |= (uint64_t)(b & 0x7f) << shift;
				shift += 7;
			} while ((b & 0x80) && shift < 63);
			if (b & 0x80) {
				if (*p > 1)
					return -EBADMSG;
				x |= (uint64_t)*p++ << 63;
			}
		} else if (get_varint(&p, end, &x) < 0) {
			return -EBADMSG;
		}
		v[i].tag = (uint8_t)(x & 7);
		x >>= 3;
		switch (v[i].tag) {
		case TICK_SAME:
			break;
		case TICK_INT:
		case TICK_TIME:
			v[i].i = zag(x);
			break;
		case TICK_DEC:
			if (p >= end)
				return -EBADMSG;
			v[i].i = zag(x);
			v[i].frac = *p++;
			if (v[i].frac == 0 || v[i].frac > DIGITS_MAX)
				return -EBADMSG;	/* the encoder writes no such point */
			break;
		case TICK_LIT:
			if (x > 2)
				return -EBADMSG;
			v[i].i = (int64_t)x;
			break;
		case TICK_STR:
		case TICK_RAW:
			if (x > (uint64_t)(end - p))
				return -EBADMSG;
			v[i].p = (const char *)p;
			v[i].n = (uint32_t)x;
			p += x;
			break;
		default:
			return -EBADMSG;
		}
	}
	*pp = p;
	return 0;
}

int tick_decode(const struct tick_shape *sh, const uint8_t *b, size_t len, struct tick_val *v)
{
	const uint8_t *p = b;

	if (tick_decode_some(sh, &p, b + len, v, 0, sh->n) < 0)
		return -EBADMSG;
	return p == b + len ? 0 : -EBADMSG;
}

/* |m| with frac digits after the point, zero-padded: "0.005182" */
static int format_dec(int64_t m, int frac, char *out, size_t cap)
{
	char d[32];
	int n = snprintf(d, sizeof(d), "%" PRIu64, m < 0 ? -(uint64_t)m : (uint64_t)m);
	size_t at = 0, need;

	if (n <= frac) {	/* pad to one digit before the point */
		memmove(d + (frac + 1 - n), d, (size_t)n + 1);
		memset(d, '0', (size_t)(frac + 1 - n));
		n = frac + 1;
	}
	need = (size_t)n + 1 + (m < 0);
	if (need >= cap)
		return -ENOSPC;
	if (m < 0)
		out[at++] = '-';
	memcpy(out + at, d, (size_t)(n - frac));
	at += (size_t)(n - frac);
	out[at++] = '.';
	memcpy(out + at, d + n - frac, (size_t)frac);
	at += (size_t)frac;
	out[at] = '\0';
	return (int)at;
}

/* slot i's token text (a string with its quotes) into out: its length, or -ENOSPC */
static long tick_token(const struct tick_shape *sh, const struct tick_val *v, size_t i, char *out,
		       size_t cap)
{
	const struct tick_val *x = &v[i];
	static const char *const lits[] = { "null", "true", "false" };
	const char *src = NULL;
	size_t n = 0;
	int k;

	switch (x->tag) {
	case TICK_SAME:
		src = sh->text + sh->slots[i].off;
		n = sh->slots[i].len;
		break;
	case TICK_RAW:
		src = x->p;
		n = x->n;
		break;
	case TICK_LIT:
		src = lits[x->i];
		n = strlen(src);
		break;
	case TICK_STR:
		if ((size_t)x->n + 2 >= cap)
			return -ENOSPC;
		out[0] = '"';
		memcpy(out + 1, x->p, x->n);
		out[x->n + 1] = '"';
		out[x->n + 2] = '\0';
		return x->n + 2;
	case TICK_INT:
		k = snprintf(out, cap, "%" PRId64, x->i);
		return k < 0 || (size_t)k >= cap ? -ENOSPC : k;
	case TICK_DEC:
		return format_dec(x->i, x->frac, out, cap);
	case TICK_TIME: {
		int64_t ms;

		if (__builtin_add_overflow(sh->slots[i].time_ms, x->i, &ms))
			return -EINVAL;
		k = format_time(ms, out, cap);
		return k < 0 || (size_t)k >= cap ? -ENOSPC : k;
	}
	default:
		return -EINVAL;
	}
	if (n >= cap)
		return -ENOSPC;
	memcpy(out, src, n);
	out[n] = '\0';
	return (long)n;
}

long tick_format(const struct tick_shape *sh, const struct tick_val *v, char *out, size_t cap)
{
	size_t at = 0;

	for (size_t i = 0; i < sh->n; i++) {
		const struct tick_slot *t = &sh->slots[i];
		size_t pl = t->off - t->piece;
		long n;

		if (at + pl >= cap)
			return -ENOSPC;
		memcpy(out + at, sh->text + t->piece, pl);
		at += pl;
		if ((n = tick_token(sh, v, i, out + at, cap - at)) < 0)
			return n;
		at += (size_t)n;
	}
	if (at + (sh->len - sh->tail) >= cap)
		return -ENOSPC;
	memcpy(out + at, sh->text + sh->tail, sh->len - sh->tail);
	at += sh->len - sh->tail;
	out[at] = '\0';
	return (long)at;
}
