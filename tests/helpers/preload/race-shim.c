/*
 * race-shim.c - an LD_PRELOAD library for the race tests (t0807): it makes
 * the moment an attacker needs happen every time, instead of once in a few
 * thousand runs. When the program under test is about to create one of
 * swaptune's temporary files (a name holding ".swaptune-write." or
 * ".swaptune-new"), through open/openat/mkstemp/mkostemp, the shim first:
 *
 *   RACE_MODE=swap: exchanges RACE_A and RACE_B (renameat2 RENAME_EXCHANGE;
 *     in the tests a directory of the sysroot and a symlink out of it), once
 *     per process: the directory checked a moment ago now leads outside;
 *   RACE_MODE=link: makes the first boot-file temporary name (".swaptune-new")
 *     a hard link to RACE_TARGET (a file outside the tree), as a planter who
 *     guessed the name would.
 *
 * Then the real call goes on. A writer that checks a path and then uses the
 * path writes outside the tree; one that works in a directory fd with
 * O_CREAT|O_EXCL new names does not.
 *
 *   RACE_MODE=kill, RACE_KILL_AT=N: SIGKILL at the Nth step of swaptune's
 *     writes (t0815): a step is a temporary file just created, or the
 *     rename of one about to happen. A kill between the two leaves a
 *     temporary file behind; one before the rename leaves the old content.
 *     RACE_STEPS=FILE: the number of steps seen is written there at exit
 *     (to know how many kill points an operation has).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dlfcn.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int swapped, linked;

static int ours(const char *path)
{
	return path && (strstr(path, ".swaptune-write.") || strstr(path, ".swaptune-new"));
}

/* The full name path has in directory dirfd (AT_FDCWD: as given). */
static void full_name(int dirfd, const char *path, char *out, size_t len)
{
	char link[64], dir[PATH_MAX];
	ssize_t n;

	if (path[0] == '/' || dirfd == AT_FDCWD) {
		snprintf(out, len, "%s", path);
		return;
	}
	snprintf(link, sizeof(link), "/proc/self/fd/%d", dirfd);
	n = readlink(link, dir, sizeof(dir) - 1);
	dir[n > 0 ? n : 0] = '\0';
	snprintf(out, len, "%s/%s", dir, path);
}

static void strike(int dirfd, const char *path)
{
	const char *mode = getenv("RACE_MODE");
	char name[PATH_MAX * 2];

	if (!mode || !ours(path))
		return;
	if (!strcmp(mode, "swap") && !swapped) {
		const char *a = getenv("RACE_A"), *b = getenv("RACE_B");

		swapped = 1;
		if (a && b)
			renameat2(AT_FDCWD, a, AT_FDCWD, b, RENAME_EXCHANGE);
	} else if (!strcmp(mode, "link") && getenv("RACE_TARGET") && !linked &&
		   strstr(path, ".swaptune-new")) {
		/* the first name drawn, as if guessed: a writer with O_EXCL draws another */
		linked = 1;
		full_name(dirfd, path, name, sizeof(name));
		link(getenv("RACE_TARGET"), name);
	}
}

static int steps;

static void report_steps(void)
{
	const char *f = getenv("RACE_STEPS");
	FILE *out;

	if (f && (out = fopen(f, "w"))) {
		fprintf(out, "%d\n", steps);
		fclose(out);
	}
}

/* One step of a write; SIGKILL when it is the one asked for. */
static void step(const char *path)
{
	const char *mode = getenv("RACE_MODE"), *at = getenv("RACE_KILL_AT");

	if (!mode || strcmp(mode, "kill") || !ours(path))
		return;
	if (steps++ == 0 && getenv("RACE_STEPS"))
		atexit(report_steps);
	if (at && steps == atoi(at))
		kill(getpid(), SIGKILL);
}

int renameat(int olddirfd, const char *oldpath, int newdirfd, const char *newpath)
{
	static int (*real)(int, const char *, int, const char *);

	if (!real)
		real = (int (*)(int, const char *, int, const char *))dlsym(RTLD_NEXT, "renameat");
	step(oldpath);
	return real(olddirfd, oldpath, newdirfd, newpath);
}

int rename(const char *oldpath, const char *newpath)
{
	static int (*real)(const char *, const char *);

	if (!real)
		real = (int (*)(const char *, const char *))dlsym(RTLD_NEXT, "rename");
	step(oldpath);
	return real(oldpath, newpath);
}

int openat(int dirfd, const char *path, int flags, ...)
{
	static int (*real)(int, const char *, int, ...);
	mode_t mode = 0;
	int fd;

	if (!real)
		real = (int (*)(int, const char *, int, ...))dlsym(RTLD_NEXT, "openat");
	if (flags & (O_CREAT | O_TMPFILE)) {
		va_list ap;

		va_start(ap, flags);
		mode = (mode_t)va_arg(ap, int);
		va_end(ap);
	}
	if (flags & O_CREAT)
		strike(dirfd, path);
	fd = real(dirfd, path, flags, mode);
	if (fd >= 0 && (flags & O_CREAT))
		step(path);
	return fd;
}

int openat64(int dirfd, const char *path, int flags, ...)
{
	mode_t mode = 0;

	if (flags & (O_CREAT | O_TMPFILE)) {
		va_list ap;

		va_start(ap, flags);
		mode = (mode_t)va_arg(ap, int);
		va_end(ap);
	}
	return openat(dirfd, path, flags, mode);
}

int open(const char *path, int flags, ...)
{
	mode_t mode = 0;

	if (flags & (O_CREAT | O_TMPFILE)) {
		va_list ap;

		va_start(ap, flags);
		mode = (mode_t)va_arg(ap, int);
		va_end(ap);
	}
	return openat(AT_FDCWD, path, flags, mode);
}

int open64(const char *path, int flags, ...)
{
	mode_t mode = 0;

	if (flags & (O_CREAT | O_TMPFILE)) {
		va_list ap;

		va_start(ap, flags);
		mode = (mode_t)va_arg(ap, int);
		va_end(ap);
	}
	return openat(AT_FDCWD, path, flags, mode);
}

int mkostemp(char *templ, int flags)
{
	static int (*real)(char *, int);

	int fd;

	if (!real)
		real = (int (*)(char *, int))dlsym(RTLD_NEXT, "mkostemp");
	strike(AT_FDCWD, templ);
	fd = real(templ, flags);
	if (fd >= 0)
		step(templ);
	return fd;
}

int mkstemp(char *templ)
{
	static int (*real)(char *);

	int fd;

	if (!real)
		real = (int (*)(char *))dlsym(RTLD_NEXT, "mkstemp");
	strike(AT_FDCWD, templ);
	fd = real(templ);
	if (fd >= 0)
		step(templ);
	return fd;
}

int mkstemp64(char *templ)
{
	return mkstemp(templ);
}
