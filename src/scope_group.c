/*
 * --kill-scope=group (the default): the command starts a new session
 * (setsid(2)), so its pid is its process group id; a stop is one kill(2)
 * of -pgid, which reaches every member atomically, fork included
 * (kill(2)), and needs no file descriptor.  A member that calls setsid(2)
 * itself leaves the group: the documented limit of this scope.  runx is a
 * child subreaper here only to release the group's orphans as they die
 * (group_prepare()).
 */
#include "config.h"

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

#include "clock.h"
#include "proc.h"
#include "scope_impl.h"
#include "syscalls.h"

/*
 * The group scope's own state (struct runx_scope's priv): a live member a
 * scan of /proc found, the witness, held by a pidfd, so that a census
 * that only asks whether the group is empty needs no scan while it
 * lives (group_census()); and what lets a newcomer pass read only the
 * pids allocated since the pass before (group_newcomers()).
 */
struct group_state {
	struct runx_witness witness; /* its pid is its own while the pidfd
				      * shows it alive */
	pid_t *listed;	/* the pids of the last listing of /proc for a new
			 * witness (ascending), or NULL */
	size_t untried; /* those below this index are not tried yet */
	struct runx_pass_mark pass; /* when the first signal, or the last
				     * newcomer pass, began (pid 0: none) */
	struct runx_pidset outside; /* processes of the group's session born
				     * since the first signal, outside the
				     * group when last seen: setpgid(2) may
				     * move one into it */
};

/*
 * The launch makes the new session.  runx becomes a child subreaper
 * (prctl(2) PR_SET_CHILD_SUBREAPER) only to release the group's orphans:
 * a member whose parent died is re-parented to runx, not to an init that
 * may reap late, so that its zombie is gone as soon as it dies and kill(2)
 * of -pgid says ESRCH.  The stop still reaches only the process group.
 * If prctl(2) fails, the orphans go to init as before: no error.
 */
static int group_prepare(struct runx_scope *s,
			 const struct runx_cgroup_limits *limits, char *err,
			 size_t errsize)
{
	(void)limits;
	(void)prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0);
	s->stop_tick = 0;
	(void)err;
	(void)errsize;
	return 0;
}

struct group_scan {
	pid_t pgrp;
	struct runx_census *census;
	int dead;	 /* members /proc shows as zombies of another parent */
	pid_t self;	 /* runx */
	pid_t last_live; /* the last live member listed, or 0 */
};

/* Counts a live member of the group from its /proc entry. */
static int count_member(const struct runx_proc_stat *st, void *arg)
{
	struct group_scan *g = arg;

	if (st->pgrp != g->pgrp)
		return 0;
	if (!runx_proc_is_dead(st)) {
		runx_census_found(g->census, st->pid);
		g->last_live = st->pid;
	} else if (st->ppid != g->self)
		g->dead++; /* runx's own zombie is reaped at once: it proves
			    * nothing about what kill(2) found */
	return 0;
}

/*
 * runx_proc_each_unknown()'s known: a process outside the group, or gone
 * (getpgid(2): one system call, where its stat file takes three and the
 * kernel's formatting of 52 fields), which a scan need not read.
 */
static bool outside_group(pid_t pid, void *arg)
{
	const struct group_scan *g = arg;
	pid_t pgrp = getpgid(pid);

	return pgrp >= 0 ? pgrp != g->pgrp : errno == ESRCH;
}

/* Rounds of follow_hops() before the group counts as alive. */
#define HOP_ROUNDS 256

/*
 * /proc lists its pids once: after a getdents(2) reached the end of the
 * list, the next one returns nothing, even for a pid born meanwhile
 * (fs/proc/base.c, proc_pid_readdir() moves past PID_MAX_LIMIT).  A member
 * that forks and exits every few milliseconds (its pid hops) is then
 * listed as a zombie while its child, born after its part of the list was
 * read, runs.  A zombie's children were born before it died, so before it
 * was read: each one was listed, or its pid was allocated after "before"
 * (runx_proc_last_pid() read before the listing began).  So when a scan
 * found zombies of the group and no live member, the pids allocated since
 * are read one by one, round after round, each round from where the last
 * one ended, while the round before found a zombie of the group among
 * them: a live member found is counted (a thread's id is passed over:
 * its process's pid was listed, or allocated since too, and the stat of
 * a leader that exited counts its live threads, runx_proc_is_dead()); a
 * round without a zombie of the group proves the group empty but for its
 * zombies.  If the pid counter cannot be read, or after HOP_ROUNDS rounds,
 * the group counts as alive (the stop goes on, a later census looks
 * again).
 */
static void follow_hops(struct group_scan *g, long before)
{
	long lo = before;

	for (int round = 0; lo >= 0 && round < HOP_ROUNDS; round++) {
		long last = runx_proc_last_pid();
		int dead = g->dead;
		if (last < 0 ||
		    runx_proc_each_allocated(lo, last, count_member, g) < 0)
			break;
		if (g->census->count > 0 || g->dead == dead)
			return;
		lo = last;
	}
	g->census->count = 1;
}

/*
 * Counts the group's member processes in /proc (zombies are dead),
 * reading the stat file of the members only (outside_group()).  The
 * kill(2) before found a member: if /proc shows none at all, neither live nor
 * zombie, one is hidden from it (a mount over /proc/PID): the group
 * counts as alive, since only the kernel's ESRCH says it is empty.  If it
 * shows only zombies, follow_hops() looks for a member born after the
 * list.
 */
static int scan_group(struct runx_scope *s, struct runx_census *c, pid_t *live)
{
	struct group_scan g = {s->child, c, 0, getpid(), 0};
	long before = runx_proc_last_pid();
	int r = runx_proc_each_unknown(outside_group, count_member, &g);

	if (r == 0 && c->count == 0 && g.dead == 0)
		c->count = 1;
	else if (r == 0 && c->count == 0)
		follow_hops(&g, before);
	*live = g.last_live;
	return r;
}

/* The scope's state (made at the first call; group_release() frees it),
 * or NULL, out of memory. */
static struct group_state *group_state(struct runx_scope *s)
{
	struct group_state *g = s->priv;

	if (g == NULL && (g = calloc(1, sizeof(*g))) != NULL) {
		g->witness.fd = -1;
		s->priv = g;
	}
	return g;
}

/*
 * True if the witness is alive and still a member: its pidfd is not
 * readable (a pidfd polls readable once its process has exited, pidfd_open(2)),
 * and then getpgid(2) of its pid gives the group.  A pid that names
 * another process by then (the witness exited and was released between
 * the two calls) names one of the group, which will do as well.  Else
 * the witness is dropped.
 */
static bool witness_lives(const struct runx_scope *s, struct group_state *g)
{
	struct pollfd p = {.fd = g->witness.fd, .events = POLLIN};

	if (g->witness.fd >= 0 && poll(&p, 1, 0) == 0 &&
	    getpgid(g->witness.pid) == s->child)
		return true;
	runx_witness_drop(&g->witness);
	return false;
}

/* Makes pid (a live member a scan found) the witness, if it still is
 * one once a pidfd holds it; else none. */
static void take_witness(const struct runx_scope *s, struct group_state *g,
			 pid_t pid)
{
	if (pid > 0 && runx_witness_take(&g->witness, pid) == 0)
		(void)witness_lives(s, g);
	else
		runx_witness_drop(&g->witness);
}

/*
 * Makes a live member the witness with no read of a stat file: the pids
 * of the last listing of /proc not tried yet, from the last listed back
 * (the youngest first, likely the last to end), a member found by
 * getpgid(2), alive by its pidfd (take_witness()); once all are tried, a
 * new listing, tried likewise, if listings is 2 (1: the last listing
 * only).  True if one was found.  Each pid is tried once per listing, so
 * the censuses of a stop that see their witness end one after another
 * try each process of /proc once between them.
 */
static bool next_witness(const struct runx_scope *s, struct group_state *g,
			 int listings)
{
	for (int listing = 0; listing < listings; listing++) {
		while (g->untried > 0) {
			pid_t pid = g->listed[--g->untried];
			if (getpgid(pid) != s->child)
				continue;
			take_witness(s, g, pid);
			if (g->witness.fd >= 0)
				return true;
		}
		free(g->listed);
		g->listed = NULL;
		if (listing + 1 >= listings ||
		    runx_proc_list(&g->listed, &g->untried) < 0)
			break;
	}
	return false;
}

/*
 * A census that only asks whether the group is empty (no count, no
 * names), while the witness lives, is answered by it alone, with a watch
 * on it: two system calls.  kill(2) of -pgid reads every member, and a
 * stop calls the census at every SIGCHLD while thousands of orphans of
 * the group end one by one (5,000 that end within 4 s: 4.0 s of runx's
 * CPU time, 0.7 s with the witness).  A witness that ended is first
 * replaced from the pids the last listing of /proc has not tried yet
 * (next_witness()): kill(2) of -pgid reads every member under the
 * kernel's tasklist_lock (kernel/signal.c, __kill_pgrp_info()), which
 * each dying member needs to exit, and a stop of 10,000 saw up to 6,000
 * witnesses end.  Else kill(2) with signal 0: ESRCH,
 * the common case, needs no /proc scan and no fd, and is the only proof
 * of an empty group.  Such a census then looks for a new witness
 * (next_witness(): while 5,000 members died, the scan that found one
 * read 5,800 stat files).  A group with members is then counted in /proc,
 * where a zombie member (kill(2) still finds it) does not count, but a
 * leader whose other threads run does (runx_proc_is_dead()), and the last
 * live member listed becomes the witness; if /proc cannot be read, or is
 * not runx's pid namespace, or hides the member, the group counts as
 * alive (with no /proc of runx's namespace, as one member, unnamed).
 */
static void group_census(struct runx_scope *s, struct runx_census *c)
{
	/* the state as it is: none is made for a group found empty (the
	 * census of a command that exits alone needs no heap) */
	struct group_state *g = s->proc_trusted ? s->priv : NULL;
	pid_t live = 0;

	bool any = !c->want_count && c->pids == NULL;

	if (g != NULL && any &&
	    (witness_lives(s, g) || next_witness(s, g, 1))) {
		runx_census_found(c, g->witness.pid); /* its exit wakes runx */
		return;
	}
	if (kill(-s->child, 0) < 0 && errno == ESRCH)
		return;
	if (s->proc_trusted)
		g = group_state(s);
	if (g != NULL && any && next_witness(s, g, 2)) {
		runx_census_found(c, g->witness.pid);
		return;
	}
	if (!s->proc_trusted) {
		c->count = 1; /* a member, maybe a zombie: all it can tell */
		c->unnamed = true;
		return;
	}
	int r = scan_group(s, c, &live);
	if (g != NULL)
		take_witness(s, g, live);
	if (r < 0) {
		runx_census_unknown(c, r);
		if (c->count == 0)
			c->count = 1; /* kill(2) saw a member */
	}
}

/* The group's live members, counted in /proc (at least 1). */
static int count_group(struct runx_scope *s)
{
	struct runx_census c = {.want_count = true};

	runx_scope_census(s, &c);
	return c.count > 0 ? c.count : 1;
}

/* kill(2) of -pgid; counted first (a /proc scan) only if asked. */
static int group_signal(struct runx_scope *s, int sig, bool count)
{
	int n = count ? count_group(s) : 1;

	if (kill(-s->child, sig) < 0)
		return errno == ESRCH ? 0 : -errno;
	return n;
}

/* runx_copies' member check: st is in the group pgrp (arg). */
static bool of_group(const struct runx_proc_stat *st, void *arg)
{
	return st->pgrp == *(pid_t *)arg;
}

/*
 * The first signal and SIGCONT to the group, remembering when (in the
 * boot clock ticks of /proc/PID/stat's start time) for newcomers().  A
 * member between fork(2) and execve(2) runs its parent's handlers, which
 * may take the signal where the program it then execs never sees it
 * (runx_resend_after_exec()).  So where the group's leader catches or
 * ignores sig, or has exited (runx_proc_pid_may_divert(); else the walk is
 * not worth its cost, and copies of another member that does are not
 * noted), such members are found before the
 * kill(2) and looked at again right after it (runx_copies_find(),
 * runx_copies_note()).
 */
static int group_stop_signal(struct runx_scope *s, int sig, bool count)
{
	struct runx_copies g = {
	    .scope = s, .sig = sig, .member = of_group, .arg = &s->child};
	bool copies =
	    s->proc_trusted && runx_proc_pid_may_divert(s->child, sig);
	int r = count ? count_group(s) : 1;
	struct group_state *gs = s->proc_trusted ? group_state(s) : NULL;

	if (gs != NULL) {
		runx_pass_mark_take(&gs->pass); /* the kill(2) reaches all */
		runx_pidset_free(&gs->outside);
	}
	s->stop_tick = runx_proc_uptime_ticks();
	if (copies)
		runx_copies_find(&g);
	if (kill(-s->child, sig) < 0)
		r = errno == ESRCH ? 0 : -errno;
	if (r >= 0)
		kill(-s->child, SIGCONT);
	if (copies)
		runx_copies_note(&g, r > 0);
	return r;
}

struct group_newcomers {
	struct runx_scope *scope;
	int sig;
	int reached;
	struct runx_pidset *outside; /* where a pass notes the processes of
				      * the session outside the group born
				      * since the first signal, or NULL */
	bool window; /* the pass reads a window (runx_parent_missed()) */
};

/*
 * Signals a member that started no earlier than the tick of the first
 * signal and that no newcomer pass reached yet (one started in that very
 * tick may have had the first signal already: it gets it twice, rather
 * than risk that a process forked just after the kill(2) gets none), or
 * one that has execve'd since the signal reached it as a fork copy
 * (runx_reach_late()).
 */
static int signal_newcomer(const struct runx_proc_stat *st, void *arg)
{
	struct group_newcomers *g = arg;
	struct runx_scope *s = g->scope;

	if (runx_proc_is_dead(st))
		return 0;
	if (st->pgrp != s->child) {
		/* only a process of the same session can join the group
		 * (setpgid(2): EPERM else), and not its leader */
		if (g->outside != NULL && st->session == s->child &&
		    st->pid != s->child && st->start_time >= s->stop_tick &&
		    !runx_pidset_has(g->outside, st))
			return runx_pidset_add(g->outside, st, false);
		return 0;
	}
	if (g->window && runx_parent_missed(s, st, of_group, &s->child))
		return -EAGAIN; /* a walk of all of /proc reaches it first */
	int one =
	    runx_reach_late(&s->reached, st, s->stop_tick, g->sig, NULL, NULL);
	if (one == -ENOMEM)
		return one;
	g->reached += one > 0;
	return 0;
}

/*
 * Looks again at the processes of the session that were outside the
 * group (gs->outside), oldest first: one that joined it since is a
 * newcomer; one still outside is noted again (g->outside is gs->outside,
 * emptied first).  A process gone, or another in its pid, is dropped.
 * 0, or -errno (ENOMEM, EMFILE, ...).
 */
static int look_outside(void *arg)
{
	struct group_newcomers *g = arg;
	struct runx_pidset seen = *g->outside;
	struct runx_proc_stat st;
	int r = 0;

	memset(g->outside, 0, sizeof(*g->outside));
	for (size_t i = 0; r == 0 && i < seen.n; i++) {
		int e = runx_proc_stat(seen.v[i].pid, &st);
		if (e == 0 && st.start_time == seen.v[i].start_time)
			r = signal_newcomer(&st, g);
		else if (e != 0 && e != -ENOENT && e != -ESRCH)
			r = e; /* out of fds: the next pass walks /proc */
	}
	runx_pidset_free(&seen);
	return r;
}

/* Before a walk of /proc, which notes anew those outside the group. */
static void forget_outside(void *arg)
{
	runx_pidset_free(((struct group_newcomers *)arg)->outside);
}

/*
 * Processes born into the group after the first signal (a TERM handler
 * that forks): kill(2) of -pgid reached everyone present then, but not
 * them; found by their start time in /proc, oldest first (a parent before
 * its children).  Such a process has a pid allocated since the pass
 * before (the first: since just before the first signal), or was born
 * outside the group in its session and joined it later (setpgid(2)): so
 * a pass looks again at those of the session it found outside, then
 * reads only the pids allocated since, in the order they were allocated
 * (runx_proc_each_since()), unless one has a parent it missed
 * (runx_parent_missed()).  Else, where the group leads no session of its
 * own, the pass before failed, or where runx_newcomer_pass_begin() says
 * so (every second, and the last pass before the SIGKILL), a walk of all
 * of /proc (runx_proc_each_oldest_first()), which notes those outside
 * anew.
 */
static int group_newcomers(struct runx_scope *s, int sig, bool last)
{
	struct group_state *gs =
	    s->proc_trusted && s->child_leads_session ? group_state(s) : NULL;
	struct group_newcomers g = {s, sig, 0, gs ? &gs->outside : NULL, false};
	struct runx_pass_mark none = {0, -1, 0}; /* no window without gs */
	struct runx_newcomer_pass p = {signal_newcomer, look_outside,
				       forget_outside, &g, &g.window};

	if (s->stop_tick == 0 || !s->proc_trusted ||
	    (kill(-s->child, 0) < 0 && errno == ESRCH))
		return 0;
	if (gs == NULL) { /* nothing noted outside the group */
		p.window_first = NULL;
		p.walk_first = NULL;
	}
	int r = runx_newcomer_pass(s, gs != NULL ? &gs->pass : &none, last, &p);
	return r < 0 && g.reached == 0 ? r : g.reached;
}

/* Forgets the newcomers reached, and closes the witness. */
static int group_release(struct runx_scope *s)
{
	struct group_state *g = s->priv;

	runx_pidset_free(&s->reached);
	if (g != NULL) {
		runx_witness_drop(&g->witness);
		runx_pidset_free(&g->outside);
		free(g->listed);
	}
	free(g);
	s->priv = NULL;
	return 0;
}

/* SIGKILL to the whole group: one kill(2), no fd needed. */
static int group_kill(struct runx_scope *s)
{
	return group_signal(s, SIGKILL, false);
}

/* "process group 123". */
static void group_describe(const struct runx_scope *s, char *buf, size_t size)
{
	snprintf(buf, size, "process group %d", (int)s->child);
}

const struct runx_scope_ops runx_scope_group_ops = {
    .kind = RUNX_SCOPE_GROUP,
    .adopts_orphans = true,
    .prepare = group_prepare,
    .signal = group_signal,
    .stop_signal = group_stop_signal,
    .newcomers = group_newcomers,
    .census = group_census,
    .kill = group_kill,
    .event_fd = NULL,
    .describe = group_describe,
    .release = group_release,
};
