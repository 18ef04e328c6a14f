/* The kill scope interface: the table of kinds and what they share. */
#include "config.h"

#include "scope.h"

#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "proc.h"
#include "scope_impl.h"
#include "syscalls.h"

const struct runx_scope_ops *runx_scope_ops_for(enum runx_scope_kind kind)
{
	switch (kind) {
	case RUNX_SCOPE_CHILD:
		return &runx_scope_child_ops;
	case RUNX_SCOPE_GROUP:
		return &runx_scope_group_ops;
	case RUNX_SCOPE_TREE:
		return &runx_scope_tree_ops;
	case RUNX_SCOPE_CGROUP:
		return &runx_scope_cgroup_ops;
	case RUNX_SCOPE_PIDNS:
		return &runx_scope_pidns_ops;
	default:
		return NULL;
	}
}

int runx_scope_prepare(struct runx_scope *s, enum runx_scope_kind kind,
		       const struct runx_cgroup_limits *limits, char *err,
		       size_t errsize)
{
	memset(s, 0, sizeof(*s));
	s->limits = limits;
	s->child_pidfd = -1;
	s->cg.dir_fd = s->cg.procs_fd = s->cg.events_fd = s->cg.kill_fd =
	    s->cg.freeze_fd = -1;
	s->ns.status_rd = s->ns.status_wr = -1;
	s->ops = runx_scope_ops_for(kind);
	if (s->ops == NULL) {
		snprintf(err, errsize, "the %s scope is not available",
			 runx_scope_kind_name(kind));
		return -ENOTSUP;
	}
	s->proc_trusted = runx_proc_is_own_namespace();
	int r = s->ops->prepare(s, err, errsize);
	if (r < 0)
		s->ops = NULL;
	return r;
}

struct runx_placement runx_scope_placement(const struct runx_scope *s)
{
	struct runx_placement p = {-1, -1, false, false, -1};

	if (s->has_cgroup) {
		p.cgroup_fd = s->cg.dir_fd;
		p.cgroup_procs_fd = s->cg.procs_fd;
	}
	if (s->ops != NULL && s->ops->kind == RUNX_SCOPE_PIDNS) {
		p.pidns = true;
		p.pidns_new_user = s->ns.new_user;
		p.pidns_status_fd = s->ns.status_wr;
	}
	return p;
}

void runx_scope_adopt(struct runx_scope *s, pid_t child, int child_pidfd)
{
	s->child = child;
	s->child_pidfd = child_pidfd;
	if (s->ops->adopted != NULL)
		s->ops->adopted(s);
}

void runx_scope_child_reaped(struct runx_scope *s, int *status,
			     struct rusage *ru)
{
	s->child_pidfd = -1;
	if (s->ops->child_reaped != NULL)
		s->ops->child_reaped(s, status, ru);
}

int runx_scope_command_fd(const struct runx_scope *s)
{
	return s->ops->command_fd != NULL ? s->ops->command_fd(s) : -1;
}

bool runx_scope_command_ended(struct runx_scope *s, int *status,
			      struct rusage *ru)
{
	return s->ops->command_ended != NULL &&
	       s->ops->command_ended(s, status, ru);
}

int runx_scope_signal(struct runx_scope *s, int sig, bool count)
{
	return s->ops->signal(s, sig, count);
}

int runx_scope_stop_signal(struct runx_scope *s, int sig, bool count)
{
	if (s->ops->stop_signal != NULL)
		return s->ops->stop_signal(s, sig, count);
	int r = s->ops->signal(s, sig, count);
	if (r >= 0)
		s->ops->signal(s, SIGCONT, false);
	return r;
}

int runx_scope_newcomers(struct runx_scope *s, int sig)
{
	return s->ops->newcomers != NULL ? s->ops->newcomers(s, sig) : 0;
}

int runx_scope_kill(struct runx_scope *s)
{
	return s->ops->kill(s);
}

void runx_scope_census(struct runx_scope *s, struct runx_census *c)
{
	c->state = RUNX_CENSUS_EMPTY;
	c->count = 0;
	c->error = 0;
	c->nwatch = 0;
	c->npids = 0;
	s->ops->census(s, c);
	if (c->state == RUNX_CENSUS_EMPTY && c->count > 0)
		c->state = RUNX_CENSUS_ALIVE;
}

int runx_scope_event_fd(const struct runx_scope *s)
{
	return s->ops != NULL && s->ops->event_fd != NULL ? s->ops->event_fd(s)
							  : -1;
}

const char *runx_scope_describe(const struct runx_scope *s, char *buf,
				size_t size)
{
	if (s->ops == NULL)
		snprintf(buf, size, "no scope");
	else
		s->ops->describe(s, buf, size);
	return buf;
}

const char *runx_scope_name(const struct runx_scope *s)
{
	return s->ops != NULL ? runx_scope_kind_name(s->ops->kind) : "none";
}

int runx_scope_release(struct runx_scope *s)
{
	int r = 0;

	if (s->ops != NULL && s->ops->release != NULL)
		r = s->ops->release(s);
	s->ops = NULL;
	return r;
}

/* The first slot to probe for pid (Fibonacci hashing). */
static size_t slot_of(const struct runx_pidset *set, pid_t pid)
{
	return ((size_t)(uint32_t)pid * 2654435761u) & (set->nslots - 1);
}

/* Puts entry number i into the first free slot of its probe sequence. */
static void place(struct runx_pidset *set, size_t i)
{
	size_t k = slot_of(set, set->v[i].pid);

	while (set->slot[k] != 0)
		k = (k + 1) & (set->nslots - 1);
	set->slot[k] = i + 1;
}

/* Rebuilds the hash index with nslots slots; 0 or -ENOMEM. */
static int reindex(struct runx_pidset *set, size_t nslots)
{
	size_t *slot = calloc(nslots, sizeof(*slot));

	if (slot == NULL)
		return -ENOMEM;
	free(set->slot);
	set->slot = slot;
	set->nslots = nslots;
	for (size_t i = 0; i < set->n; i++)
		place(set, i);
	return 0;
}

struct runx_pidset_entry *runx_pidset_find(const struct runx_pidset *set,
					   const struct runx_proc_stat *p)
{
	if (set->nslots == 0)
		return NULL;
	for (size_t k = slot_of(set, p->pid); set->slot[k] != 0;
	     k = (k + 1) & (set->nslots - 1)) {
		struct runx_pidset_entry *e = &set->v[set->slot[k] - 1];
		if (e->pid == p->pid && e->start_time == p->start_time)
			return e;
	}
	return NULL;
}

bool runx_pidset_has(const struct runx_pidset *set,
		     const struct runx_proc_stat *p)
{
	return runx_pidset_find(set, p) != NULL;
}

int runx_pidset_add(struct runx_pidset *set, const struct runx_proc_stat *p,
		    bool fork_copy)
{
	if (set->n == set->cap) {
		size_t cap = set->cap ? set->cap * 2 : 64;
		struct runx_pidset_entry *v = realloc(set->v, cap * sizeof(*v));
		if (v == NULL)
			return -ENOMEM;
		set->v = v;
		set->cap = cap;
	}
	if (2 * (set->n + 1) > set->nslots &&
	    reindex(set, set->nslots ? set->nslots * 2 : 128) < 0)
		return -ENOMEM;
	set->v[set->n] = (struct runx_pidset_entry){
	    p->pid, p->start_time, p->start_stack, p->arg_start, fork_copy};
	place(set, set->n++);
	return 0;
}

int runx_pidset_remember(struct runx_pidset *set,
			 const struct runx_proc_stat *p, bool fork_copy)
{
	struct runx_pidset_entry *e = runx_pidset_find(set, p);

	if (e == NULL)
		return runx_pidset_add(set, p, fork_copy);
	e->start_stack = p->start_stack;
	e->arg_start = p->arg_start;
	e->fork_copy = fork_copy;
	return 0;
}

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
	if (runx_pidset_add(set, st, runx_is_signalled_copy(st, sig)) < 0)
		return -ENOMEM;
	return runx_signal_listed(st, sig, sig != SIGCONT);
}

bool runx_is_signalled_copy(const struct runx_proc_stat *st, int sig)
{
	return !runx_proc_is_dead(st) && runx_proc_may_catch(st, sig) &&
	       runx_proc_is_fork_copy(st);
}

void runx_pidset_free(struct runx_pidset *set)
{
	free(set->v);
	free(set->slot);
	*set = (struct runx_pidset){NULL, 0, 0, NULL, 0};
}

void runx_census_found(struct runx_census *c, pid_t pid)
{
	c->count++;
	if (c->pids != NULL && c->npids < c->maxpids)
		c->pids[c->npids++] = pid;
	if (c->watch == NULL || c->nwatch >= c->max)
		return;
	int fd = runx_pidfd_open(pid, 0);
	if (fd >= 0)
		c->watch[c->nwatch++] = fd;
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
	if (runx_pidfd_send_signal(s->child_pidfd, sig) < 0)
		return errno == ESRCH ? 0 : -errno;
	return 1;
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

/*
 * runx_signal_listed() without a pidfd (pidfd_open(2) refused by a seccomp
 * profile, or ENOMEM): kill(2) right after the start-time re-check.  A
 * reuse in between would need the pid to wrap within microseconds.
 * Returns 1, 0 (gone, another process) or error (the re-check failed).
 */
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
