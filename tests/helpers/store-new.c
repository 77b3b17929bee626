/*
 * store-new.c - test helper: make an empty store of this build's schema at
 * PATH, the one swaptune's first writing command makes there, for tests
 * that then fill it with sqlite3 or open it read-only. (A read-only command
 * such as status leaves no store at a new --db path.)
 *
 *   store-new PATH
 *
 * Exit 0 when PATH holds a current store afterwards (made now or already
 * there), 2 on bad arguments, 1 when the open fails (the error on stderr).
 */
#include <stdio.h>
#include <string.h>

#include "swaptune/store.h"

int main(int argc, char **argv)
{
	struct store st;
	struct st_err e = { 0 };

	if (argc != 2 || !argv[1][0]) {
		fprintf(stderr, "usage: store-new PATH\n");
		return 2;
	}
	if (store_open(&st, argv[1], &e) < 0) {
		fprintf(stderr, "store-new: %s\n", e.msg);
		return 1;
	}
	if (st.readonly) {
		store_close(&st);
		fprintf(stderr, "store-new: %s cannot be written\n", argv[1]);
		return 1;
	}
	store_keep(&st);	/* empty, but made to stay: no command drops it */
	store_close(&st);
	return 0;
}
