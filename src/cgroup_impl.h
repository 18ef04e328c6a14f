/*
 * What the cgroup_*.c files share and nothing else uses: small file
 * helpers for cgroup control files (cgroup_file.c), runx's own cgroup path
 * as /proc/self/cgroup shows it (cgroup_path.c), the undoing of the limits
 * layout (cgroup_limits.c).  The interface for runx is cgroup.h.
 */
#ifndef RUNX_CGROUP_IMPL_H
#define RUNX_CGROUP_IMPL_H

#include <stddef.h>

#include "cgroup.h"

/* Reads a whole small file into buf (NUL-terminated); 0 or -errno. */
int runx_cgroup_read_file(const char *path, char *buf, size_t size);

/* Opens dir/name with flags | O_CLOEXEC: an fd, or -1 with errno. */
int runx_cgroup_open_in(const char *dir, const char *name, int flags);

/* An optional control file of dir, O_WRONLY: an fd, -1 if the kernel lacks
 * it, or -EMFILE/-ENFILE when runx is out of fds (which must fail the
 * set-up). */
int runx_cgroup_open_optional(const char *dir, const char *name);

/* Writes text to dir/name in one write(2); 0 or -errno. */
int runx_cgroup_write_in(const char *dir, const char *name, const char *text);

/*
 * runx's own cgroup as /proc/self/cgroup names it ("/" or "/a/b") into
 * buf, for the directory own_dir that runx_cgroup_find_own found: what
 * that call read, if own_dir is its result (no second read of
 * /proc/self/cgroup; and still right after runx moved itself into a
 * supervisor cgroup), else read now.  0, -ENOENT, -ENAMETOOLONG, -errno.
 */
int runx_cgroup_own_rel(const char *own_dir, char *buf, size_t size);

/* Marks every fd of cg closed and the layout fields empty (cgroup.c). */
void runx_cgroup_reset(struct runx_cgroup *cg);

/* A fresh "parent/runx-PID-N" name into buf; 0 or -ENAMETOOLONG with a
 * message in err. */
int runx_cgroup_unique_name(char *buf, size_t size, const char *parent,
			    char *err, size_t errsize);

/* mkdir(2) of a cgroup directory; 0 or -errno with a message in err. */
int runx_cgroup_make_dir(const char *dir, char *err, size_t errsize);

/*
 * Opens the fds of the job's cgroup cg->path (see runx_cgroup_create) and
 * sets cg->rel from runx's own cgroup directory own and its path own_rel
 * as /proc/self/cgroup named it (NULL: unknown, rel stays "").  0 or
 * -errno with a message in err; the fds opened so far stay in cg.
 */
int runx_cgroup_open_job(struct runx_cgroup *cg, const char *own,
			 const char *own_rel, char *err, size_t errsize);

/*
 * Undoes the layout of runx_cgroup_create_limited once the job's cgroup
 * is gone (cgroup_limits.c): the controllers runx enabled, runx back into
 * its own cgroup, the runx-PID-N directory.  0 or -errno of the first
 * failure.
 */
int runx_cgroup_undo_layout(struct runx_cgroup *cg);

#endif
