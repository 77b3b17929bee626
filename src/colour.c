/*
 * colour.c - colour on a terminal (colour.h): one rule for every output.
 */
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "swaptune/colour.h"

static const char *const sgr[] = {
	[COLOUR_PLAIN] = "", [COLOUR_GOOD] = "\033[32m", [COLOUR_WARN] = "\033[33m",
	[COLOUR_BAD] = "\033[31m", [COLOUR_BOLD] = "\033[1m",
};

static bool decide(FILE *f)
{
	const char *no = getenv("NO_COLOR"), *term = getenv("TERM");
	int fd = fileno(f);

	if (no && no[0])
		return false;
	if (!term || !term[0] || !strcmp(term, "dumb"))
		return false;
	return fd >= 0 && isatty(fd);
}

bool colour_on(FILE *f)
{
	/*
	 * stdout and stderr are asked often: decided once (atomic: any thread
	 * may ask; two deciding at once decide alike); other streams each time
	 */
	static int out = -1, err = -1;
	int *memo = f == stdout ? &out : f == stderr ? &err : NULL;
	int v;

	if (!memo)
		return decide(f);
	v = __atomic_load_n(memo, __ATOMIC_RELAXED);
	if (v < 0) {
		v = decide(f);
		__atomic_store_n(memo, v, __ATOMIC_RELAXED);
	}
	return v;
}

const char *colour_start(FILE *f, enum colour c)
{
	return c != COLOUR_PLAIN && colour_on(f) ? sgr[c] : "";
}

const char *colour_end(FILE *f, enum colour c)
{
	return c != COLOUR_PLAIN && colour_on(f) ? "\033[0m" : "";
}

void colour_fputs(FILE *f, enum colour c, const char *s)
{
	fputs(colour_start(f, c), f);
	fputs(s, f);
	fputs(colour_end(f, c), f);
}

enum colour colour_of_verdict(const char *word)
{
	if (!strcasecmp(word, "change"))
		return COLOUR_GOOD;
	if (!strcasecmp(word, "inconclusive"))
		return COLOUR_WARN;
	if (!strcasecmp(word, "keep"))
		return COLOUR_BOLD;
	return COLOUR_PLAIN;
}
