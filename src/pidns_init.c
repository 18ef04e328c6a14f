/*
 * The init of --kill-scope=pidns: PID 1 of the job's namespace, runx's
 * own code in the clone(2) that pidns.c makes.  It waits for runx, makes
 * its namespace private with a /proc of its own, starts the command with
 * the chosen backend (launch.h), then forwards signals from outside to the
 * whole namespace, reaps, and tells runx how the command ended.
 */
#include "config.h"

#include "pidns_init.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
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
#include "sigmask.h"
#include "syscalls.h"

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
 * The init's signalfd: every signal, all blocked.  A namespace's init
 * gets a signal from outside only if it has a handler or the signal is
 * blocked (a blocked signal is never ignored, kernel/signal.c sig_ignored;
 * pid_namespaces(7)): so whatever -s names (ABRT, SEGV, XCPU, ...) reaches
 * the init, and through it the job.  The command gets runx's original mask
 * back from the launch.
 */
static int init_signalfd(void)
{
	sigset_t set;

	/* all 64, the C library's reserved real-time signals too (its
	 * sigfillset() leaves them out): forwarded into the namespace */
	sigemptyset(&set);
	for (int sig = 1; sig <= RUNX_KERNEL_SIGRTMAX; sig++)
		if (sig != SIGKILL && sig != SIGSTOP)
			runx_sigset_add_raw(&set, sig);
	if (runx_sigmask_raw(SIG_BLOCK, &set, NULL) < 0)
		return -1;
	return signalfd(-1, &set, SFD_CLOEXEC);
}

/*
 * What the init does with a signal from outside the namespace (ssi_pid
 * 0: runx, or the kernel): sends it to every process of the namespace
 * (kill(2) of -1 from PID 1 reaches all but itself).  SIGTSTP, SIGTTIN and
 * SIGTTOU stand for runx's "stop the job" (job control): a SIGSTOP from
 * outside would stop the init alone, so the init sends SIGSTOP to the
 * namespace itself.
 */
static void init_forward(int sig)
{
	if (sig == SIGTSTP || sig == SIGTTIN || sig == SIGTTOU)
		sig = SIGSTOP;
	kill(-1, sig);
}
/*
 * Tells runx how the command ended, once: st->alone says whether the init
 * has no other child left (waitid(2) with WNOWAIT: zombies count), in which
 * case the init exits next; else leftovers run on (scope_pidns.c).
 */
static void tell(int status_fd, struct runx_pidns_status *st, bool *told)
{
	siginfo_t si;

	if (*told)
		return;
	st->alone = waitid(P_ALL, 0, &si, WEXITED | WNOHANG | WNOWAIT) < 0 &&
		    errno == ECHILD;
	(void)!write(status_fd, st, sizeof(*st));
	*told = true;
}

/*
 * Reaps the command if it ended (waitpid(2) of its pid first: runx learns
 * its status before the init reaps the rest, which can take seconds when
 * thousands die at once), then every other child.  Tells runx once, as soon
 * as the command's status is known (tell()).  True when no child is left
 * (ECHILD: the namespace is empty).
 */
static bool init_reap(pid_t command, bool *ended, struct runx_pidns_status *st,
		      int status_fd, bool *told)
{
	int status;
	pid_t pid;

	if (!*ended && waitpid(command, &status, WNOHANG) == command) {
		*ended = true;
		st->wait_status = status;
	}
	if (*ended)
		tell(status_fd, st, told);
	while ((pid = waitpid(-1, &status, WNOHANG)) > 0)
		if (pid == command) {
			*ended = true;
			st->wait_status = status;
			tell(status_fd, st, told);
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
				init_forward((int)si.ssi_signo);
			continue;
		}
		bool empty = init_reap(command, &ended, &st, status_fd, &told);
		if (ended && empty)
			_exit(0);
	}
}
/*
 * Writes rep on sync with pidfd, the command's, attached (SCM_RIGHTS,
 * unix(7)) unless it is -1: runx learns the command's status from it if
 * the init dies before it reaped the command (pidns.h).
 */
static void send_report(int sync, struct init_report *rep, int pidfd)
{
	struct init_report_msg f;

	init_report_msg(&f, rep);
	if (pidfd >= 0) {
		struct cmsghdr *h = CMSG_FIRSTHDR(&f.m);
		h->cmsg_level = SOL_SOCKET;
		h->cmsg_type = SCM_RIGHTS;
		h->cmsg_len = CMSG_LEN(sizeof(int));
		memcpy(CMSG_DATA(h), &pidfd, sizeof(int));
	} else {
		f.m.msg_control = NULL;
		f.m.msg_controllen = 0;
	}
	while (sendmsg(sync, &f.m, MSG_NOSIGNAL) < 0 && errno == EINTR)
		;
}

/*
 * The command's pid in runx's pid namespace: the "Pid:" line of its
 * pidfd's fdinfo, read through runx's /proc (outer_proc, opened before the
 * init mounted its own), which gives the pid in the pid namespace of that
 * proc mount (fs/pidfs.c, pidfd_show_fdinfo()).  Read before the init can
 * reap the command, so that it is there even when it has exited already
 * (a zombie keeps its pid).  0 where it cannot be read.
 */
static pid_t outer_pid(int outer_proc, int pidfd)
{
	char path[64], buf[512], *p;

	if (outer_proc < 0 || pidfd < 0)
		return 0;
	snprintf(path, sizeof(path), "self/fdinfo/%d", pidfd);
	int fd = openat(outer_proc, path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	ssize_t n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return 0;
	buf[n] = '\0';
	if ((p = strstr(buf, "\nPid:")) == NULL)
		return 0;
	long v = strtol(p + 5, NULL, 10);
	return v > 0 && v <= INT_MAX ? (pid_t)v : 0;
}

/* The init: set-up, the command, the report to runx, then the loop. */
void runx_pidns_init_main(const struct runx_launch_request *req, int status_fd,
			  int sync)
{
	struct init_report rep = {.step = STEP_NONE};
	struct runx_launch_request inner = *req;
	struct runx_launched cmd;
	int sigfd = -1, outer_proc = -1;

	rep.step = init_wait_for_runx(sync);
	/* runx's /proc, before the namespace's own covers it (outer_pid()) */
	if (rep.step == STEP_NONE)
		outer_proc = open("/proc", O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (rep.step == STEP_NONE)
		rep.step = init_namespace();
	if (rep.step == STEP_NONE && (sigfd = init_signalfd()) < 0)
		rep.step = STEP_SIGNALFD;
	rep.err = errno;
	if (rep.step == STEP_NONE) {
		inner.parent = getpid(); /* 1 */
		int r = runx_launch(&inner, &cmd);
		/* out of fds, nothing started: the one outer_pid() holds was
		 * the one too many (runx proves free only what it needs) */
		if ((r == -EMFILE || r == -ENFILE) && cmd.pid == 0 &&
		    outer_proc >= 0) {
			close(outer_proc);
			outer_proc = -1;
			r = runx_launch(&inner, &cmd);
		}
		rep.step = r < 0		 ? STEP_LAUNCH
			   : cmd.exec_errno != 0 ? STEP_EXEC
						 : STEP_NONE;
		rep.err = r < 0 ? -r : cmd.exec_errno;
		rep.pid = cmd.pid;
		if (rep.step == STEP_NONE)
			rep.outer_pid = outer_pid(outer_proc, cmd.pidfd);
		memcpy(rep.why, cmd.why, sizeof(rep.why) - 1);
	}
	send_report(sync, &rep, rep.step == STEP_NONE ? cmd.pidfd : -1);
	if (rep.step != STEP_NONE)
		_exit(127);
	close_all_but(sigfd, status_fd);
	init_loop(sigfd, status_fd, cmd.pid);
}
