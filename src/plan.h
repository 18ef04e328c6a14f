/*
 * The plan: everything decided before anything is acquired or started.
 * options -> plan -> (resources) -> launch -> supervise -> result.  The
 * plan is the only place where launch and scope policy live: which scope
 * auto means here, which backend starts the command, which fallback or
 * refusal applies.
 */
#ifndef RUNX_PLAN_H
#define RUNX_PLAN_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>

#include "cgroup.h"
#include "options.h"

struct runx_plan {
	const struct runx_options *opts;
	char path[PATH_MAX];		/* the file execve(2) runs */
	int resolve_errno;		/* non-zero: the command was not
					 * found or not runnable (127/126) */
	enum runx_scope_kind scope;	/* never RUNX_SCOPE_AUTO */
	enum runx_launch_kind backend;	/* never RUNX_LAUNCH_DEFAULT */
	bool new_session;		/* setsid(2) in the child */
	bool relay;			/* --idle-timeout: output via runx */
	char auto_note[PATH_MAX + 256]; /* -v line on how auto decided */
	const char *backend_note;	/* -v line on a backend fallback */
	bool has_limits; /* --memory-max, --pids-max, --cpu-max */
	struct runx_cgroup_limits limits; /* with has_limits: the cgroup's */
};

/*
 * Decides the run described by opts into *plan: resolves the command in
 * PATH (a failure is not an error here: plan->resolve_errno, and the run
 * ends as 126/127 without starting anything), resolves --kill-scope=auto
 * (cgroup if a job cgroup can be made, runx_scope_cgroup_probe(); else
 * tree), and the backend: --launch, else vfork, except for the
 * cgroup scope, where clone3 (CLONE_INTO_CGROUP, Linux 5.7) starts the
 * child inside the cgroup, or fork where the kernel has no clone3
 * (ENOSYS, clone(2)).  Acquires nothing.  Returns 0, or -errno with a
 * one-line message in err (e.g. -ENOTSUP: posix_spawn cannot start the
 * command inside a cgroup with glibc < 2.39).
 */
int runx_plan_make(const struct runx_options *opts, struct runx_plan *plan,
		   char *err, size_t errsize);

#endif
