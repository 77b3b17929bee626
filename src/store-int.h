/*
 * store-int.h - private to the store's own files (src/store*.c,
 * src/migrations.c): the raw SQLite handle and statement helpers. No other
 * file includes sqlite3.h or spells SQL; they call the typed functions in
 * include/swaptune/store.h.
 */
#ifndef SWAPTUNE_STORE_INT_H
#define SWAPTUNE_STORE_INT_H

#include <sqlite3.h>

#include "store-err.h"
#include "swaptune/migrations.h"
#include "swaptune/sampler.h"
#include "swaptune/store.h"

/* Run a statement without results (BEGIN, COMMIT, ...). */
int store_exec(struct store *st, const char *sql, struct st_err *e);
/* Prepare with an error message naming the store. */
int store_prepare(struct store *st, const char *sql, sqlite3_stmt **stmt,
		  struct st_err *e);
/* sqlite3_step() to SQLITE_DONE with an error message on failure. */
int store_step_done(struct store *st, sqlite3_stmt *stmt, struct st_err *e);
/* sqlite3_step() once: 1 with a row to read, 0 without, < 0 (e says) on failure. */
int store_step_row(struct store *st, sqlite3_stmt *stmt, struct st_err *e);
/* End a transaction store_tx_begin() opened: commit when r is 0, else roll back and return r. */
int store_tx_end(struct store *st, int r, struct st_err *e);
/*
 * How a listing's row becomes one element of its array: size bytes, read()
 * fills a zeroed element from the row (0, or -ENOMEM), drop() (may be NULL)
 * frees what one element owns when a later read fails. One per listing, a
 * static const beside its read().
 */
struct store_row_type {
	size_t size;
	int (*read)(sqlite3_stmt *stmt, void *element);
	void (*drop)(void *element);
};
/*
 * Step stmt to its end (finalizing it), one element of type per row into a
 * malloc'd array *rows (NULL when *n is 0). Every listing of the store
 * reads its rows through this.
 */
int store_rows_read(struct store *st, sqlite3_stmt *stmt, const struct store_row_type *type,
		    void **rows, size_t *n, struct st_err *e);
/* Column i's text, "" for NULL; and a malloc'd copy of it, NULL for NULL. */
const char *store_col_text(sqlite3_stmt *stmt, int i);
char *store_col_dup(sqlite3_stmt *stmt, int i);

/*
 * ---- the compact tick codec of schemas 4 to 8 (src/store-ticks.c; no SQL) ----
 *
 * Read only, by the conversion (store_samples_convert()). A tick's JSON was
 * cut into its structure (keys, punctuation, whitespace) and its scalar
 * leaves (numbers, strings, null, true, false): the slots. A shape is the
 * first tick of one structure, kept verbatim in sample_shapes.tick (kind
 * NULL); its leaves are each slot's default. A later tick of the same
 * structure was stored as vals: per slot one LEB128 varint whose low 3 bits
 * are a tag (TICK_*) and whose high bits a payload, then any bytes.
 */
enum {
	TICK_SAME,	/* the shape's own leaf text */
	TICK_INT,	/* zigzag integer, printed %lld */
	TICK_DEC,	/* zigzag mantissa, then one byte: digits after the point */
	TICK_LIT,	/* 0 null, 1 true, 2 false */
	TICK_STR,	/* length, then the string's bytes between its quotes, as written */
	TICK_RAW,	/* length, then the number's text as written */
	TICK_TIME,	/* zigzag ms from the shape's time "YYYY-MM-DDTHH:MM:SS.mmmZ" */
};

/* One scalar leaf of a shape: its token and where it sits. */
struct tick_slot {
	uint32_t off, len;		/* the token in the text (strings with quotes) */
	uint32_t piece;			/* structure text before it starts here (ends at off) */
	uint16_t depth;			/* containers around it: 2 for "vmstat":{"x":1} */
	uint32_t group_off, group_len;	/* key of its depth-1 member ("vmstat"), len 0 if none */
	uint32_t key_off, key_len;	/* its own key without quotes, len 0 in an array */
	char kind;			/* 'n' number, 's' string, 'l' null/true/false */
	bool has_time;			/* the default is a tick time: time_ms */
	int64_t time_ms;
};

/* A tick's structure with its defaults. */
struct tick_shape {
	int64_t id;			/* sample_shapes row */
	unsigned serial;		/* unique within one read */
	char *text;			/* owned, NUL-terminated */
	size_t len;
	size_t n, cap;
	struct tick_slot *slots;
	uint32_t tail;			/* structure text after the last slot starts here */
};

/* One slot's value in a decoded tick (16 bytes: a tick decodes many). */
struct tick_val {
	uint8_t tag, frac;
	uint32_t n;			/* TICK_STR, TICK_RAW: bytes at p */
	union {
		int64_t i;		/* TICK_INT, TICK_DEC, TICK_LIT, TICK_TIME */
		const char *p;
	};
};

/* A stored shape (a copy of json): 0, -EBADMSG when it is no shape, -ENOMEM. */
int tick_shape_make(struct tick_shape *sh, int64_t id, const char *json, size_t len);
/* Free a shape's slots (and its text when owned). */
void tick_shape_free(struct tick_shape *sh, bool owns_text);
/* Decode vals into sh->n values: 0, or -EBADMSG (also for bytes left over). */
int tick_decode(const struct tick_shape *sh, const uint8_t *b, size_t len, struct tick_val *v);
/* The tick's JSON text into out (cap bytes): its length, or -ENOSPC. */
long tick_format(const struct tick_shape *sh, const struct tick_val *v, char *out, size_t cap);

/*
 * A tick as the store's own numbers row (src/store-tick-numbers.c): its
 * numbers only, each row after the previous numbers row of its recording
 * (deltas, "as before"); its strings are the recording's strings row, a
 * sample_shapes row of kind 1 holding a tick line whose numbers are null.
 */
struct tick_prev {
	uint64_t seq;			/* 0: none yet (ticks count from 1) */
	uint64_t wall_ms;
	double val[SM_COUNT];
	bool ok[SM_COUNT];
	uint64_t counter[SC_COUNT];
	/* the reader's: each value as stored (kind | digits << 2, payload), made a double when read */
	uint64_t raw[SM_COUNT];
	uint8_t rk[SM_COUNT];
};
/*
 * Which vocabulary rows a numbers row's bits stand for, in order: the value
 * keys (SM_*) and counter keys (SC_*) of its strings row as that row spells
 * them, so the layout never follows the enum order of vocab-rows.h.
 */
struct tick_keys {
	uint16_t m[SM_COUNT], n_m;
	uint16_t c[SC_COUNT], n_c;
};
struct cJSON;
/* the keys of a strings row (a parsed tick line): 0, or -EBADMSG for a key the vocabulary lacks */
int tick_keys_from_line(const struct cJSON *d, struct tick_keys *k);
#define TICK_ROW_MAX (2 + 4 * 10 + 3 * ((SM_COUNT + 7) / 8 + (SC_COUNT + 7) / 8) + \
		      SM_COUNT * 17 + SC_COUNT * 10)
/* t as a row after prev (updated) into out (TICK_ROW_MAX bytes): its length */
size_t tick_numbers_encode(const struct sample_tick *t, const struct tick_keys *k,
			   struct tick_prev *prev, uint8_t *out);
/*
 * A row after prev (updated) into t's numbers (its strings untouched): 0,
 * -EBADMSG. Its values stay in prev until read: tick_numbers_value() of a
 * key t->ok holds, or tick_numbers_cook() for all of them into t->val.
 */
double tick_numbers_value(const struct tick_prev *prev, int m);
void tick_numbers_cook(const struct tick_prev *prev, struct sample_tick *t);
int tick_numbers_decode(const uint8_t *b, size_t len, const struct tick_keys *k,
			struct tick_prev *prev, struct sample_tick *t);
/* the number a leaf's printed text reads as (strtod of sample_tick_json's digits) */
double tick_numbers_leaf(double v, bool integral);

/*
 * The samples writer (src/store-samples.c), for `sample --record` and
 * import: rows of run_id, numbers rows when the tick is a current sample
 * tick that prints back as it was given, else JSON rows.
 */
struct tick_writer *tick_writer_new(struct store *st, int64_t run_id);
/* A tick as numbers (a numbers row after the writer's previous one). */
int tick_writer_add_numbers(struct tick_writer *w, uint64_t t_ns, const struct sample_tick *t,
			    struct st_err *e);
/*
 * A tick as it reaches the writer: its seq and time, parsed (d: NULL or
 * JSON null when it is none), and its source, len bytes of text (NULL: no
 * source, as for a tick object of an export).
 */
struct tick_given {
	uint64_t seq, t_ns;
	const struct cJSON *d;
	const char *text;
	size_t len;
};
/*
 * A given tick: a numbers row when d is a tick whose line keeps what it
 * said - with text when that line is text byte for byte (but for the keys
 * added to the vocabulary since the text was printed, null), without text when
 * it reads back as the same numbers and strings (import: d parsed from an
 * export) - else as tick_writer_add() of text, or of d printed by cJSON.
 */
int tick_writer_add_doc(struct tick_writer *w, const struct tick_given *g, struct st_err *e);
/* A tick's text: tick_writer_add_doc() of it parsed, with the text. */
int tick_writer_add_text(struct tick_writer *w, uint64_t seq, uint64_t t_ns, const char *json,
			 size_t len, struct st_err *e);
/* A tick's text as it is: a JSON row (data; no shape, no vals). */
int tick_writer_add(struct tick_writer *w, uint64_t seq, uint64_t t_ns, const char *json,
		    size_t len, struct st_err *e);
/* The same writer (its statements kept) for another run. */
void tick_writer_reset(struct tick_writer *w, int64_t run_id);
void tick_writer_free(struct tick_writer *w);
/* Every tick of run_id, whatever its kind (store_samples_read() without the check). */
int store_ticks_walk(struct store *st, int64_t run_id, store_sample_fn fn, void *arg,
		     struct st_err *e);

#endif
