/*
 * The stop state machine (runx(1), STOPPING): RUNNING -> STOPPING (the
 * first signal and SIGCONT sent, the grace timer armed; newcomers reached
 * every RECHECK_NS) -> KILLING (SIGKILL sent, re-sent while anything is
 * left, bounded by RUNX_KILL_WAIT_NS) -> DONE once the scope is empty.
 */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/timerfd.h>
#include <sys/wait.h>
#include <unistd.h>

#include "clock.h"
#include "duration.h"
#include "exit_status.h"
#include "log.h"
#include "proc.h"
#include "signals.h"
#include "supervise_impl.h"
#include "syscalls.h"

void sup_record_signal(struct supervisor *s, int sig, int reached,
		       enum sup_sent_as as)
{
	struct runx_result *r = s->res;
	const struct runx_signal_event e = {
	    .offset_ns = runx_now_ns() - r->start_ns,
	    .signo = sig,
	    .reached = reached,
	    .to_command =
		as == SENT_TO_COMMAND || as == SENT_BY_STOP_TO_COMMAND,
	};

	bool forwarded = as == SENT_FORWARDED || as == SENT_TO_COMMAND;

	runx_signal_log_add(&r->signals, &e, forwarded);
	if (forwarded && sig >= 1 && sig <= 64)
		r->forwarded |= UINT64_C(1) << (sig - 1);
}

/* Adds one signal of a stop to the result's list. */
static void record_signal(struct supervisor *s, int sig, int reached)
{
	sup_record_signal(s, sig, reached, SENT_BY_STOP);
}

/* Says with -v that sig went to the scope (or to newcomers). */
static void tell_sent(struct supervisor *s, const char *why, int sig,
		      int reached)
{
	char name[32], where[PATH_MAX + 32];

	runx_verbose("%s%s%s to %s (%d process%s)", why, *why ? ": " : "",
		     sup_signame(sig, name, sizeof(name)),
		     sup_scope_text(s, where, sizeof(where)), reached,
		     reached == 1 ? "" : "es");
}

/* Records (as as) and says (-v) that sig reached processes, or what
 * failed. */
static void sent_as(struct supervisor *s, int sig, int reached, const char *why,
		    enum sup_sent_as as)
{
	char name[32], where[PATH_MAX + 32];

	if (reached < 0) {
		runx_error("cannot send %s to %s: %s",
			   sup_signame(sig, name, sizeof(name)),
			   sup_scope_text(s, where, sizeof(where)),
			   strerror(-reached));
		sup_note_error(s, reached);
		return;
	}
	sup_record_signal(s, sig, reached, as);
	tell_sent(s, why, sig, reached);
}

/* sent_as() for a stop's own signal. */
static void sent(struct supervisor *s, int sig, int reached, const char *why)
{
	sent_as(s, sig, reached, why, SENT_BY_STOP);
}

/* Sends sig to the whole scope, saying so with -v. */
void sup_send_to_scope(struct supervisor *s, int sig, const char *why)
{
	sup_close_watches(s);
	sent(s, sig, runx_scope_signal(s->scope, sig, s->count), why);
}

void sup_send_outside_group(struct supervisor *s, int sig, pid_t pgrp)
{
	char name[32];

	sup_close_watches(s);
	int reached = runx_scope_signal_outside_group(s->scope, sig, pgrp);
	if (reached < 0) {
		sent(s, sig, reached, "sending");
		return;
	}
	if (reached == 0)
		return; /* none outside: nothing to record or say */
	record_signal(s, sig, reached);
	runx_verbose("sending: %s to the scope's processes outside process "
		     "group %d (%d process%s)",
		     sup_signame(sig, name, sizeof(name)), (int)pgrp, reached,
		     reached == 1 ? "" : "es");
}

void sup_forward_times(struct supervisor *s, int sig, int times,
		       enum sup_sent_as as)
{
	sup_close_watches(s);
	int reached = runx_scope_signal_times(s->scope, sig, times, s->count);
	for (int k = 0; k < times && (k == 0 || reached >= 0); k++)
		sent_as(s, sig, reached, "forwarding", as);
}

/* Says on stderr that the command had left the scope and got sig through
 * its pidfd, and records the signal as the command's. */
static void tell_escaped(struct supervisor *s, int sig)
{
	char name[32], where[PATH_MAX + 32];

	runx_error("the command (pid %d) had left %s; sent it %s through its "
		   "pidfd",
		   (int)s->res->pid, sup_scope_text(s, where, sizeof(where)),
		   sup_signame(sig, name, sizeof(name)));
	s->told_left = true;
	sup_record_signal(s, sig, 1, SENT_BY_STOP_TO_COMMAND);
}

/*
 * True if runx's direct child has not exited (waitid(2) of its pidfd with
 * WNOWAIT, Linux 5.4: a zombie stays one for the loop to reap).
 */
static bool child_running(const struct supervisor *s)
{
	siginfo_t si = {.si_pid = 0};

	if (s->exited || s->pidfd < 0)
		return false;
	if (waitid((idtype_t)P_PIDFD, (id_t)s->pidfd, &si,
		   WEXITED | WNOHANG | WNOWAIT) < 0)
		return errno != ECHILD;
	return si.si_pid == 0;
}

/* True if the direct child runs outside the scope (it left it). */
static bool child_escaped(struct supervisor *s)
{
	return !runx_scope_holds_child(s->scope) && child_running(s);
}

/* sig to the command, which left the scope, through its pidfd, saying so;
 * true if sent. */
static bool signal_escaped(struct supervisor *s, int sig)
{
	if (runx_pidfd_send_signal(s->pidfd, sig) < 0)
		return false;
	tell_escaped(s, sig);
	return true;
}

/*
 * The first signal of a stop and SIGCONT, in one pass where the scope can;
 * to the command too, through its pidfd, if it left the scope (runx(1),
 * STOPPING: it gets the first signal before the SIGKILL, as every process
 * of the job does).
 */
static void send_stop_signal(struct supervisor *s, int sig, const char *why)
{
	sup_close_watches(s);
	bool left = child_escaped(s);
	int reached = runx_scope_stop_signal(s->scope, sig, s->count);
	sent(s, sig, reached, why);
	if (reached >= 0)
		sent(s, SIGCONT, reached, "sending");
	if (left && signal_escaped(s, sig) &&
	    runx_pidfd_send_signal(s->pidfd, SIGCONT) == 0)
		sup_record_signal(s, SIGCONT, 1, SENT_BY_STOP_TO_COMMAND);
}

/* Arms the re-check timer: every RECHECK_NS while a stop is under way. */
static void arm_recheck(struct supervisor *s)
{
	struct itimerspec its = {{0, RECHECK_NS}, {0, RECHECK_NS}};

	if (timerfd_settime(s->fds->recheck_fd, 0, &its, NULL) < 0)
		sup_note_error(s, -errno);
}

/* The first signal and SIGCONT to processes no signal reached yet; last:
 * the pass right before the SIGKILL. */
static void signal_newcomers(struct supervisor *s, bool last)
{
	int sig = s->stop_sig;

	if (sig == 0 || sig == SIGKILL)
		return;
	sup_close_watches(s);
	int n = runx_scope_newcomers(s->scope, sig, last);
	if (n > 0) {
		sent(s, sig, n, "sending to newcomers");
		if (sig != SIGCONT)
			sent(s, SIGCONT, n, "sending to newcomers");
	}
}

/*
 * After the SIGKILL: the scope is re-counted every RECHECK_NS (and what
 * appeared killed again), and the grace timer, free now, bounds the wait
 * to RUNX_KILL_WAIT_NS.
 */
static void wait_after_kill(struct supervisor *s)
{
	arm_recheck(s);
	sup_note_error(s,
		       sup_arm_at(s->fds->grace_fd,
				  sup_after(runx_now_ns(), RUNX_KILL_WAIT_NS)));
}

/*
 * SIGKILL to runx's direct child through its pidfd, wherever it is: a
 * root job can move itself out of its cgroup (runx(1), STOPPING), and the
 * scope's kill does not reach it there.  escaped: the scope was found
 * empty while the child runs, so it left: said on stderr.  True if sent.
 */
static bool kill_direct_child(struct supervisor *s, bool escaped)
{
	if (s->exited || s->pidfd < 0 ||
	    runx_pidfd_send_signal(s->pidfd, SIGKILL) < 0)
		return false;
	if (escaped)
		tell_escaped(s, SIGKILL);
	return true;
}

/*
 * Counts and names (-v, --report) what is alive as the grace period ends,
 * alive being the census's count: not a process already exiting (of the
 * first signal, say), which the SIGKILL still goes to; the command, if it
 * left the scope (left), is one more.  Says it with -v.
 */
static void tell_alive(struct supervisor *s, int alive, bool cut_short,
		       bool left)
{
	char dur[32];
	struct runx_named *named = &s->res->after_grace;

	if ((alive > 0 || s->live_unknown) &&
	    sup_take_named(s, named, true) >= 0 && !s->live_unknown)
		s->res->killed = named->count;
	if (left && sup_add_named(s, named, s->res->pid))
		s->res->killed++;
	int k = s->res->killed;
	runx_duration_format(s->stop->grace_ns, dur, sizeof(dur));
	if (k == 0 && cut_short)
		runx_verbose("what is left is exiting, not yet gone, when the "
			     "grace period was cut short");
	else if (k == 0)
		runx_verbose("what is left is exiting, not yet gone, when the "
			     "%s grace period ended",
			     dur);
	else if (cut_short)
		runx_verbose("%d process%s still alive when the grace period "
			     "was cut short",
			     k, k == 1 ? "" : "es");
	else
		runx_verbose("%d process%s still alive after the %s grace "
			     "period",
			     k, k == 1 ? "" : "es", dur);
	if (named->taken)
		sup_tell_named(named, "after the grace period");
}

/*
 * SIGKILL whatever is still alive.  When the grace period ran its course,
 * a last pass for newcomers goes right before it (after the count), so
 * that none meets only the SIGKILL; with no grace (or a grace cut short) the
 * SIGKILL goes out at once, as asked.  A command that left the scope gets its
 * SIGKILL through its pidfd, said on stderr; one that is exiting, not reaped
 * yet (the scope found empty), gets it without a word.
 */
void sup_escalate(struct supervisor *s, enum escalation why)
{
	bool last_pass = s->phase == STOPPING && why == GRACE_ENDED;
	int alive = sup_census_reaped(s);
	bool left = child_escaped(s);
	s->phase = KILLING;
	s->res->killed = alive;
	if (alive == 0 && !s->live_unknown && !left) {
		if (child_running(s) && kill_direct_child(s, false))
			wait_after_kill(s);
		return;
	}
	tell_alive(s, alive, why == CUT_SHORT, left);
	/* after the count and the names (-v, --report: with thousands of
	 * processes they take a while), so that none born meanwhile meets
	 * only the SIGKILL */
	if (last_pass)
		signal_newcomers(s, true);
	if (alive > 0 || s->live_unknown)
		sup_send_to_scope(s, SIGKILL, "sending");
	kill_direct_child(s, left); /* in the scope or not: it must end */
	wait_after_kill(s);
}

/*
 * RUNX_KILL_WAIT_NS after SIGKILL, with the census counting alive (0 or
 * 1) processes: true if the command has ended (a zombie, /proc/PID/stat)
 * that runx cannot reap, for a tracer holds it (/proc/PID/status
 * TracerPid, runx_proc_tracer(); the kernel lets only the
 * tracer reap a traced child: wait_consider_task(), kernel/exit.c), and
 * the one the census counted, if any, is that zombie as far as it can
 * tell (the tree scope counts a zombie child of runx's without listing
 * it; one listed must be the command).  Says so and ends the supervision
 * (res->unreleased, and res->unkillable: the scope is not verified empty,
 * so no further attempt); the command counts as killed by SIGKILL.
 */
static bool command_unreleased(struct supervisor *s, int alive)
{
	char where[PATH_MAX + 32];
	struct runx_proc_stat st;
	pid_t pids[2];
	struct runx_census c = {.pids = pids, .maxpids = 2, .want_count = true};

	if (!s->scope->proc_trusted || runx_proc_stat(s->res->pid, &st) < 0 ||
	    !runx_proc_is_dead(&st) || runx_proc_tracer(s->res->pid) <= 0)
		return false;
	if (alive == 1) {
		runx_scope_census(s->scope, &c);
		if (c.state == RUNX_CENSUS_UNKNOWN || c.count != 1 ||
		    (c.npids == 1 && pids[0] != s->res->pid))
			return false;
	}
	s->res->unreleased = true;
	s->res->unkillable = 1; /* not verified empty: no further attempt */
	runx_error("the command (pid %d) in %s has ended, but %d s after "
		   "SIGKILL runx still cannot reap it: a tracer holds it; "
		   "giving up on it",
		   (int)s->res->pid, sup_scope_text(s, where, sizeof(where)),
		   RUNX_KILL_WAIT_S);
	s->exited = true;
	s->res->wait_status = SIGKILL; /* as waitpid(2) would say */
	s->phase = DONE;
	return true;
}

/*
 * RUNX_KILL_WAIT_NS after SIGKILL the scope is still not empty: what is
 * left should only be in uninterruptible sleep with SIGKILL pending, or
 * the census cannot see it.  Says so and ends the supervision; an
 * unreaped command counts as killed by SIGKILL, which is how it will end.
 * One left that is neither in D nor exiting was not reached by the
 * SIGKILL (a seccomp filter refused it; a job whose pid hopped faster
 * than a walk of /proc, before kill_children() in scope_tree.c): the
 * exit status is then 125, never the command's own (res->unreached).
 */
void sup_give_up(struct supervisor *s)
{
	char where[PATH_MAX + 32];
	int alive = sup_census(s, true);

	if (alive == 0 && s->exited)
		return; /* the loop sees the empty scope */
	if (alive <= 1 && command_unreleased(s, alive))
		return;
	if (alive == 0)
		alive = 1; /* the command itself, not reaped yet */
	s->res->unkillable = alive;
	struct sup_left k;
	sup_count_left(s, &k);
	s->res->unkillable_d = k.uninterruptible;
	s->res->unreached = k.unreached > 0;
	s->res->unverified = s->live_unknown;
	if (s->live_unknown)
		runx_error("cannot verify that %s is empty %d s after SIGKILL; "
			   "giving up",
			   sup_scope_text(s, where, sizeof(where)),
			   RUNX_KILL_WAIT_S);
	else
		runx_error("%d process%s in %s still alive %d s after SIGKILL"
			   "%s; giving up on %s",
			   alive, alive == 1 ? "" : "es",
			   sup_scope_text(s, where, sizeof(where)),
			   RUNX_KILL_WAIT_S, runx_give_up_cause(s->res),
			   alive == 1 ? "it" : "them");
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
 * These passes take at most about 1 / PASS_SHARE of one CPU: one that
 * took T of runx's CPU time (CLOCK_PROCESS_CPUTIME_ID) is followed by
 * none for (PASS_SHARE - 1) T, so that a job of 10,000 processes that
 * ignore the first signal, read each pass (fork copies, scope_signal.c),
 * keeps its CPUs for its own clean-up (runx(1), STOPPING).  The pass
 * before the SIGKILL (sup_escalate()) and the census that ends the wait
 * (supervise.c) are not held back.
 */
void sup_on_recheck(struct supervisor *s)
{
	int64_t now = runx_now_ns();

	if (now < s->pass_after_ns)
		return; /* the last pass's share of the time is not up */
	int64_t cpu = runx_cpu_ns();
	sup_close_watches(s);
	if (s->phase == STOPPING) {
		signal_newcomers(s, false);
	} else if (s->phase == KILLING && sup_census(s, false) > 0) {
		sup_close_watches(s);
		runx_scope_kill(s->scope);
	}
	int64_t after = runx_cpu_ns();
	if (cpu >= 0 && after > cpu)
		s->pass_after_ns = now + (PASS_SHARE - 1) * (after - cpu);
}

/*
 * Starts a stop with first signal sig: the -s signal, or the stop signal
 * runx received, which is forwarded as the first signal (as GNU timeout
 * does, so that a graceful handler of SIGINT does not get a SIGTERM on top
 * of it).
 */
void sup_begin_stop(struct supervisor *s, int sig, const char *why)
{
	s->phase = STOPPING;
	sup_release_orphans(s);
	s->phase_was_stop = s->res->reason != RUNX_END_EXITED;
	s->stop_sig = sig;
	/* A stopped process cannot act on the first signal until continued. */
	if (sig != 0 && sig != SIGKILL && sig != SIGCONT) {
		send_stop_signal(s, sig, why);
	} else if (sig != 0) {
		bool left = child_escaped(s);
		sup_send_to_scope(s, sig, why);
		if (left)
			signal_escaped(s, sig);
	} else {
		runx_verbose("%s: first signal is 0, nothing sent", why);
	}
	if (sig == SIGKILL) { /* the SIGKILL went out: no grace period */
		s->phase = KILLING;
		wait_after_kill(s);
		return;
	}
	if (s->stop->grace_ns == 0) {
		sup_escalate(s, AT_ONCE);
		return;
	}
	arm_recheck(s);
	if (s->stop->grace_ns != RUNX_DURATION_INF)
		sup_note_error(
		    s, sup_arm_at(s->fds->grace_fd,
				  sup_after(runx_now_ns(), s->stop->grace_ns)));
}

/*
 * How many of the left processes the census counted (left > 0) are
 * alive, for -v and --report, from one census that lists them, taken
 * once runx's zombie children are reaped (the killed ones among them):
 * its count less the listed ones that a signal is ending
 * (runx_proc_is_dying_of_signal(): killed by another process of the job
 * just before the command exited, say), as the lists of the deadline and
 * the grace period leave them out (of the first RUNX_MAX_NAMED listed).
 * One exiting on its own, or dead by the time it is read, still counts:
 * its pid may be hopping to a child that the census counted through it.
 * The stop or the wait goes on until the scope is empty all the same.
 * The census's watches are renewed; 0 if the scope is empty by then.
 * Without -v and --report, or where no census can list the scope
 * (another PID namespace's /proc), left.
 */
static int leftovers_alive(struct supervisor *s, int left)
{
	struct sup_left k;

	if (!s->count)
		return left;
	/* as sup_census_reaped(): a killed one may turn into a zombie child
	 * of runx's (which the census counts) between a reap and the
	 * listing, or be listed and then be gone when read (a PID
	 * namespace's init reaped it): again, a few rounds at most, for a
	 * job whose children keep dying */
	for (int round = 0; round < 4; round++) {
		sup_reap(s);
		sup_count_left(s, &k);
		if (k.listed == 0 || (!sup_zombie_child() && k.vanished == 0))
			break;
	}
	if (sup_census(s, false) == 0)
		return 0;
	if (!k.seen)
		return left; /* no listing to count from: the census's */
	return k.listed > k.dying ? k.listed - k.dying : 0;
}

/*
 * The command exited on its own while RUNNING: clean up or wait.  Where
 * the census finds leftovers while runx has a zombie child, they are
 * counted again once the zombies are reaped (sup_census_reaped()): a
 * zombie child of runx is not a leftover, and the tree scope does not
 * count its children as none while one is there.  An empty scope, the
 * common case, costs no wait(2) more.
 */
void sup_on_command_exit(struct supervisor *s)
{
	char where[PATH_MAX + 32];

	int left = sup_census(s, true);
	if (left > 0 && sup_zombie_child())
		left = sup_census_reaped(s);
	if (left > 0)
		left = leftovers_alive(s, left);
	s->res->leftovers = left;
	if (s->live == 0) {
		s->phase = DONE;
		return;
	}
	sup_scope_text(s, where, sizeof(where));
	if (left == 0)
		runx_verbose(
		    "what is left in %s is exiting, not yet gone: %s it", where,
		    s->stop->wait_all ? "waiting for" : "stopping");
	if (s->stop->wait_all) {
		if (left > 0)
			runx_verbose("waiting for %d process%s left in %s "
				     "(--wait-all)",
				     left, left == 1 ? "" : "es", where);
		s->phase = WAITING;
		/* a member without a watch (past RUNX_MAX_WATCH, hidden, or
		 * born after the census's /proc listing) wakes nobody: the
		 * census runs again every RECHECK_NS */
		arm_recheck(s);
		return;
	}
	if (left > 0)
		runx_verbose("stopping %d leftover process%s in %s", left,
			     left == 1 ? "" : "es", where);
	sup_begin_stop(s, s->stop->first_signal, "sending");
}

/*
 * Arms the run's total deadline (if there is one) in place of the
 * attempt's that just fired, which was the earlier (arm_deadlines()),
 * so that -v says so if it passes during the stop that follows or is
 * under way (the exit status does not depend on it: run.c reads the
 * clock); a failure to arm loses only that line.
 */
static void arm_total_deadline(struct supervisor *s)
{
	if (!s->deadline_is_total && s->fds->total_at != RUNX_DURATION_INF &&
	    sup_arm_at(s->fds->deadline_fd, s->fds->total_at) == 0)
		s->deadline_is_total = true;
}

/* The deadline fired: a stop, unless one is under way. */
void sup_on_deadline(struct supervisor *s)
{
	char dur[32];

	/* during a stop the stop goes on; the run's deadline still ends
	 * the run, with 124 but after a success (run.c) */
	if (s->phase != RUNNING && s->phase != WAITING) {
		if (s->deadline_is_total)
			runx_verbose("total deadline of the run reached during "
				     "the stop: no further attempt");
		arm_total_deadline(s);
		return;
	}
	s->timed_out = true;
	s->res->reason = RUNX_END_TIMEOUT;
	s->res->total_timeout = s->deadline_is_total;
	if (s->deadline_is_total)
		runx_verbose("total deadline of the run reached "
			     "(--total-timeout)");
	else
		runx_verbose("deadline of %s reached",
			     runx_duration_format(s->stop->deadline_ns, dur,
						  sizeof(dur)));
	sup_name_alive(s, &s->res->at_deadline, "at the deadline");
	arm_total_deadline(s);
	sup_begin_stop(s, s->stop->first_signal, "sending");
}

/*
 * The idle timer fired: a stop if nothing was written for the whole idle
 * period, else re-armed from the last output.  Output does not re-arm the
 * timer itself, which would cost a system call per chunk.
 */
void sup_on_idle_timer(struct supervisor *s)
{
	char dur[32];
	int64_t idle_until =
	    sup_after(s->last_output_ns, s->stop->idle_deadline_ns);

	if (s->phase != RUNNING && s->phase != WAITING)
		return;
	/* output waiting for a slow reader is not silence, nor is a job
	 * that runx holds stopped (job control; one that wrote since was
	 * continued by someone else) */
	if (runx_relay_holds_output(s->relay) ||
	    (s->job_stopped && s->last_output_ns <= s->job_stopped_ns))
		idle_until =
		    sup_after(runx_now_ns(), s->stop->idle_deadline_ns);
	if (runx_now_ns() < idle_until) {
		sup_note_error(s, sup_arm_at(s->fds->idle_fd, idle_until));
		return;
	}
	s->timed_out = true;
	s->res->reason = RUNX_END_IDLE_TIMEOUT;
	runx_verbose(
	    "idle deadline reached: no output for %s",
	    runx_duration_format(s->stop->idle_deadline_ns, dur, sizeof(dur)));
	/* what was silent is named, as at the deadline (runx(1), -v) */
	sup_name_alive(s, &s->res->at_deadline, "at the idle deadline");
	sup_begin_stop(s, s->stop->first_signal, "sending");
}
