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
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dlfcn.h>
#include <fcntl.h>
#include <limits.h>
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

int openat(int dirfd, const char *path, int flags, ...)
{
	static int (*real)(int, const char *, int, ...);
	mode_t mode = 0;

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
	return real(dirfd, path, flags, mode);
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

	if (!real)
		real = (int (*)(char *, int))dlsym(RTLD_NEXT, "mkostemp");
	strike(AT_FDCWD, templ);
	return real(templ, flags);
}

int mkstemp(char *templ)
{
	static int (*real)(char *);

	if (!real)
		real = (int (*)(char *))dlsym(RTLD_NEXT, "mkstemp");
	strike(AT_FDCWD, templ);
	return real(templ);
}

int mkstemp64(char *templ)
{
	return mkstemp(templ);
}
