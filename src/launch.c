/*
 * The four launch backends.  fork, clone3 and vfork share child_run(), the
 * only code that runs in the child before execve(2): it calls nothing but
 * async-signal-safe system calls (signal-safety(7)), since after fork in a
 * process that may have had threads, or after clone(CLONE_VM), nothing else
 * is safe.  posix_spawn does the same steps inside glibc.
 */
#include "config.h"

#include "launch.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <spawn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "log.h"
#include "sigmask.h"
#include "syscalls.h"

#ifndef CLONE_PIDFD
#define CLONE_PIDFD 0x00001000
#endif
#ifndef CLONE_INTO_CGROUP
#define CLONE_INTO_CGROUP 0x200000000ULL
#endif

/* Why the child did not reach the command; sent to the parent. */
struct child_failure {
	int stage;	  /* 0: none, STAGE_SETUP or STAGE_EXEC */
	int err;	  /* errno */
	const char *step; /* the identity step that failed, or NULL */
};

enum { STAGE_SETUP = 1, STAGE_EXEC = 2 };

/* Highest fd to mark close-on-exec where close_range(2) is missing. */
static long fallback_max_fd = 1024;

/* Marks every fd above 2 close-on-exec (so a report pipe survives to exec). */
static int close_fds_on_exec(void)
{
	if (runx_close_range(3, ~0U, CLOSE_RANGE_CLOEXEC) == 0)
		return 0;
	for (long fd = 3; fd < fallback_max_fd; fd++)
		fcntl((int)fd, F_SETFD, FD_CLOEXEC);
	return 0;
}

/*
 * In the child: set up and execve; returns only on failure, saying why.
 * *f is written only on failure: with vfork it is the parent's memory, and
 * a successful execve must leave it all zero.
 */
static void child_run(const struct runx_launch_request *req,
		      struct child_failure *f)
{
	int stage = STAGE_SETUP;
	const char *step = NULL;

	if (req->cgroup_procs_fd >= 0 && req->backend != RUNX_LAUNCH_CLONE3 &&
	    write(req->cgroup_procs_fd, "0", 1) != 1) {
		step = "joining the job's cgroup (a write of its cgroup.procs)";
		goto fail;
	}
	if (req->new_session && setsid() < 0)
		goto fail;
	/*
	 * SIGKILL when runx dies (prctl(2), PR_SET_PDEATHSIG; kept across
	 * execve(2) except for set-user-ID programs).  A parent that died
	 * before the prctl is caught by getppid(): the child was re-parented.
	 */
	if (prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0) < 0)
		goto fail;
	if (getppid() != req->parent) {
		errno = ESRCH;
		goto fail;
	}
	for (int i = 0; i < 3; i++) {
		int src = req->stdio->source[i];

		if (src == RUNX_STDIO_CLOSED) {
			close(i);
			continue;
		}
		if (src < 0)
			continue;
		if (src == i) {
			if (fcntl(i, F_SETFD, 0) < 0)
				goto fail;
		} else if (dup2(src, i) < 0) {
			goto fail;
		}
	}
	if (req->close_fds)
		close_fds_on_exec();
	if (req->identity != NULL &&
	    runx_identity_apply(req->identity, req->parent, &step) < 0)
		goto fail;
	/* itself: glibc's sigprocmask() would leave out its reserved
	 * real-time signals, unblocking them where runx started with them
	 * blocked */
	if (runx_sigmask_raw(SIG_SETMASK, req->child_mask, NULL) < 0)
		goto fail;
	execve(req->path, req->argv, req->envp);
	stage = STAGE_EXEC;
fail:
	f->err = errno;
	f->step = step;
	f->stage = stage;
}

/* Reaps a child that never reached the command; returns its wait status. */
static int reap(pid_t pid)
{
	int status = 0;

	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	return status;
}

/* The message of a step of the identity that failed in the child: the
 * directory named for chdir (the value that could not be applied). */
static void tell_step(const struct runx_launch_request *req,
		      const struct child_failure *f, struct runx_launched *out)
{
	char q[RUNX_QUOTE_SIZE];
	const char *dir = req->identity != NULL ? req->identity->chdir : NULL;

	if (strcmp(f->step, "chdir") == 0 && dir != NULL)
		snprintf(out->why, sizeof(out->why),
			 "the command was not started: --chdir=%s failed in "
			 "the child: %s",
			 runx_quote(dir, q, sizeof(q)), strerror(f->err));
	else
		snprintf(out->why, sizeof(out->why),
			 "the command was not started: %s failed in the "
			 "child: %s",
			 f->step, strerror(f->err));
}

/* Turns the child's report into the result of runx_launch(). */
static int finish(const struct runx_launch_request *req,
		  const struct child_failure *f, pid_t pid, int pidfd,
		  struct runx_launched *out)
{
	if (f->stage != 0) {
		if (pidfd >= 0)
			close(pidfd);
		reap(pid);
		if (f->stage == STAGE_EXEC) {
			out->exec_errno = f->err != 0 ? f->err : ENOEXEC;
			return 0;
		}
		if (f->step != NULL)
			tell_step(req, f, out);
		return -(f->err != 0 ? f->err : EINVAL);
	}
	out->pid = pid;
	if (pidfd < 0) {
		pidfd = runx_pidfd_open(pid, 0);
		if (pidfd < 0) {
			/* the command runs (and may have forked): the caller
			 * must empty the scope, not only kill this pid */
			int e = errno;
			snprintf(out->why, sizeof(out->why),
				 "the command ran as pid %d, but pidfd_open(2) "
				 "failed for it: %s; runx stopped its scope",
				 (int)pid, strerror(e));
			return -e;
		}
	}
	out->pidfd = pidfd;
	return 0;
}

/*
 * Reads the child's report from fd until EOF or size bytes; returns how
 * many bytes came (0: EOF at once).  The pipe is O_CLOEXEC in the child,
 * so EOF comes at its execve(2) or its death.
 */
static size_t read_report(int fd, unsigned char *buf, size_t size)
{
	size_t got = 0;

	while (got < size) {
		ssize_t n = read(fd, buf + got, size - got);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		got += (size_t)n;
	}
	return got;
}

/*
 * A child of clone3(CLONE_INTO_CGROUP) that ended before its first
 * instruction: reaps it and says why in out->why; returns -ECHILD.  Linux
 * (6.18, kernel/cgroup/cgroup.c: cgroup_css_set_fork() takes the kill
 * count of the parent's cgroup, cgroup_post_fork() compares it with the
 * target's) kills such a child at birth when the two counts differ: runx's
 * own cgroup was once killed with cgroup.kill, or the new one was (by
 * another program, before the launch).
 * out->killed_at_birth is set for that SIGKILL; nothing of the command ran.
 */
static int ended_at_birth(pid_t pid, int pidfd, struct runx_launched *out)
{
	if (pidfd >= 0)
		close(pidfd);
	int status = reap(pid);
	out->killed_at_birth =
	    WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL;
	snprintf(out->why, sizeof(out->why),
		 "the kernel ended the child of clone3(2) that was to start "
		 "the command in its cgroup (CLONE_INTO_CGROUP) before it "
		 "ran (%s %d), as it does after a cgroup.kill of runx's own "
		 "cgroup or of the new one (their kill counts differ)",
		 WIFSIGNALED(status) ? "signal" : "exit status",
		 WIFSIGNALED(status) ? WTERMSIG(status) : WEXITSTATUS(status));
	return -ECHILD;
}

/*
 * fork(2) or clone3(2) without CLONE_VM; the child reports on a pipe.
 * Started in a cgroup by clone3, the child first writes one byte: a report
 * that ends before it means the child never ran (ended_at_birth()).
 */
static int launch_forked(const struct runx_launch_request *req,
			 struct runx_launched *out)
{
	struct child_failure f = {0, 0, NULL};
	unsigned char buf[1 + sizeof(f)];
	int report[2], pidfd = -1;
	bool into_cgroup =
	    req->backend == RUNX_LAUNCH_CLONE3 && req->cgroup_fd >= 0;
	size_t first = into_cgroup ? 1 : 0;
	pid_t pid;

	if (pipe2(report, O_CLOEXEC) < 0)
		return -errno;
	if (req->backend == RUNX_LAUNCH_CLONE3) {
		struct runx_clone_args args;

		memset(&args, 0, sizeof(args));
		args.flags = CLONE_PIDFD;
		args.pidfd = (uint64_t)(uintptr_t)&pidfd;
		args.exit_signal = SIGCHLD;
		if (req->cgroup_fd >= 0) {
			args.flags |= CLONE_INTO_CGROUP;
			args.cgroup = (uint64_t)req->cgroup_fd;
		}
		pid = (pid_t)runx_clone3(&args);
	} else {
		pid = fork();
	}
	if (pid < 0) {
		int e = errno;
		close(report[0]);
		close(report[1]);
		return -e;
	}
	if (pid == 0) {
		if (into_cgroup)
			(void)!write(report[1], "", 1);
		child_run(req, &f);
		(void)!write(report[1], &f, sizeof(f));
		_exit(127);
	}
	close(report[1]);
	size_t got = read_report(report[0], buf, first + sizeof(f));
	close(report[0]);
	if (got < first)
		return ended_at_birth(pid, pidfd, out);
	if (got == first + sizeof(f))
		memcpy(&f, buf + first, sizeof(f));
	/* else EOF after the first byte: execve succeeded, closing the pipe */
	return finish(req, &f, pid, pidfd, out);
}

struct vfork_context {
	const struct runx_launch_request *req;
	struct child_failure failure; /* shared: CLONE_VM */
};

/*
 * Ends with the raw exit system call rather than _exit(): a call to a
 * noreturn function makes AddressSanitizer builds unpoison "the stack",
 * which on this private stack it cannot find, and it warns on stderr.
 */
static int vfork_child(void *arg)
{
	struct vfork_context *ctx = arg;

	child_run(ctx->req, &ctx->failure);
	syscall(SYS_exit, 127);
	return 127;
}

/*
 * The vfork child's stack.  One is enough: runx is single-threaded and
 * the parent sleeps until the child has called execve(2) or _exit(2), so
 * no two children ever use it at once.  In .bss rather than mmap(2)'d per
 * launch: no mmap/munmap pair (and no split of runx's mappings) at every
 * start-up, and only the pages the child touches are faulted in.
 */
static char vfork_stack[64 * 1024] __attribute__((aligned(64)));

/*
 * clone(CLONE_VM|CLONE_VFORK) on a stack of its own: the parent sleeps until
 * execve or _exit, and reads the child's report from shared memory.
 */
static int launch_vforked(const struct runx_launch_request *req,
			  struct runx_launched *out)
{
	struct vfork_context ctx = {req, {0, 0, NULL}};
	pid_t pid = clone(vfork_child, vfork_stack + sizeof(vfork_stack),
			  CLONE_VM | CLONE_VFORK | SIGCHLD, &ctx);

	if (pid < 0)
		return -errno;
	return finish(req, &ctx.failure, pid, -1, out);
}

/*
 * The signals posix_spawn must reset to default in the child.  glibc
 * (2.36, sysdeps/unix/sysv/linux/spawni.c) sets its internal signals 32
 * and 33 (SIGCANCEL, SIGSETXID) to SIG_IGN in the child unless they are in
 * this set, which the fork backends do not do; so they go here unless they
 * were ignored when runx started.  sigaddset(3) refuses them, hence the
 * raw bits (the kernel's sigset layout, which glibc's sigset_t matches).
 */
static void spawn_default_signals(sigset_t *set)
{
	sigemptyset(set);
	for (int sig = RUNX_KERNEL_SIGRTMIN; sig < SIGRTMIN; sig++)
		if (!runx_signal_raw_ignored(sig))
			runx_sigset_add_raw(set, sig);
}

/*
 * --close-fds for posix_spawn: one closefrom action where the C library has
 * it (glibc >= 2.34), else a close action for each fd above 2 that runx has
 * open now (musl; runx is single-threaded, so the set cannot change before
 * the spawn).  Returns 0 or a positive errno, as posix_spawn(3) does.
 */
static int spawn_close_from_3(posix_spawn_file_actions_t *actions)
{
#ifdef HAVE_POSIX_SPAWN_FILE_ACTIONS_ADDCLOSEFROM_NP
	return posix_spawn_file_actions_addclosefrom_np(actions, 3);
#else
	DIR *dir = opendir("/proc/self/fd");
	struct dirent *e;
	int r = 0;

	if (dir == NULL)
		return errno;
	while (r == 0 && (e = readdir(dir)) != NULL) {
		char *end;
		long fd = strtol(e->d_name, &end, 10);

		if (*end == '\0' && end != e->d_name && fd > 2 &&
		    fd != dirfd(dir))
			r = posix_spawn_file_actions_addclose(actions, (int)fd);
	}
	closedir(dir);
	return r;
#endif
}

/* The spawn attributes: session, signal mask and defaults, cgroup. */
static int spawn_attributes(const struct runx_launch_request *req,
			    posix_spawnattr_t *attr)
{
	short flags = POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF;
	sigset_t defaults;
	int r;

	if (req->new_session)
		flags |= POSIX_SPAWN_SETSID;
	spawn_default_signals(&defaults);
	r = posix_spawnattr_setsigmask(attr, req->child_mask);
	if (r == 0)
		r = posix_spawnattr_setsigdefault(attr, &defaults);
#ifdef HAVE_POSIX_SPAWNATTR_SETCGROUP_NP
	if (r == 0 && req->cgroup_fd >= 0) {
		r = posix_spawnattr_setcgroup_np(attr, req->cgroup_fd);
		flags |= POSIX_SPAWN_SETCGROUP;
	}
#endif
	if (r == 0)
		r = posix_spawnattr_setflags(attr, flags);
	return r;
}

/*
 * The spawn file actions: fds 0-2 and --close-fds.  Each source fd is
 * checked here, so that a dup2(2) in the child cannot fail and be taken
 * for an exec error.  Returns 0 or a positive errno.
 */
static int spawn_actions(const struct runx_launch_request *req,
			 posix_spawn_file_actions_t *actions)
{
	int r = 0;

	for (int i = 0; i < 3 && r == 0; i++) {
		int src = req->stdio->source[i];
		if (src == RUNX_STDIO_CLOSED) {
			r = posix_spawn_file_actions_addclose(actions, i);
			continue;
		}
		if (src < 0)
			continue;
		if (fcntl(src, F_GETFD) < 0)
			return errno;
		r = posix_spawn_file_actions_adddup2(actions, src, i);
	}
	if (r == 0 && req->close_fds)
		r = spawn_close_from_3(actions);
	return r;
}

/*
 * posix_spawn(3): glibc >= 2.24 reports the child's errors as its return
 * value.  The set-up that could fail in the child was checked before (the
 * fds) or cannot fail there (setsid in a fresh child, the signal mask), so
 * an error after the clone(2) is the exec's (126/127); a failure to set the
 * spawn up, or EAGAIN/ENOMEM from clone(2), is runx's own (125).  Cannot
 * set PR_SET_PDEATHSIG in the child: documented, and not the default.
 */
static int launch_spawned(const struct runx_launch_request *req,
			  struct runx_launched *out)
{
	posix_spawn_file_actions_t actions;
	posix_spawnattr_t attr;
	pid_t pid = 0;
	int r;

#ifndef HAVE_POSIX_SPAWNATTR_SETCGROUP_NP
	if (req->cgroup_fd >= 0)
		return -ENOTSUP;
#endif
	if (req->identity != NULL && runx_identity_any(req->identity))
		return -ENOTSUP; /* no hook for it: the plan refuses it */
	if ((r = posix_spawnattr_init(&attr)) != 0)
		return -r;
	if ((r = posix_spawn_file_actions_init(&actions)) != 0) {
		posix_spawnattr_destroy(&attr);
		return -r;
	}
	r = spawn_attributes(req, &attr);
	if (r == 0)
		r = spawn_actions(req, &actions);
	bool spawned = r == 0;
	if (spawned)
		r = posix_spawn(&pid, req->path, &actions, &attr, req->argv,
				req->envp);
	posix_spawn_file_actions_destroy(&actions);
	posix_spawnattr_destroy(&attr);
	if (!spawned || r == EAGAIN || r == ENOMEM)
		return -r; /* runx could not set it up, or is out of resources
			    */
	if (r != 0) {
		out->exec_errno = r; /* glibc already reaped the failed child */
		return 0;
	}
	struct child_failure f = {0, 0, NULL};
	return finish(req, &f, pid, -1, out);
}

int runx_launch(const struct runx_launch_request *req,
		struct runx_launched *out)
{
	struct rlimit rl;

	out->pid = 0;
	out->pidfd = -1;
	out->exec_errno = 0;
	out->ns_pid = 0;
	out->outer_pid = 0;
	out->killed_at_birth = false;
	out->scope_failed = false;
	out->why[0] = '\0';
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY)
		fallback_max_fd = (long)rl.rlim_cur;
	switch (req->backend) {
	case RUNX_LAUNCH_POSIX_SPAWN:
		return launch_spawned(req, out);
	case RUNX_LAUNCH_FORK:
	case RUNX_LAUNCH_CLONE3:
		return launch_forked(req, out);
	case RUNX_LAUNCH_VFORK:
		return launch_vforked(req, out);
	case RUNX_LAUNCH_DEFAULT:
		break;
	}
	return -EINVAL;
}
