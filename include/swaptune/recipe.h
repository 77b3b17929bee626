/*
 * recipe.h - a stored probe run's recipe read back: the params document
 * probe_params_json() writes (workload, memcg, method, arm names, baseline,
 * plan) with the run's arms (name and settings, from the store), turned
 * into a validated struct probe_config, the one reader beside the writer.
 * verify re-runs it; report prints the rerun line from it.
 *
 * Nothing read back is trusted (issue 19): every value goes through the
 * same parser and range the command line applies to it (sizes 1..FMT_SIZE_MAX
 * like --working-set, --reps 1..PROBE_REPS_MAX, a workload's own parameter
 * in its option's bounds, --duration >= 100 ms, --user an existing user,
 * --metric as metric_spec_check() takes it, custom arms through
 * probe_arm_parse() and the settings registry, built-in arms by name), a
 * command line only for the cmd workload (a built-in workload with an argv
 * is refused, as `probe` refuses an argument after its options), at most
 * PROBE_ARMS_MAX arms and a baseline among them. A value that fails is
 * refused with one line naming the run, the key and the value; nothing of
 * it is used.
 *
 * recipe_field_at() walks the table of the recipe's numeric values: its
 * JSON place, the command-line option that sets it, its range and whether
 * it is part of the recipe's identity (which differences make another
 * experiment); the workloads' own parameters are rows made from their
 * tables (struct workload_param: the option's parser, bounds and key).
 * Reading, validating and the report's rerun line loop over it. The
 * fingerprint itself stays judge_recipe() (judge.c sits below this reader
 * and the advice loader calls it); tests/unit/test-recipe.c holds its key
 * list to the identity flags here.
 */
#ifndef SWAPTUNE_RECIPE_H
#define SWAPTUNE_RECIPE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "swaptune/advice.h"
#include "swaptune/err.h"
#include "swaptune/host.h"
#include "swaptune/probe.h"

#define RECIPE_ARGV_MAX 63		/* words of a stored cmd workload's command */

/* Where a numeric value of the recipe lives in struct probe_config. */
enum recipe_type {
	RECIPE_U64,			/* uint64_t */
	RECIPE_UINT,			/* unsigned */
	RECIPE_DOUBLE,			/* double */
};

enum recipe_show {
	RECIPE_SHOW_NONE,		/* not on the rerun line by itself */
	RECIPE_SHOW_INT,		/* "--stride 16" */
	RECIPE_SHOW_SIZE,		/* "--working-set 256M" (fmt_size_arg) */
	RECIPE_SHOW_SECS,		/* "--duration 60s" */
	RECIPE_SHOW_REAL,		/* "--zipf-theta 0.99" */
};

struct recipe_field {
	const char *section;		/* "workload", "memcg", "method" */
	const char *key;		/* its key there */
	const char *option;		/* the probe option that sets it, for messages and the rerun line */
	enum recipe_show show;		/* on the rerun line as a whole number, a size, seconds, %g, or not alone */
	enum recipe_type type;
	size_t offset;			/* in struct probe_config */
	double min, max;		/* accepted range, as the option's */
	bool integer;			/* whole numbers only */
	bool identity;			/* another value = another recipe (judge_recipe()) */
	const char *range;		/* the range in words, for the refusal */
};

/* The i-th field (NULL past the end) and how many there are. */
const struct recipe_field *recipe_field_at(size_t i);
size_t recipe_field_count(void);

/* A run's recipe: the config verify runs, and what the params held. */
struct recipe {
	int64_t run_id;
	struct probe_config c;		/* workload, params, arms, baseline, design */
	char *argv[RECIPE_ARGV_MAX + 1];	/* cmd: owned words; c.wp.argv points here */
	bool have[64];			/* recipe_field_at(i) was stored */
	bool have_params;		/* the run stored params at all */
	bool have_plan;			/* the params carry an analysis plan */
	bool have_baseline;		/* the params name the baseline */
	bool limit_high;		/* memcg.limit_mode "high" */
};

/*
 * Read run's recipe (run as advice_load_run() gives it) into out, each value
 * validated as above; custom arms are checked against host h (its settings
 * registry and /proc/crypto). -EBADMSG (exit 1) with "probe run N: ..."
 * naming the value when one is refused or no params were stored. Call
 * recipe_free() after, whatever it returned.
 */
int recipe_read(const struct host *h, const struct advice_run *run, struct recipe *out,
		struct st_err *e);
void recipe_free(struct recipe *r);

/*
 * The trials a run plans, (rounds + the warm-up) x arms, from its method as
 * recipe_read() validates it (the workload and the arms are not checked):
 * a running probe's progress. -ENOENT without params, -EBADMSG as above.
 */
int recipe_planned_trials(const struct advice_run *run, unsigned *trials, struct st_err *e);

/*
 * The `probe` command line that reruns r, as the report prints it ("sudo
 * swaptune probe --workload ..."): every word from the store quoted by
 * fmt_shell_quote(); a run judged per CPU second with --busy-host per-cpu
 * (so a quiet host repeats its metric). -ENOSPC when it does not fit in len.
 */
int recipe_rerun_line(const struct recipe *r, char *out, size_t len);

/* The field's stored value (NAN when not stored) and the table index of section.key (-1). */
double recipe_value(const struct recipe *r, size_t field);
int recipe_field_find(const char *section, const char *key);

#endif
