/*
 * verdict-secondary.h - the ids of the verdict's secondary costs, made from
 * the SECONDARY lines of the counter table (vocab-rows.h), which says what
 * each is; vocab.h has their table (verdict_secondary_defs[]). A header of
 * its own so the pure advisor (advisor.h) takes the ids without the rest
 * of the vocabulary.
 */
#ifndef SWAPTUNE_VERDICT_SECONDARY_H
#define SWAPTUNE_VERDICT_SECONDARY_H

/* All lower is better, one value per completed trial, in the order advice's JSON lists them. */
#define SECONDARY(sec, pm, ...) sec,
enum verdict_secondary {
#include "swaptune/vocab-rows.h"
	VERDICT_SEC_COUNT
};
#undef SECONDARY

#endif
