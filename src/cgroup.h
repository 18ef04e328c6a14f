/*
 * cgroup v2 plumbing for the cgroup kill scope (Documentation/admin-guide/
 * cgroup-v2.rst in the kernel tree; cgroups(7)).
 */
#ifndef RUNX_CGROUP_H
#define RUNX_CGROUP_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

struct runx_cgroup {
	char path[PATH_MAX]; /* the job's cgroup directory */
	int dir_fd;    /* O_DIRECTORY: CLONE_INTO_CGROUP of clone3(2) */
	int procs_fd;  /* its cgroup.procs, O_WRONLY: the fork/vfork child
			* writes "0" there before execve */
	int events_fd; /* its cgroup.events: POLLPRI when "populated" flips */
	int kill_fd;   /* its cgroup.kill, O_WRONLY (Linux 5.14), or -1: opened
			* before the launch, so a kill needs no new fd */
	int freeze_fd; /* its cgroup.freeze, O_WRONLY (Linux 5.2), or -1 */
	char rel[PATH_MAX]; /* the path as /proc/PID/cgroup shows it ("" if
			     * runx's own cgroup could not be read) */
};

/*
 * Finds the directory of runx's own cgroup v2: the "0::" line of
 * /proc/self/cgroup joined to a cgroup2 mount of /proc/self/mountinfo whose
 * root is an ancestor of that path (inside a cgroup namespace a mount's
 * root can be "/.." and must not be trusted), checked by finding getpid()
 * in the directory's cgroup.procs.  Works for pure v2 (/sys/fs/cgroup) and
 * hybrid (/sys/fs/cgroup/unified) layouts.  Writes it into buf.
 * Returns 0, -ENOENT (no cgroup v2 mounted or none holds runx), -errno.
 */
int runx_cgroup_find_own(char *buf, size_t size);

/*
 * 0 if a child cgroup could be made in the directory parent: it and its
 * cgroup.procs are writable for runx (access(2) with AT_EACCESS, which
 * also sees read-only mounts).  Else -errno.  Makes nothing.
 */
int runx_cgroup_probe(const char *parent);

/*
 * Makes a new, uniquely named child cgroup "runx-PID-N" of parent and
 * opens its fds (all O_CLOEXEC, owned by cg until runx_cgroup_remove;
 * cgroup.kill and cgroup.freeze are optional, -1 on older kernels).
 * Returns 0, or -errno with a one-line message in err (EACCES, EROFS,
 * EPERM: not delegated to this user).  Nothing is left behind on failure.
 */
int runx_cgroup_create(struct runx_cgroup *cg, const char *parent, char *err,
		       size_t errsize);

/* 1 if the job's cgroup subtree has live processes, 0 if not, or -errno.
 * Re-reads cgroup.events with pread(2), which also re-arms its POLLPRI. */
int runx_cgroup_populated(struct runx_cgroup *cg);

/*
 * Calls fn for every pid in cgroup.procs of the job's cgroup and of every
 * cgroup below it (the job may make its own).  Stops when fn returns
 * non-zero and returns that.  Returns 0 or -errno.
 */
int runx_cgroup_each_pid(struct runx_cgroup *cg,
			 int (*fn)(pid_t pid, void *arg), void *arg);

/* The number of pids listed in the job's cgroup subtree, or -errno. */
int runx_cgroup_count(struct runx_cgroup *cg);

/*
 * True if pid is (still) in the job's cgroup subtree, by its
 * /proc/PID/cgroup: guards against a pid reused between reading
 * cgroup.procs and signalling it.
 */
bool runx_cgroup_holds(const struct runx_cgroup *cg, pid_t pid);

/*
 * SIGKILLs everything in the job's subtree: writes "1" to the cgroup.kill
 * fd opened in advance (Linux 5.14; needs no new fd, and reaches child
 * cgroups and processes that called setsid); where the kernel has no
 * cgroup.kill, freezes the subtree, SIGKILLs every pid, and thaws it.
 * Returns 1 if the kill was written (the processes are not counted, to
 * keep the kill free of /proc work), the number killed for the fallback,
 * or -errno.
 */
int runx_cgroup_kill(struct runx_cgroup *cg);

/*
 * Freezes (on true) or thaws the job's subtree through cgroup.freeze
 * (Documentation/admin-guide/cgroup-v2.rst, "Core Interface Files");
 * freezing waits, at most timeout_ns nanoseconds, for "frozen 1" in
 * cgroup.events, since the freeze completes asynchronously.  Returns 0,
 * -ENOTSUP without cgroup.freeze, -ETIMEDOUT, or -errno.
 */
int runx_cgroup_freeze(struct runx_cgroup *cg, bool on, long long timeout_ns);

/*
 * Waits until the job's subtree has no live process ("populated 0" in
 * cgroup.events, whose POLLPRI notifications can come 10-15 ms late), at
 * most timeout_ns nanoseconds.  Returns 0, -ETIMEDOUT, or -errno.
 */
int runx_cgroup_wait_empty(struct runx_cgroup *cg, long long timeout_ns);

/*
 * Closes cg's fds and removes the job's cgroup and any cgroup the job made
 * below it, deepest first, retrying a bounded number of times on EBUSY
 * (a cgroup stays busy briefly after its last task exits: this sleeps up
 * to 1 s in 5 ms steps).  A cgroup that still has processes is killed and
 * waited for first (at most kill_wait_ns nanoseconds).  Returns 0 or
 * -errno of the first failure; cg->path is kept for messages.
 */
int runx_cgroup_remove(struct runx_cgroup *cg, long long kill_wait_ns);

#endif
