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

/* The most children of runx one pass of kill_children() reads. */
#define KILL_CHILDREN_MAX 256

/* Time after which a sweep of a signal other than SIGKILL stops (ns). */
#define SWEEP_BUDGET_NS 20000000LL

/* The /proc entries of one walk whose parent it did not know yet. */
struct proc_list {
	struct runx_proc_stat *v;
	size_t n, cap;
};

/*
 * The pids allocated after lo up to hi (two runx_proc_last_pid() values,
 * lo <= hi; none when lo == hi): a pid listed before may name another
 * process now only if it is one of them.
 */
struct pid_window {
	long lo, hi;
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
	struct runx_pidbits member; /* the pids it knows to be descendants
				     * of runx, and runx's own */
	/* with fresh (not NULL): the pids earlier walks found outside the
	 * tree, passed over unread but for those allocated within fresh (a
	 * process outside never becomes a descendant: an orphan re-parents
	 * to a subreaper among its own ancestors, or to init); the pids this
	 * walk finds outside go in too */
	struct runx_pidbits *outside;
	const struct pid_window *fresh;
	int (*found)(const struct runx_proc_stat *p, void *arg);
	void *arg;
};

/*
 * What the passes against one set of processes reached know between
 * them: the pid counter when the last began (runx_proc_last_pid(); 0:
 * none yet, or unknown) and the pids it found outside the tree.
 */
struct sweep_memory {
	long last_pid;
	struct runx_pidbits outside;
};

/* The tree scope's own state (struct runx_scope's priv). */
struct tree_state {
	struct sweep_memory reached; /* of the passes against s->reached */
	struct runx_witness witness; /* a child of runx (tree_has_children()) */
	size_t unprobed; /* the entries of s->reached below this index are
			  * not tried as the witness yet (SIZE_MAX: none
			  * tried) */
};

/* True if pid was allocated within w (lo < pid <= hi); w NULL: none. */
static bool in_window(const struct pid_window *w, pid_t pid)
{
	return w != NULL && pid > w->lo && pid <= w->hi;
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

	if (!runx_pidbits_has(&w->member, st->ppid))
		return list_append(&w->list, st);
	int r = runx_pidbits_add(&w->member, st->pid);
	runx_pidbits_forget(w->outside, st->pid);
	return r < 0 ? r : w->found(st, w->arg);
}

/*
 * True for a pid the walk need not read (runx_proc_each_unknown()): runx,
 * a pid it was told is known, or one it found already (/proc lists each
 * pid once, in ascending order), or one found outside before and not
 * allocated since (struct walk).
 */
static bool is_known(pid_t pid, void *arg)
{
	const struct walk *w = arg;

	return runx_pidbits_has(&w->member, pid) ||
	       (w->fresh != NULL && w->outside != NULL &&
		runx_pidbits_has(w->outside, pid) && !in_window(w->fresh, pid));
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
			if (!runx_pidbits_has(&w->member, p.ppid) ||
			    runx_pidbits_has(&w->member, p.pid))
				continue;
			r = runx_pidbits_add(&w->member, p.pid);
			runx_pidbits_forget(w->outside, p.pid);
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
 * unread and counts them as descendants; -ENOMEM.  A pid allocated
 * within fresh may belong to another process now: it is read, and
 * counts as a descendant only if its parent is one.  So is the pid of a
 * fork copy (runx_reach_again() needs its image now), also where the set
 * holds an earlier process of that pid too.
 */
static int know_pids(struct walk *w, const struct runx_pidset *set,
		     const struct pid_window *fresh)
{
	for (size_t i = 0; i < set->n; i++) {
		const struct runx_pidset_entry *e = &set->v[i];
		if (e->pid > 0 && !e->fork_copy && !in_window(fresh, e->pid) &&
		    runx_pidbits_add(&w->member, e->pid))
			return -ENOMEM;
	}
	for (size_t i = 0; i < set->n; i++)
		if (set->v[i].fork_copy)
			runx_pidbits_forget(&w->member, set->v[i].pid);
	return 0;
}

/* True if the process a walk read as st is outside the tree, as far as
 * its parent shows: a kernel thread or init's, or the child of one known
 * outside (and not allocated since). */
static bool parent_outside(const struct walk *w,
			   const struct runx_proc_stat *st)
{
	return st->ppid <= 1 || (!in_window(w->fresh, st->ppid) &&
				 runx_pidbits_has(w->outside, st->ppid));
}

/*
 * After the walk: the entries it read that are not descendants go into
 * w->outside, round after round, those whose parent is outside first,
 * then their children.  One whose parent the walk did not read (it died
 * before, or the list missed it) may be a descendant re-parented to runx
 * since: it is left out, and read again.  So is one that cannot go in,
 * out of memory.  Before, the bits of w->outside that this walk read
 * again (those within fresh) are cleared, so that a pid reused by a
 * descendant is not taken for the outsider that had it.
 */
static void note_outside(struct walk *w)
{
	if (w->outside == NULL)
		return;
	for (size_t i = 0; i < w->list.n; i++)
		if (in_window(w->fresh, w->list.v[i].pid))
			runx_pidbits_forget(w->outside, w->list.v[i].pid);
	for (bool grew = true; grew;) {
		grew = false;
		for (size_t i = 0; i < w->list.n; i++) {
			const struct runx_proc_stat *st = &w->list.v[i];
			if (runx_pidbits_has(&w->member, st->pid) ||
			    runx_pidbits_has(w->outside, st->pid) ||
			    !parent_outside(w, st))
				continue;
			if (runx_pidbits_add(w->outside, st->pid) == 0)
				grew = true;
		}
	}
}

/*
 * Hands every descendant of runx now to found(p, arg), each as soon as
 * the walk of /proc knows it is one: /proc lists pids in ascending order
 * and children mostly have larger pids than their parents, so nearly all
 * go during the walk, the first ones while it has most of /proc still to
 * read.  With fresh (not NULL), the pids of known, and those in *outside
 * (struct walk), are passed over unread, but for those allocated within
 * fresh (the caller knows no other pid was reused since they were
 * listed: runx_proc_last_pid()).  The pids found outside the tree go
 * into *outside (outside NULL: nowhere).  found()'s error ends the walk.
 * 0 or -errno (the walk of /proc, -ENOMEM).
 */
static int walk_tree(const struct runx_pidset *known,
		     const struct pid_window *fresh,
		     struct runx_pidbits *outside,
		     int (*found)(const struct runx_proc_stat *p, void *arg),
		     void *arg)
{
	struct walk w = {{NULL, 0, 0}, {NULL, 0}, outside, fresh, found, arg};
	int r = runx_pidbits_add(&w.member, getpid());

	if (r == 0 && fresh != NULL && known != NULL && known->n > 0)
		r = know_pids(&w, known, fresh);
	if (r == 0)
		r = runx_proc_each_unknown(is_known, walk_proc, &w);
	if (r == 0)
		r = resolve_rest(&w);
	if (r == 0)
		note_outside(&w);
	runx_pidbits_free(&w.member);
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

/* The most entries of s->reached one tree_has_children() tries. */
#define WITNESS_TRIES 32

/* True if the process of pidfd is a child of runx, exited or not
 * (waitid(2) P_PIDFD, Linux 5.4: ECHILD for any other, or one released). */
static bool is_child(int pidfd)
{
	siginfo_t si;

	return waitid((idtype_t)P_PIDFD, (id_t)pidfd, &si,
		      WEXITED | WNOHANG | WNOWAIT) == 0;
}

static struct tree_state *tree_state(struct runx_scope *s);

/*
 * has_children() without reading every child of runx each time: that
 * reads every child (kernel/exit.c: do_wait() walks the children list),
 * and a stop calls it at every SIGCHLD, while thousands of orphans that
 * are runx's children die one by one.  A child of runx found once (the
 * witness, held by a pidfd) answers alone, until it is gone; then the
 * processes the stop reached are tried, last reached first (the last to
 * die), at most WITNESS_TRIES per call, each once.  Any child of runx
 * will do, whichever process now has the pid: in this scope every child
 * of runx is a descendant.  Else (none found, out of fds or memory),
 * has_children().
 */
static bool tree_has_children(struct runx_scope *s)
{
	struct tree_state *t = tree_state(s);

	if (t == NULL)
		return has_children();
	if (t->witness.fd >= 0 && is_child(t->witness.fd))
		return true;
	runx_witness_drop(&t->witness);
	size_t next = t->unprobed < s->reached.n ? t->unprobed : s->reached.n;
	for (int k = 0; k < WITNESS_TRIES && next > 0; k++) {
		pid_t pid = s->reached.v[--next].pid;
		if (runx_witness_take(&t->witness, pid) == 0 &&
		    is_child(t->witness.fd))
			break;
		runx_witness_drop(&t->witness);
	}
	if (s->reached.n > 0) /* none reached yet: none tried */
		t->unprobed = next;
	return t->witness.fd >= 0 || has_children();
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
 * So a walk that counts none while runx has a child is not believed: a
 * descendant that forks and exits every millisecond (its pid hops) was
 * read as a zombie, its child born after the last getdents(2) of /proc
 * (fs/proc/base.c: proc_pid_readdir() lists each pid once); it counts as
 * one, unnamed, and the loop reaps, looks and stops what is left.  With
 * no descendant listed at all, the census is UNKNOWN.
 */
static void tree_census(struct runx_scope *s, struct runx_census *c)
{
	if (!tree_has_children(s))
		return;
	if (!c->want_count && c->pids == NULL) {
		c->count = 1;
		return;
	}
	struct tally t = {c, 0};
	int r = walk_tree(NULL, NULL, NULL, count_live, &t);
	if (r < 0) {
		runx_census_unknown(c, r);
		return;
	}
	if (c->count == 0 && has_children() && t.listed == 0)
		runx_census_unknown(c, -ESRCH); /* a child /proc did not list */
	else if (c->count == 0 && has_children()) /* only zombies listed */
		c->count = 1;			  /* one hopped past the walk */
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
 * also_cont.  *fresh counts the new ones.  With reuse (not NULL), the
 * pids in done and in *outside are not even read but for those
 * allocated within it (no other pid was reused since they were listed:
 * walk_tree()).  A newcomer pass (also NULL, done the scope's set) also
 * signals again a process the signal reached as a fork copy that has
 * execve'd since (runx_reach_again()).  A process that cannot be
 * signalled does not end the pass (the others still get the signal);
 * its error, or the walk's, is returned if nobody was reached.
 * *walked: false if the walk of /proc failed (some pids may be unread).
 * Returns the number reached, or -errno.
 */
static int sweep_once(struct runx_pidset *done, struct runx_pidset *also,
		      const struct send *how, const struct pid_window *reuse,
		      struct runx_pidbits *outside, int *fresh, bool *walked)
{
	struct pass ps = {done, also, how, 0, 0, 0};
	int r = walk_tree(done, reuse, outside, pass_one, &ps);

	*walked = r == 0;
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
 * until nobody is new: every process it reaches can no longer fork.
 *
 * Of the pids in done, and of those found outside the tree (mem), a pass
 * reads only those allocated since the pass before against done began
 * (mem->last_pid, runx_proc_last_pid() then), and the fork copies: the
 * kernel allocates pids upwards from the last one (kernel/pid.c
 * alloc_pid(), idr_alloc_cyclic()), so every other one is still the very
 * process listed before, or gone.  A pass after the first, and each
 * newcomer pass of the grace period (every RECHECK_NS), thus reads the
 * few new pids, not every process of the job and of the machine again.
 * No pass before against done, a pid counter that went down (it wrapped)
 * or cannot be read, or a walk that failed: all are read.
 */
static int sweep(struct runx_pidset *done, struct runx_pidset *also,
		 const struct send *how, struct sweep_memory *mem)
{
	int64_t t0 = runx_now_ns();
	int total = 0, fresh = 1, error = 0;

	for (int pass = 0; fresh > 0 && pass < MAX_SWEEPS; pass++) {
		long now = runx_proc_last_pid();
		struct pid_window reuse = {mem->last_pid, now};
		bool known = mem->last_pid > 0 && now >= mem->last_pid;
		bool walked;
		if (!known) /* found anew */
			runx_pidbits_clear(&mem->outside);
		int r = sweep_once(done, also, how, known ? &reuse : NULL,
				   &mem->outside, &fresh, &walked);
		/* a walk that failed may have left pids of its window unread */
		mem->last_pid = walked && now > 0 ? now : 0;
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

/* The scope's state (made at the first call; tree_release() frees it),
 * or NULL, out of memory. */
static struct tree_state *tree_state(struct runx_scope *s)
{
	struct tree_state *t = s->priv;

	if (t == NULL && (t = calloc(1, sizeof(*t))) != NULL) {
		t->witness.fd = -1;
		t->unprobed = SIZE_MAX;
		s->priv = t;
	}
	return t;
}

/*
 * The sweep memory of the passes against s->reached.  Out of memory: a
 * memory of nothing, so that every pass reads all of /proc.
 */
static struct sweep_memory *reached_memory(struct runx_scope *s)
{
	static struct sweep_memory none;
	struct tree_state *t = tree_state(s);

	if (t != NULL)
		return &t->reached;
	runx_pidbits_free(&none.outside);
	none = (struct sweep_memory){0, {NULL, 0}};
	return &none;
}

/*
 * sweep() with a set of its own, which starts empty (so its first pass
 * reads all of /proc), freed after, as its memory is: each process
 * reached goes into also too, if not NULL.
 */
static int sweep_anew(struct runx_pidset *also, const struct send *how)
{
	struct runx_pidset now = {NULL, 0, 0, NULL, 0};
	struct sweep_memory mem = {0, {NULL, 0}};
	int r = sweep(&now, also, how, &mem);

	runx_pidset_free(&now);
	runx_pidbits_free(&mem.outside);
	return r;
}

/*
 * Signals every descendant, also those born or re-parented while it
 * runs; every process reached is remembered (s->reached) so that
 * newcomers() finds only processes no signal reached yet.
 */
static int tree_signal_times(struct runx_scope *s, int sig, int times,
			     bool count)
{
	struct send how = {.sig = sig, .times = times};

	(void)count;
	if (!has_children())
		return 0;
	int r = sweep_anew(&s->reached, &how);
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
	struct send how = {.sig = sig, .times = 1, .spare_pgrp = pgrp};

	(void)s;
	if (!has_children())
		return 0;
	return sweep_anew(NULL, &how);
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
	if (!has_children())
		return 0;
	struct send how = {.sig = sig,
			   .times = 1,
			   .also_cont = sig != SIGCONT && sig != SIGKILL};
	if (!count)
		group_first(s, &how);
	int r = s->reached.n == 0
		    ? sweep(&s->reached, NULL, &how, reached_memory(s))
		    : sweep_anew(&s->reached, &how);
	if (r == 0 && how.sent_pgrp > 0)
		r = 1; /* the group had a member: ESRCH otherwise */
	if (r < 0 && runx_scope_signal_child(s, sig) > 0)
		runx_scope_signal_child(s, SIGCONT); /* needs no new fd */
	return r;
}

/*
 * Signals (and continues) the descendants no earlier signal reached.  The
 * last pass before the SIGKILL forgets which pids it may pass over (a pid
 * chosen with clone3(2)'s set_tid does not move the pid counter, and may
 * be one a process reached, or found outside, held before): it reads
 * every pid.
 */
static int tree_newcomers(struct runx_scope *s, int sig, bool last)
{
	if (!tree_has_children(s))
		return 0;
	if (last)
		reached_memory(s)->last_pid = 0;
	struct send how = {.sig = sig,
			   .times = 1,
			   .also_cont = sig != SIGCONT && sig != SIGKILL};

	return sweep(&s->reached, NULL, &how, reached_memory(s));
}

/*
 * SIGKILL to runx's own children, from its list of them
 * (runx_proc_children()), pass after pass while one turns up alive or
 * one listed is gone by the time it is read (at most MAX_SWEEPS passes).
 * A job whose pid hops (fork, the parent exits, again and again) has its
 * live process re-parented to runx, the subreaper, at each hop: a walk of
 * all of /proc, with thousands of other processes on a loaded machine,
 * took longer than a hop every time, and for 10 s never reached the live
 * one (hostile.sh; runx then gave up).  A read of the list and a signal
 * take microseconds: the hop is caught between two forks, and a child it
 * forked just before is re-parented to runx before it shows as dead
 * (kernel/exit.c: exit_notify() re-parents first), so the next pass
 * finds it.  Each pid is read and signalled as a walk's would be
 * (runx_signal_listed(): a pidfd, the start time checked), and only while
 * its parent is runx: under autoreap a child's pid may be reused at once.
 */
static void kill_children(void)
{
	pid_t self = getpid(), kids[KILL_CHILDREN_MAX];

	for (int pass = 0; pass < MAX_SWEEPS; pass++) {
		int n = runx_proc_children(self, kids, KILL_CHILDREN_MAX);
		int again = 0;
		for (int i = 0; i < n; i++) {
			struct runx_proc_stat st;
			if (runx_proc_stat(kids[i], &st) < 0) {
				again++; /* gone since the list: a hop */
				continue;
			}
			if (st.ppid != self || runx_proc_is_dead(&st))
				continue;
			again++;
			(void)runx_signal_listed(&st, SIGKILL, false);
		}
		if (again == 0)
			return;
	}
}

/* SIGKILL to every descendant: the direct child first (no fd needed),
 * then runx's children (kill_children()), then a sweep of the tree. */
static int tree_kill(struct runx_scope *s)
{
	runx_scope_signal_child(s, SIGKILL);
	kill_children();
	return tree_signal(s, SIGKILL, false);
}

/* "process tree of runx (pid 123)". */
static void tree_describe(const struct runx_scope *s, char *buf, size_t size)
{
	(void)s;
	snprintf(buf, size, "process tree of runx (pid %d)", (int)getpid());
}

/* Forgets the processes reached, and closes the witness. */
static int tree_release(struct runx_scope *s)
{
	struct tree_state *t = s->priv;

	runx_pidset_free(&s->reached);
	if (t != NULL) {
		runx_pidbits_free(&t->reached.outside);
		runx_witness_drop(&t->witness);
	}
	free(t);
	s->priv = NULL;
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
