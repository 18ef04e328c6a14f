/* Turning the options and what the machine offers into a plan. */
#include "config.h"

#include "plan.h"

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "duration.h"
#include "exit_codes.h"
#include "log.h"
#include "path.h"
#include "report_file.h"
#include "sigmask.h"
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

/* getrlimit(2) of resource: 0 or -errno. */
static int own_rlimit(int resource, struct rlimit *rl)
{
	return getrlimit(resource, rl) < 0 ? -errno : 0;
}

/* 0 if path names a directory (stat(2) follows links), else -errno. */
static int is_dir(const char *path)
{
	struct stat st;

	if (stat(path, &st) < 0)
		return -errno;
	return S_ISDIR(st.st_mode) ? 0 : -ENOTDIR;
}

const struct runx_plan_probes *runx_plan_probes_default(void)
{
	static const struct runx_plan_probes probes = {
	    .cgroup = runx_scope_cgroup_probe,
	    .clone3 = have_clone3,
	    .resolve = runx_resolve_command,
	    .report_dir = runx_report_check,
	    .passwd = "/etc/passwd",
	    .group = "/etc/group",
	    .capable = runx_capable,
	    .getrlimit = own_rlimit,
	    .is_dir = is_dir,
	};
	return &probes;
}

/* probes with each NULL member taken from the default ones. */
static struct runx_plan_probes complete_probes(const struct runx_plan_probes *p)
{
	const struct runx_plan_probes *d = runx_plan_probes_default();
	struct runx_plan_probes c = p != NULL ? *p : *d;

#define RUNX_DEFAULT(member)                                                   \
	if (c.member == NULL)                                                  \
	c.member = d->member
	RUNX_DEFAULT(cgroup);
	RUNX_DEFAULT(clone3);
	RUNX_DEFAULT(resolve);
	RUNX_DEFAULT(report_dir);
	RUNX_DEFAULT(passwd);
	RUNX_DEFAULT(group);
	RUNX_DEFAULT(capable);
	RUNX_DEFAULT(getrlimit);
	RUNX_DEFAULT(is_dir);
#undef RUNX_DEFAULT
	return c;
}

int runx_plan_refuse(char *err, size_t errsize, int error, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, errsize, fmt, ap);
	va_end(ap);
	return error;
}

/*
 * True if --retry-on's oom can start another attempt: more than one
 * attempt, and failure (which retries every attempt that did not
 * succeed) not listed too.  Only the job cgroup's memory.events counts
 * the OOM killer's kills: anywhere else oom could never match.
 */
static bool counts_oom(const struct runx_options *o)
{
	unsigned kinds = o->attempts.retry_on.kinds;

	return (kinds & RUNX_ON_OOM) && !(kinds & RUNX_ON_FAILURE) &&
	       o->attempts.max > 1;
}

/* The first option that needs the job's cgroup, for a message: a limit
 * ("--pids-max"), else --retry-on=oom (counts_oom()); NULL if none. */
static const char *cgroup_option(const struct runx_options *o)
{
	if (o->limit_option != NULL)
		return o->limit_option;
	return counts_oom(o) ? "--retry-on=oom" : NULL;
}

/* A limit or --retry-on=oom implies the cgroup scope (another explicit
 * one is refused). */
static int limits_imply_cgroup(const struct runx_options *o,
			       enum runx_scope_kind *kind, char *err,
			       size_t errsize)
{
	const char *option = cgroup_option(o);

	if (option == NULL)
		return 0;
	if (o->scope_given && o->scope != RUNX_SCOPE_CGROUP)
		return runx_plan_refuse(
		    err, errsize, -EINVAL,
		    o->limit_option != NULL
			? "%s sets a limit on the job's cgroup; it cannot "
			  "be combined with --kill-scope=%s"
			: "%s reads the job's cgroup (memory.events); it "
			  "cannot be combined with --kill-scope=%s",
		    option, runx_scope_kind_name(o->scope));
	*kind = RUNX_SCOPE_CGROUP;
	return 0;
}

/*
 * --foreground implies the tree scope: a subreaper needs no new session,
 * so the background children of an interactive command are still stopped
 * and waited for (runx(1), --foreground).  cgroup or child may be given
 * instead, and auto (which picks cgroup or tree); group and pidns need a
 * session or namespace of their own.
 */
static int foreground_scope(const struct runx_options *o,
			    enum runx_scope_kind *kind, char *err,
			    size_t errsize)
{
	if (!o->foreground)
		return 0;
	if (!o->scope_given && cgroup_option(o) == NULL) {
		*kind = RUNX_SCOPE_TREE;
		return 0;
	}
	if (*kind == RUNX_SCOPE_GROUP || *kind == RUNX_SCOPE_PIDNS)
		return runx_plan_refuse(
		    err, errsize, -EINVAL,
		    "--foreground keeps the command in runx's "
		    "process group; it cannot be combined with "
		    "--kill-scope=%s (use tree, cgroup, child or auto)",
		    runx_scope_kind_name(*kind));
	return 0;
}

/* The scope the options ask for, auto not yet resolved; 0 or -EINVAL. */
static int asked_scope(const struct runx_options *o, enum runx_scope_kind *kind,
		       char *err, size_t errsize)
{
	char q[RUNX_QUOTE_SIZE];

	*kind = o->scope;
	if (limits_imply_cgroup(o, kind, err, errsize) < 0 ||
	    foreground_scope(o, kind, err, errsize) < 0)
		return -EINVAL;
	if (o->wait_all && *kind == RUNX_SCOPE_CHILD)
		return runx_plan_refuse(
		    err, errsize, -EINVAL,
		    "--wait-all needs a scope larger than the child "
		    "(--kill-scope=group, tree, cgroup or pidns)");
	if (o->merge && o->stderr_path != NULL)
		return runx_plan_refuse(
		    err, errsize, -EINVAL,
		    "--merge and --stderr='%s' both say where "
		    "standard error goes",
		    runx_quote(o->stderr_path, q, sizeof(q)));
	return 0;
}

/* auto: cgroup where a job cgroup can be made, else tree. */
static void decide_auto(struct runx_plan *plan, enum runx_launch_kind launch,
			const struct runx_plan_probes *probes)
{
	struct runx_scope_policy *sp = &plan->scope;
	const char *refusal = cgroup_refusal(launch);
	char why[PATH_MAX + 64];

	sp->auto_chosen = true;
	sp->kind = RUNX_SCOPE_TREE;
	if (launch != RUNX_LAUNCH_DEFAULT && refusal != NULL)
		snprintf(sp->auto_note, sizeof(sp->auto_note),
			 "auto scope: using tree, since --launch=%s cannot "
			 "use the cgroup scope (%s)",
			 runx_launch_kind_name(launch), refusal);
	else if (probes->cgroup(why, sizeof(why)) < 0)
		snprintf(sp->auto_note, sizeof(sp->auto_note),
			 "auto scope: using tree, since the cgroup scope is "
			 "not available (%s)",
			 why);
	else
		sp->kind = RUNX_SCOPE_CGROUP;
}

/*
 * The backend: --launch, else vfork in every scope (SPEC, Launch backend:
 * as cheap as posix_spawn, flat in runx's memory size, and it can set
 * PR_SET_PDEATHSIG in the child, which posix_spawn cannot; in the cgroup
 * scope its child writes itself into the job's cgroup.procs before
 * execve(2), so the command still runs no instruction outside it).  With
 * pidns the backend starts the command inside the namespace, from runx's
 * init: every backend works there.
 */
static int decide_backend(struct runx_plan *plan, enum runx_launch_kind asked,
			  const struct runx_plan_probes *probes, char *err,
			  size_t errsize)
{
	struct runx_launch_policy *lp = &plan->launch;
	bool in_cgroup = plan->scope.kind == RUNX_SCOPE_CGROUP;

	lp->backend = asked;
	if (lp->backend == RUNX_LAUNCH_DEFAULT)
		lp->backend = RUNX_LAUNCH_VFORK;
	if (lp->backend == RUNX_LAUNCH_CLONE3 && !probes->clone3())
		return runx_plan_refuse(err, errsize, -ENOSYS,
					"--launch=clone3: clone3 is not "
					"available on this system");
	const char *refusal = in_cgroup ? cgroup_refusal(lp->backend) : NULL;
	if (refusal != NULL)
		return runx_plan_refuse(
		    err, errsize, -ENOTSUP,
		    "--launch=%s cannot start the command inside "
		    "its cgroup (%s); use --launch=vfork or "
		    "--launch=fork, or no --launch",
		    runx_launch_kind_name(lp->backend), refusal);
	return 0;
}

/* The first identity option given, for a message; NULL if none. */
static const char *identity_option(const struct runx_options *o)
{
	return o->user != NULL	 ? "--user"
	       : o->nrlimits > 0 ? "--rlimit"
	       : o->chdir_path	 ? "--chdir"
	       : o->umask >= 0	 ? "--umask"
	       : o->no_new_privs ? "--no-new-privs"
				 : NULL;
}

/*
 * With --chdir, a relative command path (found from runx's own directory)
 * is made absolute, so that execve(2) after chdir(2) finds it; not one
 * that was not found (resolve_errno).  0 or -ENAMETOOLONG (err).
 */
static int absolute_path(struct runx_plan *plan, char *err, size_t errsize)
{
	struct runx_launch_policy *lp = &plan->launch;
	char cwd[PATH_MAX], abs[PATH_MAX];

	if (lp->resolve_errno != 0 || plan->identity.chdir == NULL ||
	    lp->path[0] == '/')
		return 0;
	errno = 0;
	if (getcwd(cwd, sizeof(cwd)) == NULL ||
	    snprintf(abs, sizeof(abs), "%s/%s", cwd, lp->path) >=
		(int)sizeof(abs))
		return runx_plan_refuse(
		    err, errsize, -ENAMETOOLONG,
		    "--chdir: cannot make the command's path "
		    "absolute: %s",
		    strerror(errno != 0 ? errno : ENAMETOOLONG));
	memcpy(lp->path, abs, sizeof(lp->path));
	return 0;
}

/*
 * posix_spawn runs no code of runx's in the child, so it cannot apply an
 * identity (refused); then absolute_path().
 */
static int finish_identity(const struct runx_options *o, struct runx_plan *plan,
			   char *err, size_t errsize)
{
	struct runx_launch_policy *lp = &plan->launch;
	const char *option = identity_option(o);

	if (option != NULL && lp->backend == RUNX_LAUNCH_POSIX_SPAWN)
		return runx_plan_refuse(
		    err, errsize, -ENOTSUP,
		    "--launch=posix_spawn cannot apply %s: it runs "
		    "no code of runx's in the child; use "
		    "--launch=vfork (the default), fork or clone3",
		    option);
	return absolute_path(plan, err, errsize);
}

int runx_plan_resolve(struct runx_plan *plan,
		      const struct runx_plan_probes *probes, char *err,
		      size_t errsize)
{
	const struct runx_plan_probes all = complete_probes(probes);
	struct runx_launch_policy *lp = &plan->launch;
	int r = all.resolve(lp->argv[0], lp->path, sizeof(lp->path));

	lp->resolve_errno = r < 0 ? -r : 0;
	r = absolute_path(plan, err, errsize);
	if (r < 0)
		lp->resolve_errno = -r; /* not runnable as it is: look again */
	return r;
}

/* The parts that are copied from the options as they are. */
static void copy_parts(const struct runx_options *o, struct runx_plan *plan)
{
	plan->stop = (struct runx_stop_policy){
	    .deadline_ns = o->timeout_ns,
	    .idle_deadline_ns = o->idle_timeout_ns,
	    .grace_ns = o->grace_ns,
	    .first_signal = o->first_signal,
	    .stop_signals = o->stop_signals, /* + the implicit ones */
	    .wait_all = o->wait_all,
	    .preserve_status = o->preserve_status,
	    .foreground = o->foreground,
	    .forward_to_child = o->forward_to_child,
	};
	/* the implicit stop signals that --stop-signals does not list:
	 * they start a stop with -s's signal, not forwarded themselves */
	sigemptyset(&plan->stop.implicit_stops);
	runx_implicit_stop_signals(&plan->stop.implicit_stops);
	for (int sig = 1; sig < NSIG; sig++)
		if (sigismember(&o->stop_signals, sig) == 1)
			sigdelset(&plan->stop.implicit_stops, sig);
		else if (sigismember(&plan->stop.implicit_stops, sig) == 1)
			sigaddset(&plan->stop.stop_signals, sig);
	plan->redirects = (struct runx_redirects){
	    o->stdin_path, o->stdout_path, o->stderr_path, o->append, o->merge};
	plan->report = (struct runx_report_policy){
	    .verbose = o->verbose,
	    .path = o->report_path,
	    .count = o->verbose || o->report_path != NULL,
	};
	bool count_oom = counts_oom(o);
	plan->scope.limits = (struct runx_cgroup_limits){
	    o->memory_max, o->pids_max, o->cpu_max_quota_us,
	    o->cpu_max_period_us, count_oom};
	plan->scope.has_limits =
	    runx_cgroup_limits_any(&plan->scope.limits) || count_oom;
	plan->launch.argv = o->command;
	plan->launch.close_fds = o->close_fds;
	plan->launch.new_session = !o->foreground;
	plan->launch.relay = o->idle_timeout_ns != RUNX_DURATION_INF;
	plan->attempts = o->attempts;
}

/*
 * --report=FILE that cannot be written, or that would replace the file
 * of --stdout, --stderr or --stdin (a rename(2) over it at the end: the
 * command's output there, or the input file, would be lost): refused
 * before anything runs.  An input file that is not there is an error of
 * its own, said when the redirects are opened.
 */
static int check_report(const struct runx_options *o,
			const struct runx_plan_probes *pr, char *err,
			size_t errsize)
{
	char q[RUNX_QUOTE_SIZE];
	const char *path = o->report_path;
	int r = path != NULL ? pr->report_dir(path) : 0;
	const char *out[] = {o->stdout_path, o->stderr_path, o->stdin_path};
	const char *opt[] = {"--stdout", "--stderr", "--stdin"};

	uid_t owner;
	enum runx_link_refusal link =
	    r == -EACCES ? runx_report_refused_link(path, &owner)
			 : RUNX_LINK_FOLLOWED;
	if (link == RUNX_LINK_FOREIGN)
		return runx_plan_refuse(
		    err, errsize, r,
		    "cannot write the report '%s': a symbolic link of uid %u "
		    "(neither runx's user nor root), which runx does not "
		    "follow",
		    runx_quote(path, q, sizeof(q)), (unsigned)owner);
	if (link == RUNX_LINK_OTHER_FD)
		return runx_plan_refuse(
		    err, errsize, r,
		    "cannot write the report '%s': a link on /proc that is "
		    "not one of runx's own file descriptors (such as "
		    "another process's /proc/PID/fd/N), which runx does not "
		    "follow",
		    runx_quote(path, q, sizeof(q)));
	if (r < 0)
		return runx_plan_refuse(
		    err, errsize, r, "cannot write the report '%s': %s",
		    runx_quote(path, q, sizeof(q)), strerror(-r));
	for (int i = 0; path != NULL && i < 3; i++)
		if (out[i] != NULL && (i < 2 || access(out[i], F_OK) == 0) &&
		    runx_report_is_file_of(path, out[i]))
			return runx_plan_refuse(
			    err, errsize, -EINVAL,
			    "--report='%s' is the file of %s: the report "
			    "would replace the command's %s",
			    runx_quote(path, q, sizeof(q)), opt[i],
			    i < 2 ? "output" : "input");
	return 0;
}

int runx_plan_make(const struct runx_options *opts,
		   const struct runx_plan_probes *probes,
		   struct runx_plan *plan, char *err, size_t errsize)
{
	const struct runx_plan_probes all = complete_probes(probes);
	enum runx_scope_kind kind;

	probes = &all;
	memset(plan, 0, sizeof(*plan));
	copy_parts(opts, plan);
	int r = check_report(opts, probes, err, errsize);
	if (r < 0) {
		plan->report.path = NULL; /* no report to write either */
		return r;
	}
	/* also when refused: the report names the scope the options asked
	 * for (a limit's cgroup, --foreground's tree), as for a command not
	 * found, not the zeroed plan's (child) */
	r = asked_scope(opts, &kind, err, errsize);
	plan->scope.kind = kind;
	if (r < 0)
		return -EINVAL;
	plan->launch.backend = opts->launch;
	r = runx_plan_identity(opts, probes, &plan->identity, err, errsize);
	if (r < 0)
		return r;
	r = probes->resolve(opts->command[0], plan->launch.path,
			    sizeof(plan->launch.path));
	plan->launch.resolve_errno = r < 0 ? -r : 0;
	/* ends as 126/127, nothing else to decide, unless a later attempt
	 * may find it (runx_plan_resolve()) */
	if (r < 0 && !runx_retry_may_retry_status(&plan->attempts,
						  runx_exit_status_exec(-r)))
		return 0;
	if (kind == RUNX_SCOPE_AUTO)
		decide_auto(plan, opts->launch, probes);
	r = decide_backend(plan, opts->launch, probes, err, errsize);
	return r < 0 ? r : finish_identity(opts, plan, err, errsize);
}
