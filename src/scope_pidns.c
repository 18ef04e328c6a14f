/*
 * --kill-scope=pidns: the command runs in a new PID namespace under runx's
 * init (pidns.c), which is runx's direct child.  Every signal goes to the
 * init through its pidfd, and the init sends it on to every process of
 * the namespace (kill(2) of -1 from PID 1); the SIGKILL goes to the init
 * itself: when a namespace's init dies, the kernel SIGKILLs every process
 * in it and the init is a zombie only once they are all gone
 * (pid_namespaces(7); zap_pid_ns_processes() in kernel/pid_namespace.c).
 * So the scope is empty exactly when the init has exited, and nothing
 * needs a /proc scan to be safe: the census reads the namespace's own
 * /proc (through /proc/INIT/root/proc) only to count, for -v and --report.
 *
 * Who stops leftovers: runx, as for every scope.  The init tells runx on
 * the status pipe when the command was reaped and whether anything else
 * is left; runx then stops the rest (first signal, grace, SIGKILL to the
 * init), so the deadline, --wait-all and the stop signals behave as in
 * the other scopes.
 */
#include "config.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "clock.h"
#include "log.h"
#include "pidns.h"
#include "proc.h"
#include "scope_impl.h"
#include "signals.h"
#include "syscalls.h"

/* The scope's own state (struct runx_scope.priv). */
struct runx_pidns {
	bool new_user; /* a user namespace too (runx is not root) */
	int status_rd; /* status pipe, read end (O_NONBLOCK), or -1 */
	int status_wr; /* write end, for the init only; -1 after launch */
	bool have;     /* status read */
	bool eof;      /* the init closed the pipe (or status read) */
	struct runx_pidns_status status;
	int command_pidfd; /* the command's, from the init (pidns.h), or -1 */
	struct runx_pass_mark pass; /* when the first signal, or the last
				     * newcomer pass, began (pid 0: none):
				     * only the pids allocated since can be
				     * newcomers */
};

/* The pidns state of s. */
#define NS(s) ((struct runx_pidns *)(s)->priv)

/* capget(2)'s structures (<linux/capability.h>, which musl lacks). */
struct cap_header {
	uint32_t version; /* _LINUX_CAPABILITY_VERSION_3 */
	int pid;
};
struct cap_data {
	uint32_t effective, permitted, inheritable;
};
#define CAP_VERSION_3	  0x20080522
#define CAP_SYS_ADMIN_BIT 21 /* capabilities(7) */

/* True if runx has CAP_SYS_ADMIN (capget(2)): needed without a userns. */
static bool have_sys_admin(void)
{
	struct cap_header hdr = {CAP_VERSION_3, 0};
	struct cap_data data[2];

	memset(data, 0, sizeof(data));
	if (syscall(SYS_capget, &hdr, data) < 0)
		return false;
	return (data[0].effective & (1U << CAP_SYS_ADMIN_BIT)) != 0;
}

/*
 * Checks that the namespaces can be made and opens the status pipe
 * (O_NONBLOCK: runx only reads it when poll(2) says so).  Without
 * CAP_SYS_ADMIN (not root, or root in a container without it) the init
 * gets a user namespace too.
 */
static int pidns_prepare(struct runx_scope *s,
			 const struct runx_cgroup_limits *limits, char *err,
			 size_t errsize)
{
	struct runx_pidns *ns = calloc(1, sizeof(*ns));
	int fds[2];

	(void)limits;
	if (ns == NULL)
		return -ENOMEM;
	ns->status_rd = ns->status_wr = ns->command_pidfd = -1;
	s->priv = ns;
	ns->new_user = geteuid() != 0 || !have_sys_admin();
	int r = runx_pidns_probe(ns->new_user, err, errsize);
	if (r < 0)
		return r;
	if (pipe2(fds, O_CLOEXEC | O_NONBLOCK) < 0) {
		r = -errno;
		snprintf(err, errsize, "cannot make the init's status pipe: %s",
			 strerror(-r));
		return r;
	}
	ns->status_rd = fds[0];
	ns->status_wr = fds[1];
	return 0;
}

/* The launch is over: only the init keeps the status pipe's write end. */
static void pidns_adopted(struct runx_scope *s)
{
	if (NS(s)->status_wr >= 0)
		close(NS(s)->status_wr);
	NS(s)->status_wr = -1;
}

/* The command under runx's init, in a new PID namespace (pidns.h). */
static int pidns_launch(struct runx_scope *s, struct runx_launch_request *req,
			struct runx_launched *out)
{
	if (NS(s)->command_pidfd >= 0) /* an earlier launch's */
		close(NS(s)->command_pidfd);
	return runx_pidns_launch(req, NS(s)->new_user, NS(s)->status_wr, out,
				 &NS(s)->command_pidfd);
}

/*
 * The command: the init's only child, on runx's side of the namespace; 0
 * once it is reaped.  Its pidfd, from the init, tells (PIDFD_GET_INFO,
 * Linux 6.13: ESRCH once reaped); where it cannot, the init's first child
 * in /proc, if /proc is runx's namespace's, which may be a leftover once
 * the command is gone.
 */
static pid_t pidns_command_pid(const struct runx_scope *s)
{
	pid_t cmd = 0;

	if (NS(s)->command_pidfd >= 0) {
		if (runx_pidfd_pid(NS(s)->command_pidfd, &cmd) == 0)
			return cmd > 0 ? cmd : 0;
		if (errno == ESRCH)
			return 0;
	}
	cmd = s->proc_trusted ? runx_proc_first_child(s->child) : 0;
	return cmd > 0 ? cmd : 0;
}

/* The command's pidfd, from the init (owned by the scope), or -1. */
static int pidns_command_pidfd(const struct runx_scope *s)
{
	return NS(s)->command_pidfd;
}

/*
 * True if the /proc/PID/stat below procfd shows a live process: not X,
 * nor Z unless other threads of it run (a leader that called
 * pthread_exit(3) shows Z until they end; as runx_proc_is_dead(), with
 * the namespace's /proc); with running, not exiting either
 * (runx_proc_is_exiting(): PF_EXITING, PF_SIGNALED or a pending SIGKILL
 * on its only thread).  A stat that cannot be
 * read but for a process gone, or parsed, counts as alive.
 */
static bool member_alive(int procfd, const char *pid, bool running)
{
	char path[300], buf[1024];
	struct runx_proc_stat st;

	snprintf(path, sizeof(path), "%s/stat", pid);
	int fd = openat(procfd, path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return errno != ENOENT && errno != ESRCH; /* unknown: alive */
	ssize_t n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return false;
	buf[n] = '\0';
	if (runx_proc_parse_stat(buf, atoi(pid), &st) < 0)
		return true;
	return running ? !runx_proc_is_exiting_in(procfd, &st)
		       : !runx_proc_is_dead_in(procfd, &st);
}

/*
 * The live processes of the namespace but its init, from the namespace's
 * own /proc as the init's mount namespace shows it (/proc/PID/root, a
 * ptrace-read check that runx passes for its own child; proc(5)); with
 * running, those not exiting (member_alive()).  Returns the count, or
 * -errno (out of fds): only a count, never a proof.
 */
static int count_members(pid_t init, bool running)
{
	char path[64];
	struct dirent *e;
	int n = 0;

	snprintf(path, sizeof(path), "/proc/%d/root/proc", (int)init);
	int dfd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0)
		return -errno;
	DIR *dir = fdopendir(dfd);
	if (dir == NULL) {
		int r = -errno;
		close(dfd);
		return r;
	}
	while ((e = readdir(dir)) != NULL)
		if (isdigit((unsigned char)e->d_name[0]) &&
		    strcmp(e->d_name, "1") != 0 &&
		    member_alive(dfd, e->d_name, running))
			n++;
	closedir(dir);
	return n;
}

/* sig to the init, which sends it to the whole namespace. */
static int pidns_signal(struct runx_scope *s, int sig, bool count)
{
	int n = 1;

	if (count) {
		struct runx_census c = {.want_count = true};
		runx_scope_census(s, &c);
		n = c.count > 0 ? c.count : 1;
	}
	/* the init turns SIGTSTP into SIGSTOP for the namespace; a SIGSTOP
	 * from here would stop the init alone (pidns_init.c) */
	int r = runx_scope_signal_child(s, sig == SIGSTOP ? SIGTSTP : sig);
	return r <= 0 ? r : n;
}

struct pidns_newcomers {
	struct runx_scope *scope;
	char ns[64]; /* the init's /proc/PID/ns/pid link: "pid:[N]" */
	int sig;
	int reached;
	bool window; /* the pass reads a window (runx_parent_missed()) */
};

/* ioctl(2) on a namespace's fd: the fd of its parent namespace (Linux
 * 4.9, ioctl_ns(2); <linux/nsfs.h>, which musl lacks). */
#define NS_GET_PARENT _IO(0xb7, 0x2)

/* The deepest nesting of pid namespaces (MAX_PID_NS_LEVEL,
 * kernel/pid_namespace.c). */
#define PID_NS_LEVELS 32

/* The link at path (a /proc/PID/ns/pid: "pid:[INODE]") into link, NUL
 * ended (size bytes); false if it cannot be read (gone). */
static bool read_ns_link(const char *path, char *link, size_t size)
{
	ssize_t n = readlink(path, link, size - 1);

	if (n <= 0)
		return false;
	link[n] = '\0';
	return true;
}

/*
 * True if pid's pid namespace (its /proc/PID/ns/pid link) is the one
 * whose link ns is ("pid:[INODE]"), or a namespace nested in it: a job
 * may make PID namespaces of its own (unshare --pid), and their
 * processes are the job's too (the init's kill(2) of -1 reaches them).
 * A link other than ns and runx's own is followed up through its parents
 * (NS_GET_PARENT, ioctl_ns(2); it fails at the namespace of /proc's
 * reader, runx's) comparing inode numbers: two fds at most, for a
 * moment.  False where that cannot be read (gone, out of fds).
 */
static bool in_namespace(pid_t pid, const char *ns)
{
	static char own[64]; /* runx's own link: no process there is one */
	char path[64], link[64];

	snprintf(path, sizeof(path), "/proc/%d/ns/pid", (int)pid);
	if (!read_ns_link(path, link, sizeof(link)))
		return false;
	if (strcmp(link, ns) == 0)
		return true;
	if (own[0] == '\0') /* unread: stays empty, matching no link */
		(void)read_ns_link("/proc/self/ns/pid", own, sizeof(own));
	if (strcmp(link, own) == 0)
		return false;
	const char *ino = strchr(ns, '[');
	unsigned long long want = ino != NULL ? strtoull(ino + 1, NULL, 10) : 0;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	bool found = false;
	struct stat st;
	for (int i = 0; fd >= 0 && !found && i < PID_NS_LEVELS; i++) {
		found = fstat(fd, &st) == 0 &&
			(unsigned long long)st.st_ino == want;
		int parent = found ? -1 : ioctl(fd, NS_GET_PARENT);
		close(fd);
		fd = parent;
	}
	if (fd >= 0)
		close(fd);
	return found;
}

/* runx_reach_late()'s member check: st is in the namespace ns (arg). */
static bool of_namespace(const struct runx_proc_stat *st, void *arg)
{
	return in_namespace(st->pid, arg);
}

/*
 * Signals a process of the namespace (not the init) that started no
 * earlier than the tick of the first signal and that no newcomer pass
 * reached yet: a process forked while kill(2) of -1 went through the
 * namespace, or later by a TERM handler, which the forwarded signal
 * missed (one started in that very tick may get the signal twice), or
 * one that has execve'd since the signal reached it as a fork copy
 * (runx_reach_late()).
 */
static int signal_newcomer(const struct runx_proc_stat *st, void *arg)
{
	struct pidns_newcomers *g = arg;
	struct runx_scope *s = g->scope;

	if (st->pid == s->child || runx_proc_is_dead(st))
		return 0;
	if (g->window && runx_parent_missed(s, st, of_namespace, g->ns))
		return -EAGAIN; /* a walk of all of /proc reaches it first */
	int one = runx_reach_late(&s->reached, st, s->stop_tick, g->sig,
				  of_namespace, g->ns);
	if (one == -ENOMEM)
		return one;
	g->reached += one > 0;
	return 0;
}

/* The init's /proc/PID/ns/pid link ("pid:[N]") into ns; false if gone. */
static bool read_namespace(const struct runx_scope *s, char *ns, size_t size)
{
	char path[64];

	if (s->child_pidfd < 0)
		return false;
	snprintf(path, sizeof(path), "/proc/%d/ns/pid", (int)s->child);
	return read_ns_link(path, ns, size);
}

struct pidns_members {
	const struct runx_scope *scope;
	char ns[64]; /* the init's /proc/PID/ns/pid link */
	struct runx_census *c;
};

/* Counts and names one live process of the namespace but its init. */
static int list_member(const struct runx_proc_stat *st, void *arg)
{
	struct pidns_members *m = arg;

	if (st->pid != m->scope->child && !runx_proc_is_dead(st) &&
	    in_namespace(st->pid, m->ns))
		runx_census_found(m->c, st->pid);
	return 0;
}

/*
 * Names the namespace's processes by their pids in runx's namespace (a
 * walk of runx's /proc, /proc/PID/ns/pid against the init's) into *c,
 * for the lists of what is alive; false (c untouched) if none is found or
 * the walk fails.
 */
static bool name_members(const struct runx_scope *s, struct runx_census *c)
{
	struct runx_census found = *c;
	struct pidns_members m = {.scope = s, .c = &found};

	if (!s->proc_trusted || !read_namespace(s, m.ns, sizeof(m.ns)) ||
	    runx_proc_each(list_member, &m) < 0 || found.count == 0)
		return false;
	*c = found;
	return true;
}

/*
 * Alive while the init has not exited (its pidfd, WNOWAIT): the kernel
 * empties the namespace before the init can exit.  The count, when one is
 * wanted (c->want_count: -v, --report), is what the namespace's /proc
 * shows (at least 1 while the init lives); else 1, with no walk of the
 * namespace's /proc (it read the stat file of every member at each
 * census: at the command's exit, and every re-check of a stop); asked for
 * names (c->pids), the processes of the namespace are named, by their
 * pids out here, never the init (none found: c->unnamed).
 */
static void pidns_census(struct runx_scope *s, struct runx_census *c)
{
	if (!runx_scope_child_alive(s))
		return;
	if (c->pids != NULL && c->watch == NULL && name_members(s, c))
		return;
	if (c->pids != NULL && c->watch == NULL && s->proc_trusted) {
		/* none to name: the init's pid is never named (not the job's);
		 * what still runs in the namespace (a job whose pid hops, seen
		 * between two) is counted unnamed, what is exiting not at all
		 * (as for the other scopes' lists) */
		int n = count_members(s->child, true);
		c->count = n > 0 ? n : 0;
		c->unnamed = n > 0;
		return;
	}
	/* the init's pidfd wakes runx; its pid is never named */
	pid_t *pids = c->pids;
	c->pids = NULL;
	runx_census_found(c, s->child);
	c->pids = pids;
	c->unnamed = pids != NULL;
	if (!s->proc_trusted) {
		/* /proc/PID/root/proc is another process's: runx cannot see
		 * into the namespace (as the group scope, runx(1) BUGS) */
		c->count = 1;
		c->unnamed = true;
		return;
	}
	if (!c->want_count && c->pids == NULL) {
		c->count = 1; /* alive: the init is; no need to walk */
		return;
	}
	int n = count_members(s->child, false);
	c->count = n > 0 ? n : 1;
}

/* runx_copies' member check: st is of the namespace (arg), not its
 * init. */
static bool of_namespace_not_init(const struct runx_proc_stat *st, void *arg)
{
	struct pidns_newcomers *g = arg;

	return st->pid != g->scope->child && in_namespace(st->pid, g->ns);
}

/* Signals 1-64 pending for pid, process-wide or for its main thread
 * (/proc/PID/status ShdPnd and SigPnd, in hex), in *mask; false if it
 * cannot be read. */
static bool read_pending(pid_t pid, unsigned long long *mask)
{
	char text[4096];
	unsigned long long shd, pnd;

	if (runx_proc_status(pid, text, sizeof(text)) <= 0 ||
	    !runx_proc_status_number(text, "ShdPnd", 16, &shd) ||
	    !runx_proc_status_number(text, "SigPnd", 16, &pnd))
		return false;
	*mask = shd | pnd;
	return true;
}

/* How long pidns_wait_forward() waits for the init, in ns. */
#define FORWARD_WAIT_NS (100 * 1000 * 1000LL)

/*
 * Waits, up to FORWARD_WAIT_NS, until the init has forwarded sig: it has
 * taken sig from its signalfd (no longer pending) and is back asleep in
 * read(2) (state 'S'), which it reaches only after its kill(2) of -1
 * (pidns_init.c init_loop(); proc(5) for both files), or has exited (a
 * zombie, 'Z', until runx reaps it: it exits once the command ended and
 * nothing is left, as when sig killed all).  Polls every 50 us, for at
 * most FORWARD_WAIT_NS of CLOCK_MONOTONIC; says with -v when that ran
 * out (the init stopped from outside, or not given a CPU: then the count
 * that follows may find the job alive).
 */
static void pidns_wait_forward(pid_t init, int sig)
{
	char name[32];
	const struct timespec step = {0, 50 * 1000};
	unsigned long long pending, bit = 1ULL << (sig - 1);
	struct runx_proc_stat st;
	int64_t until = runx_now_ns() + FORWARD_WAIT_NS;

	for (;;) {
		if (!read_pending(init, &pending) ||
		    runx_proc_stat(init, &st) < 0)
			return;
		if ((pending & bit) == 0 && st.state == 'S')
			return;
		if (st.state == 'Z' || st.state == 'X')
			return; /* the init has exited: the namespace is
				 * gone or being killed (pid_namespaces(7)) */
		/* on the clock: a loaded machine's polls last longer than
		 * 50 us */
		if (runx_now_ns() >= until) {
			runx_verbose("the pid namespace's init did not forward "
				     "%s within %lld ms: going on",
				     runx_signal_name(sig, name, sizeof(name)),
				     FORWARD_WAIT_NS / 1000000);
			return;
		}
		nanosleep(&step, NULL);
	}
}

/*
 * The first signal of a stop and SIGCONT, through the init (which sends
 * each to the whole namespace with kill(2) of -1), remembering when, in
 * the boot clock ticks of /proc/PID/stat's start time, for newcomers().
 * The SIGCONT waits until the init has forwarded sig
 * (pidns_wait_forward()).  Where the command catches or ignores sig
 * (runx_proc_pid_may_divert()), the processes between fork(2) and execve(2)
 * are found before the signal (runx_copies_find()) and looked at again
 * once it is forwarded (runx_copies_note()); as in the group scope, else
 * that walk of every process is not worth its cost (it delays the signal
 * to all of them), and a copy of another process that catches sig is not
 * noted.
 */
static int pidns_stop_signal(struct runx_scope *s, int sig, bool count)
{
	struct pidns_newcomers g = {.scope = s, .sig = sig};
	struct runx_copies c = {
	    .scope = s, .sig = sig, .member = of_namespace_not_init, .arg = &g};
	bool wait = s->proc_trusted && sig != SIGKILL && sig != SIGCONT;
	bool copies = wait &&
		      runx_proc_pid_may_divert(pidns_command_pid(s), sig) &&
		      read_namespace(s, g.ns, sizeof(g.ns));

	NS(s)->pass.pid = 0;
	if (s->proc_trusted) /* the init's kill(2) of -1 reaches all */
		runx_pass_mark_take(&NS(s)->pass);
	s->stop_tick = runx_proc_uptime_ticks();
	if (copies)
		runx_copies_find(&c);
	int r = pidns_signal(s, sig, count);
	/* also without copies: a SIGKILL to the init right after (-k 0)
	 * could end it before it forwarded sig, and sig would reach none */
	if (r > 0 && wait)
		pidns_wait_forward(s->child, sig == SIGSTOP ? SIGTSTP : sig);
	if (r >= 0)
		runx_scope_signal_child(s, SIGCONT);
	if (copies)
		runx_copies_note(&c, r > 0);
	return r;
}

/*
 * The first signal and SIGCONT to processes born since it was sent,
 * oldest first (a parent before its children).  A process of the
 * namespace born since the pass before (or the first signal) has a pid
 * allocated since then: the kernel allocates upwards from the last one
 * (kernel/pid.c alloc_pid(), for runx's namespace too), and no process
 * joins a pid namespace after its birth (setns(2) moves only the
 * children to come).  So a pass reads only those pids, in the order they
 * were allocated (runx_proc_each_since()), where it can, and none found
 * has a parent it missed (runx_parent_missed()): with 10,000 processes
 * that die slowly, each pass read all 10,000 stat files, 50 ms of runx's
 * CPU time here.  Else, where the pass before failed, and
 * where runx_newcomer_pass_begin() says so (every second, and the last
 * pass before the SIGKILL), a walk of all of /proc, oldest first
 * (runx_proc_each_oldest_first()).
 */
static int pidns_newcomers(struct runx_scope *s, int sig, bool last)
{
	struct pidns_newcomers g = {.scope = s, .sig = sig};
	struct runx_newcomer_pass p = {signal_newcomer, NULL, NULL, &g,
				       &g.window};

	/* another namespace's /proc: /proc/PID/ns/pid of the init's pid is
	 * another process's, and would match processes outside the job */
	if (s->stop_tick == 0 || !s->proc_trusted ||
	    !read_namespace(s, g.ns, sizeof(g.ns)))
		return 0;
	int r = runx_newcomer_pass(s, &NS(s)->pass, last, &p);
	return r < 0 && g.reached == 0 ? r : g.reached;
}

/* SIGKILL to the init: the kernel SIGKILLs the rest of the namespace. */
static int pidns_kill(struct runx_scope *s)
{
	return runx_scope_signal_child(s, SIGKILL);
}

/* "pid namespace of init 1234" (the init's pid on runx's side). */
static void pidns_describe(const struct runx_scope *s, char *buf, size_t size)
{
	snprintf(buf, size, "pid namespace of init %d", (int)s->child);
}

/* Reads the init's status message if it is there (or the pipe's EOF). */
static void read_status(struct runx_pidns *ns)
{
	if (ns->have || ns->eof || ns->status_rd < 0)
		return;
	ssize_t n = read(ns->status_rd, &ns->status, sizeof(ns->status));
	/* one write below PIPE_BUF: whole or nothing (pipe(7)) */
	if (n == (ssize_t)sizeof(ns->status))
		ns->have = true;
	else if (n >= 0 || (errno != EAGAIN && errno != EINTR))
		ns->eof = true;
}

/* The status pipe, until the message or its EOF was read. */
static int pidns_command_fd(const struct runx_scope *s)
{
	return NS(s)->have || NS(s)->eof ? -1 : NS(s)->status_rd;
}

/* The command ended and leftovers run on: its status. */
static bool pidns_command_ended(struct runx_scope *s, int *status)
{
	read_status(NS(s));
	if (!NS(s)->have || NS(s)->status.alone)
		return false;
	*status = NS(s)->status.wait_status;
	return true;
}

/*
 * The init was reaped: the command's status replaces the init's.  An init
 * that died before it told (runx's SIGKILL right after the first signal,
 * -k 0) reaped the command as it died: its pidfd tells how the command
 * ended (runx_pidfd_exit_status(), Linux 6.15), a SIGTERM that killed it
 * included.  Where the kernel cannot tell, the init's own SIGKILL status
 * stands for the command's.
 */
static void pidns_child_reaped(struct runx_scope *s, int *status)
{
	int st;

	read_status(NS(s));
	if (NS(s)->have)
		*status = NS(s)->status.wait_status;
	else if (NS(s)->command_pidfd >= 0 &&
		 runx_pidfd_exit_status(NS(s)->command_pidfd, &st) == 0)
		*status = st; /* the init reaped it as it died (pidns.h) */
}

/* Closes the status pipe. */
static int pidns_release(struct runx_scope *s)
{
	if (s->priv != NULL) {
		pidns_adopted(s);
		if (NS(s)->status_rd >= 0)
			close(NS(s)->status_rd);
		if (NS(s)->command_pidfd >= 0)
			close(NS(s)->command_pidfd);
		free(s->priv);
		s->priv = NULL;
	}
	runx_pidset_free(&s->reached);
	return 0;
}

const struct runx_scope_ops runx_scope_pidns_ops = {
    .kind = RUNX_SCOPE_PIDNS,
    .prepare = pidns_prepare,
    .launch = pidns_launch,
    .command_pid = pidns_command_pid,
    .command_pidfd = pidns_command_pidfd,
    .signal = pidns_signal,
    .stop_signal = pidns_stop_signal,
    .newcomers = pidns_newcomers,
    .census = pidns_census,
    .kill = pidns_kill,
    .event_fd = NULL,
    .describe = pidns_describe,
    .release = pidns_release,
    .adopted = pidns_adopted,
    .command_fd = pidns_command_fd,
    .command_ended = pidns_command_ended,
    .child_reaped = pidns_child_reaped,
};
