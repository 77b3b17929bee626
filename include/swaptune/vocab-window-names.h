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
#define WINDOW(sbk, row, name, ...) name ", "
#include "swaptune/vocab-rows.h"
#undef WINDOW
