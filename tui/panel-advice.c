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
	struct tui_text text;
	struct advisor_rule_result res[MAX_RESULTS];
	size_t n;
	struct st_err err;
	bool ok;
};

static void advice_fill(struct advice_state *a);

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
	if (a->ok)
		advice_fill(a);
out:
	free(f);
	free(in);
}

/* Findings first, with their fix and the probe that would measure them; then what was skipped. */
static void advice_fill(struct advice_state *a)
{
	int findings = 0;

	tui_text_clear(&a->text);
	for (size_t i = 0; i < a->n; i++) {
		const struct advisor_rule_result *r = &a->res[i];

		if (r->status != ADVISOR_RULE_FINDING)
			continue;
		findings++;
		tui_text_add(&a->text, r->severity == ADVISOR_SEV_INFO ? TS_TITLE : TS_WARN, "%-5s %s: %s",
			     advisor_severity_name(r->severity), r->rule, r->message);
		if (r->fix[0])
			tui_text_add(&a->text, TS_NORMAL, "      fix: %s", r->fix);
		if (r->probe[0])
			tui_text_add(&a->text, TS_NORMAL, "      measure: %s", r->probe);
		tui_text_add(&a->text, TS_NORMAL, "%s", "");
	}
	if (!findings)
		tui_text_add(&a->text, TS_NORMAL, "no findings from the host's state alone");
	tui_text_add(&a->text, TS_NORMAL, "%s", "");
	for (size_t i = 0; i < a->n; i++)
		if (a->res[i].status == ADVISOR_RULE_SKIPPED)
			tui_text_add(&a->text, TS_DIM, "skipped %s: %s", a->res[i].rule, a->res[i].message);
	tui_text_add(&a->text, TS_NORMAL, "%s", "");
	tui_text_add(&a->text, TS_DIM, "advice from the host's state only; a probe (F5) measures the "
		     "settings and gives a verdict");
}

static void advice_draw(struct tui_ctx *c, void *p, WINDOW *w, int rows, int cols)
{
	struct advice_state *a = p;

	if (!a || !a->ok) {
		tui_print_clipped(w, 1, 2, cols, "cannot run the rules: %s",
				  a ? a->err.msg : "out of memory");
		return;
	}
	tui_text_draw(c, &a->text, w, 1, rows - 1, cols);
}

static bool advice_key(struct tui_ctx *c, void *p, int ch)
{
	struct advice_state *a = p;

	(void)c;
	return a && tui_text_key(&a->text, ch);
}

static const struct tui_key_help *advice_keys(struct tui_ctx *c, void *p)
{
	static const struct tui_key_help k[] = { { "Up/Dn", "scroll" }, { NULL, NULL } };

	(void)c;
	(void)p;
	return k;
}

static void advice_close(void *p)
{
	struct advice_state *a = p;

	if (a)
		tui_text_free(&a->text);
	free(a);
}

const struct tui_panel tui_panel_advice = {
	.title = "Advice",
	.open = advice_open,
	.update = advice_update,
	.draw = advice_draw,
	.key = advice_key,
	.keys = advice_keys,
	.close = advice_close,
};
