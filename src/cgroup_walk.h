/*
 * Walking a cgroup and every cgroup below it (or any directory tree)
 * without recursion and without paths: a job may nest its cgroups
 * thousands of levels deep, deeper than PATH_MAX.  The walk
 * keeps the names still to visit on the heap, goes down with openat(2)
 * relative to the parent's fd and back up through ".." (checked by device
 * and inode, re-opened from the root by name if that fails), so at any
 * depth it holds at most three fds besides the caller's root: the current
 * directory and, for a moment, a child or parent being opened, a listing,
 * or what enter opens.
 */
#ifndef RUNX_CGROUP_WALK_H
#define RUNX_CGROUP_WALK_H

#include <stdbool.h>
#include <stddef.h>

struct runx_cgroup_visit {
	/*
	 * Called for every directory of the tree, the root first and each
	 * before the directories below it; dir_fd is the directory (the
	 * walk's, valid during the call only), depth 0 for the root.  A
	 * non-zero return ends the walk, which returns it.  May be NULL.
	 */
	int (*enter)(int dir_fd, size_t depth, void *arg);
	/*
	 * Called for every directory but the root once all below it was
	 * walked, with its parent's fd and its name (unlinkat(2) with
	 * AT_REMOVEDIR removes it); stuck is true if leave failed for a
	 * directory below it, so it cannot be empty.  A negative return
	 * says the directory stays (its parent is then stuck); the walk goes
	 * on.  May be NULL.
	 */
	int (*leave)(int parent_fd, const char *name, bool stuck, void *arg);
	void *arg; /* passed to both */
};

/*
 * Walks the tree below the directory root_fd (borrowed: not closed, and
 * its file offset is left alone), depth first, calling v->enter and
 * v->leave.  A directory that vanishes during the walk (ENOENT) is
 * skipped; symbolic links are not followed.  Returns 0, the first
 * non-zero value of v->enter, or -errno (-ENOMEM; -EMFILE/-ENFILE when
 * its fds cannot be had; an error opening a directory).
 */
int runx_cgroup_walk(int root_fd, const struct runx_cgroup_visit *v);

/*
 * Removes the directory dir and every directory below it, deepest first
 * (a cgroup is removed with rmdir(2); one whose last task has just exited
 * can be busy for a moment, so EBUSY is retried, up to 1 s in 5 ms steps,
 * but not for a directory that still has a subdirectory left).  Any depth
 * works: only dir itself is named by path.  Returns 0 (also when dir is
 * already gone) or -errno of the first failure.
 */
int runx_cgroup_remove_tree(const char *dir);

#endif
