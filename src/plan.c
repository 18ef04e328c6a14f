/* Turning the options and what the machine offers into a plan. */
#include "config.h"

#include "plan.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "duration.h"
#include "launch.h"
#include "scope.h"
#include "syscalls.h"

/* Why backend cannot start the child inside a cgroup, or NULL. */
static const char *cgroup_refusal(enum runx_launch_kind backend)
{
#ifndef HAVE_POSIX_SPAWNATTR_SETCGROUP_NP
	if (backend == RUNX_LAUNCH_POSIX_SPAWN)
		return "posix_spawnattr_setcgroup_np needs glibc 2.39";
#else
	(void)backend;
#endif
	return NULL;
}

/*
 * True if the kernel has clone3(2) (Linux 5.3): called with no arguments
 * it fails with EINVAL where it exists and ENOSYS where it does not (or
 * where a seccomp filter hides it, as some container runtimes do).
 */
static bool have_clone3(void)
{
	return syscall(SYS_clone3, NULL, 0) < 0 && errno != ENOSYS;
}

/* auto: cgroup where a job cgroup can be made, else tree. */
static void decide_auto(struct runx_plan *plan)
{
	const struct runx_options *opts = plan->opts;
	const char *refusal = cgroup_refusal(opts->launch);
	char why[PATH_MAX + 64];

	if (opts->launch != RUNX_LAUNCH_DEFAULT && refusal != NULL) {
		plan->scope = RUNX_SCOPE_TREE;
		snprintf(plan->auto_note, sizeof(plan->auto_note),
			 "auto scope: using tree, since --launch=%s cannot "
			 "use the cgroup scope (%s)",
			 runx_launch_kind_name(opts->launch), refusal);
	} else if (runx_scope_cgroup_probe(why, sizeof(why)) < 0) {
		plan->scope = RUNX_SCOPE_TREE;
		snprintf(plan->auto_note, sizeof(plan->auto_note),
			 "auto scope: using tree, since the cgroup scope is "
			 "not available (%s)",
			 why);
	} else {
		plan->scope = RUNX_SCOPE_CGROUP;
	}
}

/*
 * The backend: --launch, else vfork (as cheap as posix_spawn, flat in
 * runx's memory size, and it can set PR_SET_PDEATHSIG in the child, which
 * posix_spawn cannot), else clone3 (fork without it) for the cgroup.  With
 * pidns the backend starts the command inside the namespace, from runx's
 * init (which pidns.c makes with clone3 itself): every backend works there.
 */
static int decide_backend(struct runx_plan *plan, char *err, size_t errsize)
{
	const struct runx_options *opts = plan->opts;
	bool in_cgroup = plan->scope == RUNX_SCOPE_CGROUP;

	plan->backend = opts->launch;
	if (plan->backend == RUNX_LAUNCH_DEFAULT)
		plan->backend =
		    in_cgroup ? RUNX_LAUNCH_CLONE3 : RUNX_LAUNCH_VFORK;
	if (plan->backend == RUNX_LAUNCH_CLONE3 && !have_clone3()) {
		if (opts->launch == RUNX_LAUNCH_CLONE3) {
			snprintf(err, errsize,
				 "--launch=clone3: clone3 is not available on "
				 "this system");
			return -ENOSYS;
		}
		plan->backend = RUNX_LAUNCH_FORK;
		plan->backend_note =
		    "clone3 is not available; launching with fork";
	}
	const char *refusal = in_cgroup ? cgroup_refusal(plan->backend) : NULL;
	if (refusal != NULL) {
		snprintf(err, errsize,
			 "--launch=%s cannot start the command inside its "
			 "cgroup (%s); use --launch=clone3 or --launch=fork",
			 runx_launch_kind_name(plan->backend), refusal);
		return -ENOTSUP;
	}
	return 0;
}

int runx_plan_make(const struct runx_options *opts, struct runx_plan *plan,
		   char *err, size_t errsize)
{
	memset(plan, 0, sizeof(*plan));
	plan->opts = opts;
	plan->scope = opts->scope;
	plan->backend = opts->launch;
	int r = runx_resolve_command(opts->command[0], plan->path,
				     sizeof(plan->path));
	if (r < 0) {
		plan->resolve_errno = -r;
		return 0; /* ends as 126/127: nothing else to decide */
	}
	plan->relay = opts->idle_timeout_ns != RUNX_DURATION_INF;
	plan->new_session = !opts->foreground;
	if (plan->scope == RUNX_SCOPE_AUTO)
		decide_auto(plan);
	plan->has_limits = opts->memory_max >= 0 || opts->pids_max >= 0 ||
			   opts->cpu_max_quota_us > 0;
	plan->limits = (struct runx_cgroup_limits){
	    opts->memory_max, opts->pids_max, opts->cpu_max_quota_us,
	    opts->cpu_max_period_us};
	if (plan->has_limits && plan->scope != RUNX_SCOPE_CGROUP) {
		/* options.c makes a limit imply the cgroup scope */
		snprintf(err, errsize, "resource limits need the cgroup scope");
		return -EINVAL;
	}
	return decide_backend(plan, err, errsize);
}
