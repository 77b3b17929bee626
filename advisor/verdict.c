/*
 * verdict.c - the stable names of the verdict as shown (kind, confidence,
 * arm status, secondary cost) for JSON and text. The verdict itself is the
 * sequential one (verdict-seq.c) through judge.c. Contracts are in
 * include/swaptune/advisor.h.
 */
#include "swaptune/advisor.h"
#include "swaptune/vocab.h"

const char *verdict_kind_name(enum verdict_kind k)
{
	switch (k) {
	case VERDICT_KEEP:		return "keep";
	case VERDICT_CHANGE:		return "change";
	case VERDICT_INCONCLUSIVE:	return "inconclusive";
	}
	return "unknown";
}

const char *verdict_confidence_name(enum verdict_confidence c)
{
	switch (c) {
	case VERDICT_CONF_LOW:		return "low";
	case VERDICT_CONF_MEDIUM:	return "medium";
	case VERDICT_CONF_HIGH:		return "high";
	}
	return "unknown";
}

const char *verdict_arm_status_name(enum verdict_arm_status s)
{
	switch (s) {
	case VERDICT_ARM_BASELINE:	return "baseline";
	case VERDICT_ARM_BETTER:	return "better";
	case VERDICT_ARM_VETOED:	return "vetoed";
	case VERDICT_ARM_BELOW_MIN:	return "below_min_effect";
	case VERDICT_ARM_EQUIVALENT:	return "equivalent";
	case VERDICT_ARM_NO_GAIN:	return "no_gain";
	case VERDICT_ARM_WORSE:		return "worse";
	case VERDICT_ARM_NOISY:		return "noisy";
	case VERDICT_ARM_TOO_FEW:	return "too_few";
	case VERDICT_ARM_OOM_FAILED:	return "oom_failed";
	case VERDICT_ARM_COMPLETED:	return "completed";
	}
	return "unknown";
}

const char *verdict_secondary_name(enum verdict_secondary s)
{
	return (unsigned)s < VERDICT_SEC_COUNT ? verdict_secondary_defs[s].name : "unknown";
}
