/*
 * doctor.h - the table of prerequisite checks behind `swaptune doctor`.
 *
 * Each check looks at the host facts (facts.h) and a few extra kernel files
 * through the host layer and returns ok / warn / fail / skipped with a
 * one-line message and, unless ok, a one-line fix hint (a swaptune command
 * where one does the job). A check whose kernel file could not be read
 * (facts_collect_all()) says "n/a: REASON": fail when it is required, else
 * warn. A check marked
 * required is one the probe engine cannot do without: a fail there means
 * probing cannot work on this host. Checks never change the host.
 */
#ifndef SWAPTUNE_DOCTOR_H
#define SWAPTUNE_DOCTOR_H

#include <stdbool.h>
#include <stddef.h>

#include "swaptune/facts.h"
#include "swaptune/host.h"

enum doctor_status {
	DOCTOR_OK,
	DOCTOR_WARN,		/* probing works, but results or coverage suffer */
	DOCTOR_FAIL,		/* this prerequisite is missing */
	DOCTOR_SKIPPED,		/* could not be checked here; message says why */
};

/* a reason naming a file under a long sysroot path fits */
#define DOCTOR_TEXT_MAX 640

struct doctor_result {
	enum doctor_status status;
	char message[DOCTOR_TEXT_MAX];	/* one line, lowercase, no full stop */
	char fix[DOCTOR_TEXT_MAX];	/* one line, "" when there is nothing to do */
};

/* What a check may look at. */
/* Outcome of the behavioural native-bypass check, run by the caller (it
 * needs the probe engine and changes settings for ~2 s, so it is opt-in). */
struct doctor_bypass {
	bool ran;
	int error;		/* negative errno when it could not run */
	char error_msg[256];
	bool conclusive;	/* zswap did swap pages in */
	bool native;		/* swap_ra stayed ~0 with page-cluster 3 */
	char evidence[256];
	bool pc_ran;		/* the page-cluster 0 trial ran (not native) */
	bool pc_conclusive;
	bool pc_governs;	/* page-cluster 0 read ahead far less than 3 */
	char pc_evidence[256];
};

struct doctor_env {
	const struct host *h;
	const struct host_facts *f;
	bool root;		/* effective uid 0 (set by the caller, so tests can vary it) */
	const struct doctor_bypass *bypass;	/* NULL: not asked for (doctor --behaviour) */
};

struct doctor_check {
	const char *name;	/* short, stable: "root", "zswap", "debugfs", ... */
	bool required;		/* a fail here means probing cannot work */
	void (*run)(const struct doctor_env *env, struct doctor_result *r);
};

size_t doctor_count(void);
const struct doctor_check *doctor_at(size_t i);
const struct doctor_check *doctor_find(const char *name);

/*
 * Run every check in table order; out must hold doctor_count() results.
 * Returns true when probing can work (no required check failed).
 */
bool doctor_run_all(const struct doctor_env *env, struct doctor_result *out);

/* "ok", "warn", "fail", "skipped" */
const char *doctor_status_name(enum doctor_status s);

#define DOCTOR_SCHEMA "swaptune.doctor/1"

#endif
