/*
 * fleet.h - merging the stores of many hosts: the export document
 * (swaptune.export/1), its validation before import, and pooled fleet
 * advice over probe runs grouped by kernel, CPU, swap backend and workload.
 *
 * The pooling is pure (no I/O): per-run log effects of a candidate arm
 * against the run's baseline arm, with their standard errors from the
 * stored trials, combined by the DerSimonian-Laird random-effects method.
 */
#ifndef SWAPTUNE_FLEET_H
#define SWAPTUNE_FLEET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "swaptune/err.h"

#define FLEET_EXPORT_SCHEMA "swaptune.export/1"

/* Bounds an import enforces before touching the store. */
#define FLEET_FILE_MAX_BYTES	(256L * 1024 * 1024)
#define FLEET_DEPTH_MAX		16	/* nesting of arrays and objects */
#define FLEET_STRING_MAX	65536	/* any one string, bytes */
#define FLEET_RUNS_MAX		100000
#define FLEET_ROWS_MAX		1000000	/* arms, trials, samples ... per run */
#define FLEET_ID_MAX		9007199254740992.0	/* 2^53: exact in a double */

struct cJSON;

/*
 * Parse and check a whole export document: the schema tag, the host
 * identity, and every run's fields, types, sizes and ranges. text need not
 * be NUL-terminated. On success *doc owns the tree (cJSON_Delete it); on
 * failure returns -EBADMSG (or -ENOMEM) with one line in e saying what is
 * wrong and where ("runs[3].trials[0].primary: not a finite number").
 */
int fleet_doc_parse(const char *text, size_t len, struct cJSON **doc, struct st_err *e);

/* 64-bit FNV-1a of a run object's compact JSON, as 16 hex digits. */
void fleet_run_hash(const struct cJSON *run, char out[17]);

/* ---- pooling ---- */

struct fleet_pooled {
	size_t k;		/* per-run effects pooled */
	double mu;		/* pooled log ratio candidate / baseline */
	double se;		/* its standard error */
	double ci_low, ci_high;	/* 95% interval of mu */
	double tau2;		/* between-run variance (DerSimonian-Laird) */
	double q;		/* Cochran's Q */
	double effect_pct, ci_low_pct, ci_high_pct;	/* (exp(x) - 1) * 100 */
};

/*
 * Random-effects pool of k log effects y[i] with variances v[i] (> 0;
 * smaller values are floored at 1e-12). -EINVAL when k == 0 or a value is
 * not finite. With k == 1, tau2 = 0 and the interval is the run's own.
 */
int fleet_pool_dl(const double *y, const double *v, size_t k, struct fleet_pooled *out,
		  struct st_err *e);

/* ---- probe runs of the fleet, as the store hands them over ---- */

#define FLEET_TEXT_MAX	128
#define FLEET_ARMS_MAX	16

struct fleet_arm {
	char name[64];
	unsigned n_trials;	/* measured (not warm-up) */
	unsigned n_ok, n_oom;
	double mean, sd;	/* of the primary value over ok trials; sd NAN when n_ok < 2 */
};

/*
 * Log ratio of candidate c's mean over baseline b's and its delta-method
 * variance, over their ok trials (n = n_ok):
 * y = ln(mean_c / mean_b), v = sd_c^2/(n_c mean_c^2) + sd_b^2/(n_b mean_b^2).
 * Returns false (no effect) unless both arms have n >= 2 and positive means.
 */
bool fleet_log_effect(const struct fleet_arm *c, const struct fleet_arm *b, double *y, double *v);

struct fleet_run {
	int64_t run_id;		/* in this store */
	bool imported;
	char machine_id[FLEET_TEXT_MAX];
	char hostname[FLEET_TEXT_MAX];
	char kernel[FLEET_TEXT_MAX];
	char cpu_model[FLEET_TEXT_MAX];
	char backend[32];	/* zram, disk, loop, unknown: fleet_backend_name() */
	char workload[64];
	char baseline[64];
	char verdict[32];	/* verdict kind from the summary, "" if none */
	char verdict_arm[64];
	bool higher_is_better;
	size_t n_arms;
	struct fleet_arm arms[FLEET_ARMS_MAX];
};

/*
 * The swap device under zswap in a probe (every probe measures zswap), from
 * its summary's host.swap fields: "zram", "disk" (the host's own swap),
 * "loop" (a scratch loop file the probe made), "unknown".
 */
const char *fleet_backend_name(const char *swap_device, const char *swap_kind);

/* "6.8.0-45-generic" -> "6.8"; "" when it does not start with N.N */
void fleet_kernel_major_minor(const char *release, char *out, size_t len);

#define FLEET_VERDICTS_MAX 8

struct fleet_arm_pool {
	char name[64];
	struct fleet_pooled pooled;	/* k == 0: no run measured this arm against the baseline */
};

struct fleet_group {
	char kernel[FLEET_TEXT_MAX];
	char cpu_model[FLEET_TEXT_MAX];
	char backend[32];
	char workload[64];
	char baseline[64];
	size_t n_runs, n_hosts;
	unsigned n_trials, n_oom;
	size_t n_verdicts;
	struct { char kind[32]; unsigned n; } verdicts[FLEET_VERDICTS_MAX];
	size_t n_arms;
	struct fleet_arm_pool arms[FLEET_ARMS_MAX];
};

/*
 * Group runs by (kernel release, CPU model, backend, workload, baseline arm)
 * and pool each candidate arm. *groups is malloc'd (free it); sorted by
 * descending run count, then key.
 */
int fleet_group_runs(const struct fleet_run *runs, size_t n, struct fleet_group **groups,
		     size_t *n_groups, struct st_err *e);
/* Whether run r belongs to group g (the keys fleet_group_runs() groups by). */
bool fleet_run_in_group(const struct fleet_run *r, const struct fleet_group *g);

/* Which keys a host is matched on; "" = not used. */
struct fleet_target {
	char kernel_mm[32];	/* major.minor */
	char backend[32];
	char workload[64];
};

#define FLEET_MIN_RUNS	3
#define FLEET_MIN_HOSTS	2

struct fleet_advice {
	struct fleet_target matched;	/* the keys that were used */
	size_t n_runs, n_hosts;
	bool enough;			/* >= FLEET_MIN_RUNS runs from >= FLEET_MIN_HOSTS hosts */
	char baseline[64];		/* most common baseline among matched runs */
	size_t n_arms;
	struct fleet_arm_pool arms[FLEET_ARMS_MAX];
	int best;			/* index into arms of the best pooled arm, -1 none */
	bool best_significant;		/* its interval excludes 0 on the good side */
};

/* Advice for a host like t from the runs that match it on every key set. */
int fleet_advise(const struct fleet_run *runs, size_t n, const struct fleet_target *t,
		 struct fleet_advice *out, struct st_err *e);


/* ---- the exporting host (src/cmd-export.c, through the host layer) ---- */

struct host;
/*
 * This host's machine id into mid; with o, also fill o with the identity
 * block of an export: machine_id, hostname, kernel, cpu_model, boot_id,
 * swaptune_version. -ENOENT when etc/machine-id is missing or empty.
 */
int fleet_host_identity(const struct host *h, struct cJSON *o, char *mid, size_t mid_len,
			struct st_err *e);

#endif
