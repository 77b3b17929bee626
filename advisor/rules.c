/*
 * rules.c - the table of advisor rules that judge a host from its state
 * alone, and the helpers the rule-<area>.c files fill their results with.
 * A new rule: write it in the rule file of its area, then list it here.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "swaptune/advisor.h"
#include "swaptune/fmt.h"

extern const struct advisor_rule advisor_rule_no_swap;
extern const struct advisor_rule advisor_rule_zswap_disabled;
extern const struct advisor_rule advisor_rule_zram_only;
extern const struct advisor_rule advisor_rule_rotational_swap;
extern const struct advisor_rule advisor_rule_readahead_hit_ratio;
extern const struct advisor_rule advisor_rule_zswap_pool_limit;
extern const struct advisor_rule advisor_rule_zswap_shrinker_off;
extern const struct advisor_rule advisor_rule_zswap_incompressible;
extern const struct advisor_rule advisor_rule_zswap_rejects;

/* Broad facts first, so a reader meets "no swap" before its details. */
const struct advisor_rule *const advisor_rules[] = {
	&advisor_rule_no_swap,
	&advisor_rule_zswap_disabled,
	&advisor_rule_zram_only,
	&advisor_rule_rotational_swap,
	&advisor_rule_readahead_hit_ratio,
	&advisor_rule_zswap_pool_limit,
	&advisor_rule_zswap_shrinker_off,
	&advisor_rule_zswap_incompressible,
	&advisor_rule_zswap_rejects,
};

const size_t advisor_rules_count = sizeof(advisor_rules) / sizeof(advisor_rules[0]);

_Static_assert(sizeof(advisor_rules) / sizeof(advisor_rules[0]) <= ADVISOR_RULES_MAX,
	       "raise ADVISOR_RULES_MAX");

const struct advisor_rule *advisor_rule_find(const char *name)
{
	if (!name)
		return NULL;
	for (size_t i = 0; i < advisor_rules_count; i++)
		if (!strcmp(advisor_rules[i]->name, name))
			return advisor_rules[i];
	return NULL;
}

const struct advisor_counters *advisor_facts_recent(const struct advisor_host_facts *f)
{
	return f->has_window ? &f->window : &f->since_boot;
}

static void set_message(struct advisor_rule_result *r, const char *fmt, va_list ap)
	__attribute__((format(printf, 2, 0)));

static void set_message(struct advisor_rule_result *r, const char *fmt, va_list ap)
{
	vsnprintf(r->message, sizeof(r->message), fmt, ap);
}

bool advisor_rule_need_active_swaps(const struct advisor_host_facts *f,
				    struct advisor_rule_result *r)
{
	if (!f->swaps_known) {
		advisor_rule_skip(r, "the list of active swap areas is unknown");
		return false;
	}
	if (f->n_swaps == 0) {
		advisor_rule_skip(r, "no swap is active");
		return false;
	}
	return true;
}

bool advisor_rule_need_zswap_on(const struct advisor_host_facts *f,
				struct advisor_rule_result *r)
{
	if (f->zswap_present.known && !f->zswap_present.v) {
		advisor_rule_skip(r, "this kernel has no zswap");
		return false;
	}
	if (!f->zswap_enabled.known) {
		advisor_rule_skip(r, "whether zswap is enabled is unknown");
		return false;
	}
	if (!f->zswap_enabled.v) {
		advisor_rule_skip(r, "zswap is disabled");
		return false;
	}
	return true;
}

void advisor_span_words(const struct advisor_host_facts *f, char *buf, size_t len)
{
	if (f->has_window)
		snprintf(buf, len, "in the last %.0f s", f->window_s);
	else
		snprintf(buf, len, "since boot");
}

const char *advisor_pages_words(const struct advisor_host_facts *f, uint64_t pages, bool count,
				char *buf, size_t len)
{
	char size[32], num[FMT_NUM_LEN];

	fmt_num((double)pages, num, sizeof(num));
	if (!f->page_size_bytes.known || !f->page_size_bytes.v)
		snprintf(buf, len, "%s pages", num);
	else if (count)
		snprintf(buf, len, "%s (%s pages)",
			 fmt_bytes(pages * f->page_size_bytes.v, size, sizeof(size)), num);
	else
		snprintf(buf, len, "%s", fmt_bytes(pages * f->page_size_bytes.v, size, sizeof(size)));
	return buf;
}

void advisor_rule_ok(struct advisor_rule_result *r, const char *fmt, ...)
{
	va_list ap;

	r->status = ADVISOR_RULE_OK;
	va_start(ap, fmt);
	set_message(r, fmt, ap);
	va_end(ap);
}

void advisor_rule_skip(struct advisor_rule_result *r, const char *fmt, ...)
{
	va_list ap;

	r->status = ADVISOR_RULE_SKIPPED;
	va_start(ap, fmt);
	set_message(r, fmt, ap);
	va_end(ap);
}

void advisor_rule_finding(struct advisor_rule_result *r, enum advisor_severity sev,
			  const char *fmt, ...)
{
	va_list ap;

	r->status = ADVISOR_RULE_FINDING;
	r->severity = sev;
	va_start(ap, fmt);
	set_message(r, fmt, ap);
	va_end(ap);
}

void advisor_rule_fix(struct advisor_rule_result *r, const char *probe,
		      const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(r->fix, sizeof(r->fix), fmt, ap);
	va_end(ap);
	snprintf(r->probe, sizeof(r->probe), "%s", probe ? probe : "");
}

static int check_facts(const struct advisor_host_facts *f, struct st_err *e)
{
	if (!f)
		return err_set(e, -EINVAL, "advisor: no host facts");
	if (f->n_swaps > ADVISOR_SWAPS_MAX)
		return err_set(e, -EINVAL, "advisor: %zu swap areas, at most %d supported",
			       f->n_swaps, ADVISOR_SWAPS_MAX);
	if (!memchr(f->zswap_compressor, '\0', sizeof(f->zswap_compressor)))
		return err_set(e, -EINVAL, "advisor: zswap compressor name is not terminated");
	for (size_t i = 0; i < f->n_swaps; i++)
		if (!memchr(f->swaps[i].name, '\0', sizeof(f->swaps[i].name)))
			return err_set(e, -EINVAL, "advisor: name of swap area %zu is not terminated", i);
	return 0;
}

int advisor_rule_run(const struct advisor_rule *rule,
		     const struct advisor_host_facts *f,
		     struct advisor_rule_result *r, struct st_err *e)
{
	int rc;

	if (!rule || !r)
		return err_set(e, -EINVAL, "advisor: no rule or no result struct");
	rc = check_facts(f, e);
	if (rc)
		return rc;
	memset(r, 0, sizeof(*r));
	r->rule = rule->name;
	rule->check(f, r);
	return 0;
}

int advisor_rules_run(const struct advisor_host_facts *f,
		      struct advisor_rule_result *out, size_t out_max,
		      size_t *n_out, struct st_err *e)
{
	int rc;

	if (!out || !n_out)
		return err_set(e, -EINVAL, "advisor: no result array");
	*n_out = 0;
	if (out_max < advisor_rules_count)
		return err_set(e, -ENOSPC, "advisor: room for %zu rule results, %zu rules",
			       out_max, advisor_rules_count);
	for (size_t i = 0; i < advisor_rules_count; i++) {
		rc = advisor_rule_run(advisor_rules[i], f, &out[i], e);
		if (rc)
			return rc;
		(*n_out)++;
	}
	return 0;
}

const char *advisor_rule_status_name(enum advisor_rule_status s)
{
	switch (s) {
	case ADVISOR_RULE_OK:		return "ok";
	case ADVISOR_RULE_SKIPPED:	return "skipped";
	case ADVISOR_RULE_FINDING:	return "finding";
	}
	return "unknown";
}

const char *advisor_severity_name(enum advisor_severity s)
{
	switch (s) {
	case ADVISOR_SEV_INFO:	return "info";
	case ADVISOR_SEV_WARN:	return "warn";
	}
	return "unknown";
}
