/*
 * --kill-scope=tree: every descendant of runx.  runx is a child subreaper
 * (PR_SET_CHILD_SUBREAPER, prctl(2), Linux 3.4), so an orphan re-parents
 * to runx even after setsid(2); a descendant is a process whose parent
 * chain in /proc reaches runx.  This kernel has no
 * /proc/PID/task/TID/children (CONFIG_PROC_CHILDREN), so each pass reads
 * every /proc/PID/stat; a signal goes to each descendant as the walk finds
 * it, not after the walk, so that the first ones act on it while runx
 * reads the rest (1,000 processes: a walk of 10-40 ms here).  A process that
 * leaves through a daemon (work handed to systemd or docker) was never a
 * descendant: documented.
 */
#include "config.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "clock.h"
#include "proc.h"
#include "scope_impl.h"
#include "syscalls.h"

/* Passes of "list, signal the new ones" before a signal gives up. */
#define MAX_SWEEPS 64

/* Time after which a sweep of a signal other than SIGKILL stops (ns). */
#define SWEEP_BUDGET_NS 20000000LL

/* The /proc entries of one walk whose parent it did not know yet. */
struct proc_list {
	struct runx_proc_stat *v;
	size_t n, cap;
};

/* The pids one walk knows to be descendants of runx: a bitmap that grows
 * with the largest pid set. */
struct members {
	unsigned char *bits;
	size_t size; /* bytes */
};

/*
 * One walk of /proc: the descendants it finds go to found() as soon as
 * their parent is known to be one (or runx), so that a signal reaches the
 * first ones while the walk goes on; the rest wait in list until their
 * parent turns up.  A pid already in member (runx, a known pid, one
 * the walk has found) is passed over unread.
 */
struct walk {
	struct proc_list list;
	struct members member;
	int (*found)(const struct runx_proc_stat *p, void *arg);
	void *arg;
};

/* Membership bit of pid in a bitmap sized to the largest pid listed. */
static bool bit_get(const unsigned char *bits, pid_t pid)
{
	return bits[pid / 8] & (1u << (pid % 8));
}

/* Sets the membership bit of pid. */
static void bit_set(unsigned char *bits, pid_t pid)
{
	bits[pid / 8] |= (unsigned char)(1u << (pid % 8));
}

/* True if pid is a known descendant (or runx) in m. */
static bool member_has(const struct members *m, pid_t pid)
{
	return pid > 0 && (size_t)pid / 8 < m->size && bit_get(m->bits, pid);
}

/* Adds pid to m, growing it; 0 or -ENOMEM. */
static int member_add(struct members *m, pid_t pid)
{
	size_t need = (size_t)pid / 8 + 1;

	if (need > m->size) {
		size_t size = m->size * 2 > need ? m->size * 2 : need + 4096;
		unsigned char *bits = realloc(m->bits, size);
		if (bits == NULL)
			return -ENOMEM;
		memset(bits + m->size, 0, size - m->size);
		m->bits = bits;
		m->size = size;
	}
	bit_set(m->bits, pid);
	return 0;
}

/* Appends one /proc entry to a list. */
static int list_append(struct proc_list *l, const struct runx_proc_stat *st)
{
	if (l->n == l->cap) {
		size_t cap = l->cap ? l->cap * 2 : 256;
		struct runx_proc_stat *v = realloc(l->v, cap * sizeof(*v));
		if (v == NULL)
			return -ENOMEM;
		l->v = v;
		l->cap = cap;
	}
	l->v[l->n++] = *st;
	return 0;
}

/*
 * One /proc entry: a descendant whose parent is known goes to found() at
 * once; any other waits in the list.
 */
static int walk_proc(const struct runx_proc_stat *st, void *arg)
{
	struct walk *w = arg;

	if (!member_has(&w->member, st->ppid))
		return list_append(&w->list, st);
	int r = member_add(&w->member, st->pid);
	return r < 0 ? r : w->found(st, w->arg);
}

/*
 * True for a pid the walk need not read (runx_proc_each_unknown()): runx,
 * a pid it was told is known, or one it found already (/proc lists each
 * pid once, in ascending order).
 */
static bool is_known(pid_t pid, void *arg)
{
	return member_has(&((const struct walk *)arg)->member, pid);
}

/*
 * After the walk: passes through the entries whose parent was not known
 * when they were read, handing each descendant to found(), until a pass
 * finds none (a parent listed after its child: a wrapped pid, or a
 * re-parenting during the walk).  Zombies included.
 */
static int resolve_rest(struct walk *w)
{
	struct proc_list *rest = &w->list;
	size_t done = 0;
	bool grew = true;
	int r = 0;

	while (grew && r == 0) {
		grew = false;
		for (size_t i = done; i < rest->n && r == 0; i++) {
			struct runx_proc_stat p = rest->v[i];
			if (!member_has(&w->member, p.ppid) ||
			    member_has(&w->member, p.pid))
				continue;
			r = member_add(&w->member, p.pid);
			if (r == 0)
				r = w->found(&p, w->arg);
			rest->v[i] = rest->v[done]; /* move members out */
			rest->v[done++] = p;
			grew = true;
		}
	}
	return r;
}

/*
 * The pids of set into w's members, so that the walk passes over them
 * unread and counts them as descendants; -ENOMEM.
 */
static int know_pids(struct walk *w, const struct runx_pidset *set)
{
	for (size_t i = 0; i < set->n; i++)
		if (set->v[i].pid > 0 && member_add(&w->member, set->v[i].pid))
			return -ENOMEM;
	return 0;
}

/*
 * Hands every descendant of runx now to found(p, arg), each as soon as
 * the walk of /proc knows it is one: /proc lists pids in ascending order
 * and children mostly have larger pids than their parents, so nearly all
 * go during the walk, the first ones while it has most of /proc still to
 * read.  With known, the pids of that set are passed over unread (the
 * caller knows no pid was reused since they were listed:
 * runx_proc_last_pid()).  found()'s error ends the walk.  0 or -errno
 * (the walk of /proc, -ENOMEM).
 */
static int walk_tree(const struct runx_pidset *known,
		     int (*found)(const struct runx_proc_stat *p, void *arg),
		     void *arg)
{
	struct walk w = {{NULL, 0, 0}, {NULL, 0}, found, arg};
	int r = member_add(&w.member, getpid());

	if (r == 0 && known != NULL && known->n > 0)
		r = know_pids(&w, known);
	if (r == 0)
		r = runx_proc_each_unknown(is_known, walk_proc, &w);
	if (r == 0)
		r = resolve_rest(&w);
	free(w.member.bits);
	free(w.list.v);
	return r;
}

/* A census's walk: the census, and how many descendants it listed
 * (zombies too). */
struct tally {
	struct runx_census *c;
	size_t listed;
};

/* walk_tree()'s found() of a census: counts a live descendant. */
static int count_live(const struct runx_proc_stat *p, void *arg)
{
	struct tally *t = arg;

	t->listed++;
	if (!runx_proc_is_dead(p))
		runx_census_found(t->c, p->pid);
	return 0;
}

/*
 * True if runx has a child, live or zombie (waitid(2) with WNOWAIT).  A
 * subreaper without children has no descendants at all: each one's
 * parent chain up to runx is alive, or it would have been re-parented.
 * Needs no fd, so it also answers when runx is out of them.
 */
static bool has_children(void)
{
	siginfo_t si;

	return waitid(P_ALL, 0, &si,
		      WEXITED | WSTOPPED | WCONTINUED | WNOHANG | WNOWAIT) == 0;
}

/* Becomes a child subreaper; refuses a /proc of another pid namespace. */
static int tree_prepare(struct runx_scope *s,
			const struct runx_cgroup_limits *limits, char *err,
			size_t errsize)
{
	(void)limits;
	if (prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) < 0) {
		int e = errno;
		snprintf(err, errsize, "cannot become a child subreaper: %s",
			 strerror(e));
		return -e;
	}
	if (!s->proc_trusted) {
		snprintf(err, errsize,
			 "--kill-scope=tree needs /proc of runx's own pid "
			 "namespace (unshare --pid needs --mount-proc)");
		return -EINVAL;
	}
	return 0;
}

/*
 * Counts the live descendants; a walk that fails counts as UNKNOWN.  Only
 * a count needs the walk: after reaping, the tree is empty exactly when
 * runx has no child left (a descendant's parent chain up to runx is alive,
 * or it was re-parented to runx), which waitid(2) tells without an fd.
 */
static void tree_census(struct runx_scope *s, struct runx_census *c)
{
	(void)s;
	if (!has_children())
		return;
	if (!c->want_count && c->pids == NULL) {
		c->count = 1;
		return;
	}
	struct tally t = {c, 0};
	int r = walk_tree(NULL, count_live, &t);
	if (r < 0) {
		runx_census_unknown(c, r);
		return;
	}
	if (c->count == 0 && has_children() && t.listed == 0)
		runx_census_unknown(c, -ESRCH); /* a child /proc did not list */
}

/* What a sweep sends: sig, times times, each one followed by SIGCONT with
 * also_cont. */
struct send {
	int sig, times;
	bool also_cont;
	pid_t spare_pgrp;   /* > 0: a member of this process group is not sent
			     * sig (tree_signal_outside_group()) */
	pid_t sent_pgrp;    /* > 0: sig (and SIGCONT) went to this process
			     * group as a whole (group_first()) ... */
	uint64_t sent_tick; /* ... in this boot clock tick: a member that
			     * started in an earlier one is reached */
};

/* runx_signal_listed() how->times times: the last result (1, 0, -errno). */
static int send_listed(const struct runx_proc_stat *p, const struct send *how)
{
	int one = 0;

	for (int k = 0; k < how->times; k++) {
		one = runx_signal_listed(p, how->sig, how->also_cont);
		if (one <= 0)
			break;
	}
	return one;
}

/*
 * One pass: signals every listed live descendant not in done, adds it
 * to done (and to also, if not NULL), and continues it with also_cont.
 * *fresh counts the new ones.  With skip_done, the pids in done are not
 * even read (no pid was reused since they were listed).  A newcomer pass
 * (also NULL, done the scope's set) also signals again a process the
 * signal reached as a fork copy that has execve'd since
 * (runx_reach_again()).  A process that cannot be signalled does not end
 * the pass (the others still get the signal); its error is returned if
 * nobody was reached.  Returns the number reached, or -errno.
 */
/* One pass of a sweep: what it sends, to whom, and what it found. */
struct pass {
	struct runx_pidset *done, *also;
	const struct send *how;
	int reached, error, fresh;
};

/* walk_tree()'s found() of a pass: signals one descendant (sweep_once()). */
static int pass_one(const struct runx_proc_stat *p, void *arg)
{
	struct pass *ps = arg;
	bool dead = runx_proc_is_dead(p); /* a zombie takes no signal */
	struct runx_pidset_entry *e = runx_pidset_find(ps->done, p);
	int one;

	if (e != NULL) { /* runx itself is never listed */
		one = ps->also == NULL && !dead
			  ? runx_reach_again(e, p, ps->how->sig)
			  : 0;
	} else {
		bool copy = runx_resend_after_exec(p, ps->how->sig);
		ps->fresh++;
		if (runx_pidset_add(ps->done, p, copy) < 0 ||
		    (ps->also != NULL &&
		     runx_pidset_remember(ps->also, p, copy) < 0))
			ps->error = ps->error ? ps->error : -ENOMEM;
		bool spared =
		    ps->how->spare_pgrp > 0 && p->pgrp == ps->how->spare_pgrp;
		bool by_group = ps->how->sent_pgrp > 0 &&
				p->pgrp == ps->how->sent_pgrp &&
				p->start_time < ps->how->sent_tick;
		one = dead || spared ? 0
		      : by_group     ? 1
				     : send_listed(p, ps->how);
	}
	if (one < 0 && ps->error == 0)
		ps->error = one;
	ps->reached += one > 0;
	return 0;
}

/*
 * One pass: signals every live descendant not in done as the walk finds
 * it, adds it to done (and to also, if not NULL), and continues it with
 * also_cont.  *fresh counts the new ones.  With skip_done, the pids in
 * done are not even read (no pid was reused since they were listed).  A
 * newcomer pass (also NULL, done the scope's set) also signals again a
 * process the signal reached as a fork copy that has execve'd since
 * (runx_reach_again()).  A process that cannot be signalled does not end
 * the pass (the others still get the signal); its error, or the walk's,
 * is returned if nobody was reached.  Returns the number reached, or
 * -errno.
 */
static int sweep_once(struct runx_pidset *done, struct runx_pidset *also,
		      const struct send *how, bool skip_done, int *fresh)
{
	struct pass ps = {done, also, how, 0, 0, 0};
	int r = walk_tree(skip_done ? done : NULL, pass_one, &ps);

	*fresh = ps.fresh;
	if (r < 0)
		ps.error = r;
	return ps.reached == 0 && ps.error < 0 ? ps.error : ps.reached;
}

/*
 * Repeats "list, signal the new ones" until a pass finds nobody new (a
 * process whose parent got a fatal signal cannot fork any more, fork(2)
 * fails with a fatal signal pending, so the passes end).  A signal that
 * does not kill (a TERM-ignoring fork loop) may never converge: after the
 * second pass such a sweep stops once SWEEP_BUDGET_NS have passed, and
 * the re-check during the grace period finds the rest.  SIGKILL sweeps
 * until nobody is new: every process it reaches can no longer fork.  A
 * pass after one during which no pid was allocated (runx_proc_last_pid()
 * unchanged) reads only the pids not in done: the others are the very
 * processes listed before (except in a newcomer pass, whose fork-copy
 * check reads them all).
 */
static int sweep(struct runx_pidset *done, struct runx_pidset *also,
		 const struct send *how, bool newcomers)
{
	int64_t t0 = runx_now_ns();
	int total = 0, fresh = 1, error = 0;
	long last = -1;

	for (int pass = 0; fresh > 0 && pass < MAX_SWEEPS; pass++) {
		long now = runx_proc_last_pid();
		bool skip = !newcomers && pass > 0 && now >= 0 && now == last;
		last = now;
		int r = sweep_once(done, also, how, skip, &fresh);
		if (r < 0 && error == 0)
			error = r;
		if (r < 0 && fresh == 0)
			break; /* the walk itself failed */
		total += r > 0 ? r : 0;
		if (how->sig != SIGKILL && pass >= 1 &&
		    runx_now_ns() - t0 > SWEEP_BUDGET_NS)
			break;
	}
	return total == 0 && error < 0 ? error : total;
}

/*
 * Signals every descendant, also those born or re-parented while it
 * runs; every process reached is remembered (s->reached) so that
 * newcomers() finds only processes no signal reached yet.
 */
static int tree_signal_times(struct runx_scope *s, int sig, int times,
			     bool count)
{
	struct runx_pidset now = {NULL, 0, 0, NULL, 0};
	struct send how = {.sig = sig, .times = times};

	(void)count;
	if (!has_children())
		return 0;
	int r = sweep(&now, &s->reached, &how, false);
	runx_pidset_free(&now);
	for (int k = 0; r < 0 && k < times; k++)
		runx_scope_signal_child(s, sig); /* needs no new fd */
	return r;
}

static int tree_signal(struct runx_scope *s, int sig, bool count)
{
	return tree_signal_times(s, sig, 1, count);
}

/* sig to every descendant outside process group pgrp, in one sweep. */
static int tree_signal_outside_group(struct runx_scope *s, int sig, pid_t pgrp)
{
	struct runx_pidset now = {NULL, 0, 0, NULL, 0};
	struct send how = {.sig = sig, .times = 1, .spare_pgrp = pgrp};

	(void)s;
	if (!has_children())
		return 0;
	int r = sweep(&now, NULL, &how, false);
	runx_pidset_free(&now);
	return r;
}

/*
 * The first signal (and SIGCONT) to the command's process group at once,
 * where it can go (runx_scope_signal_group_first()): every member of that
 * group is then a descendant.  The sweep that follows reads every
 * descendant still, to find the rest, but signals only those outside the
 * group, or inside it and born since (struct send's sent_tick: one that
 * started in that very tick gets sig twice).  As in the group scope, a
 * copy of another member that catches sig, or a process that joined the
 * group after the signal (setpgid(2) within that session), may see sig
 * only as the SIGKILL.  Where the group is not signalled, nothing
 * changes: the sweep signals each.
 */
static void group_first(const struct runx_scope *s, struct send *how)
{
	(void)runx_scope_signal_group_first(s, how->sig, how->also_cont,
					    &how->sent_pgrp, &how->sent_tick);
}

/*
 * The first signal and SIGCONT to every descendant, in one sweep: the
 * command's process group first (group_first()), then each other.  Not
 * the group at once when count is asked for (-v, --report): its members
 * die before the sweep can count them, so each is signalled and counted
 * on its own, as before.  When
 * no signal reached anyone yet (the first stop, no signal forwarded
 * before), the sweep's own set is s->reached: one set of 10,000 entries,
 * not two (about 0.9 MB each); a pass after the first then also signals
 * again a fork copy that has execve'd since, as a newcomer pass would.
 */
static int tree_stop_signal(struct runx_scope *s, int sig, bool count)
{
	struct runx_pidset now = {NULL, 0, 0, NULL, 0};

	if (!has_children())
		return 0;
	struct send how = {.sig = sig,
			   .times = 1,
			   .also_cont = sig != SIGCONT && sig != SIGKILL};
	if (!count)
		group_first(s, &how);
	int r = s->reached.n == 0 ? sweep(&s->reached, NULL, &how, false)
				  : sweep(&now, &s->reached, &how, false);
	runx_pidset_free(&now);
	if (r == 0 && how.sent_pgrp > 0)
		r = 1; /* the group had a member: ESRCH otherwise */
	if (r < 0 && runx_scope_signal_child(s, sig) > 0)
		runx_scope_signal_child(s, SIGCONT); /* needs no new fd */
	return r;
}

/* Signals (and continues) the descendants no earlier signal reached. */
static int tree_newcomers(struct runx_scope *s, int sig)
{
	if (!has_children())
		return 0;
	struct send how = {.sig = sig,
			   .times = 1,
			   .also_cont = sig != SIGCONT && sig != SIGKILL};

	return sweep(&s->reached, NULL, &how, true);
}

/* SIGKILL to every descendant, the direct child first (no fd needed). */
static int tree_kill(struct runx_scope *s)
{
	runx_scope_signal_child(s, SIGKILL);
	return tree_signal(s, SIGKILL, false);
}

/* "process tree of runx (pid 123)". */
static void tree_describe(const struct runx_scope *s, char *buf, size_t size)
{
	(void)s;
	snprintf(buf, size, "process tree of runx (pid %d)", (int)getpid());
}

/* Forgets the processes reached. */
static int tree_release(struct runx_scope *s)
{
	runx_pidset_free(&s->reached);
	return 0;
}

const struct runx_scope_ops runx_scope_tree_ops = {
    .kind = RUNX_SCOPE_TREE,
    .adopts_orphans = true,
    .prepare = tree_prepare,
    .signal = tree_signal,
    .signal_outside_group = tree_signal_outside_group,
    .signal_times = tree_signal_times,
    .stop_signal = tree_stop_signal,
    .newcomers = tree_newcomers,
    .census = tree_census,
    .kill = tree_kill,
    .event_fd = NULL,
    .describe = tree_describe,
    .release = tree_release,
};
