/*
 * What the scope kinds share to signal processes safely: a pid listed from
 * /proc or cgroup.procs is signalled only through a pidfd that pins the
 * same incarnation (or right after re-checking it), so a reused pid is
 * never hit; the newcomer rules of a stop; the census helpers.
 */
#include "config.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "clock.h"
#include "proc.h"
#include "scope_impl.h"
#include "syscalls.h"

int runx_reach_again(struct runx_pidset_entry *e,
		     const struct runx_proc_stat *p, int sig)
{
	if (!e->fork_copy || p->start_stack == 0 ||
	    (p->start_stack == e->start_stack && p->arg_start == e->arg_start))
		return 0;
	e->fork_copy = false;
	e->start_stack = p->start_stack;
	e->arg_start = p->arg_start;
	return runx_signal_listed(p, sig, sig != SIGCONT);
}

int runx_reach_late(struct runx_pidset *set, const struct runx_proc_stat *st,
		    unsigned long long stop_tick, int sig,
		    bool (*member)(const struct runx_proc_stat *st, void *arg),
		    void *arg)
{
	struct runx_pidset_entry *e = runx_pidset_find(set, st);

	if (e != NULL)
		return runx_reach_again(e, st, sig);
	if (st->start_time < stop_tick || (member != NULL && !member(st, arg)))
		return 0;
	if (runx_pidset_add(set, st, runx_resend_after_exec(st, sig)) < 0)
		return -ENOMEM;
	return runx_signal_listed(st, sig, sig != SIGCONT);
}

bool runx_resend_after_exec(const struct runx_proc_stat *st, int sig)
{
	if (runx_proc_is_dead(st) || !runx_proc_may_divert(st, sig))
		return false;
	/* what it execs next may not ignore sig, and never saw it */
	return runx_proc_ignores(st, sig) || runx_proc_is_fork_copy(st);
}

/* Adds st to c->found if it is a copy, or born since stop_tick, of c's
 * scope. */
static int find_copy(const struct runx_proc_stat *st, void *arg)
{
	struct runx_copies *c = arg;

	if (runx_proc_is_dead(st) || runx_pidset_has(&c->found, st))
		return 0;
	bool copy = runx_resend_after_exec(st, c->sig);
	if ((!copy && st->start_time < c->scope->stop_tick) ||
	    !c->member(st, c->arg))
		return 0;
	return runx_pidset_add(&c->found, st, copy);
}

/* Reads e's process again into *now: true if it is that incarnation and
 * alive. */
static bool look_again(const struct runx_pidset_entry *e,
		       struct runx_proc_stat *now)
{
	return runx_proc_stat(e->pid, now) == 0 &&
	       now->start_time == e->start_time && !runx_proc_is_dead(now);
}

/* True if now shows the image e noted (no execve(2) since). */
static bool same_image(const struct runx_pidset_entry *e,
		       const struct runx_proc_stat *now)
{
	return now->start_stack != 0 && now->start_stack == e->start_stack &&
	       now->arg_start == e->arg_start;
}

void runx_copies_find(struct runx_copies *c)
{
	struct runx_proc_stat now;
	long before = runx_proc_last_pid();
	int r = runx_proc_each(find_copy, c);

	c->mid = runx_proc_last_pid();
	if (r == 0 && before >= 0 && c->mid >= 0)
		r = runx_proc_each_allocated(before, c->mid, find_copy, c);
	if (r != 0)
		c->mid = -1;
	/* one that has exec'd (or stopped diverting sig) since is one the
	 * signal reaches as itself */
	for (size_t i = 0; i < c->found.n; i++) {
		struct runx_pidset_entry *e = &c->found.v[i];
		if (e->fork_copy &&
		    (!look_again(e, &now) || !same_image(e, &now) ||
		     !runx_resend_after_exec(&now, c->sig)))
			e->fork_copy = false;
	}
	c->pre = c->mid >= 0 ? runx_proc_last_pid() : -1;
}

/* A process of c's scope born after the walk, before the signal (a pid up
 * to c->pre), that is a copy now: marked in the reached set for
 * runx_reach_again(). */
static int note_new_copy(const struct runx_proc_stat *st, void *arg)
{
	struct runx_copies *c = arg;

	if (!runx_resend_after_exec(st, c->sig) || !c->member(st, c->arg))
		return 0;
	return runx_pidset_remember(&c->scope->reached, st, true);
}

void runx_copies_note(struct runx_copies *c, bool sent)
{
	struct runx_scope *s = c->scope;
	struct runx_proc_stat now;
	int r = 0;

	for (size_t i = 0; sent && r == 0 && i < c->found.n; i++) {
		struct runx_pidset_entry *e = &c->found.v[i];
		if (!look_again(e, &now))
			continue;
		bool copy = e->fork_copy && same_image(e, &now);
		if (e->fork_copy && !copy)
			(void)runx_signal_listed(&now, c->sig,
						 c->sig != SIGCONT);
		r = runx_pidset_remember(&s->reached, &now, copy);
	}
	if (sent && r == 0 && c->mid >= 0 && c->pre >= 0)
		(void)runx_proc_each_allocated(c->mid, c->pre, note_new_copy,
					       c);
	runx_pidset_free(&c->found);
}

/* The most pids a newcomer pass reads one by one, as allocated since the
 * pass before, rather than in a walk of /proc (runx_newcomer_window()). */
#define WINDOW_MAX 4096

bool runx_newcomer_window(const struct runx_scope *s,
			  const struct runx_pass_mark *from,
			  const struct runx_pass_mark *now)
{
	if (from->pid <= 0 || now->pid < from->pid ||
	    now->pid - from->pid > WINDOW_MAX || from->forks < 0 ||
	    now->forks < from->forks ||
	    now->forks - from->forks > now->pid - from->pid)
		return false;
	for (size_t i = 0; i < s->reached.n; i++)
		if (s->reached.v[i].fork_copy)
			return false;
	return true;
}

bool runx_parent_missed(
    const struct runx_scope *s, const struct runx_proc_stat *st,
    bool (*member)(const struct runx_proc_stat *st, void *arg), void *arg)
{
	struct runx_proc_stat parent;

	if (st->ppid <= 1 || st->ppid == getpid() ||
	    runx_proc_stat(st->ppid, &parent) < 0)
		return false;
	return parent.start_time >= s->stop_tick &&
	       !runx_proc_is_dead(&parent) && member(&parent, arg) &&
	       !runx_pidset_has(&s->reached, &parent);
}

bool runx_newcomer_pass_begin(const struct runx_scope *s,
			      const struct runx_pass_mark *from,
			      struct runx_pass_mark *now, bool last)
{
	runx_pass_mark_take(now);
	bool window =
	    !last && now->walked_ns - from->walked_ns < RUNX_NEWCOMER_WALK_NS &&
	    runx_newcomer_window(s, from, now);
	if (window)
		now->walked_ns = from->walked_ns;
	return window;
}

int runx_newcomer_pass(const struct runx_scope *s, struct runx_pass_mark *mark,
		       bool last, const struct runx_newcomer_pass *p)
{
	struct runx_pass_mark now;
	int r = 0;

	*p->window = runx_newcomer_pass_begin(s, mark, &now, last);
	if (*p->window) {
		if (p->window_first != NULL)
			r = p->window_first(p->arg);
		if (r == 0)
			r = runx_proc_each_since(mark->pid, now.pid, p->each,
						 p->arg);
	}
	if (!*p->window || r == -EAGAIN) { /* a parent outside the window */
		*p->window = false;
		now.walked_ns = runx_now_ns();
		if (p->walk_first != NULL)
			p->walk_first(p->arg);
		r = runx_proc_each_oldest_first(p->each, p->arg);
	}
	*mark = now;
	if (r != 0)
		mark->pid = 0; /* the next pass walks /proc */
	return r;
}

int runx_witness_take(struct runx_witness *w, pid_t pid)
{
	runx_witness_drop(w);
	w->fd = runx_pidfd_open(pid, 0);
	if (w->fd < 0)
		return -errno;
	w->pid = pid;
	return 0;
}

void runx_witness_drop(struct runx_witness *w)
{
	if (w->fd >= 0)
		close(w->fd);
	w->fd = -1;
}

/* The fds a census leaves free beside its watches, for the walk that
 * finds the members: its /proc directory, a /proc/PID/stat read and a
 * pidfd at once. */
#define CENSUS_FD_ROOM 3

/*
 * True if fd, just opened, leaves CENSUS_FD_ROOM fds free at most below
 * RLIMIT_NOFILE: the kernel gives the lowest free fd (open(2)), so every
 * fd below it is taken, and at most limit - 1 - fd are free above it.
 */
static bool leaves_no_room(int fd)
{
	static rlim_t limit; /* runx's own limit does not change */
	struct rlimit rl;

	if (limit == 0)
		limit = getrlimit(RLIMIT_NOFILE, &rl) == 0 ? rl.rlim_cur
							   : RLIM_INFINITY;
	return limit != RLIM_INFINITY &&
	       (rlim_t)fd + 1 + CENSUS_FD_ROOM > limit;
}

void runx_census_found(struct runx_census *c, pid_t pid)
{
	c->count++;
	if (c->pids != NULL && c->npids < c->maxpids)
		c->pids[c->npids++] = pid;
	if (c->watch == NULL || c->nwatch >= c->max)
		return;
	int fd = runx_pidfd_open(pid, 0);
	if (fd >= 0 && leaves_no_room(fd)) {
		close(fd); /* the walk needs it more: no more watches */
		c->max = c->nwatch;
	} else if (fd >= 0) {
		c->watch[c->nwatch++] = fd;
	}
}

void runx_census_unknown(struct runx_census *c, int error)
{
	c->state = RUNX_CENSUS_UNKNOWN;
	if (c->error == 0)
		c->error = error;
}

int runx_scope_signal_child(struct runx_scope *s, int sig)
{
	if (s->child_pidfd < 0)
		return 0;
	return runx_pidfd_signal_reached(s->child_pidfd, sig);
}

bool runx_scope_child_alive(const struct runx_scope *s)
{
	siginfo_t si;

	if (s->child_pidfd < 0)
		return false;
	/* P_PIDFD with WNOWAIT (Linux 5.4): the direct child's state, by
	 * its pidfd, never by a pid that could have been reused */
	memset(&si, 0, sizeof(si));
	if (waitid((idtype_t)P_PIDFD, (id_t)s->child_pidfd, &si,
		   WEXITED | WNOHANG | WNOWAIT) < 0)
		return errno != ECHILD;
	return si.si_pid == 0;
}

bool runx_scope_signal_group_first(const struct runx_scope *s, int sig,
				   bool also_cont, pid_t *pgrp, uint64_t *tick)
{
	if (!s->child_leads_session || s->child_pidfd < 0 || s->child <= 0 ||
	    !s->proc_trusted)
		return false;
	/* the command's own stat, if it is still the command (alive after
	 * the read, so its pid was not reused before) */
	if (runx_proc_pid_may_divert(s->child, sig) ||
	    runx_pidfd_send_signal(s->child_pidfd, 0) < 0)
		return false;
	uint64_t before = runx_proc_uptime_ticks();
	if (runx_pidfd_signal_group(s->child_pidfd, sig) < 0)
		return false;
	if (also_cont)
		runx_pidfd_signal_group(s->child_pidfd, SIGCONT);
	*pgrp = s->child;
	*tick = before;
	return true;
}

/*
 * Re-reads /proc/PID/stat of the process listed as *p into *now: 0 if it
 * is the same incarnation (start time), -ESRCH if another process has the
 * pid, or runx_proc_stat()'s -errno (-ENOENT once it is gone).
 */
static int recheck(const struct runx_proc_stat *p, struct runx_proc_stat *now)
{
	int r = runx_proc_stat(p->pid, now);

	return r == 0 && now->start_time != p->start_time ? -ESRCH : r;
}

/*
 * runx_signal_listed() without a pidfd (pidfd_open(2) refused by a seccomp
 * profile, or ENOMEM): kill(2) right after the start-time re-check.  A
 * reuse in between would need the pid to wrap within microseconds.
 * Returns 1, 0 (gone, another process) or error (the re-check failed).
 */
static int signal_unpinned(const struct runx_proc_stat *p, int sig,
			   bool also_cont, int error)
{
	struct runx_proc_stat now;
	int r = recheck(p, &now);

	if (r == -ENOENT || r == -ESRCH)
		return 0;
	if (r < 0)
		return error;
	if (runx_proc_is_dead(&now))
		return 0;
	if (kill(p->pid, sig) < 0)
		return errno == ESRCH ? 0 : -errno;
	if (also_cont)
		kill(p->pid, SIGCONT);
	return 1;
}

/* Whether the kernel has PIDFD_GET_INFO (until one ioctl says not). */
static bool have_pidfd_info = true;

/*
 * 0 if the process pinned by pidfd is the one listed as *p, or another
 * descendant in its place: its parent (PIDFD_GET_INFO, one ioctl) is still
 * p's listed parent, or runx (a child of runx is in the tree; a pid reused
 * by a child of p's parent is p's sibling, a descendant too).  Else, or
 * without the ioctl, the start time in /proc/PID/stat decides.  -ESRCH
 * for another process or one that is reaped, or -errno.
 */
static int pinned_is_listed(int pidfd, const struct runx_proc_stat *p)
{
	static pid_t self;
	struct runx_proc_stat now;
	pid_t ppid;

	if (self == 0)
		self = getpid();
	if (have_pidfd_info && runx_pidfd_ppid(pidfd, &ppid) == 0) {
		if (ppid == p->ppid || ppid == self)
			return 0;
	} else if (have_pidfd_info && errno == ESRCH) {
		return -ESRCH;
	} else if (have_pidfd_info) {
		have_pidfd_info = false; /* ENOTTY, EINVAL: before 6.13 */
	}
	return recheck(p, &now);
}

int runx_signal_listed(const struct runx_proc_stat *p, int sig, bool also_cont)
{
	int fd = runx_pidfd_open(p->pid, 0);

	if (fd < 0)
		return errno == ESRCH
			   ? 0
			   : signal_unpinned(p, sig, also_cont, -errno);
	int r = pinned_is_listed(fd, p);
	if (r == 0 && runx_pidfd_send_signal(fd, sig) < 0)
		r = -errno;
	if (r == 0 && also_cont)
		runx_pidfd_send_signal(fd, SIGCONT);
	close(fd);
	if (r == -ENOENT || r == -ESRCH)
		return 0;
	return r < 0 ? r : 1;
}
