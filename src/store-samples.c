/*
 * store-samples.c - the store's samples table: recording `swaptune sample
 * --record` (a runs row of kind "sample", one samples row per tick: a
 * numbers row, or a JSON row for a tick that is not a current sample tick,
 * see store-int.h), the one reader of a recording's ticks (numbers rows,
 * JSON rows, and the compact rows of older stores alike) with its typed
 * accessors, the listing of recordings, and
 * the recordings just before and after a change (report --change).
 */
#include <cjson/cJSON.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "store-int.h"
#include "swaptune/sampler.h"
#include "swaptune/store.h"

/* structures of JSON rows a reader keeps at hand */
#define READER_JSON_SHAPES 32

static int grow(void **p, size_t *cap, size_t need, size_t each)
{
	void *np;

	if (need <= *cap)
		return 0;
	np = realloc(*p, need * each);
	if (!np)
		return -ENOMEM;
	*p = np;
	*cap = need;
	return 0;
}

/* ---- writing ---- */

struct tick_writer {
	struct store *st;
	int64_t run_id;
	sqlite3_stmt *ins_tick;
	uint8_t *vals;
	size_t vals_cap;
	char *line;			/* store_samples_add(): the tick's JSON */
	size_t line_cap;
	struct tick_prev prev;		/* the previous numbers row */
	int64_t str_id;			/* its strings row, 0: none yet */
	char *str_text;			/* that row's line */
	struct tick_keys keys;		/* the keys it spells, the row's bits */
	bool replace;			/* a row of the same seq is replaced (the conversion) */
	sqlite3_stmt *ins_str;
};

struct tick_writer *tick_writer_new(struct store *st, int64_t run_id)
{
	struct tick_writer *w = calloc(1, sizeof(*w));

	if (w) {
		w->st = st;
		w->run_id = run_id;
	}
	return w;
}

void tick_writer_reset(struct tick_writer *w, int64_t run_id)
{
	w->run_id = run_id;
	memset(&w->prev, 0, sizeof(w->prev));
	w->str_id = 0;
}

void tick_writer_free(struct tick_writer *w)
{
	if (!w)
		return;
	sqlite3_finalize(w->ins_tick);
	free(w->vals);
	free(w->line);
	free(w->str_text);
	sqlite3_finalize(w->ins_str);
	free(w);
}

/* the statement that inserts a row (replacing one of its seq in the conversion) */
static int writer_stmt(struct tick_writer *w, struct st_err *e)
{
	if (w->ins_tick)
		return 0;
	return store_prepare(w->st, w->replace ?
			     "INSERT OR REPLACE INTO samples (run_id, seq, t_ns, data, shape_id, vals)"
			     " VALUES (?1, ?2, ?3, ?4, ?5, ?6)" :
			     "INSERT INTO samples (run_id, seq, t_ns, data, shape_id, vals)"
			     " VALUES (?1, ?2, ?3, ?4, ?5, ?6)", &w->ins_tick, e);
}

int tick_writer_add(struct tick_writer *w, uint64_t seq, uint64_t t_ns, const char *json,
		    size_t len, struct st_err *e)
{
	int r = writer_stmt(w, e);

	if (r < 0)
		return r;
	sqlite3_reset(w->ins_tick);
	sqlite3_bind_int64(w->ins_tick, 1, w->run_id);
	sqlite3_bind_int64(w->ins_tick, 2, (sqlite3_int64)seq);
	sqlite3_bind_int64(w->ins_tick, 3, (sqlite3_int64)t_ns);
	sqlite3_bind_text(w->ins_tick, 4, json, (int)len, SQLITE_STATIC);
	r = store_step_done(w->st, w->ins_tick, e);
	sqlite3_clear_bindings(w->ins_tick);
	return r;
}

/*
 * t's line (only the keys k spells, NULL: all) into w->line: its length, or
 * -ENOSPC past 1 MiB, -ENOMEM
 */
static int writer_line(struct tick_writer *w, const struct sample_tick *t,
		       const struct sample_tick_keys *k)
{
	int n;

	while ((n = w->line ? sample_tick_json_keys(t, k, w->line, w->line_cap) : -ENOSPC) ==
	       -ENOSPC) {
		if (w->line_cap >= (1u << 20))
			return -ENOSPC;
		if (grow((void **)&w->line, &w->line_cap, w->line_cap ? w->line_cap * 2 : 16384, 1) < 0)
			return -ENOMEM;
	}
	return n;
}

/* The strings row t's row names (stored when they changed): 0, or an error. */
static int writer_strings(struct tick_writer *w, const struct sample_tick *t, struct st_err *e)
{
	struct sample_tick s = {
		.members = t->members, .cgroup = t->cgroup, .cgroup_v2 = t->cgroup_v2,
		.cgroup_path = t->cgroup_path, .cpu_source = t->cpu_source,
		.cpu_target = t->cpu_target, .cpu_note = t->cpu_note,
	};
	int n, r;

	memcpy(s.unavailable, t->unavailable, sizeof(s.unavailable));
	if ((n = writer_line(w, &s, NULL)) < 0)
		return err_set(e, n, "recording %lld: tick %llu too large to store",
			       (long long)w->run_id, (unsigned long long)t->seq);
	if (w->str_id && !strcmp(w->str_text, w->line))
		return 0;
	{
		cJSON *d = cJSON_ParseWithLength(w->line, (size_t)n);

		r = d ? tick_keys_from_line(d, &w->keys) : -ENOMEM;
		cJSON_Delete(d);
		if (r < 0)	/* the line sample_tick_json() printed: only memory fails */
			return err_set(e, -ENOMEM, "out of memory");
	}
	if (!w->ins_str &&
	    store_prepare(w->st, "INSERT INTO sample_shapes (run_id, tick, kind) VALUES (?1, ?2, 1)",
			  &w->ins_str, e) < 0)
		return e ? e->code : -EIO;
	free(w->str_text);
	if (!(w->str_text = strdup(w->line)))
		return err_set(e, -ENOMEM, "out of memory");
	sqlite3_reset(w->ins_str);
	sqlite3_bind_int64(w->ins_str, 1, w->run_id);
	sqlite3_bind_text(w->ins_str, 2, w->str_text, n, SQLITE_STATIC);
	r = store_step_done(w->st, w->ins_str, e);
	sqlite3_clear_bindings(w->ins_str);
	if (r < 0) {
		w->str_id = 0;
		return r;
	}
	w->str_id = sqlite3_last_insert_rowid(w->st->db);
	return 0;
}

int tick_writer_add_numbers(struct tick_writer *w, uint64_t t_ns, const struct sample_tick *t,
			    struct st_err *e)
{
	struct tick_prev before = w->prev;
	size_t n;
	int r;

	if ((r = writer_stmt(w, e)) < 0)
		return r;
	if (t->seq <= w->prev.seq)
		return err_set(e, -EINVAL, "recording %lld: tick %llu after tick %llu",
			       (long long)w->run_id, (unsigned long long)t->seq,
			       (unsigned long long)w->prev.seq);
	if ((r = writer_strings(w, t, e)) < 0)
		return r;
	if (grow((void **)&w->vals, &w->vals_cap, TICK_ROW_MAX, 1) < 0)
		return err_set(e, -ENOMEM, "out of memory");
	n = tick_numbers_encode(t, &w->keys, &w->prev, w->vals);
	sqlite3_reset(w->ins_tick);
	sqlite3_bind_int64(w->ins_tick, 1, w->run_id);
	sqlite3_bind_int64(w->ins_tick, 2, (sqlite3_int64)t->seq);
	sqlite3_bind_int64(w->ins_tick, 3, (sqlite3_int64)t_ns);
	sqlite3_bind_text(w->ins_tick, 4, "", 0, SQLITE_STATIC);
	sqlite3_bind_int64(w->ins_tick, 5, w->str_id);
	sqlite3_bind_blob(w->ins_tick, 6, w->vals, (int)n, SQLITE_STATIC);
	r = store_step_done(w->st, w->ins_tick, e);
	sqlite3_clear_bindings(w->ins_tick);
	if (r < 0)
		w->prev = before;	/* the row is not there: the next one follows the last that is */
	return r;
}

static bool same_str(const char *a, const char *b)
{
	return a == b || (a && b && !strcmp(a, b));
}

/* whether a and b say the same: every number and string */
static bool ticks_same(const struct sample_tick *a, const struct sample_tick *b)
{
	if (!same_str(a->members && a->members[0] ? a->members : NULL,
		      b->members && b->members[0] ? b->members : NULL) ||
	    a->seq != b->seq || a->wall_ns != b->wall_ns || a->elapsed_ns != b->elapsed_ns ||
	    a->interval_ns != b->interval_ns || a->page_size != b->page_size ||
	    a->cgroup != b->cgroup || a->cgroup_v2 != b->cgroup_v2 ||
	    !same_str(a->cgroup_path, b->cgroup_path) || !same_str(a->cpu_source, b->cpu_source) ||
	    !same_str(a->cpu_target, b->cpu_target) || !same_str(a->cpu_note, b->cpu_note) ||
	    memcmp(a->ok, b->ok, sizeof(a->ok)) || memcmp(a->has, b->has, sizeof(a->has)))
		return false;
	for (int m = 0; m < SM_COUNT; m++)
		if (a->ok[m] && memcmp(&a->val[m], &b->val[m], sizeof(double)))
			return false;
	for (int c = 0; c < SC_COUNT; c++)
		if (a->has[c] && a->counter[c] != b->counter[c])
			return false;
	for (int g = 0; g < SG_COUNT; g++)
		if (!same_str(a->unavailable[g], b->unavailable[g]))
			return false;
	return true;
}

/* the value and counter keys tick line d spells (a tick: sample_tick_parse() took it) */
static void line_keys(const cJSON *d, struct sample_tick_keys *k)
{
	struct tick_keys order;

	memset(k, 0, sizeof(*k));
	if (tick_keys_from_line(d, &order) < 0)
		return;
	for (int i = 0; i < order.n_m; i++)
		k->val[order.m[i]] = true;
	for (int i = 0; i < order.n_c; i++)
		k->counter[order.c[i]] = true;
}

/*
 * Whether tick t, parsed from g->d, keeps as a numbers row what its source
 * said: g->text (not NULL): the line it prints is that text, byte for byte,
 * but for the value and counter keys the text lacks - a line recorded before they were
 * added to vocab-rows.h, whose numbers row reads them as null (not
 * measured); else the line it prints reads back as the same numbers and
 * strings (a tick cJSON parsed from an export, whose spelling of a number -
 * 0.0101 for 0.010100 - is not the recorder's).
 */
static bool writer_keeps(struct tick_writer *w, const struct sample_tick *t,
			 const struct tick_given *g)
{
	struct sample_tick back;
	struct sample_tick_keys k;
	char members[1024];
	cJSON *b;
	bool same;
	int n;

	if (g->text) {
		line_keys(g->d, &k);
		n = writer_line(w, t, &k);
		return n == (int)g->len && !memcmp(w->line, g->text, g->len);
	}
	if ((n = writer_line(w, t, NULL)) < 0)
		return false;
	b = cJSON_ParseWithLength(w->line, (size_t)n);
	same = b && sample_tick_parse(b, &back, members, sizeof(members)) == 0 && ticks_same(t, &back);
	cJSON_Delete(b);
	return same;
}

/* whether given tick g is one a numbers row keeps (writer_keeps()): then in *t */
static bool writer_takes(struct tick_writer *w, const struct tick_given *g, struct sample_tick *t,
			 char *members, size_t cap)
{
	/* numbers rows follow each other in seq order: one out of order is kept as text */
	return g->d && sample_tick_parse(g->d, t, members, cap) == 0 && t->seq == g->seq &&
	       g->seq > w->prev.seq && writer_keeps(w, t, g);
}

int tick_writer_add_doc(struct tick_writer *w, const struct tick_given *g, struct st_err *e)
{
	struct sample_tick t;
	char members[1024], *printed = NULL;
	const char *text = g->text;
	size_t len = g->len;
	int r;

	if (writer_takes(w, g, &t, members, sizeof(members)))
		return tick_writer_add_numbers(w, g->t_ns, &t, e);
	if (!text) {
		if (g->d && !cJSON_IsNull(g->d) && !(printed = cJSON_PrintUnformatted(g->d)))
			return err_set(e, -ENOMEM, "out of memory");
		text = printed ? printed : "{}";
		len = strlen(text);
	}
	r = tick_writer_add(w, g->seq, g->t_ns, text, len, e);
	cJSON_free(printed);
	return r;
}

int tick_writer_add_text(struct tick_writer *w, uint64_t seq, uint64_t t_ns, const char *json,
			 size_t len, struct st_err *e)
{
	cJSON *d = cJSON_ParseWithLength(json, len);
	int r = tick_writer_add_doc(w, &(struct tick_given){ .seq = seq, .t_ns = t_ns, .d = d,
							     .text = json, .len = len }, e);

	cJSON_Delete(d);
	return r;
}

int store_samples_begin(struct sample_recording *r, struct store *st,
			const char *params_json, struct st_err *e)
{
	int ret;

	memset(r, 0, sizeof(*r));
	r->st = st;
	ret = store_run_begin(st, "sample", params_json, &r->run_id, e);
	if (ret < 0)
		return ret;
	r->writer = tick_writer_new(st, r->run_id);
	if (!r->writer) {
		store_run_end(st, r->run_id, "failed", NULL, NULL);
		return err_set(e, -ENOMEM, "out of memory");
	}
	return 0;
}

int store_samples_add(struct sample_recording *r, uint64_t t_ns, const struct sample_tick *t,
		      struct st_err *e)
{
	int ret;

	if (!r->writer)
		return err_set(e, -EINVAL, "store_samples_add: recording not begun");
	ret = tick_writer_add_numbers(r->writer, t_ns, t, e);
	if (ret == 0)
		r->rows++;
	return ret;
}

int store_samples_add_json(struct sample_recording *r, uint64_t seq, uint64_t t_ns,
			   const char *json, struct st_err *e)
{
	int ret;

	if (!r->writer)
		return err_set(e, -EINVAL, "store_samples_add: recording not begun");
	ret = tick_writer_add_text(r->writer, seq, t_ns, json, strlen(json), e);
	if (ret == 0)
		r->rows++;
	return ret;
}

int store_samples_end(struct sample_recording *r, const char *status,
		      const char *summary_json, struct st_err *e)
{
	tick_writer_free(r->writer);
	r->writer = NULL;
	if (!r->run_id)
		return 0;
	return store_run_end(r->st, r->run_id, status, summary_json, e);
}

/* ---- reading ---- */

/*
 * A recording's rows: numbers rows (their strings row by shape_id), JSON
 * rows (data; no shape), and, only while the conversion reads an older
 * store, compact rows of the codec of schemas 4 to 8 (a shape of kind NULL
 * and vals). A current sample tick in a JSON row is read as numbers rows
 * are (sample_tick_parse()), any other JSON row through its cJSON leaves.
 */
struct tick_reader {
	struct store *st;
	int64_t run_id;
	struct tick_shape *shapes;	/* codec shapes (kind NULL), by id */
	size_t n_shapes;
	unsigned serial;
	struct tick_shape none;		/* of a row whose text is not JSON: no leaves */
	struct tick_val *v;		/* a codec row's values (the conversion) */
	size_t v_cap;
	char *text;			/* store_tick_json() of a numbers or codec row */
	size_t text_cap;
	struct num_shape *nums;		/* strings rows (kind 1), by id */
	size_t n_nums;
	struct tick_prev prev;		/* the previous numbers row */
	struct sample_tick tick;	/* a numbers row's tick */
	cJSON *jdoc;			/* a JSON row's parse */
	struct sample_tick jtick;	/* a JSON row's tick, when it is a current one */
	char jmembers[1024];
	unsigned jtick_key, jtick_serial;	/* its cgroup and unavailable groups; their serial */
	struct json_leaf *leaves;	/* a JSON row's keyed leaves, depth 1 and 2 */
	size_t n_leaves, leaves_cap;
	char *sigs[READER_JSON_SHAPES];	/* keys of the JSON structures seen lately */
	unsigned sig_serial[READER_JSON_SHAPES];
	size_t n_sigs, evict;
	bool every_row;			/* fn sees damaged rows too (the conversion) */
	struct st_err *e;		/* the walk's */
};

/* a keyed scalar of a JSON row: a top-level member (group NULL), or a member of group */
struct json_leaf {
	const cJSON *x;
	const char *group;
};

/* a strings row: the strings of the numbers rows that name it */
struct num_shape {
	int64_t id;
	unsigned serial;
	cJSON *doc;			/* the strings are its */
	struct sample_tick strs;
	struct tick_keys keys;		/* what its rows' bits stand for */
	char members[1024];
};

struct store_tick_priv {
	struct tick_reader *rd;
	const struct num_shape *ns;	/* a numbers row's strings (then rd->tick), else NULL */
	const struct sample_tick *jt;	/* a JSON row that is a current tick (rd->jtick), else NULL */
	const struct tick_shape *sh;	/* a codec row's shape (the conversion), else NULL */
	const char *json;		/* a JSON row's text, else NULL */
	size_t json_len;
	bool leaves;			/* a JSON row read through rd->leaves */
	bool damaged;			/* its vals do not decode */
	bool formatted;			/* rd->text holds this tick's JSON */
	long text_len;
};

static void reader_free(struct tick_reader *rd)
{
	for (size_t i = 0; i < rd->n_shapes; i++)
		tick_shape_free(&rd->shapes[i], true);
	free(rd->shapes);
	free(rd->v);
	free(rd->text);
	for (size_t i = 0; i < rd->n_nums; i++)
		cJSON_Delete(rd->nums[i].doc);
	free(rd->nums);
	cJSON_Delete(rd->jdoc);
	free(rd->leaves);
	for (size_t i = 0; i < rd->n_sigs; i++)
		free(rd->sigs[i]);
}

/* a strings row (kind 1) into rd->nums: 0, -EBADMSG, -ENOMEM */
static int reader_num_shape(struct tick_reader *rd, int64_t id, const char *t, size_t len,
			    size_t *cap)
{
	struct num_shape *ns;

	if (grow((void **)&rd->nums, cap, rd->n_nums + 1, sizeof(*rd->nums)) < 0)
		return -ENOMEM;
	ns = &rd->nums[rd->n_nums];
	memset(ns, 0, sizeof(*ns));
	if (!t || !store_json_line_clean(t, len) || !(ns->doc = cJSON_ParseWithLength(t, len)))
		return -EBADMSG;
	if (sample_tick_parse(ns->doc, &ns->strs, ns->members, sizeof(ns->members)) < 0 ||
	    tick_keys_from_line(ns->doc, &ns->keys) < 0) {
		cJSON_Delete(ns->doc);
		return -EBADMSG;
	}
	ns->id = id;
	ns->serial = ++rd->serial;
	rd->n_nums++;
	return 0;
}

static const struct num_shape *num_by_id(const struct tick_reader *rd, int64_t id)
{
	size_t lo = 0, hi = rd->n_nums;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (rd->nums[mid].id == id)
			return &rd->nums[mid];
		if (rd->nums[mid].id < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

bool store_json_line_clean(const char *t, size_t len)
{
	cJSON *x;

	for (size_t i = 0; i < len; i++)
		if ((unsigned char)t[i] < 0x20 || (unsigned char)t[i] == 0x7f)
			return false;
	x = cJSON_ParseWithLength(t, len);
	cJSON_Delete(x);
	return x != NULL;
}

static int reader_load_shapes(struct tick_reader *rd, struct st_err *e)
{
	struct store *st = rd->st;
	sqlite3_stmt *s;
	size_t cap = 0, num_cap = 0;
	int r = store_prepare(st, "SELECT id, tick, kind FROM sample_shapes WHERE run_id = ?1"
			      " ORDER BY id", &s, e);

	if (r < 0)
		return r;
	sqlite3_bind_int64(s, 1, rd->run_id);
	while ((r = sqlite3_step(s)) == SQLITE_ROW) {
		const char *t = (const char *)sqlite3_column_text(s, 1);
		struct tick_shape *sh;

		if (sqlite3_column_type(s, 2) != SQLITE_NULL) {	/* strings of numbers rows */
			long long id = sqlite3_column_int64(s, 0);

			r = sqlite3_column_int64(s, 2) == 1 ?
			    reader_num_shape(rd, id, t, (size_t)sqlite3_column_bytes(s, 1), &num_cap) :
			    -EBADMSG;
			if (r < 0) {
				sqlite3_finalize(s);
				return r == -ENOMEM ? err_set(e, r, "out of memory") :
				       err_set(e, r, "database %s: recording %lld: shape %lld is not a tick",
					       st->path, (long long)rd->run_id, id);
			}
			continue;
		}

		/* a codec shape: only the conversion decodes its rows, both check it */
		if (grow((void **)&rd->shapes, &cap, rd->n_shapes + 1, sizeof(*rd->shapes)) < 0) {
			sqlite3_finalize(s);
			return err_set(e, -ENOMEM, "out of memory");
		}
		sh = &rd->shapes[rd->n_shapes];
		r = t && store_json_line_clean(t, (size_t)sqlite3_column_bytes(s, 1)) ?
		    tick_shape_make(sh, sqlite3_column_int64(s, 0), t, (size_t)sqlite3_column_bytes(s, 1)) :
		    -EBADMSG;
		if (r < 0) {
			long long id = sqlite3_column_int64(s, 0);

			sqlite3_finalize(s);	/* read the id before: a finalized statement is gone */
			return err_set(e, r, "database %s: recording %lld: shape %lld is not a tick",
				       st->path, (long long)rd->run_id, id);
		}
		sh->serial = ++rd->serial;
		rd->n_shapes++;
	}
	sqlite3_finalize(s);
	return r == SQLITE_DONE ? 0 : err_set(e, -EIO, "database %s: %s", st->path,
					      sqlite3_errmsg(st->db));
}

static const struct tick_shape *shape_by_id(const struct tick_reader *rd, int64_t id)
{
	size_t lo = 0, hi = rd->n_shapes;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (rd->shapes[mid].id == id)
			return &rd->shapes[mid];
		if (rd->shapes[mid].id < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

/* a JSON row's keyed leaves (top-level members, members of a top-level object) */
static int json_leaves(struct tick_reader *rd)
{
	const cJSON *o, *x;

	rd->n_leaves = 0;
	for (o = rd->jdoc->child; o; o = o->next) {
		if (!o->string)
			continue;
		if (!cJSON_IsObject(o) && !cJSON_IsArray(o)) {
			if (grow((void **)&rd->leaves, &rd->leaves_cap, rd->n_leaves + 1,
				 sizeof(*rd->leaves)) < 0)
				return -ENOMEM;
			rd->leaves[rd->n_leaves++] = (struct json_leaf){ o, NULL };
			continue;
		}
		if (!cJSON_IsObject(o))
			continue;
		cJSON_ArrayForEach(x, o) {
			if (!x->string || cJSON_IsObject(x) || cJSON_IsArray(x))
				continue;
			if (grow((void **)&rd->leaves, &rd->leaves_cap, rd->n_leaves + 1,
				 sizeof(*rd->leaves)) < 0)
				return -ENOMEM;
			rd->leaves[rd->n_leaves++] = (struct json_leaf){ x, o->string };
		}
	}
	return 0;
}

/* the serial of the JSON row's structure: its leaves' keys, the same while they recur */
static int json_serial(struct tick_reader *rd, unsigned *serial)
{
	size_t len = 1, i;
	char *sig, *p;

	for (i = 0; i < rd->n_leaves; i++)
		len += strlen(rd->leaves[i].x->string) + 2;
	for (const cJSON *o = rd->jdoc->child; o; o = o->next)
		len += o->string ? strlen(o->string) + 2 : 0;
	if (!(sig = malloc(len)))
		return -ENOMEM;
	p = sig;
	/* each top-level key, then the keys under it: "seq\n" "vmstat\n" "\tzswpin\n" */
	for (const cJSON *o = rd->jdoc->child; o; o = o->next) {
		const cJSON *x;

		if (!o->string)
			continue;
		p += sprintf(p, "%s\n", o->string);
		if (!cJSON_IsObject(o))
			continue;
		cJSON_ArrayForEach(x, o)
			if (x->string && !cJSON_IsObject(x) && !cJSON_IsArray(x))
				p += sprintf(p, "\t%s\n", x->string);
	}
	for (i = 0; i < rd->n_sigs; i++)
		if (!strcmp(rd->sigs[i], sig)) {
			free(sig);
			*serial = rd->sig_serial[i];
			return 0;
		}
	if (rd->n_sigs < READER_JSON_SHAPES) {
		i = rd->n_sigs++;
	} else {
		i = rd->evict++ % READER_JSON_SHAPES;
		free(rd->sigs[i]);
	}
	rd->sigs[i] = sig;
	*serial = rd->sig_serial[i] = ++rd->serial;
	return 0;
}

/*
 * A JSON row: a current sample tick read as numbers rows are, any other
 * JSON through its leaves, text that is no JSON with none (shape 0).
 */
static int reader_json_row(struct tick_reader *rd, struct store_tick_priv *p, unsigned *serial)
{
	int r;

	cJSON_Delete(rd->jdoc);
	rd->jdoc = cJSON_ParseWithLength(p->json, p->json_len);
	*serial = 0;
	if (!rd->jdoc || (!cJSON_IsObject(rd->jdoc) && !cJSON_IsArray(rd->jdoc)))
		return 0;
	if (sample_tick_parse(rd->jdoc, &rd->jtick, rd->jmembers, sizeof(rd->jmembers)) == 0) {
		unsigned key = rd->jtick.cgroup ? 1 : 0;

		for (int g = 0; g < SG_COUNT; g++)
			key |= rd->jtick.unavailable[g] ? 2u << g : 0;
		if (!rd->jtick_serial || key != rd->jtick_key) {
			rd->jtick_key = key;
			rd->jtick_serial = ++rd->serial;
		}
		p->jt = &rd->jtick;
		*serial = rd->jtick_serial;
		return 0;
	}
	if ((r = json_leaves(rd)) < 0 || (r = json_serial(rd, serial)) < 0)
		return r;
	p->leaves = true;
	return 0;
}

/* One row as a tick for fn. */
static int reader_row(struct tick_reader *rd, sqlite3_stmt *s, store_sample_fn fn, void *arg,
		      struct st_err *e)
{
	struct store_tick_priv priv = { .rd = rd };
	struct store_tick t = {
		.run_id = rd->run_id,
		.seq = (uint64_t)sqlite3_column_int64(s, 0),
		.t_ns = (uint64_t)sqlite3_column_int64(s, 1),
		.priv = &priv,
	};
	int r;

	if (sqlite3_column_type(s, 3) == SQLITE_NULL) {
		priv.json = (const char *)sqlite3_column_text(s, 2);
		priv.json_len = (size_t)sqlite3_column_bytes(s, 2);
		if (!priv.json)
			priv.json = "";
		if ((r = reader_json_row(rd, &priv, &t.shape)) < 0)
			return err_set(e, r, "out of memory");
	} else if ((priv.ns = num_by_id(rd, sqlite3_column_int64(s, 3))) != NULL) {
		const struct num_shape *ns = priv.ns;

		/* its strings (the numbers are the row's) */
		rd->tick.members = ns->strs.members;
		rd->tick.cgroup = ns->strs.cgroup;
		rd->tick.cgroup_v2 = ns->strs.cgroup_v2;
		rd->tick.cgroup_path = ns->strs.cgroup_path;
		rd->tick.cpu_source = ns->strs.cpu_source;
		rd->tick.cpu_target = ns->strs.cpu_target;
		rd->tick.cpu_note = ns->strs.cpu_note;
		memcpy(rd->tick.unavailable, ns->strs.unavailable, sizeof(rd->tick.unavailable));
		rd->tick.seq = t.seq;
		if (tick_numbers_decode(sqlite3_column_blob(s, 4), (size_t)sqlite3_column_bytes(s, 4),
					&ns->keys, &rd->prev, &rd->tick) < 0 || rd->tick.cgroup != ns->strs.cgroup)
			priv.damaged = true;
		rd->tick.seq = t.seq;
		t.shape = ns->serial;
	} else {
		const uint8_t *b = sqlite3_column_blob(s, 4);
		size_t n = (size_t)sqlite3_column_bytes(s, 4);

		priv.sh = shape_by_id(rd, sqlite3_column_int64(s, 3));
		if (!priv.sh && rd->every_row)
			return 0;	/* left as it is */
		if (!priv.sh)
			return err_set(e, -EBADMSG, "recording %lld: tick %llu has no stored shape",
				       (long long)rd->run_id, (unsigned long long)t.seq);
		/*
		 * a compact row of the codec: the conversion made every one that
		 * decodes a numbers or JSON row, so one left is damaged
		 */
		if (!rd->every_row)
			return err_set(e, -EBADMSG, "recording %lld: tick %llu is damaged",
				       (long long)rd->run_id, (unsigned long long)t.seq);
		if (grow((void **)&rd->v, &rd->v_cap, priv.sh->n + 1, sizeof(*rd->v)) < 0)
			return err_set(e, -ENOMEM, "out of memory");
		priv.damaged = tick_decode(priv.sh, b ? b : (const uint8_t *)"", n, rd->v) < 0;
		t.shape = priv.sh->serial;
	}
	if (rd->every_row)
		return fn(&t, arg);
	r = priv.damaged ? 0 : fn(&t, arg);
	if (priv.damaged)	/* found as far as fn read it */
		return err_set(e, -EBADMSG, "recording %lld: tick %llu is damaged",
			       (long long)rd->run_id, (unsigned long long)t.seq);
	return r;
}

/* the rows of run_id in table (samples, or the conversion's copy) through fn */
/*
 * The rows a walk reads: run_id's in table ("samples", or the conversion's
 * copy "samples_v8"), every row (the conversion) or the readable ones.
 */
struct ticks_of {
	const char *table;
	int64_t run_id;
	bool every_row;
};

static int ticks_walk(struct store *st, const struct ticks_of *of, store_sample_fn fn, void *arg,
		      struct st_err *e)
{
	struct tick_reader rd = { .st = st, .run_id = of->run_id, .every_row = of->every_row, .e = e };
	sqlite3_stmt *s = NULL;
	char sql[160];
	int r, rc = SQLITE_DONE, n = 0;

	/* a long recording is read front to back: map the file rather than pread() each page */
	sqlite3_exec(st->db, "PRAGMA mmap_size = 17179869184", NULL, NULL, NULL);
	snprintf(sql, sizeof(sql), "SELECT seq, t_ns, data, shape_id, vals FROM %s"
		 " WHERE run_id = ?1 ORDER BY seq", of->table);
	if ((r = reader_load_shapes(&rd, e)) < 0 || (r = store_prepare(st, sql, &s, e)) < 0)
		goto out;
	sqlite3_bind_int64(s, 1, of->run_id);
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		r = reader_row(&rd, s, fn, arg, e);
		n++;
		if (r < 0)
			goto out;
		if (r > 0) {	/* fn stopped the walk */
			rc = SQLITE_DONE;
			break;
		}
	}
	r = rc == SQLITE_DONE ? n : err_set(e, -EIO, "database %s: %s", st->path,
					    sqlite3_errmsg(st->db));
out:
	sqlite3_finalize(s);
	reader_free(&rd);
	return r;
}

int store_ticks_walk(struct store *st, int64_t run_id, store_sample_fn fn, void *arg,
		     struct st_err *e)
{
	return ticks_walk(st, &(struct ticks_of){ .table = "samples", .run_id = run_id }, fn, arg, e);
}

/* ---- schemas 9 and 10: older rows as numbers ---- */

/*
 * One row of the copy: a numbers row written again (after the numbers rows
 * before it); a codec or JSON row as numbers when its line prints back byte
 * for byte, else a codec row as a JSON row of its text (the reader has no
 * codec); a damaged row, or a JSON row that is no current tick, is left as
 * it is.
 */
static int convert_row(const struct store_tick *t, void *arg)
{
	struct tick_writer *w = arg;
	struct store_tick_priv *p = (struct store_tick_priv *)t->priv;
	struct st_err *e = p->rd->e;
	struct sample_tick tick;
	const char *json = NULL;
	char members[1024];
	size_t len = 0;
	cJSON *d;
	int r = 0;

	if (p->ns && !p->damaged)
		tick_numbers_cook(&p->rd->prev, &p->rd->tick);
	if (p->ns)
		return p->damaged ? 0 : tick_writer_add_numbers(w, t->t_ns, &p->rd->tick, e);
	if (!p->damaged && (p->json || p->sh))
		json = store_tick_json(t, &len);
	if (!json || p->damaged)
		return p->sh && !p->damaged ? err_set(e, -ENOMEM, "out of memory") : 0;
	d = cJSON_ParseWithLength(json, len);
	if (writer_takes(w, &(struct tick_given){ .seq = t->seq, .t_ns = t->t_ns, .d = d,
						  .text = json, .len = len }, &tick, members, sizeof(members)))
		r = tick_writer_add_numbers(w, t->t_ns, &tick, e);
	else if (p->sh)
		r = tick_writer_add(w, t->seq, t->t_ns, json, len, e);
	cJSON_Delete(d);
	return r;
}

/*
 * the rows of every recording that has a row other than a numbers row
 * written again (store_samples_convert())
 */
static int convert_all(struct store *st, struct st_err *e)
{
	struct tick_writer *w = NULL;
	sqlite3_stmt *runs = NULL;
	int r;

	/* read from a copy, written back over the rows of samples */
	if ((r = store_exec(st, "CREATE TEMP TABLE samples_v8 (run_id, seq, t_ns, data, shape_id, vals,"
			    " PRIMARY KEY (run_id, seq)) WITHOUT ROWID;"
			    "INSERT INTO samples_v8 SELECT run_id, seq, t_ns, data, shape_id, vals"
			    " FROM samples WHERE run_id IN (SELECT run_id FROM samples"
			    "  WHERE shape_id IS NULL OR shape_id NOT IN"
			    "  (SELECT id FROM sample_shapes WHERE kind = 1))", e)) < 0 ||
	    (r = store_prepare(st, "SELECT DISTINCT run_id FROM samples_v8 ORDER BY run_id", &runs, e)) < 0)
		goto out;
	while ((r = sqlite3_step(runs)) == SQLITE_ROW) {
		int64_t run = sqlite3_column_int64(runs, 0);

		if (!w && (w = tick_writer_new(st, run)) == NULL) {
			r = err_set(e, -ENOMEM, "out of memory");
			goto out;
		}
		tick_writer_reset(w, run);
		w->replace = true;
		r = ticks_walk(st, &(struct ticks_of){ .table = "samples_v8", .run_id = run,
						       .every_row = true }, convert_row, w, e);
		if (r == -EBADMSG) {	/* a shape that is not a tick: its rows stay, read as before */
			err_reset(e);
			continue;
		}
		if (r < 0)
			goto out;
	}
	r = r == SQLITE_DONE ? 0 : err_set(e, -EIO, "database %s: %s", st->path, sqlite3_errmsg(st->db));
	sqlite3_finalize(runs);
	runs = NULL;
	/* shapes and strings rows no row names any more */
	if (r == 0)
		r = store_exec(st, "DELETE FROM sample_shapes WHERE id NOT IN"
			       " (SELECT shape_id FROM samples WHERE shape_id IS NOT NULL);"
			       "DROP TABLE samples_v8", e);
out:
	sqlite3_finalize(runs);
	tick_writer_free(w);
	return r;
}

/* whether schema 9's to-do is there: 1, 0, or an error */
static int convert_due(struct store *st, struct st_err *e)
{
	sqlite3_stmt *s;
	int r = store_prepare(st, "SELECT 1 FROM store_todo WHERE what = 'ticks as numbers'", &s, e);

	if (r < 0)
		return r;
	r = store_step_row(st, s, e);
	sqlite3_finalize(s);
	return r;
}

int store_samples_convert(struct store *st, struct st_err *e)
{
	int r = convert_due(st, e);

	if (r <= 0)
		return r;
	/* under the write lock, asked again: another process may have done it meanwhile */
	if ((r = store_tx_begin(st, e)) < 0)
		return r;
	if ((r = convert_due(st, e)) == 1 && (r = convert_all(st, e)) == 0)
		r = store_exec(st, "DELETE FROM store_todo WHERE what = 'ticks as numbers'", e);
	if (r < 0) {
		store_tx_rollback(st);
		return r;
	}
	return store_tx_commit(st, e);
}

/* Whether run_id is a run of kind "sample": 0, -ENOENT, or an error. */
static int sample_run_exists(struct store *st, int64_t run_id, struct st_err *e)
{
	sqlite3_stmt *stmt;
	int r = store_prepare(st, "SELECT 1 FROM runs WHERE id = ?1 AND kind = 'sample'",
			      &stmt, e);

	if (r < 0)
		return r;
	sqlite3_bind_int64(stmt, 1, run_id);
	r = sqlite3_step(stmt);
	sqlite3_finalize(stmt);
	if (r == SQLITE_ROW)
		return 0;
	if (r == SQLITE_DONE)
		return err_set_exit(e, -ENOENT, ST_EXIT_USAGE,
				    "run %lld is not a sample recording (see swaptune history)",
				    (long long)run_id);
	return err_set(e, -EIO, "database %s: %s", st->path, sqlite3_errmsg(st->db));
}

int store_samples_read(struct store *st, int64_t run_id, store_sample_fn fn, void *arg,
		       struct st_err *e)
{
	int r = sample_run_exists(st, run_id, e);

	return r < 0 ? r : store_ticks_walk(st, run_id, fn, arg, e);
}

/* ---- a tick's accessors ---- */

/* a numbers row's slots: its leaves, numbered the same for every tick of its strings */
enum {
	NS_SCHEMA, NS_SEQ, NS_TIME, NS_ELAPSED, NS_INTERVAL, NS_PAGE, NS_CG_PATH, NS_CG_VERSION,
	NS_CPU_SOURCE, NS_CPU_TARGET, NS_CPU_NOTE,
	NS_METRIC, NS_COUNTER = NS_METRIC + SM_COUNT, NS_WHY = NS_COUNTER + SC_COUNT,
};

static int num_slot(const struct sample_tick *s, const char *group, const char *key)
{
	static const char *const top[] = { "schema", "seq", "time", "elapsed_s", "interval_s",
					   "page_size" };
	int g;

	if (!group) {
		for (int i = 0; i < (int)(sizeof(top) / sizeof(top[0])); i++)
			if (!strcmp(key, top[i]))
				return NS_SCHEMA + i;
		return -1;
	}
	if (!strcmp(group, "counters")) {
		for (int c = 0; c < SC_COUNT; c++)
			if (!strcmp(sample_counter_defs[c].key, key) &&
			    (s->cgroup || sample_counter_defs[c].group != SG_CGROUP))
				return NS_COUNTER + c;
		return -1;
	}
	if (!strcmp(group, "unavailable")) {
		for (g = 0; g < SG_COUNT; g++)
			if (g != SG_CPU && s->unavailable[g] && (g != SG_CGROUP || s->cgroup) &&
			    !strcmp(vocab_group_name((enum sample_group)g), key))
				return NS_WHY + g;
		return -1;
	}
	for (g = 0; g < SG_COUNT; g++)
		if (!strcmp(vocab_group_name((enum sample_group)g), group))
			break;
	if (g == SG_COUNT || (g == SG_CGROUP && !s->cgroup))
		return -1;
	if (g == SG_CGROUP && !strcmp(key, "path"))
		return NS_CG_PATH;
	if (g == SG_CGROUP && !strcmp(key, "version"))
		return NS_CG_VERSION;
	if (g == SG_CPU && !strcmp(key, "source"))
		return NS_CPU_SOURCE;
	if (g == SG_CPU && !strcmp(key, "target"))
		return NS_CPU_TARGET;
	if (g == SG_CPU && !strcmp(key, "note"))
		return NS_CPU_NOTE;
	for (int m = 0; m < SM_COUNT; m++)
		if ((int)sample_metric_defs[m].group == g && !strcmp(sample_metric_defs[m].key, key))
			return NS_METRIC + m;
	return -1;
}

/* a numbers row's leaf (its value as its line prints it), or a JSON row's tick's (as written) */
static bool num_number(const struct tick_reader *rd, const struct sample_tick *t, int slot,
		       double *v)
{
	if (slot >= NS_METRIC && slot < NS_COUNTER) {
		int m = slot - NS_METRIC;

		if (t->ok[m])
			*v = t != &rd->tick ? t->val[m] :
			     tick_numbers_leaf(tick_numbers_value(&rd->prev, m),
					       sample_metric_defs[m].integral);
		return t->ok[m];
	}
	if (slot >= NS_COUNTER && slot < NS_WHY) {
		if (t->has[slot - NS_COUNTER])
			*v = (double)t->counter[slot - NS_COUNTER];
		return t->has[slot - NS_COUNTER];
	}
	switch (slot) {
	case NS_SEQ:
		*v = (double)t->seq;
		return true;
	case NS_ELAPSED:
		*v = (double)(t->elapsed_ns / 1000) / 1e6;
		return true;
	case NS_INTERVAL:
		*v = (double)(t->interval_ns / 1000) / 1e6;
		return true;
	case NS_PAGE:
		*v = (double)t->page_size;
		return true;
	}
	return false;
}

static int num_string(const struct sample_tick *t, int slot, char *buf, size_t len)
{
	const char *s = NULL;
	char tm_text[40];

	switch (slot) {
	case NS_SCHEMA:
		s = SAMPLE_SCHEMA;
		break;
	case NS_TIME: {
		time_t secs = (time_t)(t->wall_ns / 1000000000ULL);
		struct tm tm;
		size_t n;

		gmtime_r(&secs, &tm);
		n = strftime(tm_text, sizeof(tm_text), "%Y-%m-%dT%H:%M:%S", &tm);
		snprintf(tm_text + n, sizeof(tm_text) - n, ".%03uZ",
			 (unsigned)(t->wall_ns / 1000000ULL % 1000));
		s = tm_text;
		break;
	}
	case NS_CG_PATH:
		s = t->cgroup_path;
		break;
	case NS_CG_VERSION:
		s = t->cgroup_v2 ? "v2" : "v1";
		break;
	case NS_CPU_SOURCE:
		s = t->cpu_source;
		break;
	case NS_CPU_TARGET:
		s = t->cpu_target;
		break;
	case NS_CPU_NOTE:
		s = t->cpu_note;
		break;
	default:
		if (slot >= NS_WHY && slot < NS_WHY + SG_COUNT)
			s = t->unavailable[slot - NS_WHY];
	}
	if (!s)
		return -ENOENT;
	snprintf(buf, len, "%s", s);
	return 0;
}

int store_tick_slot(const struct store_tick *t, const char *group, const char *key)
{
	const struct store_tick_priv *p = t->priv;
	const struct tick_reader *rd = p->rd;

	if (p->ns)
		return num_slot(&p->ns->strs, group, key);
	if (p->jt)
		return num_slot(p->jt, group, key);
	if (!p->leaves)
		return -1;
	for (size_t i = 0; i < rd->n_leaves; i++) {
		const struct json_leaf *l = &rd->leaves[i];

		if (!strcmp(l->x->string, key) &&
		    (group ? l->group && !strcmp(l->group, group) : !l->group))
			return (int)i;
	}
	return -1;
}

bool store_tick_number(const struct store_tick *t, int slot, double *v)
{
	const struct store_tick_priv *p = t->priv;
	const cJSON *x;

	if (p->ns)
		return num_number(p->rd, &p->rd->tick, slot, v);
	if (p->jt)
		return num_number(p->rd, p->jt, slot, v);
	if (!p->leaves || slot < 0 || (size_t)slot >= p->rd->n_leaves)
		return false;
	x = p->rd->leaves[slot].x;
	if (!cJSON_IsNumber(x))
		return false;
	*v = x->valuedouble;
	return true;
}

int store_tick_string(const struct store_tick *t, int slot, char *buf, size_t len)
{
	const struct store_tick_priv *p = t->priv;
	const cJSON *x;

	if (len)
		buf[0] = '\0';
	if (p->ns)
		return num_string(&p->rd->tick, slot, buf, len);
	if (p->jt)
		return num_string(p->jt, slot, buf, len);
	if (!p->leaves || slot < 0 || (size_t)slot >= p->rd->n_leaves)
		return -ENOENT;
	x = p->rd->leaves[slot].x;
	if (!cJSON_IsString(x) || !x->valuestring)
		return -ENOENT;
	snprintf(buf, len, "%s", x->valuestring);
	return 0;
}

const char *store_tick_json(const struct store_tick *t, size_t *len)
{
	struct store_tick_priv *p = (struct store_tick_priv *)t->priv;
	struct tick_reader *rd = p->rd;

	if (p->json) {
		*len = p->json_len;
		return p->json;
	}
	if (p->damaged)
		return NULL;
	if (p->ns && !p->formatted)
		tick_numbers_cook(&rd->prev, &rd->tick);
	while (!p->formatted) {
		long n = !rd->text ? -ENOSPC : p->ns ? sample_tick_json(&rd->tick, rd->text, rd->text_cap) :
			 tick_format(p->sh, rd->v, rd->text, rd->text_cap);

		if (n >= 0) {
			p->formatted = true;
			p->text_len = n;
		} else if (rd->text_cap >= (1u << 20) ||
			   grow((void **)&rd->text, &rd->text_cap,
				rd->text_cap ? rd->text_cap * 2 : 16384, 1) < 0) {
			return NULL;
		}
	}
	*len = (size_t)p->text_len;
	return rd->text;
}

/* ---- listing ---- */

static void copy_col(char *dst, size_t len, sqlite3_stmt *stmt, int col)
{
	const unsigned char *t = sqlite3_column_text(stmt, col);

	snprintf(dst, len, "%s", t ? (const char *)t : "");
}

int store_sample_runs(struct store *st, bool with_ticks, struct store_sample_run *rows, int max,
		      int *n, struct st_err *e)
{
	sqlite3_stmt *stmt;
	int r = store_prepare(st,
		"SELECT r.id, r.status, r.started_at, coalesce(r.ended_at, ''),"
		" coalesce(r.params, ''), count(s.seq), coalesce(min(s.t_ns), 0),"
		" coalesce(max(s.t_ns), 0)"
		" FROM runs r LEFT JOIN samples s ON s.run_id = r.id"
		" WHERE r.kind = 'sample' GROUP BY r.id HAVING NOT ?2 OR count(s.seq) > 0"
		" ORDER BY r.id DESC LIMIT ?1", &stmt, e);
	int rc;

	*n = 0;
	if (r < 0)
		return r;
	sqlite3_bind_int(stmt, 1, max);
	sqlite3_bind_int(stmt, 2, with_ticks);
	while ((rc = sqlite3_step(stmt)) == SQLITE_ROW && *n < max) {
		struct store_sample_run *w = &rows[(*n)++];

		memset(w, 0, sizeof(*w));
		w->run_id = sqlite3_column_int64(stmt, 0);
		copy_col(w->status, sizeof(w->status), stmt, 1);
		copy_col(w->started_at, sizeof(w->started_at), stmt, 2);
		copy_col(w->ended_at, sizeof(w->ended_at), stmt, 3);
		copy_col(w->params, sizeof(w->params), stmt, 4);
		w->ticks = (uint64_t)sqlite3_column_int64(stmt, 5);
		w->first_t_ns = (uint64_t)sqlite3_column_int64(stmt, 6);
		w->last_t_ns = (uint64_t)sqlite3_column_int64(stmt, 7);
		w->duration_ns = w->last_t_ns - w->first_t_ns;
	}
	if (rc != SQLITE_DONE && rc != SQLITE_ROW)
		r = err_set(e, -EIO, "database %s: %s", st->path, sqlite3_errmsg(st->db));
	sqlite3_finalize(stmt);
	return r;
}

/* ---- the recordings around a time ---- */

/* a run's host: its machine id, else its hosts row's (runs before schema 3 have none of their own) */
#define HOST_KEY(r) \
	"coalesce(nullif(" r ".machine_id, ''), (SELECT hk.machine_id FROM hosts hk WHERE hk.id = " r ".host_id))"
/* a change: an apply or rollback that did not fail (a failed one left the settings as they were) */
#define IS_CHANGE(r) "(" r ".kind IN ('apply', 'rollback') AND " r ".status != 'failed')"
/* a rollback run that undid apply ?1: back to a snapshot of a run at or before it, or its revert */
#define UNDOES_APPLY(b) \
	"(" b ".kind = 'rollback' AND json_valid(" b ".params) AND" \
	" (json_extract(" b ".params, '$.to_run') <= ?1 OR json_extract(" b ".params, '$.apply_run') = ?1))"

static void bind_text_or_null(sqlite3_stmt *s, int i, const char *t)
{
	if (t && t[0])
		sqlite3_bind_text(s, i, t, -1, SQLITE_TRANSIENT);
	else
		sqlite3_bind_null(s, i);
}

static void col_copy(sqlite3_stmt *s, int i, char *out, size_t len)
{
	snprintf(out, len, "%s", store_col_text(s, i));
}

int store_change_window(struct store *st, int64_t apply_run, struct store_change_window *w,
			struct st_err *e)
{
	char hk[128] = "", start[40] = "", end[40] = "";
	bool has_hk = false;
	sqlite3_stmt *s;
	int r;

	memset(w, 0, sizeof(*w));
	r = store_prepare(st,
		"SELECT " HOST_KEY("a") ", a.status, a.started_at, coalesce(a.ended_at, ''),"
		" coalesce((SELECT taken_at FROM snapshots WHERE run_id = a.id AND reason = 'after apply'"
		"  ORDER BY id LIMIT 1), a.ended_at, a.started_at)"
		" FROM runs a WHERE a.id = ?1", &s, e);
	if (r < 0)
		return r;
	sqlite3_bind_int64(s, 1, apply_run);
	if ((r = store_step_row(st, s, e)) == 1) {
		has_hk = sqlite3_column_type(s, 0) != SQLITE_NULL;
		col_copy(s, 0, hk, sizeof(hk));
		w->reverted = !strcmp(store_col_text(s, 1), "reverted");
		col_copy(s, 2, start, sizeof(start));
		if (w->reverted)
			col_copy(s, 3, w->reverted_at, sizeof(w->reverted_at));
		col_copy(s, 4, w->applied_at, sizeof(w->applied_at));
	}
	sqlite3_finalize(s);
	if (r < 0)
		return r;
	if (r == 0)
		return err_set_exit(e, -ENOENT, ST_EXIT_USAGE, "no run %lld (see swaptune history)",
				    (long long)apply_run);

	/* the host's changes on either side */
	r = store_prepare(st,
		"SELECT r.id, r.kind, coalesce(r.ended_at, r.started_at) FROM runs r"
		" WHERE " IS_CHANGE("r") " AND r.id < ?1 AND " HOST_KEY("r") " IS ?2"
		" ORDER BY r.id DESC LIMIT 1", &s, e);
	if (r < 0)
		return r;
	sqlite3_bind_int64(s, 1, apply_run);
	bind_text_or_null(s, 2, has_hk ? hk : NULL);
	if ((r = store_step_row(st, s, e)) == 1) {
		w->prev_run = sqlite3_column_int64(s, 0);
		col_copy(s, 1, w->prev_kind, sizeof(w->prev_kind));
		col_copy(s, 2, w->prev_at, sizeof(w->prev_at));
	}
	sqlite3_finalize(s);
	if (r < 0)
		return r;
	r = store_prepare(st,
		"SELECT r.id, r.kind, r.started_at, coalesce(" UNDOES_APPLY("r") ", 0) FROM runs r"
		" WHERE " IS_CHANGE("r") " AND r.id > ?1 AND " HOST_KEY("r") " IS ?2"
		" ORDER BY r.id LIMIT 1", &s, e);
	if (r < 0)
		return r;
	sqlite3_bind_int64(s, 1, apply_run);
	bind_text_or_null(s, 2, has_hk ? hk : NULL);
	if ((r = store_step_row(st, s, e)) == 1) {
		w->next_run = sqlite3_column_int64(s, 0);
		col_copy(s, 1, w->next_kind, sizeof(w->next_kind));
		col_copy(s, 2, w->next_at, sizeof(w->next_at));
		w->undone = sqlite3_column_int(s, 3) != 0;
	}
	sqlite3_finalize(s);
	if (r < 0)
		return r;

	/* its effect ended at the next change, or at its revert if that came first */
	snprintf(end, sizeof(end), "%s", w->next_at);
	if (w->reverted_at[0] && (!end[0] || strcmp(w->reverted_at, end) < 0))
		snprintf(end, sizeof(end), "%s", w->reverted_at);

	r = store_prepare(st,
		"SELECT r.id FROM runs r WHERE r.kind = 'sample' AND r.ended_at IS NOT NULL"
		" AND r.ended_at <= ?1 AND (?2 IS NULL OR r.started_at >= ?2) AND " HOST_KEY("r") " IS ?3"
		" AND EXISTS (SELECT 1 FROM samples WHERE run_id = r.id)"
		" ORDER BY r.ended_at DESC, r.id DESC LIMIT 1", &s, e);
	if (r < 0)
		return r;
	sqlite3_bind_text(s, 1, start, -1, SQLITE_TRANSIENT);
	bind_text_or_null(s, 2, w->prev_at);
	bind_text_or_null(s, 3, has_hk ? hk : NULL);
	if ((r = store_step_row(st, s, e)) == 1)
		w->before = sqlite3_column_int64(s, 0);
	sqlite3_finalize(s);
	if (r < 0)
		return r;
	r = store_prepare(st,
		"SELECT r.id FROM runs r WHERE r.kind = 'sample' AND r.started_at >= ?1"
		" AND (?2 IS NULL OR (r.ended_at IS NOT NULL AND r.ended_at <= ?2)) AND " HOST_KEY("r") " IS ?3"
		" AND EXISTS (SELECT 1 FROM samples WHERE run_id = r.id)"
		" ORDER BY r.started_at, r.id LIMIT 1", &s, e);
	if (r < 0)
		return r;
	sqlite3_bind_text(s, 1, w->applied_at, -1, SQLITE_TRANSIENT);
	bind_text_or_null(s, 2, end);
	bind_text_or_null(s, 3, has_hk ? hk : NULL);
	if ((r = store_step_row(st, s, e)) == 1)
		w->after = sqlite3_column_int64(s, 0);
	sqlite3_finalize(s);
	return r < 0 ? r : 0;
}

int store_apply_rolled_back(struct store *st, int64_t apply_run, int64_t *rollback_run,
			    struct st_err *e)
{
	sqlite3_stmt *s;
	int r = store_prepare(st,
		"SELECT b.id FROM runs b WHERE b.status = 'ok' AND b.id > ?1 AND " UNDOES_APPLY("b")
		" ORDER BY b.id LIMIT 1", &s, e);

	*rollback_run = 0;
	if (r < 0)
		return r;
	sqlite3_bind_int64(s, 1, apply_run);
	if ((r = store_step_row(st, s, e)) == 1)
		*rollback_run = sqlite3_column_int64(s, 0);
	sqlite3_finalize(s);
	return r < 0 ? r : 0;
}
