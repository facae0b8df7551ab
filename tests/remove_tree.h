/* Test helper: removes a folder and everything below it (a run's output between runs). */
#ifndef DEMPACT_TEST_REMOVE_TREE_H
#define DEMPACT_TEST_REMOVE_TREE_H

#include <ftw.h>
#include <stdio.h>

static int remove_tree_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st;
    (void)flag;
    (void)ftw;
    remove(path);
    return 0;
}

static inline void remove_tree(const char *path)
{
    nftw(path, remove_tree_entry, 16, FTW_DEPTH | FTW_PHYS);
}

#endif
