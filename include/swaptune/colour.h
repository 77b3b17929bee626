/*
 * colour.h - colour on a terminal for what a reader should see first: the
 * verdict word (change, keep, inconclusive), warnings and errors. The one
 * rule: colour only when the stream is a terminal, NO_COLOR is unset or
 * empty (https://no-color.org) and TERM is set and not "dumb"; never for
 * pipes, files, or JSON. Text from outside is escaped by the caller as
 * always (fmt_fputs()); these are only the SGR sequences around it.
 */
#ifndef SWAPTUNE_COLOUR_H
#define SWAPTUNE_COLOUR_H

#include <stdbool.h>
#include <stdio.h>

enum colour {
	COLOUR_PLAIN = 0,
	COLOUR_GOOD,		/* green: a change worth making, a check that passed */
	COLOUR_WARN,		/* yellow: inconclusive, a warning */
	COLOUR_BAD,		/* red: an error, a failed check, a change for the worse */
	COLOUR_BOLD,		/* emphasis without a judgement: keep */
};

/* Whether f gets colour (decided once per stream, by the rule above). */
bool colour_on(FILE *f);
/* The SGR sequence that starts c on f, and the one that ends it: "" when off. */
const char *colour_start(FILE *f, enum colour c);
const char *colour_end(FILE *f, enum colour c);
/* fputs(s) in colour c when f gets colour. */
void colour_fputs(FILE *f, enum colour c, const char *s);
/* The colour of a verdict word: "change" good, "keep" bold, "inconclusive" warn. */
enum colour colour_of_verdict(const char *word);

#endif
