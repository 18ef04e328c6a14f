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

#include "autoreap.h"
#include "clock.h"
#include "duration.h"
#include "exit_status.h"
#include "log.h"
#include "proc.h"
#include "relay.h"
#include "sigmask.h"
#include "signals.h"
#include "syscalls.h"
#include "supervise_impl.h"

/* True for a stop signal: received, it starts a stop (--stop-signals). */
static bool is_stop_signal(const struct supervisor *s, int sig)
{
	return sigismember(&s->stop->stop_signals, sig) == 1;
}

/* Opens a CLOCK_MONOTONIC timerfd; -errno on failure. */
static int new_timer(void)
{
	int fd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK);
	return fd < 0 ? -errno : fd;
}

int runx_supervisor_open(struct runx_supervisor *sup,
			 const struct runx_plan *plan)
{
	sigset_t set;
	int *fds[] = {&sup->deadline_fd, &sup->grace_fd, &sup->recheck_fd,
		      &sup->idle_fd};
	const bool needed[] = {
	    plan->stop.deadline_ns != RUNX_DURATION_INF ||
		plan->attempts.total_ns != RUNX_DURATION_INF,
	    true, true, plan->stop.idle_deadline_ns != RUNX_DURATION_INF};

	sup->deadline_fd = sup->grace_fd = sup->recheck_fd = sup->idle_fd = -1;
	runx_handled_signals(&set);
	/* and every stop signal --stop-signals lists, also one of the
	 * implicit set that was ignored when runx started (and so not
	 * blocked by runx_signals_block()), as TERM and INT are caught
	 * even then; the command still gets the mask runx started with */
	sigorset(&set, &set, &plan->stop.stop_signals);
	runx_sigmask_raw(SIG_BLOCK, &plan->stop.stop_signals, NULL);
	sup->sigfd = signalfd(-1, &set, SFD_CLOEXEC | SFD_NONBLOCK);
	int r = sup->sigfd < 0 ? -errno : 0;
	for (size_t i = 0; r == 0 && i < sizeof(fds) / sizeof(fds[0]); i++)
		if (needed[i] && (*fds[i] = new_timer()) < 0)
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

/* Arms fd to fire at CLOCK_MONOTONIC time at_ns (absolute, ns). */
int sup_arm_at(int fd, int64_t at_ns)
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
int64_t sup_after(int64_t base, int64_t delta)
{
	if (delta == RUNX_DURATION_INF || base > INT64_MAX - delta)
		return RUNX_DURATION_INF;
	return base + delta;
}

/* Keeps the first error of runx itself. */
void sup_note_error(struct supervisor *s, int err)
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

/* Says with -v how the command ended. */
static void tell_reaped(pid_t pid, int status)
{
	char name[32];

	if (WIFEXITED(status))
		runx_verbose("command (pid %d) exited with status %d", (int)pid,
			     WEXITSTATUS(status));
	else if (WIFSIGNALED(status))
		runx_verbose("command (pid %d) was killed by %s", (int)pid,
			     sup_signame(WTERMSIG(status), name, sizeof(name)));
}

/*
 * Says on stderr, and in the report's error if it has none, that the
 * command died outside the scope, which it had left (a root job that moved
 * itself out of its cgroup and exited on its own): what it started after
 * it left is not in the scope, and no stop reached it.  Not again once the
 * stop said it had left.  The exit status stays the command's.
 */
static void tell_died_outside(struct supervisor *s)
{
	char where[PATH_MAX + 32], text[sizeof(where) + 128];

	if (s->told_left || !runx_scope_died_outside(s->scope, s->pidfd))
		return;
	s->told_left = true;
	snprintf(text, sizeof(text),
		 "the command (pid %d) had left %s and exited outside it; "
		 "processes it started there were not stopped",
		 (int)s->res->pid, sup_scope_text(s, where, sizeof(where)));
	runx_error("%s", text);
	if (s->res->error[0] == '\0')
		snprintf(s->res->error, sizeof(s->res->error), "%s", text);
}

/* Records how the command ended. */
static void command_ended(struct supervisor *s, int status)
{
	s->exited = true;
	s->res->wait_status = status;
	tell_reaped(s->res->command_pid > 0 ? s->res->command_pid : s->res->pid,
		    status);
	tell_died_outside(s);
}

/*
 * Reaps every child of runx that has exited (wait4(2), WNOHANG), the
 * command's status among them.  Each call reads every child of runx
 * (kernel/exit.c: do_wait() walks the children list), the ones alive too.
 */
static void reap_exited(struct supervisor *s)
{
	int status;
	pid_t pid;

	while ((pid = wait4(-1, &status, WNOHANG, NULL)) > 0) {
		if (pid != s->res->pid)
			continue;
		runx_scope_child_reaped(s->scope, &status);
		if (!s->ended_in_scope)
			command_ended(s, status);
	}
}

void sup_release_orphans(struct supervisor *s)
{
	if (s->autoreap || s->keep_usage ||
	    !runx_scope_adopts_orphans(s->scope) ||
	    (!s->exited && (s->pidfd < 0 || !runx_exit_status_kept())))
		return;
	int r = runx_autoreap(true);
	if (r < 0)
		sup_note_error(s, r);
	s->autoreap = r == 0;
	/* the zombies from before: SA_NOCLDWAIT releases only those that
	 * exit after it (kernel/signal.c: do_notify_parent()) */
	if (s->autoreap)
		reap_exited(s);
}

void sup_reap(struct supervisor *s)
{
	int status;

	/* once the kernel releases them, no child of runx is ever a zombie
	 * again: a wait4(2) would read each of thousands of live orphans
	 * at every SIGCHLD of a stop, for nothing */
	if (!s->autoreap)
		reap_exited(s);
	/* released by the kernel (sup_release_orphans()): its pidfd tells
	 * once it is (ENODATA until then; the pidfd stays readable) */
	if (!s->exited && s->autoreap &&
	    runx_pidfd_exit_status(s->pidfd, &status) == 0) {
		runx_scope_child_reaped(s->scope, &status);
		command_ended(s, status);
	}
	if (!s->exited && runx_scope_command_ended(s->scope, &status)) {
		s->ended_in_scope = true;
		command_ended(s, status);
	}
}

/* A signal sent to runx: forward it; a stop signal starts a stop. */
/* True for SIGTSTP, SIGTTIN and SIGTTOU: a terminal's "stop this job". */
static bool is_job_control(int sig)
{
	return sig == SIGTSTP || sig == SIGTTIN || sig == SIGTTOU;
}

/* How long runx waits, after the terminal's Ctrl-Z with --foreground,
 * for the members of its process group to stop themselves (ns). */
#define GROUP_STOP_WAIT_NS (250 * 1000000LL)

struct group_of {
	pid_t pgrp, self;
};

/* runx_proc_each(): 1 for a process of the group that is not stopped,
 * runx itself aside (a zombie is not running either). */
static int runs_in_group(const struct runx_proc_stat *st, void *arg)
{
	const struct group_of *g = arg;

	return st->pgrp == g->pgrp && st->pid != g->self &&
	       strchr("TtZX", st->state) == NULL;
}

/*
 * With --foreground, the terminal's SIGTSTP (TTIN, TTOU) reached runx's
 * process group, which the command shares, and a member that catches it
 * stops itself once ready (an editor restores the terminal first): waits
 * until no member but runx runs, reading /proc every 5 ms, for
 * GROUP_STOP_WAIT_NS at most (or until /proc cannot be read).
 */
static void await_group_stop(void)
{
	struct group_of g = {getpgrp(), getpid()};
	int64_t until = runx_now_ns() + GROUP_STOP_WAIT_NS;
	const struct timespec nap = {0, 5000000};

	while (runx_proc_each(runs_in_group, &g) == 1 && runx_now_ns() < until)
		nanosleep(&nap, NULL);
}

/*
 * Ctrl-Z (runx(1), STOPPING, job control): the whole scope is stopped
 * with SIGSTOP, then runx stops itself, as a shell stops a job, so the
 * shell sees the job stopped and the command does not run on unseen.
 * The SIGCONT of "fg" is forwarded to the scope like any other.  With
 * --foreground a terminal's signal reached the command's process group
 * already, and an interactive program may restore the terminal before it
 * stops itself: the members outside that group (setsid(2), setpgid(2)),
 * which the terminal cannot reach, get SIGSTOP at once, and the whole
 * scope once the group's members stopped themselves (await_group_stop()):
 * one that catches or ignores SIGTSTP and runs on is stopped all the
 * same (SPEC, Job control).  As PID 1 runx cannot stop
 * (pid_namespaces(7)): only the scope stops.  The deadline is
 * CLOCK_MONOTONIC and runs on while stopped.
 */
static void stop_job(struct supervisor *s, const struct signalfd_siginfo *si)
{
	char name[32];
	int sig = (int)si->ssi_signo;
	bool from_terminal = s->stop->foreground && si->ssi_code == SI_KERNEL;
	bool pid1 = getpid() == 1;

	runx_verbose("received %s%s: stopping the scope%s (job control%s)",
		     sup_signame(sig, name, sizeof(name)),
		     from_terminal ? " from the terminal" : "",
		     pid1 ? "" : ", and runx",
		     pid1 ? "; runx is PID 1 and cannot stop" : "");
	if (s->phase != DONE && from_terminal) {
		sup_send_outside_group(s, SIGSTOP, getpgrp());
		await_group_stop();
	}
	if (s->phase != DONE)
		sup_send_to_scope(s, SIGSTOP, "sending");
	s->job_stopped = s->phase != DONE;
	s->job_stopped_ns = runx_now_ns();
	if (!pid1) {
		runx_log_flush(false); /* told before runx stops, as a shell */
		kill(getpid(), SIGSTOP);
	}
}

/*
 * --forward-to=child: a forwarded signal goes to the command alone, as
 * tini does, so a helper process with the default SIGHUP action survives
 * a reload.  Stop signals still reach the whole scope.
 */
static void forward_to_command(struct supervisor *s, int sig, int times)
{
	char name[32];
	int r = 0;

	for (int k = 0; k < times && r >= 0; k++)
		r = runx_scope_signal_command(s->scope, sig);
	if (r < 0) {
		runx_error("cannot forward %s to the command: %s",
			   sup_signame(sig, name, sizeof(name)), strerror(-r));
		return;
	}
	for (int k = 0; k < times; k++)
		sup_record_signal(s, sig, r, SENT_TO_COMMAND);
	runx_verbose("forwarding: %s to the command (%d process%s)",
		     sup_signame(sig, name, sizeof(name)), r,
		     r == 1 ? "" : "es");
}

/* A stop signal sig during a stop (a second Ctrl-C, a second docker
 * stop): SIGKILL now. */
static void cut_grace_short(struct supervisor *s, int sig)
{
	char name[32];

	runx_verbose("%s during the stop: ending the grace period",
		     sup_signame(sig, name, sizeof(name)));
	sup_escalate(s, CUT_SHORT);
}

/*
 * A stop signal sig received (not from the terminal): the stop starts, or,
 * the attempt being stopped already (its deadline, its leftovers), it
 * ends as that stop ends, and so does the run; its grace period ends.
 * One that --stop-signals does not list (PWR, XCPU...: implicit_stops)
 * starts the stop with -s's signal, as a deadline does, and is not
 * forwarded itself.
 */
static void stop_signal(struct supervisor *s, int sig)
{
	bool implicit = sigismember(&s->stop->implicit_stops, sig) == 1;

	if (s->phase == RUNNING || s->phase == WAITING) {
		/* the first signal of the stop (with SIGCONT): sig itself, or
		 * -s's for an implicit one */
		s->res->reason = RUNX_END_RUNX_SIGNALED;
		s->res->runx_signal = sig;
		if (implicit)
			sup_begin_stop(s, s->stop->first_signal, "sending");
		else
			sup_begin_stop(s, sig, "forwarding");
		return;
	}
	s->res->told_to_stop = sig;
	if (!implicit)
		sup_send_to_scope(s, sig, "forwarding");
	if (s->phase == STOPPING)
		cut_grace_short(s, sig);
}

/*
 * Handles one signal read from the signalfd; returns true if it is only
 * to be forwarded (not a stop signal, not job control), which the caller
 * does, for a run of the same signal at once (drain_signals()).
 */
static bool on_signal(struct supervisor *s, const struct signalfd_siginfo *si)
{
	int sig = (int)si->ssi_signo;
	char name[32];

	if (sig == SIGCHLD)
		return false; /* reap() runs after every wake-up */
	if (is_job_control(sig)) {
		stop_job(s, si);
		return false;
	}
	/*
	 * With --foreground the command shares runx's terminal: a signal the
	 * terminal sent (SI_KERNEL) reached the command already, and the
	 * command decides what it means (an interactive program may ignore
	 * SIGINT), so runx neither repeats it nor starts a stop.  A stop
	 * signal still ends the run: no further attempt after this one; and
	 * during a stop (the deadline's, the leftovers') it ends the grace
	 * period, as any stop signal does (a second Ctrl-C).
	 */
	if (s->stop->foreground && si->ssi_code == SI_KERNEL &&
	    !runx_signal_is_implicit_stop(sig)) {
		bool stops = is_stop_signal(s, sig) && s->phase != DONE;
		runx_verbose(
		    "received %s from the terminal; the command got it "
		    "too%s",
		    sup_signame(sig, name, sizeof(name)),
		    stops && s->may_retry ? "; the run ends with this attempt"
					  : "");
		if (stops && s->res->told_to_stop == 0)
			s->res->told_to_stop = sig;
		if (stops && s->phase == STOPPING)
			cut_grace_short(s, sig);
		return false;
	}
	runx_verbose("received %s", sup_signame(sig, name, sizeof(name)));
	if (s->phase == DONE)
		return false;
	if (!is_stop_signal(s, sig))
		return true;
	stop_signal(s, sig);
	return false;
}

/* Forwards sig times times: to the command alone or to the scope. */
static void forward(struct supervisor *s, int sig, int times)
{
	if (times == 0)
		return;
	/* the SIGCONT of fg or bg continues what runx stopped: the scope,
	 * also with --forward-to=child */
	bool resume = sig == SIGCONT && s->job_stopped;
	if (sig == SIGCONT)
		s->job_stopped = false;
	/* the silence while runx held the job stopped is not the job's: the
	 * idle deadline starts again (runx(1), Job control) */
	if (resume)
		s->last_output_ns = runx_now_ns();
	if (s->stop->forward_to_child && !resume)
		forward_to_command(s, sig, times);
	else
		sup_forward_times(s, sig, times,
				  resume ? SENT_BY_STOP : SENT_FORWARDED);
}

/*
 * Signals read from the signalfd in one round of the loop at most: a
 * burst of forwarded signals must not hold back a deadline that fires
 * meanwhile; the rest waits for the next round, right after the timers
 * were looked at.  A run of the same forwarded signal within a round is
 * sent as one burst (sup_forward_times()): in the tree scope one walk of
 * /proc for the run, not one per signal.
 */
#define SIGNALS_PER_ROUND 32

/*
 * A round also reads no further signal once its forwarding took this long
 * (ns): with a /proc of 10,000 processes one walk (a tree scope's send,
 * a group scope's count for -v) takes 100 ms or more, and 32 runs of
 * different signals would hold back the timers for seconds.
 */
#define SIGNALS_ROUND_NS (20 * 1000 * 1000LL)

/* Reads the queued signals from the signalfd, SIGNALS_PER_ROUND at most,
 * and none more once the round has taken SIGNALS_ROUND_NS. */
static void drain_signals(struct supervisor *s)
{
	struct signalfd_siginfo si;
	int run_sig = 0, run = 0;
	int64_t until = runx_now_ns() + SIGNALS_ROUND_NS;

	for (int n = 0;
	     n < SIGNALS_PER_ROUND &&
	     read(s->fds->sigfd, &si, sizeof(si)) == (ssize_t)sizeof(si);
	     n++) {
		int sig = (int)si.ssi_signo;
		if (run > 0 && sig != run_sig) {
			forward(s, run_sig, run); /* order kept */
			run = 0;
		}
		if (on_signal(s, &si)) {
			run_sig = sig;
			run++;
		}
		if (runx_now_ns() > until)
			break; /* the run so far goes out below */
	}
	forward(s, run_sig, run);
}

/* What one poll(2) round woke up for. */
struct events {
	bool signals, child, deadline, grace, recheck, idle, command;
	bool scope_event; /* cgroup.events changed (POLLPRI) */
	bool log_room;	  /* room on stderr for runx's lines not written */
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
	/* runx's own lines that found no room (runx_log_defer()) */
	p[n++] = (struct pollfd){.fd = runx_log_poll_fd(), .events = POLLOUT};
	*relay_at = n;
	*nrelay = s->relay != NULL ? runx_relay_poll_fds(s->relay, &p[n]) : 0;
	n += *nrelay;
	if (s->phase != RUNNING)
		for (int i = 0; i < s->nwatch; i++)
			p[n++] = (struct pollfd){.fd = s->watch[i],
						 .events = POLLIN};
	return n;
}

/*
 * Says once that a destination of the relay failed (ENOSPC, EFBIG, EIO:
 * not EPIPE, which the command learns by SIGPIPE as without runx), on
 * stderr and in the report's error: output was lost.
 */
static void tell_relay_error(struct supervisor *s)
{
	int slot, e = runx_relay_take_error(s->relay, &slot);
	const char *what = slot == 2   ? "standard error"
			   : slot == 3 ? "output"
				       : "standard output";

	if (e == 0)
		return;
	runx_error("cannot write the command's %s: %s; the rest of it is "
		   "dropped",
		   what, strerror(e));
	if (s->res->error[0] == '\0')
		snprintf(s->res->error, sizeof(s->res->error),
			 "cannot write the command's %s: %s", what,
			 strerror(e));
}

/* One poll(2) round; returns -errno only if poll itself failed. */
static int wait_events(struct supervisor *s, struct events *ev)
{
	const struct runx_supervisor *f = s->fds;
	struct pollfd p[11 + RUNX_MAX_WATCH];
	int relay_at, nrelay, n = poll_set(s, p, &relay_at, &nrelay);

	/* no timeout but while runx's lines wait on a terminal that said
	 * it had room and took nothing (runx_log_retry_ms()) */
	if (poll(p, (nfds_t)n, runx_log_retry_ms()) < 0)
		return errno == EINTR ? 0 : -errno;
	ev->signals = p[0].revents != 0;
	ev->child = p[3].revents != 0;
	ev->deadline = timer_fired(f->deadline_fd, &p[1]);
	ev->grace = timer_fired(f->grace_fd, &p[2]);
	ev->recheck = timer_fired(f->recheck_fd, &p[4]);
	ev->idle = timer_fired(f->idle_fd, &p[6]);
	ev->command = p[7].revents != 0;
	ev->scope_event = p[5].revents != 0;
	ev->log_room = p[8].revents != 0;
	/* output read, or held output dropped (its reader went away): the
	 * idle deadline counts silence from here */
	size_t moved =
	    nrelay > 0 ? runx_relay_pump(s->relay, &p[relay_at], nrelay) : 0;
	/* taken every round: a drop left for a later round would restart
	 * the silence there, when nothing happened */
	bool dropped = nrelay > 0 && runx_relay_take_dropped(s->relay);
	if (moved > 0 || dropped)
		s->last_output_ns = runx_now_ns();
	if (nrelay > 0)
		tell_relay_error(s);
	return 0;
}

/* The loop: until the scope is empty (or runx gave up on it). */
static int supervise_loop(struct supervisor *s)
{
	while (s->phase != DONE) {
		struct events ev = {false, false, false, false, false,
				    false, false, false, false};
		int r = wait_events(s, &ev);

		if (r < 0)
			return r;
		/* a relay round touches neither: no system calls for them */
		if (ev.signals)
			drain_signals(s);
		if (ev.signals || ev.child || ev.command)
			sup_reap(
			    s); /* every child's death also queues SIGCHLD */
		if (s->exited && s->phase == RUNNING)
			sup_on_command_exit(s);
		if (ev.deadline)
			sup_on_deadline(s);
		if (ev.idle)
			sup_on_idle_timer(s);
		if (ev.grace && s->phase == STOPPING)
			sup_escalate(s, GRACE_ENDED);
		else if (ev.grace && s->phase == KILLING)
			sup_give_up(s);
		if (ev.recheck)
			sup_on_recheck(s);
		/* while the command lives its pidfd wakes runx: no census,
		 * but a change of cgroup.events is read, which acknowledges
		 * it: kernfs keeps POLLPRI up until the file is read again
		 * (the newcomer passes freeze and thaw the cgroup) */
		if (s->phase != RUNNING && s->phase != DONE &&
		    (s->exited || ev.scope_event) &&
		    sup_census(s, false) == 0 && s->exited)
			s->phase = DONE;
		if (ev.log_room || runx_log_retry_ms() >= 0)
			runx_log_flush(ev.log_room);
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
		sup_close_watches(s);
		runx_scope_kill(s->scope);
		sup_reap(s);
		if (s->exited && sup_census(s, false) == 0)
			return;
		nanosleep(&tick, NULL);
	}
	s->res->unverified = s->live_unknown;
	runx_error("%d process%s still alive %d s after SIGKILL", s->live,
		   s->live == 1 ? "" : "es", RUNX_KILL_WAIT_S);
}

/*
 * Disarms every timer: an attempt ends with timers of its own still armed
 * (a deadline that did not fire), which must not fire in the next.
 */
static int disarm_timers(const struct runx_supervisor *f)
{
	const struct itimerspec off = {{0, 0}, {0, 0}};
	const int fds[] = {f->deadline_fd, f->grace_fd, f->recheck_fd,
			   f->idle_fd};
	uint64_t ticks;

	for (size_t i = 0; i < sizeof(fds) / sizeof(fds[0]); i++) {
		if (fds[i] < 0)
			continue; /* not opened: not needed by the plan */
		if (timerfd_settime(fds[i], 0, &off, NULL) < 0)
			return -errno;
		/* a tick that fired unread: gone with the read */
		(void)!read(fds[i], &ticks, sizeof(ticks));
	}
	return 0;
}

/*
 * Arms the deadline (the attempt's or, if earlier, the run's: one timer,
 * deadline_is_total says which) and the idle timer; -errno on failure.
 */
static int arm_deadlines(struct supervisor *s)
{
	const struct runx_stop_policy *o = s->stop;
	int64_t start = s->res->start_ns;
	int64_t at = sup_after(start, o->deadline_ns);
	/* the first attempt's timers are as runx_supervisor_open() made
	 * them: disarmed, no system call needed */
	int r = s->fds->armed ? disarm_timers(s->fds) : 0;

	if (s->fds->total_at != RUNX_DURATION_INF && s->fds->total_at <= at) {
		at = s->fds->total_at;
		s->deadline_is_total = true;
	}
	if (r == 0 && at != RUNX_DURATION_INF)
		r = sup_arm_at(s->fds->deadline_fd, at);
	if (r == 0 && s->relay != NULL &&
	    o->idle_deadline_ns != RUNX_DURATION_INF)
		r = sup_arm_at(s->fds->idle_fd,
			       sup_after(start, o->idle_deadline_ns));
	return r;
}

/* ns as whole milliseconds, rounded up, at most INT_MAX. */
static int grace_ms(int64_t ns)
{
	int64_t ms = ns / 1000000 + (ns % 1000000 != 0);

	return ms > INT_MAX ? INT_MAX : (int)ms;
}

/*
 * The relay's drain woke up for the signalfd: true if a stop signal came
 * (the rest of the output is dropped at once: a second Ctrl-C must not
 * wait for a reader, even with -k inf; the attempt keeps its outcome and
 * the run ends with it, as for a stop signal during a stop).  The scope
 * is empty by now: other signals have no command to go to.
 */
static bool drain_stop_signal(void *arg)
{
	struct supervisor *s = arg;
	struct signalfd_siginfo si;
	char name[32];
	bool stop = false;

	for (int n = 0;
	     n < SIGNALS_PER_ROUND &&
	     read(s->fds->sigfd, &si, sizeof(si)) == (ssize_t)sizeof(si);
	     n++) {
		int sig = (int)si.ssi_signo;
		if (sig == SIGCHLD)
			continue;
		bool stops = is_stop_signal(s, sig);
		runx_verbose("received %s while delivering the output%s",
			     sup_signame(sig, name, sizeof(name)),
			     stops ? "" : "; not forwarded: the command ended");
		if (stops && !stop) {
			stop = true;
			s->res->told_to_stop = sig; /* and no further attempt */
		}
	}
	return stop;
}

/* Delivers what the command wrote; a reader that stops reading is
 * waited for the grace period at most, a stop signal ends the wait
 * (runx(1), --idle-timeout). */
static void finish_relay(struct supervisor *s)
{
	const struct runx_relay_wake wake = {s->fds->sigfd, drain_stop_signal,
					     s};
	size_t dropped =
	    runx_relay_finish(s->relay, grace_ms(s->stop->grace_ns), &wake);
	tell_relay_error(s);
	if (dropped > 0)
		runx_verbose("gave up on the output: %zu byte%s the reader had "
			     "not taken were dropped",
			     dropped, dropped == 1 ? "" : "s");
}

/* The end: reason and exit status from what the loop saw. */
static void conclude(struct supervisor *s)
{
	struct runx_result *res = s->res;

	sup_close_watches(s);
	if (s->relay != NULL)
		finish_relay(s);
	res->end_ns = runx_now_ns();
	if (!s->timed_out && res->reason != RUNX_END_RUNX_SIGNALED &&
	    WIFSIGNALED(res->wait_status)) {
		int sig = WTERMSIG(res->wait_status);
		/* a death by a signal runx forwarded is not one "runx did
		 * not send" (runx(1), REPORT; --retry-on=signal) */
		bool fwd =
		    sig >= 1 && sig <= 64 && (res->forwarded >> (sig - 1) & 1);
		res->reason = fwd ? RUNX_END_RUNX_SIGNALED : RUNX_END_SIGNALED;
		res->runx_signal = fwd ? sig : 0;
		res->forwarded_death = fwd;
	}
	res->exit_status = runx_exit_status(s->stop, res);
}

int runx_supervise(struct runx_supervisor *sup, const struct runx_plan *plan,
		   struct runx_scope *scope, int pidfd,
		   struct runx_relay *relay, struct runx_result *res)
{
	struct supervisor s = {
	    .stop = &plan->stop,
	    .fds = sup,
	    .scope = scope,
	    .res = res,
	    .relay = relay,
	    .last_output_ns = res->start_ns,
	    .pidfd = pidfd,
	    .phase = RUNNING,
	    /* counts are read only by -v and --report */
	    .count = plan->report.count,
	    .may_retry = plan->attempts.max != 1,
	    .keep_usage = plan->report.path != NULL,
	};

	res->reason = RUNX_END_EXITED;
	int r = arm_deadlines(&s);
	sup->armed = true; /* the next attempt disarms what this one left */
	if (r < 0) {
		/* timerfd_settime(2) on a timerfd of ours cannot fail for
		 * lack of a resource; if it fails anyway, keep no promise
		 * runx cannot keep: take the command down now */
		runx_error("cannot arm the deadline: %s", strerror(-r));
		sup_note_error(&s, r);
		sup_begin_stop(&s, SIGKILL, "sending");
	}
	r = supervise_loop(&s);
	if (r < 0) {
		runx_error("event loop failed: %s; killing the %s scope",
			   strerror(-r), runx_scope_name(scope));
		kill_without_poll(&s);
		sup_note_error(&s, r);
	}
	if (s.autoreap)
		sup_note_error(&s, runx_autoreap(false));
	conclude(&s);
	return s.error;
}
