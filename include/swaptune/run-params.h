/*
 * run-params.h - a stored run's params JSON, decoded once (src/run-params.c).
 *
 * The store decodes a runs row's params when it reads the row (struct
 * store_run.p): the document parsed once (doc, for the readers of a kind's
 * own sub-documents: the probe's recipe in recipe.c, the switchback's
 * design in sb-judge.c, the plan and the recipe's identity in judge.c) and
 * the fields every other reader wants, typed and checked against the
 * ranges the command line's parsers apply to the same values. Nothing read
 * back is trusted: a field of the wrong type or out of range is left unset
 * (its zero value below) and named in why; the rest of the document stands.
 * Nobody else parses params text.
 */
#ifndef SWAPTUNE_RUN_PARAMS_H
#define SWAPTUNE_RUN_PARAMS_H

#include <cjson/cJSON.h>
#include <stdbool.h>
#include <stdint.h>

#define RUN_PARAMS_NAME_MAX 64

struct run_params {
	cJSON *doc;			/* the whole document (owned), NULL: none or not JSON; the
					 * fields below only from an object */

	/* apply */
	const cJSON *settings;		/* into doc: setting name -> value, string items only count */
	int64_t source_run;		/* the probe or switchback run applied, 0 = none */
	char arm[RUN_PARAMS_NAME_MAX];	/* its arm */
	bool has_arm;			/* arm recorded (apply writes "" for none) */
	bool persist;			/* --persist */
	double confirm_within_s;	/* --confirm-within, 0 = none */
	double confirm_deadline_unix;	/* when its watchdog undoes it (UTC seconds), 0 = none */

	/* rollback (to a snapshot, or the watchdog's revert of an apply) */
	int64_t to;			/* snapshot id, 0 = none */
	char reason[RUN_PARAMS_NAME_MAX];
	int64_t apply_run;		/* 0 = none */

	/* a change run's who */
	char user[RUN_PARAMS_NAME_MAX], sudo_user[RUN_PARAMS_NAME_MAX];
	int64_t uid;
	bool has_uid;

	/* a sample recording */
	double interval_s, duration_s;	/* 0 = not recorded / until stopped */
	char cgroup[256];
	int64_t pid;			/* 0 = none */
	bool cpu_counters_off;		/* recorded with --no-cpu */

	/* a probe or switchback */
	char workload[RUN_PARAMS_NAME_MAX];	/* workload.name (or workload as a string) */
	char baseline[RUN_PARAMS_NAME_MAX];
	int64_t verify_of;		/* a switchback of verify --live: the apply run checked, 0 = none */

	char why[256];			/* the first field refused, "" = none */
};

/*
 * Decode params text (NULL or "" = none) into p (zeroed first). Never
 * fails: what cannot be trusted is left unset and said in p->why. Free
 * with run_params_free().
 */
void run_params_decode(const char *params, struct run_params *p);
/* dst as an owned copy of src (doc duplicated, not parsed again); -ENOMEM. */
int run_params_copy(struct run_params *dst, const struct run_params *src);
void run_params_free(struct run_params *p);

#endif
