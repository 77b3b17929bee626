/*
 * fixture-util.h - helpers shared by the unit tests: private copies of the
 * fixture trees under tests/fixtures/ (so writes go to the copy), small
 * file helpers, and opening a host on a copy. Header-only; each test
 * includes it once.
 */
#ifndef SWAPTUNE_FIXTURE_UTIL_H
#define SWAPTUNE_FIXTURE_UTIL_H

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "swaptune/host.h"
#include "swaptune/store.h"

/* The repository root: $TOP, else the current directory (run-tests.sh cds there). */
static inline const char *fx_top(void)
{
	const char *top = getenv("TOP");

	return top && *top ? top : ".";
}

/* A new empty scratch directory; path into out (PATH_MAX). Aborts on failure. */
static inline void fx_scratch(char *out)
{
	snprintf(out, PATH_MAX, "/tmp/swaptune-unit.XXXXXX");
	if (!mkdtemp(out)) {
		perror("mkdtemp");
		abort();
	}
}

/* Copy fixture name into a new scratch dir; its path into out (PATH_MAX). */
static inline void fx_copy(const char *name, char *out)
{
	char cmd[3 * PATH_MAX];

	fx_scratch(out);
	snprintf(cmd, sizeof(cmd), "cp -a '%s/tests/fixtures/%s/.' '%s/'", fx_top(), name, out);
	if (system(cmd) != 0) {
		fprintf(stderr, "cannot copy fixture %s (is TOP set?)\n", name);
		abort();
	}
}

static inline void fx_remove(const char *dir)
{
	char cmd[PATH_MAX + 16];

	if (!dir[0] || strncmp(dir, "/tmp/swaptune-unit.", 19))
		abort();	/* only ever our own scratch dirs */
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	if (system(cmd) != 0)
		abort();
}

/* Write text to dir/rel, creating parent directories. */
static inline void fx_write(const char *dir, const char *rel, const char *text)
{
	char path[2 * PATH_MAX], cmd[2 * PATH_MAX + 16], *slash;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, rel);
	slash = strrchr(path, '/');
	*slash = '\0';
	snprintf(cmd, sizeof(cmd), "mkdir -p '%s'", path);
	if (system(cmd) != 0)
		abort();
	*slash = '/';
	f = fopen(path, "w");
	if (!f || fputs(text, f) < 0 || fclose(f) != 0)
		abort();
}

/* Read dir/rel into buf (whitespace at the end stripped). */
static inline char *fx_read(const char *dir, const char *rel, char *buf, size_t len)
{
	char path[2 * PATH_MAX];
	size_t n;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, rel);
	f = fopen(path, "r");
	if (!f)
		abort();
	n = fread(buf, 1, len - 1, f);
	fclose(f);
	buf[n] = '\0';
	while (n && (buf[n - 1] == '\n' || buf[n - 1] == ' '))
		buf[--n] = '\0';
	return buf;
}

/* Open a host on the fixture itself (read-only use) or on a copy. */
static inline void fx_host(struct host *h, const char *dir_or_fixture)
{
	char path[PATH_MAX];
	struct st_err e = {0};

	if (dir_or_fixture[0] == '/')
		snprintf(path, sizeof(path), "%s", dir_or_fixture);
	else
		snprintf(path, sizeof(path), "%s/tests/fixtures/%s", fx_top(), dir_or_fixture);
	if (host_open(h, path, &e) < 0) {
		fprintf(stderr, "host_open %s: %s\n", path, e.msg);
		abort();
	}
}

/*
 * A copy of fixture in dir (PATH_MAX), a host on it and a store at
 * dbpath = dir/state.db (PATH_MAX + 16): the set-up of tests that change
 * settings through the journal. -1 when the store cannot be opened.
 */
static inline int fx_open_copy_with_store(const char *fixture, char *dir, char *dbpath,
					  struct host *h, struct store *st)
{
	struct st_err e = {0};

	fx_copy(fixture, dir);
	snprintf(dbpath, PATH_MAX + 16, "%s/state.db", dir);
	fx_host(h, dir);
	if (store_open(st, dbpath, &e) < 0) {
		fprintf(stderr, "store_open: %s\n", e.msg);
		return -1;
	}
	return 0;
}

static inline void fx_close_copy_with_store(const char *dir, struct host *h, struct store *st)
{
	store_close(st);
	host_close(h);
	fx_remove(dir);
}

#endif
