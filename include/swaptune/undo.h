/*
 * undo.h - registers the journal's undo handlers of every module that
 * creates host resources (scratch swap, cgroups, ...), so that the repair
 * every command runs first can remove what a killed run left behind.
 */
#ifndef SWAPTUNE_UNDO_H
#define SWAPTUNE_UNDO_H

void undo_register_all(void);

#endif
