/*
 * For the files that implement a kill scope (scope_*.c) only: their ops
 * tables and the helpers they share.  The rest of runx uses scope.h.
 */
#ifndef RUNX_SCOPE_IMPL_H
#define RUNX_SCOPE_IMPL_H

#include "proc.h"
#include "scope.h"

extern const struct runx_scope_ops runx_scope_child_ops;
extern const struct runx_scope_ops runx_scope_group_ops;
extern const struct runx_scope_ops runx_scope_tree_ops;
extern const struct runx_scope_ops runx_scope_cgroup_ops;
extern const struct runx_scope_ops runx_scope_pidns_ops;

/*
 * True if a newcomer pass of the pidns or group scope may read only the
 * pids allocated after from->pid up to now->pid (runx_proc_each_since())
 * rather than walk all of /proc: both marks were read (from->pid > 0),
 * the counter did not go down and moved by at most 4096, no more forks
 * happened meanwhile than the counter moved (so none took a pid without
 * moving it: a wrap past from, or clone3(2)'s set_tid, which a root job
 * may use), and no process a signal reached as a fork copy waits in
 * s->reached to be looked at again (runx_reach_again(): its pid may be
 * older).
 */
bool runx_newcomer_window(const struct runx_scope *s,
			  const struct runx_pass_mark *from,
			  const struct runx_pass_mark *now);

/*
 * For a process st that a newcomer pass reading only a window of pids
 * found: true if its parent is a newcomer the pass has not reached (a
 * member, per member(parent, arg), that started no earlier than
 * s->stop_tick and is not in s->reached), so that its pid lies outside
 * the window (chosen with clone3(2)'s set_tid): the pass must then walk
 * all of /proc, where the parent comes first, rather than signal the
 * child before it.  Reads the parent's /proc/PID/stat; false if it
 * cannot (gone: nothing to reach).
 */
bool runx_parent_missed(
    const struct runx_scope *s, const struct runx_proc_stat *st,
    bool (*member)(const struct runx_proc_stat *st, void *arg), void *arg);

/* At least this often (ns) a newcomer pass of the pidns or group scope
 * reads every process (runx_newcomer_pass_begin()). */
#define RUNX_NEWCOMER_WALK_NS 1000000000LL

/*
 * Begins a newcomer pass of the pidns or group scope: takes the mark now
 * into *now, and returns true if the pass may read only the window since
 * *from (runx_newcomer_window()), false if it must walk all of /proc.
 * The count of forks against the pid counter can be fooled: forks that
 * fail after the kernel allocated their pid (kernel/fork.c
 * copy_process(): alloc_pid() comes before the last checks, and the fork
 * is counted only at the end) move the counter with no fork counted, as
 * a busy machine's do, and hide as many pids chosen with set_tid.  So a
 * pass also walks all when RUNX_NEWCOMER_WALK_NS have passed since the
 * last walk (or the first signal, from->walked_ns), and the last pass
 * before the SIGKILL (last) always does: a newcomer whose pid is chosen
 * gets the first signal within a second, and never meets only the
 * SIGKILL.  now->walked_ns is from's for a window, else the time now
 * (CLOCK_MONOTONIC).
 */
bool runx_newcomer_pass_begin(const struct runx_scope *s,
			      const struct runx_pass_mark *from,
			      struct runx_pass_mark *now, bool last);

/* What a newcomer pass of the pidns or group scope does with what it
 * reads (runx_newcomer_pass()). */
struct runx_newcomer_pass {
	/* called for each process read, with arg; its nonzero value ends
	 * the pass (-EAGAIN from a window: a walk follows) */
	int (*each)(const struct runx_proc_stat *st, void *arg);
	int (*window_first)(void *arg); /* before a window is read, or NULL;
					 * nonzero: -EAGAIN or an error */
	void (*walk_first)(void *arg);	/* before a walk, or NULL */
	void *arg;
	bool *window; /* set to true while the pass reads a window (each
		       * reads it: runx_parent_missed()) */
};

/*
 * One newcomer pass of the pidns or group scope since the mark *mark
 * (the scope's: the mark of this pass replaces it).  Where
 * runx_newcomer_pass_begin() allows, p->window_first, then the pids
 * allocated since the mark (runx_proc_each_since()); else, or where
 * either returned -EAGAIN (a parent outside the window,
 * runx_parent_missed()), p->walk_first and a walk of all of /proc,
 * oldest first (runx_proc_each_oldest_first()), which stamps the mark's
 * walked_ns.  After any other nonzero value, the next pass walks
 * (mark->pid 0).  Reads /proc/loadavg and /proc/stat, then up to two fds
 * at a time.  Returns 0, a value of p's functions, or -errno (ENOMEM,
 * EMFILE, ...).
 */
int runx_newcomer_pass(const struct runx_scope *s, struct runx_pass_mark *mark,
		       bool last, const struct runx_newcomer_pass *p);

/*
 * A process held by a pidfd as the sign that a scope still has a member:
 * the census of the tree and group scopes asks it alone, instead of
 * reading every member at each SIGCHLD of a stop.  fd is -1 when there is
 * none; the scope that holds one owns fd.
 */
struct runx_witness {
	int fd;
	pid_t pid;
};

/*
 * Makes pid w's witness, pinned by pidfd_open(2) (Linux 5.3), after
 * closing the one before.  0, or -errno (ESRCH: pid is gone; EMFILE):
 * no witness then.  Whether the process pinned is still the one wanted
 * is the caller's check.
 */
int runx_witness_take(struct runx_witness *w, pid_t pid);

/* Closes w's pidfd, if any: w holds no witness. */
void runx_witness_drop(struct runx_witness *w);

/*
 * Counts pid as a live member in *c and, while c has room, opens a pidfd
 * for it into c->watch (owned by the census's caller).  A pidfd that
 * cannot be opened is skipped: the count stays right without it.  Nor is
 * one kept that would leave fewer than 3 fds below RLIMIT_NOFILE for the
 * walk of /proc that finds the members (out of fds it would fail, and the
 * census count as UNKNOWN): the census then watches no more.
 */
void runx_census_found(struct runx_census *c, pid_t pid);

/*
 * Signals one process listed from /proc (*p) through a pidfd, after
 * checking that the pidfd pins the process the list saw or a descendant
 * in its place (a pidfd cannot undo a pid reuse that happened before
 * pidfd_open(2)): the same parent, or runx, by PIDFD_GET_INFO (Linux 6.13),
 * else the same start time (an orphan re-parents meanwhile); then SIGCONT
 * with also_cont.  Returns 1 if signalled, 0 if it is gone or
 * another process has its pid, or -errno.  Needs two fds at once.  If
 * pidfd_open(2) fails (not ESRCH), falls back to kill(2) right after the
 * start-time re-check.
 */
int runx_signal_listed(const struct runx_proc_stat *p, int sig, bool also_cont);

/*
 * For p, listed again, and its entry e in a set: if sig reached it as a
 * fork copy and it has execve'd since (a new image), sends sig once more
 * (then SIGCONT unless sig is SIGCONT) and clears the mark.  Returns 1 if
 * signalled, 0 if not (no exec yet, not marked, gone), or -errno.
 */
int runx_reach_again(struct runx_pidset_entry *e,
		     const struct runx_proc_stat *p, int sig);

/*
 * The newcomer rule of the scopes whose first signal is one kill(2) (group,
 * pidns) for a live process st of the scope: if set holds it,
 * runx_reach_again(); else, if it started in or after stop_tick (boot
 * clock ticks, the first signal's), adds it (marked as runx_resend_after_exec()
 * says) and sends sig, then SIGCONT unless sig is SIGCONT; else nothing
 * (the kill(2) reached it).  member (NULL: every st is one) is asked only
 * then, for a check that costs more than reading st.  Returns 1 if
 * signalled, 0 if not, or -errno.
 */
int runx_reach_late(struct runx_pidset *set, const struct runx_proc_stat *st,
		    unsigned long long stop_tick, int sig,
		    bool (*member)(const struct runx_proc_stat *st, void *arg),
		    void *arg);

/*
 * True if st is alive and the program it execs next may need sig again:
 * it ignores sig (the next program may not: a parent that ignores TERM
 * resets it in its child before execve(2)), or a handler may catch sig
 * and it is still an unexec'd copy (runx_proc_may_divert(),
 * runx_proc_is_fork_copy(), also when its parent is gone): until
 * execve(2) a child runs its parent's handlers, and one there (a
 * shell's trap) may take the signal, which the program it execs never
 * sees.  A process that catches sig in a program of its own (exec'd) is
 * not one: its handler may exec a clean-up program, which must not get
 * sig again.  A process sig reaches in this state is added to a set
 * marked (fork_copy) for runx_reach_again().  No system call: st's
 * fields only.
 */
bool runx_resend_after_exec(const struct runx_proc_stat *st, int sig);

/*
 * The processes of a scope that a stop's first signal, sent to all of them
 * at once (kill(2) of -pgid, or of -1 by a namespace's init), may reach
 * between fork(2) and execve(2) (runx_resend_after_exec()).  A look at
 * /proc after the signal comes too late for a copy whose inherited
 * handler takes it and that execs at once; so they are found before it:
 *
 *     runx_copies_find(&c);      one /proc walk, right before the signal
 *     ... send the first signal ...
 *     runx_copies_note(&c, sent);
 *
 * Fill in scope, sig and member (st is of the scope; arg is its argument;
 * asked only of a process that is a copy or was born since the scope's
 * stop_tick), the rest zero; set stop_tick first.
 */
struct runx_copies {
	struct runx_scope *scope;
	int sig;
	bool (*member)(const struct runx_proc_stat *st, void *arg);
	void *arg;
	/* found: fork_copy if runx_resend_after_exec() held at the last look
	 * (start_stack, arg_start: the image then), else born since
	 * stop_tick (not a newcomer: the signal reaches it) */
	struct runx_pidset found;
	long mid; /* runx_proc_last_pid() after the walk, or -1 */
	long pre; /* runx_proc_last_pid() right before the signal, or -1 */
};

/*
 * Finds c's processes: one /proc walk, then the pids allocated during it
 * (runx_proc_last_pid()), then each copy found is read again, right before
 * the signal, in case it has execve'd since; last, the pid allocated last
 * (c->pre): what comes after it may be born after the signal.  Best
 * effort: a failed walk (ENOMEM, EMFILE) notes fewer; the newcomer passes
 * still look.
 */
void runx_copies_find(struct runx_copies *c);

/*
 * After the signal (sent: it reached at least one process), into the
 * scope's reached set: a copy still in its image is marked for
 * runx_reach_again(); one that has execve'd since runx_copies_find() read
 * it again may have let its parent's handler take the signal, so it gets
 * the signal once more now (if it exec'd before the signal, it gets it
 * twice: a window of the microseconds between the two looks, plus, for
 * pidns, the init's delay); a process born since stop_tick that the walk
 * found is added as reached.  Then a copy born after the walk and before
 * runx_copies_find() ended (a pid up to c->pre) is marked: the signal
 * reached it.  A later one is not: it may have been forked after the
 * signal (a handler that forks at once, while runx waited for a CPU), so
 * no signal reached it, and a newcomer pass must find it (start time
 * since stop_tick; one the signal did reach gets it twice).  Frees c's
 * memory.
 */
void runx_copies_note(struct runx_copies *c, bool sent);

/* Marks the census UNKNOWN (it could not look), keeping the first -errno. */
void runx_census_unknown(struct runx_census *c, int error);

/*
 * Sends sig to the direct child through its pidfd (pidfd_send_signal(2),
 * Linux 5.1): 1 if sent, 0 if the child is gone or reaped, or -errno.
 */
int runx_scope_signal_child(struct runx_scope *s, int sig);

/*
 * True while the direct child has not exited, from waitid(P_PIDFD, ...,
 * WEXITED|WNOHANG|WNOWAIT) (waitid(2), Linux 5.4): by its pidfd, so a
 * reused pid can never be mistaken for it.  Leaves the child unreaped.
 */
bool runx_scope_child_alive(const struct runx_scope *s);

/*
 * A stop's first signal, and SIGCONT with also_cont, to the command's
 * process group in one system call each: pidfd_send_signal(2) with
 * PIDFD_SIGNAL_PROCESS_GROUP (Linux 6.9) through the command's pidfd, so
 * that only the group whose id is that pidfd's own struct pid is reached,
 * never one that reuses the number.  Only where the command leads a
 * session of its own (s->child_leads_session: every member of its group is
 * then the job's: a process joins a group only within its own session,
 * setpgid(2), and leaves a session only for a new one), /proc shows
 * runx's own namespace (s->proc_trusted), the command is alive (its
 * /proc/PID/stat read before a signal 0 through its pidfd), and it neither
 * catches nor ignores sig (runx_proc_may_divert()): else a member between
 * fork(2) and execve(2) may be its copy, whose handler takes the signal
 * where the program it execs never sees it, and a scope must read each
 * such copy before it signals it (runx_resend_after_exec()).  Returns true
 * if sent, with the group's id in *pgrp and, in *tick, the boot clock tick
 * (/proc/PID/stat's start-time unit) read right before the send: a member
 * that started before that tick was reached; one that joined the group
 * since (setpgid(2)) was not.  False, *pgrp and *tick untouched, if
 * nothing was sent (one of the above, or the kernel refused the flag:
 * EINVAL before 6.9).
 */
bool runx_scope_signal_group_first(const struct runx_scope *s, int sig,
				   bool also_cont, pid_t *pgrp, uint64_t *tick);

#endif
