/*
 * The PID namespace of --kill-scope=pidns: making it (runx's side of the
 * launch) and its init (PID 1 inside, the same binary after clone(2)).
 *
 * The init is a copy of runx made by clone3(2) without CLONE_VM, as fork
 * would make it: runx is single-threaded, so the init may call anything,
 * except what relies on glibc's cached thread id, which a raw clone does
 * not update (raise(3), abort(3), pthread calls): it uses none of them.
 * Its work after the set-up is one blocking read(2) loop on a signalfd.
 */
#include "config.h"

#include "pidns.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "launch.h"
#include "syscalls.h"

#ifndef CLONE_PIDFD
#define CLONE_PIDFD 0x00001000
#endif

/* The steps of the init's set-up, for its report and runx's message. */
enum init_step {
	STEP_NONE,
	STEP_SYNC,	/* reading the sync pipe */
	STEP_PDEATHSIG, /* prctl(PR_SET_PDEATHSIG) */
	STEP_ORPHAN,	/* runx died before the init was armed */
	STEP_SETSID,
	STEP_PRIVATE,  /* mount(2) MS_REC | MS_PRIVATE of / */
	STEP_PROC,     /* mount(2) of a new proc on /proc */
	STEP_SIGNALFD, /* the init's signalfd */
	STEP_LAUNCH,   /* the backend inside the namespace */
	STEP_EXEC,     /* execve(2) of the command: 126/127 */
};

/* The init's report to runx once the command runs, or why not. */
struct init_report {
	int step;  /* STEP_NONE when the command runs */
	int err;   /* errno of the failed step */
	pid_t pid; /* the command's pid in the namespace */
};

/* Reads a small decimal sysctl file into *value; false if unreadable. */
static bool read_sysctl(const char *path, long *value)
{
	char buf[32];
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return false;
	ssize_t n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return false;
	buf[n] = '\0';
	char *end;
	*value = strtol(buf, &end, 10);
	return end != buf;
}

int runx_pidns_probe(bool new_user, char *err, size_t errsize)
{
	static const struct {
		const char *path;
		bool user_only;
	} knobs[] = {
	    {"/proc/sys/user/max_pid_namespaces", false},
	    {"/proc/sys/user/max_mnt_namespaces", false},
	    {"/proc/sys/user/max_user_namespaces", true},
	    {"/proc/sys/kernel/unprivileged_userns_clone", true},
	};

	for (size_t i = 0; i < sizeof(knobs) / sizeof(knobs[0]); i++) {
		long v;
		if (knobs[i].user_only && !new_user)
			continue;
		if (!read_sysctl(knobs[i].path, &v) || v != 0)
			continue;
		snprintf(
		    err, errsize,
		    "--kill-scope=pidns: %s namespaces are disabled here "
		    "(%s is 0); use --kill-scope=tree or --kill-scope=cgroup",
		    knobs[i].user_only ? "user" : "PID or mount",
		    knobs[i].path + strlen("/proc/sys/"));
		return -EPERM;
	}
	return 0;
}

/* close_range(2) of lo..hi (Linux 5.9), else one close(2) per fd. */
static void close_fds(unsigned int lo, unsigned int hi)
{
	struct rlimit rl;
	long max = 1024;

	if (lo > hi || runx_close_range(lo, hi, 0) == 0)
		return;
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY)
		max = (long)rl.rlim_cur;
	for (long fd = lo; fd <= (long)hi && fd < max; fd++)
		close((int)fd);
}

/* Closes every fd above 2 but keep1 and keep2 (both above 2). */
static void close_all_but(int keep1, int keep2)
{
	unsigned int lo = (unsigned)(keep1 < keep2 ? keep1 : keep2);
	unsigned int hi = (unsigned)(keep1 < keep2 ? keep2 : keep1);

	if (lo > 3)
		close_fds(3, lo - 1);
	if (hi > lo + 1)
		close_fds(lo + 1, hi - 1);
	close_fds(hi + 1, ~0U);
}

/*
 * The init, first: PR_SET_PDEATHSIG SIGKILL, then wait until runx wrote
 * the id maps.  A runx that died before the prctl is seen as EOF on the
 * sync socket, or as POLLHUP after its byte (runx closes its end only
 * once the init has reported): getppid(2) cannot tell, it is 0 in the
 * namespace whoever the parent is.
 */
static int init_wait_for_runx(int sync)
{
	struct pollfd p = {.fd = sync, .events = POLLIN};
	char go;
	ssize_t n;

	if (prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0) < 0)
		return STEP_PDEATHSIG;
	do
		n = read(sync, &go, 1);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return STEP_SYNC;
	if (n == 0 || (poll(&p, 1, 0) == 1 && (p.revents & POLLHUP))) {
		errno = ESRCH;
		return STEP_ORPHAN;
	}
	return STEP_NONE;
}

/*
 * The init's namespace: a session of its own (no terminal, so a Ctrl-C
 * reaches runx only, which forwards it once), mounts private so nothing
 * propagates back to runx's mount namespace, and a /proc that lists only
 * the job (mount(2), proc(5)).
 */
static int init_namespace(void)
{
	if (setsid() < 0)
		return STEP_SETSID;
	if (mount("none", "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0)
		return STEP_PRIVATE;
	if (mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC,
		  NULL) < 0)
		return STEP_PROC;
	return STEP_NONE;
}

/*
 * The init's signalfd: every signal runx blocked for itself (the signals
 * it forwards, and SIGCHLD) but SIGPIPE, which stays blocked and unread.
 */
static int init_signalfd(void)
{
	sigset_t set;

	if (sigprocmask(SIG_BLOCK, NULL, &set) < 0)
		return -1;
	sigdelset(&set, SIGPIPE);
	sigaddset(&set, SIGCHLD);
	return signalfd(-1, &set, SFD_CLOEXEC);
}

/* Reaps every child; true when none is left (ECHILD: the ns is empty). */
static bool init_reap(pid_t command, bool *ended, struct runx_pidns_status *st)
{
	struct rusage ru;
	int status;
	pid_t pid;

	while ((pid = wait4(-1, &status, WNOHANG, &ru)) > 0)
		if (pid == command) {
			*ended = true;
			st->wait_status = status;
			st->rusage = ru;
		}
	return pid < 0 && errno == ECHILD;
}

/*
 * The init's life once the command runs: forwards to every process of the
 * namespace each signal that came from outside it (ssi_pid 0: runx, or the
 * kernel; a process inside signalling PID 1 is ignored, as the kernel
 * ignores it for an init without handlers), reaps every orphan, tells runx
 * how the command ended, and exits once it ended and nothing is left.
 */
static void __attribute__((noreturn))
init_loop(int sigfd, int status_fd, pid_t command)
{
	struct runx_pidns_status st;
	bool ended = false, told = false;

	memset(&st, 0, sizeof(st));
	for (;;) {
		struct signalfd_siginfo si;
		ssize_t n = read(sigfd, &si, sizeof(si));

		if (n < 0 && errno == EINTR)
			continue;
		if (n != (ssize_t)sizeof(si)) {
			kill(-1, SIGKILL); /* cannot go on: end the job */
			_exit(125);
		}
		if (si.ssi_signo != SIGCHLD) {
			if (si.ssi_pid == 0)
				kill(-1, (int)si.ssi_signo);
			continue;
		}
		bool empty = init_reap(command, &ended, &st);
		if (ended && !told) {
			st.alone = empty;
			(void)!write(status_fd, &st, sizeof(st));
			told = true;
		}
		if (ended && empty)
			_exit(0);
	}
}

/* The init: set-up, the command, the report to runx, then the loop. */
static void __attribute__((noreturn))
init_main(const struct runx_launch_request *req, int sync)
{
	struct init_report rep = {STEP_NONE, 0, 0};
	struct runx_launch_request inner = *req;
	struct runx_launched cmd;
	int sigfd = -1;

	rep.step = init_wait_for_runx(sync);
	if (rep.step == STEP_NONE)
		rep.step = init_namespace();
	if (rep.step == STEP_NONE && (sigfd = init_signalfd()) < 0)
		rep.step = STEP_SIGNALFD;
	rep.err = errno;
	if (rep.step == STEP_NONE) {
		inner.pidns = false;
		inner.parent = getpid(); /* 1 */
		int r = runx_launch(&inner, &cmd);
		rep.step = r < 0		 ? STEP_LAUNCH
			   : cmd.exec_errno != 0 ? STEP_EXEC
						 : STEP_NONE;
		rep.err = r < 0 ? -r : cmd.exec_errno;
		rep.pid = cmd.pid;
	}
	(void)!write(sync, &rep, sizeof(rep));
	if (rep.step != STEP_NONE)
		_exit(127);
	close_all_but(sigfd, req->pidns_status_fd);
	init_loop(sigfd, req->pidns_status_fd, cmd.pid);
}

/*
 * clone3(2) with the namespace flags (Linux 5.3), or clone(2) where it is
 * missing or hidden by a seccomp filter (ENOSYS); *pidfd gets the
 * CLONE_PIDFD fd (Linux 5.2).  Returns the pid (0 in the child) or -1.
 */
static pid_t clone_init(uint64_t flags, int *pidfd)
{
	struct runx_clone_args args;

	memset(&args, 0, sizeof(args));
	args.flags = flags | CLONE_PIDFD;
	args.pidfd = (uint64_t)(uintptr_t)pidfd;
	args.exit_signal = SIGCHLD;
	pid_t pid = (pid_t)runx_clone3(&args);
#ifndef __s390__ /* there clone(2) takes the stack first */
	if (pid < 0 && errno == ENOSYS)
		pid = (pid_t)syscall(
		    SYS_clone, (unsigned long)flags | CLONE_PIDFD | SIGCHLD,
		    NULL, pidfd, NULL, 0);
#endif
	return pid;
}

/* Writes text to /proc/PID/name; 0 or -errno. */
static int write_proc(pid_t pid, const char *name, const char *text)
{
	char path[64];
	size_t len = strlen(text);

	snprintf(path, sizeof(path), "/proc/%d/%s", (int)pid, name);
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	ssize_t n = write(fd, text, len);
	int r = n == (ssize_t)len ? 0 : n < 0 ? -errno : -EIO;
	close(fd);
	return r;
}

/*
 * The init's user namespace maps runx's own effective uid and gid, not
 * root (user_namespaces(7): an unprivileged writer may map its own ids,
 * once "deny" is in setgroups, Linux 3.19).  0 or -errno.
 */
static int write_id_maps(pid_t pid)
{
	char map[64];
	int r = write_proc(pid, "setgroups", "deny");

	if (r == -ENOENT)
		r = 0; /* before Linux 3.19 */
	if (r == 0) {
		snprintf(map, sizeof(map), "%u %u 1\n", (unsigned)geteuid(),
			 (unsigned)geteuid());
		r = write_proc(pid, "uid_map", map);
	}
	if (r == 0) {
		snprintf(map, sizeof(map), "%u %u 1\n", (unsigned)getegid(),
			 (unsigned)getegid());
		r = write_proc(pid, "gid_map", map);
	}
	return r;
}

/* Why clone(2) refused the namespaces, for the message. */
static const char *clone_hint(int err)
{
	switch (err) {
	case EPERM:
		return "no privilege for them here: no CAP_SYS_ADMIN (a "
		       "container), a seccomp filter, or a security module "
		       "that restricts user namespaces";
	case EINVAL:
		return "this kernel lacks PID, mount or user namespaces";
	case ENOSPC:
	case EUSERS:
		return "the limit on nested or per-user namespaces is reached";
	case ENOSYS:
		return "clone3 and clone are filtered here";
	default:
		return "clone failed";
	}
}

/* The message for a set-up step of the init that failed. */
static void explain_step(int step, int err, struct runx_launched *out)
{
	static const char *const what[] = {
	    [STEP_SYNC] = "the namespace's init lost its sync pipe",
	    [STEP_PDEATHSIG] = "cannot set PR_SET_PDEATHSIG in the init",
	    [STEP_ORPHAN] = "runx died while starting the init",
	    [STEP_SETSID] = "cannot start a session for the init",
	    [STEP_PRIVATE] = "cannot make the mounts private in the new "
			     "mount namespace",
	    [STEP_PROC] = "cannot mount a new /proc in the PID namespace "
			  "(a /proc with masked parts, as in many "
			  "containers, prevents it)",
	    [STEP_SIGNALFD] = "cannot make the init's signalfd",
	    [STEP_LAUNCH] = "cannot start the command inside the PID "
			    "namespace",
	};
	const char *text =
	    step > 0 && step < STEP_EXEC ? what[step] : "the init failed";

	snprintf(out->why, sizeof(out->why),
		 "--kill-scope=pidns: %s: %s; use --kill-scope=tree or "
		 "--kill-scope=cgroup",
		 text, strerror(err));
}

/* Kills and reaps an init that will not run the command. */
static void discard_init(pid_t pid, int pidfd)
{
	if (pidfd >= 0) {
		runx_pidfd_send_signal(pidfd, SIGKILL);
		close(pidfd);
	}
	while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
		;
}

/* runx's side after the clone: maps, go, and the init's report. */
static int handshake(const struct runx_launch_request *req, pid_t pid, int sync,
		     struct init_report *rep)
{
	int r = req->pidns_new_user ? write_id_maps(pid) : 0;
	ssize_t n;

	if (r < 0)
		return r;
	if (write(sync, "g", 1) != 1)
		return -errno;
	do
		n = read(sync, rep, sizeof(*rep));
	while (n < 0 && errno == EINTR);
	if (n == (ssize_t)sizeof(*rep))
		return 0;
	rep->step = STEP_SYNC; /* the init died before it could report */
	rep->err = n < 0 ? errno : ECHILD;
	return 0;
}

/* Turns the init's report into runx_pidns_launch()'s result. */
static int conclude(const struct init_report *rep, pid_t pid, int pidfd,
		    struct runx_launched *out)
{
	if (rep->step == STEP_NONE) {
		out->pid = pid;
		out->pidfd = pidfd;
		out->ns_pid = rep->pid;
		return 0;
	}
	discard_init(pid, pidfd);
	if (rep->step == STEP_EXEC) {
		out->exec_errno = rep->err != 0 ? rep->err : ENOEXEC;
		return 0;
	}
	explain_step(rep->step, rep->err, out);
	return -(rep->err != 0 ? rep->err : EINVAL);
}

int runx_pidns_launch(const struct runx_launch_request *req,
		      struct runx_launched *out)
{
	uint64_t flags = CLONE_NEWPID | CLONE_NEWNS;
	struct init_report rep = {STEP_NONE, 0, 0};
	int sync[2], pidfd = -1;

	if (req->pidns_new_user)
		flags |= CLONE_NEWUSER;
	/* one socket pair, both ways: 4 fds at most with the map and the
	 * pidfd, what main.c proves free before the launch */
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sync) < 0)
		return -errno;
	pid_t pid = clone_init(flags, &pidfd);
	if (pid == 0) {
		close(sync[0]);
		init_main(req, sync[1]);
	}
	int e = errno;
	close(sync[1]);
	int r = pid < 0 ? -e : handshake(req, pid, sync[0], &rep);
	close(sync[0]);
	if (pid < 0) {
		snprintf(out->why, sizeof(out->why),
			 "--kill-scope=pidns: cannot make the namespaces (%s): "
			 "%s; use --kill-scope=tree or --kill-scope=cgroup",
			 strerror(e), clone_hint(e));
		return r;
	}
	if (r < 0) {
		discard_init(pid, pidfd);
		snprintf(
		    out->why, sizeof(out->why),
		    "--kill-scope=pidns: cannot map the user namespace's "
		    "ids: %s; use --kill-scope=tree or --kill-scope=cgroup",
		    strerror(-r));
		return r;
	}
	return conclude(&rep, pid, pidfd, out);
}
