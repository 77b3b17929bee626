/*
 * probe-rows.c - the probe's arms and trials as the store's rows (see the
 * probe section of store.h): written as the probe runs, and made from
 * in-memory trials in the very shape store_probe_run_load() returns, so
 * every verdict on a run is built from rows by metric_verdict2_input().
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "probe-int.h"

static int arm_row(const struct probe_arm *a, struct store_probe_arm *row)
{
	cJSON *o = cJSON_CreateObject();
	char *s;

	memset(row, 0, sizeof(*row));
	if (!o)
		return -ENOMEM;
	for (int i = 0; i < a->nset; i++)
		cJSON_AddStringToObject(o, a->set[i].name, a->set[i].value);
	if (a->zram)
		cJSON_AddStringToObject(o, "swap", "zram");
	s = cJSON_PrintUnformatted(o);
	cJSON_Delete(o);
	if (!s)
		return -ENOMEM;
	snprintf(row->name, sizeof(row->name), "%s", a->name);
	snprintf(row->settings, sizeof(row->settings), "%s", s);
	row->emulated = a->emulated;
	snprintf(row->note, sizeof(row->note), "%s", a->note);
	cJSON_free(s);
	return 0;
}

/* t as a row: the metrics it has (finite), and "trial_s"; row->metrics is malloc'd. */
static int trial_row(const struct probe_trial *t, int64_t arm_id, struct store_probe_trial *row)
{
	memset(row, 0, sizeof(*row));
	row->metrics = malloc((PM_COUNT + 1) * sizeof(*row->metrics));
	if (!row->metrics)
		return -ENOMEM;
	row->arm_id = arm_id;
	row->round = t->round;
	row->seq = t->seq;
	row->warmup = t->warmup;
	snprintf(row->status, sizeof(row->status), "%s", probe_trial_status_name(t->status));
	row->have_primary = isfinite(t->primary);
	row->primary = t->primary;
	snprintf(row->note, sizeof(row->note), "%s", t->note);
	for (int m = 0; m < PM_COUNT; m++) {
		if (!t->have[m] || !isfinite(t->v[m]))
			continue;
		snprintf(row->metrics[row->n_metrics].key, sizeof(row->metrics[0].key), "%s",
			 metric_defs[m].key);
		row->metrics[row->n_metrics++].value = t->v[m];
	}
	if (t->duration_s > 0) {
		snprintf(row->metrics[row->n_metrics].key, sizeof(row->metrics[0].key), "trial_s");
		row->metrics[row->n_metrics++].value = t->duration_s;
	}
	return 0;
}

int probe_store_arms(struct store *st, int64_t run_id, const struct probe_config *c,
		     int64_t *arm_ids, struct st_err *e)
{
	for (int i = 0; i < c->narms; i++) {
		struct store_probe_arm row;
		int r;

		if (arm_row(&c->arms[i], &row) < 0)
			return err_set(e, -ENOMEM, "out of memory");
		if ((r = store_probe_arm_add(st, run_id, &row, &arm_ids[i], e)) < 0)
			return r;
	}
	return 0;
}

int probe_store_trial(struct store *st, int64_t run_id, const int64_t *arm_ids,
		      const struct probe_trial *t, struct st_err *e)
{
	struct store_probe_trial row;
	int r;

	if (t->arm < 0)
		return 0;
	if (trial_row(t, arm_ids[t->arm], &row) < 0)
		return err_set(e, -ENOMEM, "out of memory");
	r = store_probe_trial_add(st, run_id, &row, e);
	free(row.metrics);
	return r;
}

/* Trials in the loader's order: round, seq, then row id. */
static int by_round_seq(const void *a, const void *b)
{
	const struct store_probe_trial *x = a, *y = b;

	if (x->round != y->round)
		return x->round < y->round ? -1 : 1;
	if (x->seq != y->seq)
		return x->seq < y->seq ? -1 : 1;
	return x->id < y->id ? -1 : x->id > y->id;
}

int probe_rows_from_result(const struct probe_config *c, const struct probe_result *r,
			   struct store_probe_run *rows)
{
	memset(rows, 0, sizeof(*rows));
	rows->run.id = r->run_id;
	snprintf(rows->run.kind, sizeof(rows->run.kind), "probe");
	snprintf(rows->run.status, sizeof(rows->run.status), "%s", r->status ? r->status : "");
	rows->trials = calloc(r->ntrials ? r->ntrials : 1, sizeof(*rows->trials));
	if (!rows->trials)
		return -ENOMEM;
	for (int i = 0; i < c->narms && i < STORE_PROBE_ARMS_MAX; i++) {
		if (arm_row(&c->arms[i], &rows->arms[i]) < 0)
			return -ENOMEM;
		rows->arms[i].id = i + 1;
		rows->n_arms++;
	}
	for (size_t k = 0; k < r->ntrials; k++) {
		const struct probe_trial *t = &r->trials[k];

		if (t->arm < 0)
			continue;
		if (trial_row(t, t->arm + 1, &rows->trials[rows->n_trials]) < 0)
			return -ENOMEM;
		rows->trials[rows->n_trials].id = (int64_t)k + 1;
		rows->n_trials++;
	}
	qsort(rows->trials, rows->n_trials, sizeof(*rows->trials), by_round_seq);
	return 0;
}
