/*
 * "Did you mean": the known name nearest a mistyped one (optimal string
 * alignment distance, at most a third of its length, at least 1).  Pure
 * code, for the script parser and the command line.
 */
#ifndef SUGGEST_H
#define SUGGEST_H

#include <stddef.h>

/* The name in names[] closest to word, if close enough to be a typo;
 * NULL otherwise. */
const char *name_suggest(const char *word, const char *const *names, int n);

#endif
