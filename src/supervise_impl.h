/*
 * For the supervisor's files only (supervise.c: the event loop; stop.c:
 * the stop state machine; watch.c: what is alive in the scope).  The rest
 * of runx uses supervise.h.
 */
#ifndef RUNX_SUPERVISE_IMPL_H
#define RUNX_SUPERVISE_IMPL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "plan.h"
#include "relay.h"
#include "result.h"
#include "scope.h"
#include "supervise.h"

/* While stopping: how often to sweep for newcomers and re-kill (ns). */
#define RECHECK_NS 100000000L
/* ... but those passes take at most 1 / PASS_SHARE of the time: after a
 * pass that took T of runx's CPU time, the next waits (PASS_SHARE - 1) T
 * (stop.c, sup_on_recheck()). */
#define PASS_SHARE 10

enum phase { RUNNING, WAITING, STOPPING, KILLING, DONE };

/* Why the SIGKILL goes out now. */
enum escalation {
	GRACE_ENDED, /* the grace period is over */
	AT_ONCE,     /* -k 0: no grace period at all */
	CUT_SHORT,   /* a second stop signal ended the grace period */
};

/* The state of one supervision: the loop's, shared by its files. */
struct supervisor {
	const struct runx_stop_policy *stop;
	const struct runx_supervisor *fds;
	struct runx_scope *scope;
	struct runx_result *res;
	struct runx_relay *relay; /* NULL without --idle-timeout */
	int64_t last_output_ns;
	int pidfd;
	bool exited;
	bool ended_in_scope; /* pidns: the command ended, its init runs on */
	bool autoreap;	     /* the kernel releases runx's children as they
			      * exit (sup_release_orphans()) */
	bool keep_usage;     /* --report: its rusage needs every child
			      * reaped by runx */
	enum phase phase;
	bool timed_out;
	bool deadline_is_total; /* the deadline timer is --total-timeout's */
	bool count;		/* count the processes each signal reaches */
	bool may_retry;		/* --attempts above 1: an attempt can follow */
	bool told_unknown;	/* the census failure was reported */
	bool phase_was_stop;	/* a deadline or stop signal began a stop */
	int stop_sig;		/* the stop's first signal (newcomers get it) */
	bool told_left;		/* runx said the command had left the scope */
	int64_t job_stopped_ns; /* CLOCK_MONOTONIC (ns) of that SIGSTOP */
	bool job_stopped;	/* runx sent the scope SIGSTOP (job control):
				 * the next SIGCONT continues all of it */
	int64_t pass_after_ns;	/* CLOCK_MONOTONIC (ns): no newcomer or
				 * re-kill pass before (PASS_SHARE) */
	int watch[RUNX_MAX_WATCH];
	int nwatch;
	int live; /* last census of the scope (UNKNOWN counts as alive) */
	bool live_unknown;
	int error;
};

/* Keeps the first error of runx itself (err < 0). */
void sup_note_error(struct supervisor *s, int err);

/* Arms timerfd fd to fire at CLOCK_MONOTONIC time at_ns; 0 or -errno. */
int sup_arm_at(int fd, int64_t at_ns);

/* base + delta (ns), saturating; RUNX_DURATION_INF stays "never". */
int64_t sup_after(int64_t base, int64_t delta);

/* watch.c: closes the census's pidfds, freeing fds for a /proc walk. */
void sup_close_watches(struct supervisor *s);

/*
 * watch.c: re-counts the scope and renews the pidfds that wake runx as it
 * empties (counting: the number matters, for -v and --report).  A census
 * that cannot look counts as alive.  Returns the live count (>= 1 when
 * not verified empty).
 */
int sup_census(struct supervisor *s, bool counting);

/* watch.c: true if runx has a child that has exited and is not reaped
 * yet (waitid(2) with WNOWAIT: it stays so). */
bool sup_zombie_child(void);

/*
 * watch.c: sup_census() (counting) after sup_reap(), again while a child
 * of runx died meanwhile (4 rounds at most).  For the end of a grace
 * period: an unreaped zombie of runx's own is a member that kill(2) still
 * finds, which the group scope cannot tell from one /proc does not list
 * (scope_group.c); it is not "still alive".  Returns the live count.
 */
int sup_census_reaped(struct supervisor *s);

/*
 * watch.c: lists the processes alive now into *named (-v, --report): at
 * most RUNX_MAX_NAMED named (pid, age, command line), and the count of
 * those, of listed ones /proc cannot show but the kernel still has (a
 * pidfd_open(2) each), and of the rest past the list's end; a listed one
 * that is gone or exiting (runx_proc_is_exiting()) is in none, nor what
 * the census counted without listing it.  reaping: the census is taken
 * as sup_census_reaped() takes it (only where reaping the command cannot
 * change what runx does next).  A census of the scope and a /proc/PID/stat
 * and cmdline read per listed pid (one fd at a time).  Returns that count,
 * or -1 without -v and --report (nothing taken).
 */
int sup_take_named(struct supervisor *s, struct runx_named *named,
		   bool reaping);

/*
 * watch.c: adds process pid (not listed by the scope: the command outside
 * it) to *named, making the list if it was not taken (named if /proc shows
 * it, else only counted); without -v and --report nothing is listed.
 * False if pid is gone or exiting (runx_proc_is_exiting(), read now: one
 * fd at a time), else true.
 */
bool sup_add_named(struct supervisor *s, struct runx_named *named, pid_t pid);

/* watch.c: says with -v what sup_take_named() took, "alive WHEN: ...". */
void sup_tell_named(const struct runx_named *named, const char *when);

/* watch.c: sup_take_named() and, if taken, sup_tell_named(). */
void sup_name_alive(struct supervisor *s, struct runx_named *named,
		    const char *when);

/* What sup_count_left() found of the processes left in the scope. */
struct sup_left {
	bool seen;	     /* the census listed the scope: /proc is runx's
			      * own, and it could look */
	int listed;	     /* the listing census's count: it leaves out
			      * what the scope can tell is exiting (the pidns
			      * scope, whose dying members it may not list:
			      * pidns_census()); 1 where it could not look */
	int uninterruptible; /* in state D (proc(5)) */
	int unreached;	     /* neither in D nor exiting
			      * (runx_proc_is_exiting()): after a SIGKILL, one
			      * that it did not reach */
	int dying;	     /* a signal is ending it
			      * (runx_proc_is_dying_of_signal()) */
	int vanished;	     /* listed, but dead or gone when read */
};

/*
 * watch.c: classifies the processes left in the scope (the first
 * RUNX_MAX_NAMED of a census that lists them, or the command alone while
 * it runs outside the scope) into *k, by a /proc/PID/stat read each, one
 * fd at a time.  The census's watches are closed.  Where /proc is another
 * PID namespace's, it tells nothing of them: all 0 but listed, 1, and
 * seen false, as where the census could not look.
 */
void sup_count_left(struct supervisor *s, struct sup_left *k);

/* watch.c: a signal's name, the scope's description, for messages. */
const char *sup_signame(int sig, char *buf, size_t size);
const char *sup_scope_text(struct supervisor *s, char *buf, size_t size);

/* What a recorded signal was: the report lists a stop's own signals
 * first when there are too many (signal_log.h). */
enum sup_sent_as {
	SENT_BY_STOP,		 /* a stop's, job control's: to the scope */
	SENT_BY_STOP_TO_COMMAND, /* a stop's, to the command alone (it left
				  * the scope) */
	SENT_FORWARDED,		 /* only forwarded, to the scope */
	SENT_TO_COMMAND, /* only forwarded, to the command (--forward-to) */
};

/* stop.c: records that sig, sent now, reached processes (a count, not
 * checked), in the result's log of signals sent (signal_log.h): as says
 * what it was, and whether the log keeps it once its first part is full
 * (a stop's own, job control's) or only counts it (a merely forwarded
 * one).  No errors, no system call but the clock's. */
void sup_record_signal(struct supervisor *s, int sig, int reached,
		       enum sup_sent_as as);

/* stop.c: sig to the whole scope, recorded and said with -v. */
void sup_send_to_scope(struct supervisor *s, int sig, const char *why);

/* stop.c: sig to the scope's processes outside process group pgrp
 * (runx_scope_signal_outside_group()), recorded and said with -v. */
void sup_send_outside_group(struct supervisor *s, int sig, pid_t pgrp);

/* stop.c: sup_send_to_scope() times times in a row, the scope listed once
 * (runx_scope_signal_times()); each send is recorded as as (a forwarded
 * signal, or job control's SIGCONT after a stop: SENT_BY_STOP). */
void sup_forward_times(struct supervisor *s, int sig, int times,
		       enum sup_sent_as as);

/* stop.c: starts a stop with first signal sig (0: none, SIGKILL: no
 * grace period). */
void sup_begin_stop(struct supervisor *s, int sig, const char *why);

/*
 * supervise.c: reaps the command and, as subreaper or PID 1, every orphan
 * that has exited (wait4(2), WNOHANG: never blocks); once the kernel
 * releases runx's children (sup_release_orphans()), which reaps those that
 * exited before, no wait4(2) at all: the command's status comes from its
 * pidfd.  With pidns the direct
 * child is the namespace's init: the scope gives the command's status, when
 * the init is reaped or, if leftovers keep the init alive, as soon as the
 * command ended (runx_scope_command_ended()).
 */
void sup_reap(struct supervisor *s);

/*
 * At the start of a stop of a scope whose orphans are runx's children
 * (the tree scope), without --report: the kernel releases every child of
 * runx as it exits (runx_autoreap()), each by its own exit, in parallel,
 * where runx would reap and release a crowd of them one by one, serially
 * (kernel/exit.c: release_task() runs in the reaper's wait(2) or, with
 * SA_NOCLDWAIT, in the exiting process).  The scope is empty when runx has
 * no child left, as before.  The command's status then comes from its
 * pidfd (sup_reap()), so only where the kernel keeps it
 * (runx_exit_status_kept(), Linux 6.15) or the command is reaped already.
 * Not with --report: a released child's resource usage is not in
 * getrusage(2)'s RUSAGE_CHILDREN, which the report's rusage is.  Until the
 * supervision ends.
 */
void sup_release_orphans(struct supervisor *s);

/* stop.c: SIGKILL to what is still alive, for the reason why. */
void sup_escalate(struct supervisor *s, enum escalation why);

/* stop.c: the scope is not empty RUNX_KILL_WAIT_NS after SIGKILL. */
void sup_give_up(struct supervisor *s);

/* stop.c: the re-check timer fired (newcomers, or SIGKILL again). */
void sup_on_recheck(struct supervisor *s);

/* stop.c: the command exited on its own while RUNNING. */
void sup_on_command_exit(struct supervisor *s);

/* stop.c: the deadline fired. */
void sup_on_deadline(struct supervisor *s);

/* stop.c: the idle timer fired. */
void sup_on_idle_timer(struct supervisor *s);

#endif
