/*
 * sbrun.c - what needs only sbrun.h's types: freeing a run's windows (as
 * run, as loaded) and the name of a stored run's decision. The switchback
 * engine proper is sb-engine.c (plan, run), sb-metric.c (metrics, guard)
 * and sb-judge.c (load, judge, words); this file is the bottom of them, so
 * the header's own includes (the advisor's switchback.h, cgroup.h) point
 * down from here.
 */
#include <stdlib.h>

#include "swaptune/sbrun.h"

void sbrun_result_free(struct sbrun_result *r)
{
	free(r->w);
	r->w = NULL;
}

void sbrun_stored_free(struct sbrun_stored *s)
{
	free(s->w);
	s->w = NULL;
}

const char *sbrun_decision_name(const struct sbrun_stored *s)
{
	if (!s->judged)
		return "inconclusive";
	/* a run cut short before its last look: what it showed so far is not a verdict */
	if (s->res.decision == SB_CONTINUE)
		return "inconclusive";
	return sb_decision_name(s->res.decision);
}

bool sbrun_says_change(const struct sbrun_stored *s)
{
	return s->judged && s->res.decision == SB_CHANGE && s->res.chosen > 0 && !s->imported;
}
