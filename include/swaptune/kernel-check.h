/*
 * kernel-check.h - a verdict is evidence for the kernel it ran on: the
 * running kernel's fingerprint with swaptune's own journal as evidence,
 * the fingerprint a stored run ran on (read back as strictly as user
 * input), and whether the setting applied now was decided on another
 * kernel, readahead mode, cgroup version, large-folio or MGLRU state than
 * the one running (status, recommend, the Prometheus output).
 *
 * Above the store and the host layer (fingerprint.h); below the commands.
 */
#ifndef SWAPTUNE_KERNEL_CHECK_H
#define SWAPTUNE_KERNEL_CHECK_H

#include <cjson/cJSON.h>
#include <stdbool.h>
#include <stdint.h>

#include "swaptune/err.h"
#include "swaptune/fingerprint.h"
#include "swaptune/host.h"
#include "swaptune/store.h"

/*
 * The running kernel's fingerprint, with the journal's answer to "did
 * swaptune enable zswap during this boot" (st may be NULL: not asked).
 */
void kcheck_now(struct store *st, const struct host *h, struct kernel_fingerprint *fp);

/*
 * Store the running kernel's fingerprint (kcheck_now()) as run_id's: a
 * probe's once its set-up is done (a scratch swap and zswap enabled for
 * it change the readahead mode and "zswap ever enabled"), so the run says
 * what its trials ran on.
 */
int kcheck_stamp_run(struct store *st, const struct host *h, int64_t run_id, struct st_err *e);

/*
 * The fingerprint run r ran on: 1 and *fp, 0 when the run stored none (a
 * run from before schema 7, or an export without it: fp all unknown),
 * -EBADMSG (exit 2, e names the run and the field) when it does not read
 * back (a damaged or crafted store).
 */
int kcheck_run_fp(const struct store_run *r, struct kernel_fingerprint *fp, struct st_err *e);

/* A stored run's fingerprint against the running kernel's. */
struct kcheck {
	int64_t run_id;			/* the run that decided */
	char kind[16];			/* its kind ("probe", "switchback", "apply", ...; an import's origin kind) */
	bool applied;			/* the run behind the setting applied now (kcheck_applied()) */
	bool have_then;			/* it stored a fingerprint */
	struct kernel_fingerprint then, now;
	unsigned diff;			/* enum fp_diff mask, 0 when the same (or unknown) */
	char words[512];		/* fingerprint_diff()'s words, "" when none */
};

/* Fill k for run r (kcheck_run_fp()'s errors) against now. */
int kcheck_run(const struct store_run *r, const struct kernel_fingerprint *now, struct kcheck *k,
	       struct st_err *e);

/*
 * The setting applied now (store_runs_applied()) and the run it was
 * decided on: the probe or switchback run it came from (params
 * "source_run"), else the apply run itself. 1 and *k, 0 when nothing is
 * applied, < 0 on error.
 */
struct kcheck_applied {
	struct store_applied applied;
	struct kcheck k;
};
int kcheck_applied(struct store *st, const struct kernel_fingerprint *now, struct kcheck_applied *a,
		   struct st_err *e);

/*
 * One line: "decided on 6.18.44, cgroup v1, VMA readahead; this host runs
 * 6.1.0-57-amd64, cgroup v2, cluster readahead: kernel ... -> ..., cgroup
 * v1 -> v2; the verdict may not hold here: check it with swaptune verify"
 * (the applied setting's; verify --run N for another probe run, verify
 * --live for a switchback) when they differ; "decided on this
 * kernel (6.1.0-57-amd64, cgroup v2, cluster readahead)" when not; "no
 * fingerprint stored with run N (made before swaptune stored one)".
 */
const char *kcheck_words(const struct kcheck *k, char *buf, size_t len);

/*
 * The "kernel" object of recommend, status and report documents:
 * decided_on (the run's fingerprint or null), now, mismatch (bool),
 * differences (array of "release", "cgroup", "readahead", "large_folio",
 * "mglru") and words.
 */
cJSON *kcheck_json(const struct kcheck *k);

#endif
