/* Starting the command: four backends with one contract (runx(1), LAUNCH). */
#ifndef RUNX_LAUNCH_H
#define RUNX_LAUNCH_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "identity.h"
#include "kinds.h"
#include "redirect.h"

struct runx_launch_request {
	enum runx_launch_kind backend; /* never RUNX_LAUNCH_DEFAULT */
	const char *path;	       /* from runx_resolve_command() */
	char *const *argv;
	char *const *envp;
	bool new_session;		/* setsid(2) in the child */
	pid_t parent;			/* runx's pid: the child checks that
					 * it is still its parent after
					 * PR_SET_PDEATHSIG */
	const struct runx_stdio *stdio; /* fds 0-2 of the child */
	bool close_fds;			/* close inherited fds above 2 */
	const sigset_t *child_mask;	/* the signal mask runx started with */
	int cgroup_fd;	     /* cgroup v2 directory fd to start in (clone3
			      * CLONE_INTO_CGROUP, posix_spawn), or -1 */
	int cgroup_procs_fd; /* its cgroup.procs (fork, vfork), or -1 */
	const struct runx_identity *identity; /* applied last (identity.h);
					       * NULL: none; not with
					       * posix_spawn (-ENOTSUP) */
};

struct runx_launched {
	pid_t pid;	 /* 0 if nothing is running */
	int pidfd;	 /* owned by the caller; -1 if nothing is running */
	int exec_errno;	 /* non-zero: execve(2) failed; nothing is running */
	pid_t ns_pid;	 /* with pidns: the command's pid in the namespace */
	pid_t outer_pid; /* with pidns: the command's pid in runx's pid
			  * namespace as the init read it, or 0 */
	bool killed_at_birth; /* clone3 into a cgroup: the kernel killed the
			       * child before it ran (-ECHILD) */
	bool scope_failed;    /* pidns: the namespaces or their init could
			       * not be set up (why): no attempt began;
			       * false where no process could be made */
	char why[512];	      /* what failed after the child existed, or "" */
};

/*
 * Starts req->path with the chosen backend and returns only once the child
 * has called execve(2) or failed to, so the caller never signals a child
 * that is still being set up.  In the child: a new session if asked, fds
 * 0-2 from req->stdio (dup2 in order 0, 1, 2), PR_SET_PDEATHSIG SIGKILL
 * (prctl(2); not with posix_spawn, which has no hook for it) and a check
 * that runx (req->parent) did not die before it, every descriptor runx
 * opened closed (they are all O_CLOEXEC), inherited fds above 2 closed if
 * req->close_fds, the signal mask req->child_mask, and default dispositions
 * for every signal runx did not find ignored at start, then
 * req->identity's steps (runx_identity_apply(): limits, umask, directory,
 * groups and user, no_new_privs), the last before execve.  With a cgroup, the
 * child is in it before its first instruction of the command: clone3 starts
 * it there (CLONE_INTO_CGROUP, Linux 5.7); fork and vfork children write
 * "0" to cgroup.procs before execve; posix_spawn needs glibc's
 * posix_spawnattr_setcgroup_np (2.39) and else fails with -ENOTSUP.
 *
 * Returns 0 when the command runs (out->pid, out->pidfd set; the child is
 * unreaped, so the pidfd is race-free, pidfd_open(2)) or when execve failed
 * (out->exec_errno set, the child already reaped).  Returns -errno when
 * runx itself failed (fork/clone EAGAIN, setsid or dup2 in the child, a
 * step of req->identity, then with out->why naming it; -ENOTSUP for a
 * backend this build lacks, or posix_spawn with an identity; -ECHILD,
 * out->why and out->killed_at_birth set, when the kernel ended a clone3
 * child started in a cgroup before it ran: a kernel fault met where runx's
 * own cgroup or the new one was once killed with cgroup.kill, and one the
 * vfork and fork backends, whose child joins the cgroup after its birth,
 * do not meet); nothing is left running
 * then,
 * except after the one failure that follows the exec: pidfd_open(2) of the
 * running command (not with clone3, whose CLONE_PIDFD comes with the
 * child); then out->pid is set, the child unreaped, out->why says so, and
 * the caller must empty the scope (the command may have forked).
 */
int runx_launch(const struct runx_launch_request *req,
		struct runx_launched *out);

#endif
