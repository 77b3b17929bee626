/*
 * undo.c - the list of modules whose resources the journal can undo.
 * Each module exposes its handler; add a line here when one is added.
 */
#include "swaptune/journal.h"
#include "swaptune/undo.h"

void undo_register_all(void)
{
}
