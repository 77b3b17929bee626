/*
 * probe-arms.h - a probe's arms: named sets of settings compared against
 * each other (the built-in "pc3", "pc1", "pc0" and "bypass", or custom
 * "NAME:key=value,..." over the settings registry), and the order they run
 * in each round. Taken alone by what only names arms (a switchback's arms,
 * sbrun.h); the engine's configuration holds them (probe.h).
 */
#ifndef SWAPTUNE_PROBE_ARMS_H
#define SWAPTUNE_PROBE_ARMS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "swaptune/err.h"
#include "swaptune/settings.h"

#define PROBE_ARMS_MAX		8
#define PROBE_ARM_SET_MAX	8
#define PROBE_ARM_NAME_MAX	32

struct host;

struct probe_setting {
	char name[32];			/* registry name: "page-cluster" */
	char value[SETTING_VALUE_MAX];	/* canonical (settings_normalize()) */
};

struct probe_arm {
	char name[PROBE_ARM_NAME_MAX];
	int nset;
	struct probe_setting set[PROBE_ARM_SET_MAX];
	bool builtin;
	bool bypass;			/* the built-in "bypass": settings fixed after detection */
	bool zram;			/* its trials swap to zram (bypass emulated by zram) */
	bool emulated;
	char note[200];			/* e.g. "emulated by page-cluster=0: ..." */
};

/*
 * Built-in arms, a table in probe-arms.c: "pc3", "pc1", "pc0"
 * (page-cluster), "bypass" (settings decided by the engine after
 * detection). -ENOENT for another name. probe_arm_builtin_at(i): the i-th
 * name, NULL past the end.
 */
int probe_arm_builtin(const char *name, struct probe_arm *a);
const char *probe_arm_builtin_at(size_t i);

/* The arms a probe compares when none are named (the CLI and the TUI's form). */
#define PROBE_DEFAULT_ARMS "pc3,pc1,pc0"

/*
 * A custom arm "NAME:key=value,key=value" over the settings registry;
 * values validated and normalised against host h (compressors come from its
 * /proc/crypto). -EINVAL (exit 2) with the reason.
 */
int probe_arm_parse(const struct host *h, const char *spec, struct probe_arm *a,
		    struct st_err *e);

/* Comma-separated built-in names ("pc3,pc0") appended to arms[*n]. */
int probe_arms_parse_list(const char *list, struct probe_arm *arms, int max,
			  int *n, struct st_err *e);

/* Settings names as "page-cluster=3, zswap.enabled=Y" ("host defaults" if none). */
void probe_arm_describe(const struct probe_arm *a, char *buf, size_t len);

/*
 * The order of the arms in round `round` (1..): a uniform random
 * permutation drawn afresh for every round from (seed, round), independent
 * of every other round's - the randomisation the verdict's exact tests
 * rest on. Carry-over from one trial to the next is balanced in
 * expectation (each arm follows each other equally often on average) and
 * cannot fake a difference, only blur one. Round 0 (warm-up) is a shuffle
 * of its own. The same (seed, round, n) always gives the same order.
 */
void probe_round_order(uint64_t seed, unsigned round, int n, int *order);

/* A fresh seed from the kernel's random source (53 bits: exact in JSON). */
uint64_t probe_seed_random(void);

/* Set (or replace) one setting of an arm; values as given (no check). */
void probe_arm_set(struct probe_arm *a, const char *name, const char *value);

#endif
