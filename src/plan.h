/*
 * The plan: every decision about a run, made before anything is acquired
 * or started.  argv -> runx_options (syntax) -> runx_plan (all policy) ->
 * a run of attempts.  The plan is the only reader of runx_options: every
 * rule by which one option implies or refuses another lives in plan.c,
 * once, and every later stage reads the plan's parts below.
 */
#ifndef RUNX_PLAN_H
#define RUNX_PLAN_H

#include <limits.h>
#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cgroup.h"
#include "identity.h"
#include "kinds.h"
#include "options.h"
#include "redirect.h"
#include "retry.h"

/* How a stop comes about and runs (runx(1), TIME LIMITS, STOPPING). */
struct runx_stop_policy {
	int64_t deadline_ns;	  /* -t, from the start; RUNX_DURATION_INF */
	int64_t idle_deadline_ns; /* --idle-timeout; RUNX_DURATION_INF */
	int64_t grace_ns;	  /* first signal -> SIGKILL; 0: at once */
	int first_signal;	  /* -s, signal number; 0 allowed */
	sigset_t stop_signals;	  /* received, they start a stop */
	sigset_t implicit_stops;  /* of those, not --stop-signals' own:
				   * the stop sends first_signal */
	bool wait_all;		  /* wait for leftovers instead of stopping */
	bool preserve_status;	  /* the command's status, not 124 */
	bool foreground;	  /* the command shares runx's terminal */
	bool forward_to_child;	  /* forwarded signals: the child only */
};

/* Where the command runs and how it is started. */
struct runx_scope_policy {
	enum runx_scope_kind kind;	/* never RUNX_SCOPE_AUTO */
	bool auto_chosen;		/* kind came from --kill-scope=auto */
	char auto_note[PATH_MAX + 256]; /* -v: why auto chose tree, or "" */
	bool has_limits; /* --memory-max, --pids-max, --cpu-max, or an oom in
			  * --retry-on that can start an attempt */
	struct runx_cgroup_limits limits; /* with has_limits */
};

/* How the command is started (runx(1), LAUNCH BACKEND). */
struct runx_launch_policy {
	enum runx_launch_kind backend; /* never RUNX_LAUNCH_DEFAULT */
	char path[PATH_MAX];	       /* the file execve(2) runs */
	int resolve_errno;	       /* non-zero: not found / not runnable
					* (127/126): nothing is started */
	char *const *argv;	       /* the command and its arguments */
	bool new_session;	       /* setsid(2) in the child */
	bool close_fds;		       /* --close-fds */
	bool relay;		       /* --idle-timeout: output via runx */
};

/* What runx says about the run. */
struct runx_report_policy {
	bool verbose;	  /* -v */
	const char *path; /* --report: NULL none, "-" stderr */
	bool count;	  /* count and name processes (-v or --report) */
};

struct runx_plan {
	struct runx_stop_policy stop;
	struct runx_scope_policy scope;
	struct runx_launch_policy launch;
	struct runx_redirects redirects;
	struct runx_report_policy report;
	struct runx_attempts_policy attempts;
	struct runx_identity identity; /* the command's user and settings */
};

/*
 * What the plan asks of the machine, as functions, so that a test can
 * answer for it.  runx_plan_probes_default() gives the real ones.
 *   cgroup: 0 if a job cgroup can be made here, else -errno with the reason
 *           in why (runx_scope_cgroup_probe(), scope.h);
 *   clone3: true if the kernel has clone3(2);
 *   resolve: finds the command as runx_resolve_command() (path.h);
 *   report_dir: 0 if the report file can be written (report_file.h's
 *           runx_report_check()), else -errno;
 *   passwd, group: the files --user reads (/etc/passwd, /etc/group);
 *   capable: runx_capable() (identity.h): CAP_SETUID, CAP_SETGID for
 *           --user, CAP_SYS_RESOURCE to raise a hard limit;
 *   getrlimit: runx's own limit of a resource, getrlimit(2): 0 or -errno;
 *   is_dir: 0 if --chdir's DIR is a directory runx can see, else -errno
 *           (-ENOTDIR, -ENOENT, ...).
 * A NULL member is the default one (tests give only what they fake).
 */
struct runx_plan_probes {
	int (*cgroup)(char *why, size_t whysize);
	bool (*clone3)(void);
	int (*resolve)(const char *name, char *buf, size_t size);
	int (*report_dir)(const char *path);
	const char *passwd;
	const char *group;
	bool (*capable)(int cap);
	int (*getrlimit)(int resource, struct rlimit *rl);
	int (*is_dir)(const char *path);
};

/* The probes of the machine runx runs on. */
const struct runx_plan_probes *runx_plan_probes_default(void);

/*
 * Decides the run described by opts into *plan, asking the machine through
 * probes (NULL: runx_plan_probes_default()).  The rules, in this order:
 *   - --report: a FILE that cannot be written (probes->report_dir) is
 *     refused, and plan->report.path is NULL then (nothing to write);
 *   - a limit, or an oom in --retry-on that can start another attempt,
 *     implies --kill-scope=cgroup (another explicit scope: refused);
 *     --foreground implies the tree scope (cgroup or child may be given
 *     instead; group, pidns and auto are refused); --wait-all needs more
 *     than the child scope; --merge and --stderr are exclusive;
 *   - the identity (runx_plan_identity()): --user looked up, --rlimit,
 *     --chdir checked;
 *   - the command is resolved in PATH: a failure is no error here
 *     (plan->launch.resolve_errno: the run ends as 126/127, and the rules
 *     below are not applied), unless --retry-on lists that status by
 *     number and more than one attempt may run
 *     (runx_retry_may_retry_status()): then the plan is made in full, and
 *     each attempt looks again (runx_plan_resolve());
 *   - auto is cgroup if a job cgroup can be made, else tree;
 *   - the backend: --launch, else vfork in every scope; --launch=clone3
 *     where the kernel lacks clone3 (ENOSYS) is refused; posix_spawn
 *     cannot start a child in a cgroup before glibc 2.39 (refused), nor
 *     apply an identity (refused);
 *   - with --chdir, a relative command path is made absolute (it was
 *     found from runx's directory).
 * Borrows opts (argv and paths are pointed to, not copied).  Returns 0,
 * or -errno (-EINVAL bad combination, -ENOTSUP, -ENOSYS, or the report's
 * -errno) with a one-line message in err; acquires nothing either way.
 */
int runx_plan_make(const struct runx_options *opts,
		   const struct runx_plan_probes *probes,
		   struct runx_plan *plan, char *err, size_t errsize);

/*
 * Resolves the plan's command (probes->resolve, NULL probes: the
 * machine's, runx_resolve_command(): stat(2) and faccessat(2) with
 * AT_EACCESS along PATH) into plan->launch.path, made absolute with
 * --chdir from getcwd(3) as runx_plan_make() does: for an attempt whose
 * command was not found or not runnable before (the file may have
 * appeared since).  Sets plan->launch.resolve_errno: 0 only when the
 * path is ready for execve(2), so a failure of either step is looked at
 * again by the next call.  Returns 0 (resolve_errno then says whether it
 * was found), or -ENAMETOOLONG (or getcwd(3)'s -errno) with a one-line
 * message in err when the absolute path cannot be made.
 */
int runx_plan_resolve(struct runx_plan *plan,
		      const struct runx_plan_probes *probes, char *err,
		      size_t errsize);

/*
 * For the plan's parts: writes a one-line message (printf format fmt) into
 * err (errsize bytes, truncated) and returns error, a -errno.
 */
int runx_plan_refuse(char *err, size_t errsize, int error, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/*
 * The identity part of the plan, from --user, --rlimit, --chdir, --umask
 * and --no-new-privs (runx(1), IDENTITY AND SETTINGS), asking the machine
 * through probes (every member set).  Refused: a USER or GROUP that is no
 * number and not in probes->passwd / probes->group (or the file cannot be
 * read), an empty USER or GROUP, more than RUNX_GROUPS_MAX groups, --user
 * without CAP_SETUID and CAP_SETGID, SOFT above HARD, a HARD above runx's
 * own hard limit without CAP_SYS_RESOURCE, a --chdir that is no directory.
 * A USER number with an entry is that entry's user; without one, its
 * group is GROUP or the same number, and it has no supplementary group.
 * Borrows opts (chdir points into it).  Returns 0 or -errno (-EINVAL,
 * -EPERM, -ENOENT, -E2BIG, ...) with a one-line message in err.
 */
int runx_plan_identity(const struct runx_options *opts,
		       const struct runx_plan_probes *probes,
		       struct runx_identity *id, char *err, size_t errsize);

#endif
