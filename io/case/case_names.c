/* Names for the case reader's messages: lists of the names a key takes, the closest
 * one to a misspelt word ("did you mean ...?"), and a list joined for a message. */
#include "case_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------------------------
 * Names: lists, edit distance, suggestions.
 * ---------------------------------------------------------------------------------- */

void case_names_add(name_list *l, const char *name)
{
    if (!name) return;
    if (l->n == l->cap) {
        int cap = l->cap ? 2 * l->cap : 16;
        const char **names = realloc(l->names, (size_t)cap * sizeof *names);
        if (!names) return; /* the list only feeds messages */
        l->names = names;
        l->cap = cap;
    }
    l->names[l->n++] = name;
}

void case_names_free(name_list *l)
{
    free(l->names);
    *l = (name_list){0};
}

/* Optimal-string-alignment distance: insertions, deletions, substitutions and swaps
 * of neighbours each cost 1. */
static int edit_distance(const char *a, const char *b)
{
    enum { MAX = 64 };
    size_t n = strlen(a), m = strlen(b);
    if (n > MAX || m > MAX) return (int)(n > m ? n : m);
    int d[MAX + 1][MAX + 1];
    for (size_t i = 0; i <= n; i++) d[i][0] = (int)i;
    for (size_t j = 0; j <= m; j++) d[0][j] = (int)j;
    for (size_t i = 1; i <= n; i++)
        for (size_t j = 1; j <= m; j++) {
            int best = d[i - 1][j - 1] + (a[i - 1] != b[j - 1]);
            if (d[i - 1][j] + 1 < best) best = d[i - 1][j] + 1;
            if (d[i][j - 1] + 1 < best) best = d[i][j - 1] + 1;
            if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] &&
                d[i - 2][j - 2] + 1 < best)
                best = d[i - 2][j - 2] + 1;
            d[i][j] = best;
        }
    return d[n][m];
}

static const char *closest(const name_list *l, const char *word, int max_distance)
{
    const char *best = NULL;
    int best_distance = max_distance + 1;
    for (int k = 0; k < l->n; k++) {
        int dist = edit_distance(word, l->names[k]);
        if (dist < best_distance) {
            best = l->names[k];
            best_distance = dist;
        }
    }
    return best;
}

hint case_did_you_mean(const name_list *l, const char *word, int max_distance)
{
    hint h = {""};
    const char *best = closest(l, word, max_distance);
    if (best) snprintf(h.s, sizeof h.s, " (did you mean '%s'?)", best);
    return h;
}

joined case_join(const name_list *l)
{
    joined j = {""};
    size_t used = 0;
    for (int k = 0; k < l->n && used < sizeof j.s; k++) {
        int w = snprintf(j.s + used, sizeof j.s - used, "%s%s", k ? ", " : "", l->names[k]);
        if (w < 0) break;
        used += (size_t)w;
    }
    return j;
}
