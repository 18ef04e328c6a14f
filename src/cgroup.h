/*
 * cgroup v2 plumbing for the cgroup kill scope (Documentation/admin-guide/
 * cgroup-v2.rst in the kernel tree; cgroups(7)).
 */
#ifndef RUNX_CGROUP_H
#define RUNX_CGROUP_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* The resource limits of the job (runx(1), "Resource limits"). */
struct runx_cgroup_limits {
	int64_t memory_max;    /* memory.max in bytes; -1: none */
	int64_t pids_max;      /* pids.max, processes and threads; -1: none */
	int64_t cpu_quota_us;  /* cpu.max quota, microseconds; 0: none */
	int64_t cpu_period_us; /* cpu.max period, microseconds */
	bool count_oom;	       /* --retry-on=oom: the memory controller, for the
				* job's memory.events, with no limit of its own */
};

/* What the job's cgroup measured, read before it is removed. */
struct runx_cgroup_usage {
	bool valid;	     /* read from a job cgroup (else all unknown) */
	int64_t memory_peak; /* memory.peak, bytes; -1: no such file */
	int64_t cpu_usec;    /* cpu.stat usage_usec, microseconds; -1 */
	int64_t pids_peak;   /* pids.peak; -1: no such file */
	int64_t oom_kills;   /* memory.events oom_kill; -1: no such file */
};

struct runx_cgroup {
	char path[PATH_MAX]; /* the job's cgroup directory */
	int dir_fd;	     /* O_DIRECTORY: CLONE_INTO_CGROUP of clone3(2) */
	int procs_fd;	     /* its cgroup.procs, O_WRONLY: the fork/vfork child
			      * writes "0" there before execve */
	int events_fd; /* its cgroup.events: POLLPRI when "populated" flips */
	int kill_fd;   /* its cgroup.kill, O_WRONLY (Linux 5.14), or -1: opened
			* before the launch, so a kill needs no new fd */
	int freeze_fd; /* its cgroup.freeze, O_WRONLY (Linux 5.2), or -1 */
	uint64_t id;   /* its cgroup id: the directory's inode number
			* (kernfs, as PIDFD_GET_INFO gives it), or 0 */
	char rel[PATH_MAX]; /* the path as /proc/PID/cgroup shows it ("" if
			     * runx's own cgroup could not be read) */
	/* With limits (runx_cgroup_create_limited), where path is top/job: */
	char top[PATH_MAX];  /* the runx-PID-N directory, removed last; or "" */
	char home[PATH_MAX]; /* runx's own cgroup, to move back to; or "" */
	bool moved;	     /* runx moved itself into top/supervisor */
	unsigned home_added; /* controllers runx enabled in home's
			      * cgroup.subtree_control (bits), to undo */
	unsigned top_added;  /* controllers enabled in top's */
};

/*
 * Finds the directory of runx's own cgroup v2: the "0::" line of
 * /proc/self/cgroup joined to a cgroup2 mount of /proc/self/mountinfo whose
 * root is an ancestor of that path (inside a cgroup namespace a mount's
 * root can be "/.." and must not be trusted), checked by finding getpid()
 * in the directory's cgroup.procs.  Works for pure v2 (/sys/fs/cgroup) and
 * hybrid (/sys/fs/cgroup/unified) layouts.  Writes it into buf, and
 * remembers it with the path read, so that runx_cgroup_create and
 * runx_cgroup_create_limited below it need no second read.  A later call
 * (the next attempt's scope) whose /proc/self/cgroup names the same cgroup
 * gives the directory found then, without reading mountinfo and
 * cgroup.procs again (runx was not moved; its mounts do not change during
 * a run).
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

/*
 * True if l sets a limit of its own (memory.max, pids.max or cpu.max);
 * count_oom alone sets none.  No errors.
 */
bool runx_cgroup_limits_any(const struct runx_cgroup_limits *l);

/*
 * 0 if every controller that the limits l need (memory for memory_max
 * or count_oom,
 * pids for pids_max, cpu for cpu_quota_us) is offered to runx's cgroup own
 * (listed in its cgroup.controllers, cgroup-v2.rst "Enabling and
 * Disabling"); else -ENOTSUP with a message in err naming the missing
 * controllers and what to do, or -errno if the file cannot be read.
 */
int runx_cgroup_check_controllers(const char *own,
				  const struct runx_cgroup_limits *l, char *err,
				  size_t errsize);

/*
 * Makes the job's cgroup with the limits l set (memory.max, pids.max,
 * cpu.max) before anything runs in it, and opens its fds as
 * runx_cgroup_create does.  own is runx's cgroup; the no-internal-process
 * rule (cgroup-v2.rst: a non-root cgroup can enable domain controllers
 * for its children only while it holds no process) decides the layout:
 *  - own is the root: the controllers are enabled in its
 *    cgroup.subtree_control (and left so), the job is own/runx-PID-N;
 *  - own holds runx only (also a cgroup namespace's root, which is not
 *    exempt from the rule): runx moves itself into own/runx-PID-N/supervisor,
 *    the controllers are enabled in own and own/runx-PID-N, the job is
 *    own/runx-PID-N/job;
 *  - own holds other processes too (a session scope): the same below own's
 *    parent, whose cgroup.subtree_control offers the controllers to own.
 * runx_cgroup_remove undoes all of it (disables what runx enabled, moves
 * runx back into own, removes the directories).  Returns 0, or -errno with
 * a one-line message in err; nothing is left behind on failure.
 */
int runx_cgroup_create_limited(struct runx_cgroup *cg, const char *own,
			       const struct runx_cgroup_limits *l, char *err,
			       size_t errsize);

/*
 * Reads what the job's cgroup measured into *u: memory.peak (Linux 5.19),
 * cpu.stat usage_usec, pids.peak (not in every kernel: Linux 6.1 has
 * it), memory.events oom_kill
 * (cgroup-v2.rst; hierarchical: child cgroups of the job count too).  A
 * file the kernel or the cgroup's controllers lack reads as -1.  Opens and
 * closes its own fds; call it before runx_cgroup_remove.
 */
void runx_cgroup_read_usage(const struct runx_cgroup *cg,
			    struct runx_cgroup_usage *u);

/* 1 if the job's cgroup subtree has live processes, 0 if not, or -errno.
 * Re-reads cgroup.events with pread(2), which also re-arms its POLLPRI. */
int runx_cgroup_populated(struct runx_cgroup *cg);

/*
 * Calls fn for every pid in cgroup.procs of the job's cgroup and of every
 * cgroup below it (the job may make its own, at any depth: the walk of
 * cgroup_walk.h, no recursion, up to three fds besides cg's).  Stops when
 * fn returns non-zero and returns that.  Returns 0 or -errno (-EMFILE
 * when the walk's fds cannot be had).
 */
int runx_cgroup_each_pid(struct runx_cgroup *cg,
			 int (*fn)(pid_t pid, void *arg), void *arg);

/* The number of pids listed in the job's cgroup subtree, or -errno. */
int runx_cgroup_count(struct runx_cgroup *cg);

/*
 * Where pid is, by its /proc/PID/cgroup (the "0::" line, cgroups(7)): 1 in
 * the job's cgroup subtree, 0 outside it, -1 if that cannot be told (the
 * file unreadable: the process gone, out of fds; or the job's path
 * relative to the cgroup2 mount unknown).  One fd for the read.
 */
int runx_cgroup_where(const struct runx_cgroup *cg, pid_t pid);

/*
 * True if pid is (still) in the job's cgroup subtree (runx_cgroup_where()
 * says 1): guards against a pid reused between reading cgroup.procs and
 * signalling it.
 */
bool runx_cgroup_holds(const struct runx_cgroup *cg, pid_t pid);

/*
 * SIGKILLs everything in the job's subtree: writes "1" to the cgroup.kill
 * fd opened in advance (Linux 5.14; needs no new fd, and reaches child
 * cgroups and processes that called setsid), then SIGKILLs every pid
 * still listed in a cgroup.procs of the subtree, as runx_cgroup_kill_each
 * does: cgroup.kill skips a process whose main thread has exited while
 * other threads run (pthread_exit(3) in main; seen on Linux 6.18: it stays
 * in cgroup.procs until killed by pid).  Where the kernel has no
 * cgroup.kill, freezes the subtree, SIGKILLs every pid, and thaws it.
 * Returns 1 if cgroup.kill was written (the processes are not counted, to
 * keep the kill free of /proc work), else the number killed, or -errno.
 */
int runx_cgroup_kill(struct runx_cgroup *cg);

/*
 * SIGKILLs with kill(2) every pid listed in a cgroup.procs of the job's
 * subtree, at any depth: the per-pid fallback after cgroup.kill.  Needs
 * up to three fds besides cg's own for the walk.  Returns the number of
 * processes the signal was sent to (0 if none is left), or -errno if the
 * subtree could not be read and none was reached.
 */
int runx_cgroup_kill_each(struct runx_cgroup *cg);

/*
 * Freezes (on true) or thaws the job's subtree through cgroup.freeze
 * (Documentation/admin-guide/cgroup-v2.rst, "Core Interface Files");
 * freezing waits, at most timeout_ns nanoseconds, for "frozen 1" in
 * cgroup.events, since the freeze completes asynchronously.  Returns 0,
 * -ENOTSUP without cgroup.freeze, -ETIMEDOUT, or -errno.
 */
int runx_cgroup_freeze(struct runx_cgroup *cg, bool on, long long timeout_ns);

/*
 * Thaws every cgroup below the job's that the job froze itself (its own
 * cgroup.freeze reads 1; cgroup-v2.rst: a cgroup is frozen if it or an
 * ancestor is, so thawing the job's own cgroup leaves those frozen): a
 * frozen process keeps a signal pending and cannot act on it, so the
 * first signal of a stop would reach it in vain.  Any depth
 * (runx_cgroup_walk(), up to three fds besides cg's).  Returns the number
 * thawed, or -errno if the walk failed before any was.
 */
int runx_cgroup_thaw_below(struct runx_cgroup *cg);

/*
 * Waits until the job's subtree has no live process ("populated 0" in
 * cgroup.events, whose POLLPRI notifications can come 10-15 ms late), at
 * most timeout_ns nanoseconds.  Returns 0, -ETIMEDOUT, or -errno.
 */
int runx_cgroup_wait_empty(struct runx_cgroup *cg, long long timeout_ns);

/*
 * Closes cg's fds and removes the job's cgroup and any cgroup the job made
 * below it, deepest first and at any depth (runx_cgroup_remove_tree of
 * cgroup_walk.h; with limits: also undoes the layout, see
 * runx_cgroup_create_limited), retrying a bounded number of times on EBUSY
 * (a cgroup stays busy briefly after its last task exits: this sleeps up
 * to 1 s in 5 ms steps).  A cgroup that still has processes is killed and
 * waited for first (at most kill_wait_ns nanoseconds).  Returns 0 or
 * -errno of the first failure; cg->path is kept for messages.
 */
int runx_cgroup_remove(struct runx_cgroup *cg, long long kill_wait_ns);

#endif
