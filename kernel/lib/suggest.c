/* "Did you mean": see suggest.h. */
#include "suggest.h"

/* strnlen, which strict C11 host headers do not declare. */
static size_t bounded_len(const char *s, size_t max)
{
	size_t n = 0;
	while (n < max && s[n])
		n++;
	return n;
}

/* Optimal string alignment distance (edits, with swaps of neighbours),
 * for "did you mean".  Three rolling rows; words longer than 32 bytes are
 * never close. */
static int distance(const char *a, const char *b)
{
	int la = (int)bounded_len(a, 33), lb = (int)bounded_len(b, 33);
	int rows[3][33];
	if (la > 32 || lb > 32)
		return 99;
	for (int j = 0; j <= lb; j++)
		rows[0][j] = j;
	for (int i = 1; i <= la; i++) {
		int *cur = rows[i % 3], *up = rows[(i + 2) % 3], *up2 = rows[(i + 1) % 3];
		cur[0] = i;
		for (int j = 1; j <= lb; j++) {
			int best = up[j - 1] + (a[i - 1] != b[j - 1]);
			if (up[j] + 1 < best)
				best = up[j] + 1;
			if (cur[j - 1] + 1 < best)
				best = cur[j - 1] + 1;
			if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] && up2[j - 2] + 1 < best)
				best = up2[j - 2] + 1;
			cur[j] = best;
		}
	}
	return rows[la % 3][lb];
}

/* The name in names[] closest to word, if close enough to be a typo. */
const char *name_suggest(const char *word, const char *const *names, int n)
{
	int limit = (int)bounded_len(word, 64) / 3, best = 99;
	const char *pick = NULL;
	if (limit < 1)
		limit = 1;
	for (int i = 0; i < n; i++) {
		int d = distance(word, names[i]);
		if (d <= limit && d < best) {
			best = d;
			pick = names[i];
		}
	}
	return pick;
}
