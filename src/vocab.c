/*
 * vocab.c - the counter vocabulary's tables, made from the rows in
 * vocab-rows.h (see vocab.h), and the one rule that turns a row's kernel
 * keys into its value.
 */
#include <stddef.h>

#include "swaptune/vocab.h"

/*
 * Each view's defaults come first in its initializer and a row's own
 * fields after them: a later designated initializer overrides an earlier
 * one, which is what -Woverride-init warns about.
 */
#pragma GCC diagnostic ignored "-Woverride-init"

#define ROW(id, ...) [V_##id] = { __VA_ARGS__ },
const struct vocab_row vocab_rows[V_COUNT] = {
#include "swaptune/vocab-rows.h"
};
#undef ROW

#define TRIAL(pm, r, ...) [pm] = { .row = &vocab_rows[V_##r], __VA_ARGS__ },
const struct metric_def metric_defs[PM_COUNT] = {
#include "swaptune/vocab-rows.h"
};
#undef TRIAL

#define TICK(sm, r, ...) [sm] = { .id = sm, .row = &vocab_rows[V_##r], .scale = 1, __VA_ARGS__ },
const struct sample_metric_def sample_metric_defs[SM_COUNT] = {
#include "swaptune/vocab-rows.h"
};
#undef TICK

#define TOTAL(sc, r, ...) [sc] = { .id = sc, .row = &vocab_rows[V_##r], .prom_scale = 1, __VA_ARGS__ },
const struct sample_counter_def sample_counter_defs[SC_COUNT] = {
#include "swaptune/vocab-rows.h"
};
#undef TOTAL

#define WINDOW(sbk, r, nm, ...) [sbk] = { .row = &vocab_rows[V_##r], .name = nm, .host = SC_COUNT, \
					  .host_plus = SC_COUNT, .cgroup = SC_COUNT, .per = 1, __VA_ARGS__ },
const struct sbm_kernel_def sbm_kernel_defs[SBK_COUNT] = {
#include "swaptune/vocab-rows.h"
};
#undef WINDOW

#define SECONDARY(sec, p, ...) [sec] = { .pm = p, __VA_ARGS__ },
const struct verdict_secondary_def verdict_secondary_defs[VERDICT_SEC_COUNT] = {
#include "swaptune/vocab-rows.h"
};
#undef SECONDARY

#define SHOWN_TICKS(list, ...) const enum sample_metric shown_##list[SHOWN_N_##list] = { __VA_ARGS__ };
#define SHOWN_TRIALS(list, ...) const enum probe_metric shown_##list[SHOWN_N_##list] = { __VA_ARGS__ };
#include "swaptune/vocab-rows.h"
#undef SHOWN_TICKS
#undef SHOWN_TRIALS

int vocab_secondary_of(enum probe_metric pm)
{
	for (int s = 0; s < VERDICT_SEC_COUNT; s++)
		if (verdict_secondary_defs[s].pm == pm)
			return s;
	return METRIC_SEC_NONE;
}

const char *vocab_key(enum vocab_id id)
{
	return (unsigned)id < V_COUNT ? vocab_rows[id].keys[0] : NULL;
}

const char *vocab_group_name(enum sample_group g)
{
	static const char *const names[SG_COUNT] = {
		"vmstat", "zswap", "psi", "meminfo", "cgroup", "cpu", "derived",
	};

	return (unsigned)g < SG_COUNT ? names[g] : "?";
}

const char *const *vocab_keys(const struct vocab_row *r, bool cgroup_v1)
{
	if (cgroup_v1 && (r->source == VSRC_MEMCG || r->source == VSRC_MEMCG_FILE))
		return r->keys_v1;
	return r->keys;
}

static bool sum_all(const char *const *keys,
		    bool (*get)(const void *arg, const char *key, uint64_t *v),
		    const void *arg, uint64_t *out)
{
	uint64_t s = 0, v;

	if (!keys[0])
		return false;
	for (int i = 0; i < VOCAB_TERMS && keys[i]; i++) {
		if (!get(arg, keys[i], &v))
			return false;
		s += v;
	}
	*out = s;
	return true;
}

bool vocab_value(const struct vocab_row *r, bool cgroup_v1,
		 bool (*get)(const void *arg, const char *key, uint64_t *v),
		 const void *arg, uint64_t *out)
{
	const char *const *keys = vocab_keys(r, cgroup_v1);
	uint64_t a, b, s = 0;
	bool any = false;

	switch (r->sum) {
	case VSUM_ALL:
		return sum_all(keys, get, arg, out) || sum_all(r->alt, get, arg, out);
	case VSUM_PRESENT:
		for (int i = 0; i < VOCAB_TERMS && keys[i]; i++)
			if (get(arg, keys[i], &a)) {
				s += a;
				any = true;
			}
		*out = s;
		return any;
	case VSUM_DIFF:
		if (!keys[0] || !keys[1] || !get(arg, keys[0], &a) || !get(arg, keys[1], &b) || a < b)
			return false;
		*out = a - b;
		return true;
	}
	return false;
}
