/*
 * journal-hold.c - test helper: journal temporary setting changes like a
 * probe does, then wait to be killed (tests/t0006-journal-kill9.sh), so that
 * `swaptune repair` has to repair them.
 *
 *   journal-hold --db PATH [--sysroot DIR] [--no-write] NAME=VALUE...
 *
 * Default: journal_set(NAME, VALUE, temporary) for each pair, i.e. the row
 * is written and then the kernel file. --no-write stops between the two:
 * it inserts the journal row exactly as journal_set() would (same columns,
 * state 'pending') and never writes the setting, the state a probe is in
 * when it is killed between journaling and writing. Prints "ready PID" on
 * stdout once everything is in place, then sleeps until killed. Exit 2 on
 * bad arguments, 1 when a step fails (the error on stderr).
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "swaptune/journal.h"
#include "swaptune/settings.h"
#include "swaptune/store.h"

/* The row journal_set() writes before it touches the kernel file. */
static int journal_row_only(struct journal *j, const char *name, const char *value,
			    struct st_err *e)
{
	const struct setting_def *d = settings_find(name);
	char norm[SETTING_VALUE_MAX], old[SETTING_VALUE_MAX];
	struct store_change *c;
	int r;

	if (!d)
		return err_set(e, -EINVAL, "unknown setting %s", name);
	if ((r = settings_normalize(j->h, d, value, norm, sizeof(norm), e)) < 0 ||
	    (r = settings_read(j->h, d, old, sizeof(old), e)) < 0)
		return r;
	c = calloc(1, sizeof(*c));
	if (!c)
		return err_set(e, -ENOMEM, "out of memory");
	snprintf(c->session, sizeof(c->session), "%s", j->session);
	c->pid = (int)j->pid;
	c->pid_start = j->pid_start;
	snprintf(c->sysroot, sizeof(c->sysroot), "%s", j->h->live ? "/" : j->h->root);
	/* as journal_set() does: a row that names no machine is nobody's */
	snprintf(c->machine_id, sizeof(c->machine_id), "%s", j->machine_id);
	snprintf(c->boot_id, sizeof(c->boot_id), "%s", j->boot_id);
	snprintf(c->kind, sizeof(c->kind), "setting");
	snprintf(c->name, sizeof(c->name), "%s", d->name);
	c->has_old = c->has_new = true;
	snprintf(c->old_value, sizeof(c->old_value), "%s", old);
	snprintf(c->new_value, sizeof(c->new_value), "%s", norm);
	c->temporary = true;
	r = store_change_add(j->st, c, NULL, e);
	free(c);
	return r;
}

int main(int argc, char **argv)
{
	const char *db = NULL, *sysroot = NULL;
	bool no_write = false;
	struct st_err e = {0};
	struct journal j;
	struct store st;
	struct host h;
	int i, r;

	for (i = 1; i < argc && !strncmp(argv[i], "--", 2); i++) {
		if (!strcmp(argv[i], "--db") && i + 1 < argc)
			db = argv[++i];
		else if (!strcmp(argv[i], "--sysroot") && i + 1 < argc)
			sysroot = argv[++i];
		else if (!strcmp(argv[i], "--no-write"))
			no_write = true;
		else
			break;
	}
	if (!db || i >= argc) {
		fprintf(stderr, "usage: journal-hold --db PATH [--sysroot DIR] [--no-write] NAME=VALUE...\n");
		return 2;
	}
	if (host_open(&h, sysroot, &e) < 0 || store_open(&st, db, &e) < 0 ||
	    journal_begin(&j, &st, &h, 0, &e) < 0)
		goto fail;
	for (; i < argc; i++) {
		char name[64], *eq = strchr(argv[i], '=');

		if (!eq || eq == argv[i] || (size_t)(eq - argv[i]) >= sizeof(name)) {
			fprintf(stderr, "journal-hold: expected NAME=VALUE, found \"%s\"\n", argv[i]);
			return 2;
		}
		snprintf(name, sizeof(name), "%.*s", (int)(eq - argv[i]), argv[i]);
		r = no_write ? journal_row_only(&j, name, eq + 1, &e) :
			       journal_set(&j, name, eq + 1, true, NULL, &e);
		if (r < 0)
			goto fail;
	}
	printf("ready %d\n", (int)getpid());
	fflush(stdout);
	for (;;)
		pause();
fail:
	fprintf(stderr, "journal-hold: %s\n", e.msg);
	return 1;
}
