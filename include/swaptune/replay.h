/*
 * replay.h - `swaptune sample --replay ID`: a stored recording printed as it
 * was live. The recorded ticks are the sampler's own JSON lines, so --json
 * prints them as stored; the table is rebuilt from each tick with the
 * sampler's metric table, the Prometheus text with sample_prom_format(), the
 * live run's own formatter (ticks recorded before the JSON kept "counters"
 * replay without the counter families).
 */
#ifndef SWAPTUNE_REPLAY_H
#define SWAPTUNE_REPLAY_H

#include <stdint.h>
#include <stdio.h>

#include "swaptune/err.h"
#include "swaptune/store.h"

enum replay_mode { REPLAY_TABLE, REPLAY_JSON, REPLAY_PROM };

/* -ENOENT / -EINVAL (exit 2) if run_id is not a sample recording. */
int sample_replay(struct store *st, int64_t run_id, enum replay_mode mode, FILE *out,
		  struct st_err *e);

#endif
