/*
 * The event loop: one poll(2) over a signalfd, the command's pidfd, the
 * timerfds (deadline, grace period, re-check, idle deadline), the relay's
 * pipes and, while the scope is being emptied, pidfds of its members or
 * the cgroup's cgroup.events.  Nothing wakes runx while the command runs
 * quietly: no sleeps, no polling intervals (the re-check timer runs only
 * while a stop is under way).
 */
#include "config.h"

#include "supervise.h"

#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/timerfd.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "duration.h"
#include "log.h"
#include "proc.h"
#include "relay.h"
#include "signals.h"

/* While stopping: how often to sweep for newcomers and re-kill (ns). */
#define RECHECK_NS 100000000L

enum phase { RUNNING, WAITING, STOPPING, KILLING, DONE };

struct supervisor {
	const struct runx_options *opts;
	const struct runx_supervisor *fds;
	struct runx_scope *scope;
	struct runx_result *res;
	struct runx_relay *relay; /* NULL without --idle-timeout */
	int64_t last_output_ns;
	int pidfd;
	bool exited;
	bool ended_in_scope; /* pidns: the command ended, its init runs on */
	enum phase phase;
	bool timed_out;
	bool count;	     /* count the processes each signal reaches */
	bool told_unknown;   /* the census failure was reported */
	bool phase_was_stop; /* a deadline or stop signal began a stop */
	int stop_sig;	     /* the stop's first signal (newcomers get it) */
	int watch[RUNX_MAX_WATCH];
	int nwatch;
	int live; /* last census of the scope (UNKNOWN counts as alive) */
	bool live_unknown;
	int error;
};

/* The signals runx forwards (and SIGCHLD, to reap). */
static void handled_signals(sigset_t *set)
{
	static const int forwarded[] = {SIGHUP,	 SIGINT,   SIGQUIT,
					SIGTERM, SIGUSR1,  SIGUSR2,
					SIGALRM, SIGWINCH, SIGCONT};

	sigemptyset(set);
	for (size_t i = 0; i < sizeof(forwarded) / sizeof(forwarded[0]); i++)
		sigaddset(set, forwarded[i]);
	for (int s = SIGRTMIN; s <= SIGRTMAX; s++)
		sigaddset(set, s);
	sigaddset(set, SIGCHLD);
}

/* True for a stop signal: received, it starts a stop (--stop-signals). */
static bool is_stop_signal(const struct supervisor *s, int sig)
{
	return sigismember(&s->opts->stop_signals, sig) == 1;
}

int runx_signals_block(sigset_t *orig)
{
	struct sigaction sa;
	sigset_t set;

	handled_signals(&set);
	/* A write to a closed pipe returns EPIPE instead of killing runx. */
	sigaddset(&set, SIGPIPE);
	if (sigprocmask(SIG_BLOCK, &set, orig) < 0)
		return -errno;
	if (sigaction(SIGCHLD, NULL, &sa) == 0 && sa.sa_handler == SIG_IGN) {
		sa.sa_handler = SIG_DFL;
		sa.sa_flags = 0;
		sigaction(SIGCHLD, &sa, NULL);
	}
	return 0;
}

/* Opens a CLOCK_MONOTONIC timerfd; -errno on failure. */
static int new_timer(void)
{
	int fd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK);
	return fd < 0 ? -errno : fd;
}

int runx_supervisor_open(struct runx_supervisor *sup)
{
	sigset_t set;
	int *fds[] = {&sup->deadline_fd, &sup->grace_fd, &sup->recheck_fd,
		      &sup->idle_fd};

	sup->deadline_fd = sup->grace_fd = sup->recheck_fd = sup->idle_fd = -1;
	handled_signals(&set);
	sup->sigfd = signalfd(-1, &set, SFD_CLOEXEC | SFD_NONBLOCK);
	int r = sup->sigfd < 0 ? -errno : 0;
	for (size_t i = 0; r == 0 && i < sizeof(fds) / sizeof(fds[0]); i++)
		if ((*fds[i] = new_timer()) < 0)
			r = *fds[i];
	if (r < 0)
		runx_supervisor_close(sup);
	return r;
}

void runx_supervisor_close(struct runx_supervisor *sup)
{
	int *fds[] = {&sup->sigfd, &sup->deadline_fd, &sup->grace_fd,
		      &sup->recheck_fd, &sup->idle_fd};

	for (size_t i = 0; i < sizeof(fds) / sizeof(fds[0]); i++) {
		if (*fds[i] >= 0)
			close(*fds[i]);
		*fds[i] = -1;
	}
}

int64_t runx_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* Arms fd to fire at CLOCK_MONOTONIC time at_ns (absolute, ns). */
static int arm_at(int fd, int64_t at_ns)
{
	struct itimerspec its;

	memset(&its, 0, sizeof(its));
	its.it_value.tv_sec = at_ns / 1000000000;
	its.it_value.tv_nsec = at_ns % 1000000000;
	if (its.it_value.tv_sec == 0 && its.it_value.tv_nsec == 0)
		its.it_value.tv_nsec = 1; /* all zero would disarm */
	return timerfd_settime(fd, TFD_TIMER_ABSTIME, &its, NULL) < 0 ? -errno
								      : 0;
}

/* base + delta, saturating; RUNX_DURATION_INF stays "never". */
static int64_t after(int64_t base, int64_t delta)
{
	if (delta == RUNX_DURATION_INF || base > INT64_MAX - delta)
		return RUNX_DURATION_INF;
	return base + delta;
}

/* Keeps the first error of runx itself. */
static void note_error(struct supervisor *s, int err)
{
	if (err < 0 && s->error == 0)
		s->error = err;
}

/* Reads a fired timerfd; true if it had fired. */
static bool timer_fired(int fd, const struct pollfd *p)
{
	uint64_t ticks;

	if (!(p->revents & POLLIN))
		return false;
	return read(fd, &ticks, sizeof(ticks)) == (ssize_t)sizeof(ticks);
}

/* A signal's name for messages. */
static const char *signame(int sig, char *buf, size_t size)
{
	return runx_signal_name(sig, buf, size);
}

/* The scope's description for messages. */
static const char *scope_text(struct supervisor *s, char *buf, size_t size)
{
	return runx_scope_describe(s->scope, buf, size);
}

/* Adds one signal to the result's list. */
static void record_signal(struct supervisor *s, int sig, int reached)
{
	struct runx_result *r = s->res;

	if (r->nsignals >= RUNX_MAX_SIGNAL_EVENTS)
		return;
	r->signals[r->nsignals].offset_ns = runx_now_ns() - r->start_ns;
	r->signals[r->nsignals].signo = sig;
	r->signals[r->nsignals].reached = reached;
	r->nsignals++;
}

/* Closes the census's pidfds, freeing fds for the next /proc walk. */
static void close_watches(struct supervisor *s)
{
	for (int i = 0; i < s->nwatch; i++)
		close(s->watch[i]);
	s->nwatch = 0;
}

/* Says with -v that sig went to the scope (or to newcomers). */
static void tell_sent(struct supervisor *s, const char *why, int sig,
		      int reached)
{
	char name[32], where[PATH_MAX + 32];

	runx_verbose("%s%s%s to %s (%d process%s)", why, *why ? ": " : "",
		     signame(sig, name, sizeof(name)),
		     scope_text(s, where, sizeof(where)), reached,
		     reached == 1 ? "" : "es");
}

/* Records and says (-v) that sig reached processes, or what failed. */
static void sent(struct supervisor *s, int sig, int reached, const char *why)
{
	char name[32], where[PATH_MAX + 32];

	if (reached < 0) {
		runx_error("cannot send %s to %s: %s",
			   signame(sig, name, sizeof(name)),
			   scope_text(s, where, sizeof(where)),
			   strerror(-reached));
		note_error(s, reached);
		return;
	}
	record_signal(s, sig, reached);
	tell_sent(s, why, sig, reached);
}

/* Sends sig to the whole scope, saying so with -v. */
static void send_to_scope(struct supervisor *s, int sig, const char *why)
{
	close_watches(s);
	sent(s, sig, runx_scope_signal(s->scope, sig, s->count), why);
}

/* The first signal of a stop and SIGCONT, in one pass where the scope can. */
static void send_stop_signal(struct supervisor *s, int sig, const char *why)
{
	close_watches(s);
	int reached = runx_scope_stop_signal(s->scope, sig, s->count);
	sent(s, sig, reached, why);
	if (reached >= 0)
		sent(s, SIGCONT, reached, "sending");
}

/*
 * Re-counts the scope and renews the pidfds that wake runx as it empties;
 * counting: the number matters (-v, --report), else "some" will do.
 * A census that cannot look (out of fds, /proc unreadable) counts as
 * alive: runx never takes "could not see" for "gone".
 */
static int census(struct supervisor *s, bool counting)
{
	struct runx_census c = {.watch = s->watch,
				.max = RUNX_MAX_WATCH,
				.want_count = counting && s->count};

	close_watches(s);
	runx_scope_census(s->scope, &c);
	s->nwatch = c.nwatch;
	s->live_unknown = c.state == RUNX_CENSUS_UNKNOWN;
	if (s->live_unknown && !s->told_unknown) {
		runx_error("cannot list the processes of the scope: %s; "
			   "counting it as not empty",
			   strerror(-c.error));
		s->told_unknown = true;
	}
	s->live =
	    c.state == RUNX_CENSUS_EMPTY ? 0 : (c.count > 0 ? c.count : 1);
	return s->live;
}

/* Reads one process's age and command line into *np; false if gone. */
static bool read_named(pid_t pid, uint64_t now_ticks, long hz,
		       struct runx_named_proc *np)
{
	struct runx_proc_stat st;

	if (runx_proc_stat(pid, &st) < 0 || runx_proc_is_dead(&st))
		return false;
	np->pid = pid;
	np->age_ns = now_ticks > st.start_time
			 ? (int64_t)((now_ticks - st.start_time) *
				     (1000000000ULL / (uint64_t)hz))
			 : 0;
	int n = runx_proc_cmdline_raw(pid, np->argv, sizeof(np->argv));
	np->argv_len = n > 0 ? (size_t)n : 0;
	return true;
}

/* Says with -v which processes are alive (pid, age, command line). */
static void tell_named(const struct runx_named *named, const char *when)
{
	for (int i = 0; i < named->n; i++) {
		const struct runx_named_proc *np = &named->v[i];
		char cmd[sizeof(np->argv)];
		memcpy(cmd, np->argv, np->argv_len);
		for (size_t k = 0; k < np->argv_len; k++)
			cmd[k] = cmd[k] ? cmd[k] : ' ';
		cmd[np->argv_len < sizeof(cmd) ? np->argv_len
					       : sizeof(cmd) - 1] = '\0';
		long long tenths = (long long)(np->age_ns / 100000000);
		runx_verbose("alive %s: pid %d, age %lld.%llds: %s", when,
			     (int)np->pid, tenths / 10, tenths % 10,
			     np->argv_len ? cmd : "[no command line]");
	}
	if (named->count > named->n)
		runx_verbose("alive %s: and %d more", when,
			     named->count - named->n);
}

/*
 * Names the processes alive now (at the deadline, or when the grace
 * ended): at most RUNX_MAX_NAMED, the rest counted, for -v and the report,
 * so a log shows what hung.  Only with -v or --report (a /proc scan).
 */
static void name_alive(struct supervisor *s, struct runx_named *named,
		       const char *when)
{
	pid_t pids[RUNX_MAX_NAMED];
	struct runx_census c = {.pids = pids, .maxpids = RUNX_MAX_NAMED};
	uint64_t now_ticks = runx_proc_uptime_ticks();
	long hz = sysconf(_SC_CLK_TCK);

	if (!s->count)
		return;
	close_watches(s);
	runx_scope_census(s->scope, &c);
	named->taken = true;
	named->count = c.count;
	named->n = 0;
	for (int i = 0; i < c.npids; i++)
		if (read_named(pids[i], now_ticks, hz > 0 ? hz : 100,
			       &named->v[named->n]))
			named->n++;
	tell_named(named, when);
}

/* Arms the re-check timer: every RECHECK_NS while a stop is under way. */
static void arm_recheck(struct supervisor *s)
{
	struct itimerspec its = {{0, RECHECK_NS}, {0, RECHECK_NS}};

	if (timerfd_settime(s->fds->recheck_fd, 0, &its, NULL) < 0)
		note_error(s, -errno);
}

/* The first signal and SIGCONT to processes no signal reached yet. */
static void signal_newcomers(struct supervisor *s)
{
	int sig = s->stop_sig;

	if (sig == 0 || sig == SIGKILL)
		return;
	close_watches(s);
	int n = runx_scope_newcomers(s->scope, sig);
	if (n > 0) {
		sent(s, sig, n, "sending to newcomers");
		if (sig != SIGCONT)
			sent(s, SIGCONT, n, "sending to newcomers");
	}
}

/* Why the SIGKILL goes out now. */
enum escalation {
	GRACE_ENDED, /* the grace period is over */
	AT_ONCE,     /* -k 0: no grace period at all */
	CUT_SHORT,   /* a second stop signal ended the grace period */
};

/*
 * After the SIGKILL: the scope is re-counted every RECHECK_NS (and what
 * appeared killed again), and the grace timer, free now, bounds the wait
 * to RUNX_KILL_WAIT_NS.
 */
static void wait_after_kill(struct supervisor *s)
{
	arm_recheck(s);
	note_error(s, arm_at(s->fds->grace_fd,
			     after(runx_now_ns(), RUNX_KILL_WAIT_NS)));
}

/*
 * SIGKILL whatever is still alive.  When the grace period ran its course,
 * a last pass for newcomers goes first, so that none meets only the
 * SIGKILL; with no grace (or a grace cut short) the SIGKILL goes out at
 * once, as asked.
 */
static void escalate(struct supervisor *s, enum escalation why)
{
	char dur[32];
	bool cut_short = why == CUT_SHORT;

	if (s->phase == STOPPING && why == GRACE_ENDED)
		signal_newcomers(s);
	int alive = census(s, true);
	s->phase = KILLING;
	s->res->killed = alive;
	if (alive == 0 && !s->live_unknown)
		return;
	if (cut_short)
		runx_verbose("%d process%s still alive when the grace period "
			     "was cut short",
			     alive, alive == 1 ? "" : "es");
	else
		runx_verbose(
		    "%d process%s still alive after the %s grace "
		    "period",
		    alive, alive == 1 ? "" : "es",
		    runx_duration_format(s->opts->grace_ns, dur, sizeof(dur)));
	name_alive(s, &s->res->after_grace, "after the grace period");
	send_to_scope(s, SIGKILL, "sending");
	wait_after_kill(s);
}

/*
 * RUNX_KILL_WAIT_NS after SIGKILL the scope is still not empty: what is
 * left can only be in uninterruptible sleep with SIGKILL pending, or the
 * census cannot see it.  Says so and ends the supervision; an unreaped
 * command counts as killed by SIGKILL, which is how it will end.
 */
static void give_up(struct supervisor *s)
{
	char where[PATH_MAX + 32];
	int alive = census(s, true);

	if (alive == 0 && s->exited)
		return; /* the loop sees the empty scope */
	if (alive == 0)
		alive = 1; /* the command itself, not reaped yet */
	s->res->unkillable = alive;
	s->res->unverified = s->live_unknown;
	if (s->live_unknown)
		runx_error("cannot verify that %s is empty %d s after SIGKILL; "
			   "giving up",
			   scope_text(s, where, sizeof(where)),
			   RUNX_KILL_WAIT_S);
	else
		runx_error("%d process%s in %s still alive %d s after SIGKILL "
			   "(uninterruptible sleep); giving up on %s",
			   alive, alive == 1 ? "" : "es",
			   scope_text(s, where, sizeof(where)),
			   RUNX_KILL_WAIT_S, alive == 1 ? "it" : "them");
	if (!s->exited) {
		s->exited = true;
		s->res->wait_status = SIGKILL; /* as waitpid(2) would say */
	}
	s->phase = DONE;
}

/*
 * The re-check timer: while STOPPING, the first signal (and SIGCONT) to
 * processes born or re-parented since it was sent; while KILLING, SIGKILL
 * again to what is left (a task forked while cgroup.kill ran could
 * survive before Linux 6.14, DESIGN.md; a census that could not look).
 */
static void on_recheck(struct supervisor *s)
{
	close_watches(s);
	if (s->phase == STOPPING) {
		signal_newcomers(s);
	} else if (s->phase == KILLING && census(s, false) > 0) {
		close_watches(s);
		runx_scope_kill(s->scope);
	}
}

/*
 * Starts a stop with first signal sig: the -s signal, or the stop signal
 * runx received, which is forwarded as the first signal (as GNU timeout
 * does, so that a graceful handler of SIGINT does not get a SIGTERM on top
 * of it).
 */
static void begin_stop(struct supervisor *s, int sig, const char *why)
{
	s->phase = STOPPING;
	s->phase_was_stop = s->res->reason != RUNX_END_EXITED;
	s->stop_sig = sig;
	/* A stopped process cannot act on the first signal until continued. */
	if (sig != 0 && sig != SIGKILL && sig != SIGCONT)
		send_stop_signal(s, sig, why);
	else if (sig != 0)
		send_to_scope(s, sig, why);
	else
		runx_verbose("%s: first signal is 0, nothing sent", why);
	if (sig == SIGKILL) { /* the SIGKILL went out: no grace period */
		s->phase = KILLING;
		wait_after_kill(s);
		return;
	}
	if (s->opts->grace_ns == 0) {
		escalate(s, AT_ONCE);
		return;
	}
	arm_recheck(s);
	if (s->opts->grace_ns != RUNX_DURATION_INF)
		note_error(s, arm_at(s->fds->grace_fd,
				     after(runx_now_ns(), s->opts->grace_ns)));
}

/* Says with -v how the command ended. */
static void tell_reaped(pid_t pid, int status)
{
	char name[32];

	if (WIFEXITED(status))
		runx_verbose("command (pid %d) exited with status %d", (int)pid,
			     WEXITSTATUS(status));
	else if (WIFSIGNALED(status))
		runx_verbose("command (pid %d) was killed by %s", (int)pid,
			     signame(WTERMSIG(status), name, sizeof(name)));
}

/* Records how the command ended. */
static void command_ended(struct supervisor *s, int status,
			  const struct rusage *ru)
{
	s->exited = true;
	s->res->wait_status = status;
	s->res->rusage = *ru;
	tell_reaped(s->res->command_pid > 0 ? s->res->command_pid : s->res->pid,
		    status);
}

/*
 * Reaps the command and, as subreaper or PID 1, every orphan.  With pidns
 * the direct child is the namespace's init: the scope gives the command's
 * status, when the init is reaped or, if leftovers keep the init alive,
 * as soon as the command ended (runx_scope_command_ended()).
 */
static void reap(struct supervisor *s)
{
	struct rusage ru;
	int status;
	pid_t pid;

	while ((pid = wait4(-1, &status, WNOHANG, &ru)) > 0) {
		if (pid != s->res->pid)
			continue;
		runx_scope_child_reaped(s->scope, &status, &ru);
		if (!s->ended_in_scope)
			command_ended(s, status, &ru);
	}
	if (!s->exited && runx_scope_command_ended(s->scope, &status, &ru)) {
		s->ended_in_scope = true;
		command_ended(s, status, &ru);
	}
}

/* A signal sent to runx: forward it; a stop signal starts a stop. */
static void on_signal(struct supervisor *s, const struct signalfd_siginfo *si)
{
	int sig = (int)si->ssi_signo;
	char name[32];

	if (sig == SIGCHLD)
		return; /* reap() runs after every wake-up */
	/*
	 * With --foreground the command shares runx's terminal: a signal the
	 * terminal sent (SI_KERNEL) reached the command already, and the
	 * command decides what it means (an interactive program may ignore
	 * SIGINT), so runx neither repeats it nor starts a stop.
	 */
	if (s->opts->foreground && si->ssi_code == SI_KERNEL) {
		runx_verbose(
		    "received %s from the terminal; the command got it "
		    "too",
		    signame(sig, name, sizeof(name)));
		return;
	}
	runx_verbose("received %s", signame(sig, name, sizeof(name)));
	if (s->phase == DONE)
		return;
	bool stop = is_stop_signal(s, sig);
	if (stop && (s->phase == RUNNING || s->phase == WAITING)) {
		/* forwarded as the first signal of the stop, with SIGCONT */
		s->res->reason = RUNX_END_RUNX_SIGNALED;
		s->res->runx_signal = sig;
		begin_stop(s, sig, "forwarding");
		return;
	}
	send_to_scope(s, sig, "forwarding");
	if (stop && s->phase == STOPPING) {
		/* a second Ctrl-C, a second docker stop: SIGKILL now */
		runx_verbose("%s during the stop: ending the grace period",
			     signame(sig, name, sizeof(name)));
		escalate(s, CUT_SHORT);
	}
}

/* Reads every queued signal from the signalfd. */
static void drain_signals(struct supervisor *s)
{
	struct signalfd_siginfo si;

	while (read(s->fds->sigfd, &si, sizeof(si)) == (ssize_t)sizeof(si))
		on_signal(s, &si);
}

/* The command exited on its own while RUNNING: clean up or wait. */
static void on_command_exit(struct supervisor *s)
{
	char where[PATH_MAX + 32];

	if (s->scope->ops->kind == RUNX_SCOPE_CHILD) {
		s->phase = DONE;
		return;
	}
	int left = census(s, true);
	s->res->leftovers = left;
	if (left == 0) {
		s->phase = DONE;
		return;
	}
	if (s->opts->wait_all) {
		runx_verbose("waiting for %d process%s left in %s (--wait-all)",
			     left, left == 1 ? "" : "es",
			     scope_text(s, where, sizeof(where)));
		s->phase = WAITING;
		return;
	}
	runx_verbose("stopping %d leftover process%s in %s", left,
		     left == 1 ? "" : "es",
		     scope_text(s, where, sizeof(where)));
	begin_stop(s, s->opts->first_signal, "sending");
}

/* The deadline fired: a stop, unless one is under way. */
static void on_deadline(struct supervisor *s)
{
	char dur[32];

	if (s->phase != RUNNING && s->phase != WAITING)
		return;
	s->timed_out = true;
	s->res->reason = RUNX_END_TIMEOUT;
	runx_verbose(
	    "deadline of %s reached",
	    runx_duration_format(s->opts->timeout_ns, dur, sizeof(dur)));
	name_alive(s, &s->res->at_deadline, "at the deadline");
	begin_stop(s, s->opts->first_signal, "sending");
}

/*
 * The idle timer fired: a stop if nothing was written for the whole idle
 * period, else re-armed from the last output.  Output does not re-arm the
 * timer itself, which would cost a system call per chunk.
 */
static void on_idle_timer(struct supervisor *s)
{
	char dur[32];
	int64_t idle_until = after(s->last_output_ns, s->opts->idle_timeout_ns);

	if (s->phase != RUNNING && s->phase != WAITING)
		return;
	if (runx_now_ns() < idle_until) {
		note_error(s, arm_at(s->fds->idle_fd, idle_until));
		return;
	}
	s->timed_out = true;
	s->res->reason = RUNX_END_IDLE_TIMEOUT;
	runx_verbose(
	    "idle deadline reached: no output for %s",
	    runx_duration_format(s->opts->idle_timeout_ns, dur, sizeof(dur)));
	begin_stop(s, s->opts->first_signal, "sending");
}

/* What one poll(2) round woke up for. */
struct events {
	bool signals, child, deadline, grace, recheck, idle, command;
};

/* Fills p with the fds of this round; returns how many, *relay_at set. */
static int poll_set(struct supervisor *s, struct pollfd *p, int *relay_at,
		    int *nrelay)
{
	const struct runx_supervisor *f = s->fds;
	int n = 0;

	p[n++] = (struct pollfd){.fd = f->sigfd, .events = POLLIN};
	p[n++] = (struct pollfd){.fd = f->deadline_fd, .events = POLLIN};
	p[n++] = (struct pollfd){.fd = f->grace_fd, .events = POLLIN};
	p[n++] =
	    (struct pollfd){.fd = s->exited ? -1 : s->pidfd, .events = POLLIN};
	p[n++] = (struct pollfd){.fd = f->recheck_fd, .events = POLLIN};
	/* cgroup.events: only POLLPRI, its POLLIN is always set (kernfs) */
	p[n++] = (struct pollfd){
	    .fd = s->phase != RUNNING ? runx_scope_event_fd(s->scope) : -1,
	    .events = POLLPRI};
	p[n++] = (struct pollfd){.fd = f->idle_fd, .events = POLLIN};
	/* pidns: the command ended while its init runs on */
	p[n++] = (struct pollfd){
	    .fd = s->exited ? -1 : runx_scope_command_fd(s->scope),
	    .events = POLLIN};
	*relay_at = n;
	*nrelay = s->relay != NULL ? runx_relay_poll_fds(s->relay, &p[n]) : 0;
	n += *nrelay;
	if (s->phase != RUNNING)
		for (int i = 0; i < s->nwatch; i++)
			p[n++] = (struct pollfd){.fd = s->watch[i],
						 .events = POLLIN};
	return n;
}

/* One poll(2) round; returns -errno only if poll itself failed. */
static int wait_events(struct supervisor *s, struct events *ev)
{
	const struct runx_supervisor *f = s->fds;
	struct pollfd p[10 + RUNX_MAX_WATCH];
	int relay_at, nrelay, n = poll_set(s, p, &relay_at, &nrelay);

	if (poll(p, (nfds_t)n, -1) < 0)
		return errno == EINTR ? 0 : -errno;
	ev->signals = p[0].revents != 0;
	ev->child = p[3].revents != 0;
	ev->deadline = timer_fired(f->deadline_fd, &p[1]);
	ev->grace = timer_fired(f->grace_fd, &p[2]);
	ev->recheck = timer_fired(f->recheck_fd, &p[4]);
	ev->idle = timer_fired(f->idle_fd, &p[6]);
	ev->command = p[7].revents != 0;
	if (nrelay > 0 && runx_relay_pump(s->relay, &p[relay_at], nrelay) > 0)
		s->last_output_ns = runx_now_ns();
	return 0;
}

/* The loop: until the scope is empty (or runx gave up on it). */
static int supervise_loop(struct supervisor *s)
{
	while (s->phase != DONE) {
		struct events ev = {false, false, false, false,
				    false, false, false};
		int r = wait_events(s, &ev);

		if (r < 0)
			return r;
		/* a relay round touches neither: no system calls for them */
		if (ev.signals)
			drain_signals(s);
		if (ev.signals || ev.child || ev.command)
			reap(s); /* every child's death also queues SIGCHLD */
		if (s->exited && s->phase == RUNNING)
			on_command_exit(s);
		if (ev.deadline)
			on_deadline(s);
		if (ev.idle)
			on_idle_timer(s);
		if (ev.grace && s->phase == STOPPING)
			escalate(s, GRACE_ENDED);
		else if (ev.grace && s->phase == KILLING)
			give_up(s);
		if (ev.recheck)
			on_recheck(s);
		/* while the command lives its pidfd wakes runx: no census */
		if (s->phase != RUNNING && s->phase != DONE && s->exited &&
		    census(s, false) == 0)
			s->phase = DONE;
	}
	return 0;
}

/*
 * The way out when poll(2) itself fails (it should not: ENOMEM): SIGKILL
 * the whole scope, reap, and repeat every 10 ms until the census finds it
 * empty, for at most RUNX_KILL_WAIT_NS.
 */
static void kill_without_poll(struct supervisor *s)
{
	const long tick_ns = 10000000;
	const struct timespec tick = {0, tick_ns};

	for (long round = 0; round < RUNX_KILL_WAIT_NS / tick_ns; round++) {
		close_watches(s);
		runx_scope_kill(s->scope);
		reap(s);
		if (s->exited && census(s, false) == 0)
			return;
		nanosleep(&tick, NULL);
	}
	s->res->unverified = s->live_unknown;
	runx_error("%d process%s still alive %d s after SIGKILL", s->live,
		   s->live == 1 ? "" : "es", RUNX_KILL_WAIT_S);
}

/* Arms the deadline and idle timers from the start; -errno on failure. */
static int arm_deadlines(struct supervisor *s)
{
	const struct runx_options *o = s->opts;
	int64_t start = s->res->start_ns;
	int r = 0;

	if (o->timeout_ns != RUNX_DURATION_INF)
		r = arm_at(s->fds->deadline_fd, after(start, o->timeout_ns));
	if (r == 0 && s->relay != NULL &&
	    o->idle_timeout_ns != RUNX_DURATION_INF)
		r = arm_at(s->fds->idle_fd, after(start, o->idle_timeout_ns));
	return r;
}

/* The end: reason and exit status from what the loop saw. */
static void conclude(struct supervisor *s)
{
	struct runx_result *res = s->res;

	close_watches(s);
	/* after a stop, a reader that does not read gets no more time */
	if (s->relay != NULL)
		runx_relay_finish(s->relay,
				  s->phase_was_stop ? 0 : RUNX_RELAY_STALL_MS);
	res->end_ns = runx_now_ns();
	if (!s->timed_out && res->reason != RUNX_END_RUNX_SIGNALED &&
	    WIFSIGNALED(res->wait_status))
		res->reason = RUNX_END_SIGNALED;
	res->exit_status = runx_exit_status(s->opts, res);
}

int runx_supervise(struct runx_supervisor *sup, const struct runx_plan *plan,
		   struct runx_scope *scope, int pidfd,
		   struct runx_relay *relay, struct runx_result *res)
{
	struct supervisor s = {
	    .opts = plan->opts,
	    .fds = sup,
	    .scope = scope,
	    .res = res,
	    .relay = relay,
	    .last_output_ns = res->start_ns,
	    .pidfd = pidfd,
	    .phase = RUNNING,
	    /* counts are read only by -v and --report */
	    .count = plan->opts->verbose || plan->opts->report_path != NULL,
	};

	res->reason = RUNX_END_EXITED;
	int r = arm_deadlines(&s);
	if (r < 0) {
		/* timerfd_settime(2) on a timerfd of ours cannot fail for
		 * lack of a resource; if it fails anyway, keep no promise
		 * runx cannot keep: take the command down now */
		runx_error("cannot arm the deadline: %s", strerror(-r));
		note_error(&s, r);
		begin_stop(&s, SIGKILL, "sending");
	}
	r = supervise_loop(&s);
	if (r < 0) {
		runx_error("event loop failed: %s; killing the %s scope",
			   strerror(-r), runx_scope_name(scope));
		kill_without_poll(&s);
		note_error(&s, r);
	}
	conclude(&s);
	return s.error;
}

int runx_exit_status(const struct runx_options *opts,
		     const struct runx_result *res)
{
	bool timed_out = res->reason == RUNX_END_TIMEOUT ||
			 res->reason == RUNX_END_IDLE_TIMEOUT;

	if (res->unverified)
		return 125;
	if (timed_out && !opts->preserve_status)
		return 124;
	if (WIFEXITED(res->wait_status))
		return WEXITSTATUS(res->wait_status);
	if (WIFSIGNALED(res->wait_status))
		return 128 + WTERMSIG(res->wait_status);
	return 125;
}
