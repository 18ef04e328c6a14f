/*
 * The PID namespace of --kill-scope=pidns: making it, runx's side of the
 * launch.  Its init (PID 1 inside, the same binary after clone(2)) is
 * pidns_init.c.
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
#include "pidns_init.h"
#include "syscalls.h"

#ifndef CLONE_PIDFD
#define CLONE_PIDFD 0x00001000
#endif

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

/*
 * Reads the init's report from sync, and into *pidfd the command's pidfd
 * the init attached (SCM_RIGHTS, made O_CLOEXEC), or -1: none sent, or
 * runx out of fds (the kernel drops it: MSG_CTRUNC).  The report's size,
 * or -1 with errno.
 */
static ssize_t receive_report(int sync, struct init_report *rep, int *pidfd)
{
	struct init_report_msg f;
	ssize_t n;

	*pidfd = -1;
	do {
		init_report_msg(&f, rep);
		n = recvmsg(sync, &f.m, MSG_CMSG_CLOEXEC);
	} while (n < 0 && errno == EINTR);
	if (n < 0)
		return n;
	struct cmsghdr *h = CMSG_FIRSTHDR(&f.m);
	if (h != NULL && h->cmsg_level == SOL_SOCKET &&
	    h->cmsg_type == SCM_RIGHTS && h->cmsg_len == CMSG_LEN(sizeof(int)))
		memcpy(pidfd, CMSG_DATA(h), sizeof(int));
	return n;
}

/* runx's side after the clone: maps, go, and the init's report. */
static int handshake(bool new_user, pid_t pid, int sync,
		     struct init_report *rep, int *cmd_pidfd)
{
	int r = new_user ? write_id_maps(pid) : 0;
	ssize_t n;

	if (r < 0)
		return r;
	if (write(sync, "g", 1) != 1)
		return -errno;
	n = receive_report(sync, rep, cmd_pidfd);
	if (n == (ssize_t)sizeof(*rep))
		return 0;
	if (*cmd_pidfd >= 0)
		close(*cmd_pidfd);
	*cmd_pidfd = -1;
	rep->step = STEP_SYNC; /* the init died before it could report */
	rep->err = n < 0 ? errno : ECHILD;
	return 0;
}

/* Turns the init's report into runx_pidns_launch()'s result. */
static int conclude(const struct init_report *rep, pid_t pid, int pidfd,
		    struct runx_launched *out)
{
	/* a step before the command's launch: the scope itself failed */
	out->scope_failed = rep->step != STEP_NONE && rep->step != STEP_EXEC &&
			    rep->step != STEP_LAUNCH;
	if (rep->step == STEP_NONE) {
		out->pid = pid;
		out->pidfd = pidfd;
		out->ns_pid = rep->pid;
		out->outer_pid = rep->outer_pid;
		return 0;
	}
	discard_init(pid, pidfd);
	if (rep->step == STEP_EXEC) {
		out->exec_errno = rep->err != 0 ? rep->err : ENOEXEC;
		return 0;
	}
	if (rep->step == STEP_LAUNCH && rep->why[0] != '\0')
		snprintf(out->why, sizeof(out->why), "%s", rep->why);
	else
		explain_step(rep->step, rep->err, out);
	return -(rep->err != 0 ? rep->err : EINVAL);
}

/* The init's clone failed with errno e: out's message; -e. */
static int clone_failed(int e, struct runx_launched *out)
{
	if (e == EAGAIN || e == ENOMEM) {
		/* no process could be made (RLIMIT_NPROC, pids.max,
		 * threads-max): the launch failed, as in any scope */
		out->scope_failed = false;
		snprintf(out->why, sizeof(out->why),
			 "cannot start the PID namespace's init: %s",
			 strerror(e));
	} else {
		snprintf(out->why, sizeof(out->why),
			 "--kill-scope=pidns: cannot make the namespaces (%s): "
			 "%s; use --kill-scope=tree or --kill-scope=cgroup",
			 strerror(e), clone_hint(e));
	}
	return -e;
}

int runx_pidns_launch(const struct runx_launch_request *req, bool new_user,
		      int status_fd, struct runx_launched *out, int *cmd_pidfd)
{
	uint64_t flags = CLONE_NEWPID | CLONE_NEWNS;
	struct init_report rep = {.step = STEP_NONE};
	int sync[2], pidfd = -1;

	*cmd_pidfd = -1;
	out->pid = 0;
	out->pidfd = -1;
	out->exec_errno = 0;
	out->ns_pid = 0;
	out->outer_pid = 0;
	out->why[0] = '\0';
	out->scope_failed = true; /* until the init reports */
	if (new_user)
		flags |= CLONE_NEWUSER;
	/* one socket pair, both ways: 4 fds at most with the map and the
	 * pidfd, what main.c proves free before the launch */
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sync) < 0)
		return -errno;
	pid_t pid = clone_init(flags, &pidfd);
	if (pid == 0) {
		close(sync[0]);
		runx_pidns_init_main(req, status_fd, sync[1]);
	}
	int e = errno;
	close(sync[1]);
	int r =
	    pid < 0 ? -e : handshake(new_user, pid, sync[0], &rep, cmd_pidfd);
	close(sync[0]);
	if (pid < 0)
		return clone_failed(e, out);
	if (r < 0) {
		discard_init(pid, pidfd);
		snprintf(
		    out->why, sizeof(out->why),
		    "--kill-scope=pidns: cannot map the user namespace's "
		    "ids: %s; use --kill-scope=tree or --kill-scope=cgroup",
		    strerror(-r));
		return r;
	}
	if (rep.step != STEP_NONE && *cmd_pidfd >= 0) {
		close(*cmd_pidfd);
		*cmd_pidfd = -1;
	}
	return conclude(&rep, pid, pidfd, out);
}
