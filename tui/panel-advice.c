/*
 * panel-advice.c - the advisor's state-only rules over the current facts
 * (what `swaptune recommend` says without a probe run).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "swaptune/advice.h"
#include "swaptune/advisor.h"
#include "swaptune/facts.h"
#include "tui-internal.h"

#define MAX_RESULTS 32

struct advice_state {
	struct advisor_rule_result res[MAX_RESULTS];
	size_t n;
	struct st_err err;
	bool ok;
};

static void *advice_open(struct tui_ctx *c)
{
	return calloc(1, sizeof(struct advice_state));
}

static void advice_update(struct tui_ctx *c, void *p)
{
	struct advice_state *a = p;
	struct advisor_host_facts *in;
	struct host_facts *f;

	if (!a)
		return;
	err_reset(&a->err);
	a->ok = false;
	f = malloc(sizeof(*f));
	in = malloc(sizeof(*in));
	if (!f || !in) {
		err_set(&a->err, -ENOMEM, "out of memory");
		goto out;
	}
	if (facts_collect(c->h, f, &a->err) == 0) {
		advice_rules_input(f, in);
		a->ok = advisor_rules_run(in, a->res, MAX_RESULTS, &a->n, &a->err) == 0;
	}
	facts_free(f);
out:
	free(f);
	free(in);
}

static void advice_draw(struct tui_ctx *c, void *p, WINDOW *w, int rows, int cols)
{
	struct advice_state *a = p;
	int y = 1, findings = 0;

	if (!a || !a->ok) {
		tui_print_clipped(w, 1, 2, cols, "cannot run the rules: %s",
				  a ? a->err.msg : "out of memory");
		return;
	}
	for (size_t i = 0; i < a->n && y < rows - 1; i++) {
		const struct advisor_rule_result *r = &a->res[i];

		if (r->status != ADVISOR_RULE_FINDING)
			continue;
		findings++;
		wattron(w, A_BOLD);
		tui_print_clipped(w, y++, 2, cols, "%-5s %s: %s",
				  advisor_severity_name(r->severity), r->rule, r->message);
		wattroff(w, A_BOLD);
		if (r->fix[0] && y < rows - 1)
			tui_print_clipped(w, y++, 8, cols, "fix: %s", r->fix);
		if (r->probe[0] && y < rows - 1)
			tui_print_clipped(w, y++, 8, cols, "measure: %s", r->probe);
		y++;
	}
	if (!findings)
		tui_print_clipped(w, y++, 2, cols, "no findings from the host's state alone");
	y++;
	for (size_t i = 0; i < a->n && y < rows; i++)
		if (a->res[i].status == ADVISOR_RULE_SKIPPED)
			tui_print_clipped(w, y++, 2, cols, "skipped %s: %s", a->res[i].rule,
					  a->res[i].message);
	(void)c;
}

static void advice_close(void *p)
{
	free(p);
}

const struct tui_panel tui_panel_advice = {
	.title = "Advice",
	.open = advice_open,
	.update = advice_update,
	.draw = advice_draw,
	.close = advice_close,
};
