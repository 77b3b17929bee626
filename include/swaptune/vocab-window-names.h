/*
 * vocab-window-names.h - switchback's --metric names of the kernel figures,
 * in table order (the WINDOW rows of vocab-rows.h), as ONE string literal,
 * each name followed by ", ". Include it inside a static initializer, between
 * other literals, where a help line lists the names:
 *
 *	static const char help[] = "one of: "
 *	#include "swaptune/vocab-window-names.h"
 *		"or cpu-per-work";
 *
 * No include guard: it is text, meant to be included where it is used.
 */
#define ROW(id, ...)
#define TRIAL(pm, row, ...)
#define TICK(sm, row, ...)
#define TOTAL(sc, row, ...)
#define WINDOW(sbk, row, name, ...) name ", "
#define SECONDARY(sec, pm, ...)
#include "swaptune/vocab-rows.h"
#undef ROW
#undef TRIAL
#undef TICK
#undef TOTAL
#undef WINDOW
#undef SECONDARY
