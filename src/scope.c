/* Kill scopes child, group and tree. */
#include "config.h"

#include "scope.h"

#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "proc.h"
#include "syscalls.h"

static const char delegate_hint[] =
	"; run runx in a cgroup delegated to you, e.g. "
	"'systemd-run --user --scope -p Delegate=yes runx ...', "
	"or use --kill-scope=tree";

static int prepare_cgroup(struct runx_scope *s, char *err, size_t errsize)
{
	char own[PATH_MAX], why[PATH_MAX + 128];
	int r = runx_cgroup_find_own(own, sizeof(own));

	if (r < 0) {
		snprintf(err, errsize,
			 "no writable cgroup v2: no cgroup2 mount holds runx's "
			 "cgroup (%s)%s",
			 strerror(-r), delegate_hint);
		return r;
	}
	r = runx_cgroup_create(&s->cg, own, why, sizeof(why));
	if (r < 0) {
		snprintf(err, errsize, "no writable cgroup v2: %s%s", why,
			 delegate_hint);
		return r;
	}
	s->has_cgroup = true;
	return 0;
}

int runx_scope_prepare(struct runx_scope *s, enum runx_scope_kind kind,
		       char *err, size_t errsize)
{
	s->kind = kind;
	s->child = 0;
	s->child_pidfd = -1;
	s->proc_trusted = runx_proc_is_own_namespace();
	s->has_cgroup = false;
	s->auto_reason[0] = '\0';
	if (kind == RUNX_SCOPE_CGROUP)
		return prepare_cgroup(s, err, errsize);
	if (kind == RUNX_SCOPE_AUTO) {
		s->kind = RUNX_SCOPE_CGROUP;
		if (prepare_cgroup(s, s->auto_reason,
				   sizeof(s->auto_reason)) == 0)
			return 0;
		/* keep only the reason, not the hint */
		char *hint = strstr(s->auto_reason, delegate_hint);
		if (hint != NULL)
			*hint = '\0';
		s->kind = kind = RUNX_SCOPE_TREE;
	}
	if (kind == RUNX_SCOPE_TREE &&
	    prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) < 0) {
		int e = errno;
		snprintf(err, errsize, "cannot become a child subreaper: %s",
			 strerror(e));
		return -e;
	}
	if (kind == RUNX_SCOPE_TREE && !s->proc_trusted) {
		snprintf(err, errsize,
			 "--kill-scope=tree needs /proc of runx's own pid "
			 "namespace (unshare --pid needs --mount-proc)");
		return -EINVAL;
	}
	return 0;
}

bool runx_scope_new_session(const struct runx_scope *s, bool foreground)
{
	(void)s;
	return !foreground;
}

void runx_scope_adopt(struct runx_scope *s, pid_t child, int child_pidfd)
{
	s->child = child;
	s->child_pidfd = child_pidfd;
}

void runx_scope_child_reaped(struct runx_scope *s)
{
	s->child_pidfd = -1;
}

/* Collects live processes matching a scope into a census. */
struct census {
	const struct runx_scope *scope;
	int count;
	int *watch;
	int max;
	int nwatch;
	/* tree: the pids known to descend from runx */
	pid_t *tree;
	size_t ntree, captree;
};

/* Adds a pidfd watch for pid, if there is room. */
static void watch_pid(struct census *c, pid_t pid)
{
	if (c->watch == NULL || c->nwatch >= c->max)
		return;
	int fd = runx_pidfd_open(pid, 0);
	if (fd >= 0)
		c->watch[c->nwatch++] = fd;
}

static int count_group_member(const struct runx_proc_stat *st, void *arg)
{
	struct census *c = arg;

	if (st->pgrp == c->scope->child && !runx_proc_is_dead(st)) {
		c->count++;
		watch_pid(c, st->pid);
	}
	return 0;
}

/* Group census where /proc is foreign: kill(2) with signal 0 only. */
static int group_probe(const struct runx_scope *s)
{
	return kill(-s->child, 0) == 0 ? 1 : 0;
}

static int tree_add(struct census *c, pid_t pid)
{
	if (c->ntree == c->captree) {
		size_t cap = c->captree ? c->captree * 2 : 64;
		pid_t *p = realloc(c->tree, cap * sizeof(*p));
		if (p == NULL)
			return -ENOMEM;
		c->tree = p;
		c->captree = cap;
	}
	c->tree[c->ntree++] = pid;
	return 0;
}

/* All processes, for the tree walk. */
struct proc_list {
	struct runx_proc_stat *v;
	size_t n, cap;
};

static int list_proc(const struct runx_proc_stat *st, void *arg)
{
	struct proc_list *l = arg;

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

/* Membership bits indexed by pid, sized to the largest pid listed. */
static bool bit_get(const unsigned char *bits, pid_t pid)
{
	return bits[pid / 8] & (1u << (pid % 8));
}

static void bit_set(unsigned char *bits, pid_t pid)
{
	bits[pid / 8] |= (unsigned char)(1u << (pid % 8));
}

/*
 * Descendants of runx: every process whose parent chain reaches runx.
 * Orphans re-parent to runx (subreaper), so a process outside this set was
 * never runx's or has left through a daemon (documented escape).  /proc
 * lists pids in ascending order and children mostly have larger pids than
 * their parents, so the passes below usually end after two.
 */
static int tree_collect(struct census *c)
{
	struct proc_list all = {NULL, 0, 0};
	unsigned char *member = NULL;
	pid_t self = getpid(), top = self;
	bool grew = true;
	int r = runx_proc_each(list_proc, &all);

	if (r < 0)
		goto out;
	for (size_t i = 0; i < all.n; i++)
		if (all.v[i].pid > top)
			top = all.v[i].pid;
	member = calloc((size_t)top / 8 + 1, 1);
	if (member == NULL || (r = tree_add(c, self)) < 0) {
		r = r < 0 ? r : -ENOMEM;
		goto out;
	}
	bit_set(member, self);
	while (grew) { /* repeat until no new descendant is found */
		grew = false;
		for (size_t i = 0; i < all.n; i++) {
			const struct runx_proc_stat *p = &all.v[i];
			if (bit_get(member, p->pid) || p->ppid <= 0 ||
			    p->ppid > top || !bit_get(member, p->ppid))
				continue;
			if ((r = tree_add(c, p->pid)) < 0)
				goto out;
			bit_set(member, p->pid);
			grew = true;
			if (!runx_proc_is_dead(p)) {
				c->count++;
				watch_pid(c, p->pid);
			}
		}
	}
	r = 0;
out:
	free(member);
	free(all.v);
	return r;
}

/* Live processes of the job's cgroup subtree (no pidfds: cgroup.events). */
static int cgroup_census(struct runx_scope *s)
{
	int populated = runx_cgroup_populated(&s->cg);

	if (populated <= 0)
		return populated;
	int count = runx_cgroup_count(&s->cg);
	if (count < 0)
		return count;
	return count > 0 ? count : 1; /* populated, being listed: not empty */
}

/*
 * True if runx has a child, live or zombie (waitid(2) with WNOWAIT).
 * A subreaper without children has no descendants at all: each one's
 * parent chain up to runx is alive, or it would have been re-parented.
 */
static bool has_children(void)
{
	siginfo_t si;

	return waitid(P_ALL, 0, &si,
		      WEXITED | WSTOPPED | WCONTINUED | WNOHANG | WNOWAIT) == 0;
}

int runx_scope_census(struct runx_scope *s, int *watch, int max, int *nwatch)
{
	struct census c = {s, 0, watch, max, 0, NULL, 0, 0};
	struct runx_proc_stat st;
	int r = 0;

	switch (s->kind) {
	case RUNX_SCOPE_CHILD:
		if (s->child_pidfd >= 0 && runx_proc_stat(s->child, &st) == 0 &&
		    !runx_proc_is_dead(&st)) {
			c.count = 1;
			watch_pid(&c, s->child);
		}
		break;
	case RUNX_SCOPE_GROUP:
		/* kill(2) with signal 0 first: ESRCH, the common case, needs
		 * no scan of /proc (a zombie member still counts for kill) */
		if (group_probe(s) == 0)
			break;
		if (s->proc_trusted)
			r = runx_proc_each(count_group_member, &c);
		else
			c.count = 1;
		break;
	case RUNX_SCOPE_TREE:
		if (!has_children())
			break;
		r = tree_collect(&c);
		free(c.tree);
		break;
	case RUNX_SCOPE_CGROUP:
		r = cgroup_census(s);
		if (r > 0)
			c.count = r;
		break;
	default:
		r = -ENOTSUP;
	}
	*nwatch = c.nwatch;
	if (r < 0) {
		for (int i = 0; i < c.nwatch; i++)
			close(watch[i]);
		*nwatch = 0;
		return r;
	}
	return c.count;
}

/* Signals one descendant through a pidfd opened for it now. */
static int signal_pid(pid_t pid, int sig)
{
	int fd = runx_pidfd_open(pid, 0);

	if (fd < 0)
		return errno == ESRCH ? 0 : -errno;
	int r = runx_pidfd_send_signal(fd, sig);
	int e = errno;
	close(fd);
	if (r < 0)
		return e == ESRCH ? 0 : -e;
	return 1;
}

static int signal_tree(int sig)
{
	struct census c = {NULL, 0, NULL, 0, 0, NULL, 0, 0};
	int r = tree_collect(&c);

	/* [0] is runx itself; zombies take the signal harmlessly. */
	for (size_t i = 1; r >= 0 && i < c.ntree; i++) {
		int one = signal_pid(c.tree[i], sig);
		if (one < 0)
			r = one;
	}
	free(c.tree);
	return r < 0 ? r : c.count;
}

struct cgroup_signal {
	struct runx_scope *scope;
	int sig;
	int reached;
};

static int signal_cgroup_pid(pid_t pid, void *arg)
{
	struct cgroup_signal *cs = arg;
	int fd = runx_pidfd_open(pid, 0);

	if (fd < 0)
		return 0;
	/* The pidfd pins the process; check it is still the job's. */
	if (runx_cgroup_holds(&cs->scope->cg, pid) &&
	    runx_pidfd_send_signal(fd, cs->sig) == 0)
		cs->reached++;
	close(fd);
	return 0;
}

int runx_scope_signal(struct runx_scope *s, int sig, bool count)
{
	int watch_none;

	switch (s->kind) {
	case RUNX_SCOPE_CHILD:
		if (s->child_pidfd < 0)
			return 0;
		if (runx_pidfd_send_signal(s->child_pidfd, sig) < 0)
			return errno == ESRCH ? 0 : -errno;
		return 1;
	case RUNX_SCOPE_GROUP: {
		int n = count ? runx_scope_census(s, NULL, 0, &watch_none) : 1;
		if (kill(-s->child, sig) < 0)
			return errno == ESRCH ? 0 : -errno;
		return n > 0 ? n : 1;
	}
	case RUNX_SCOPE_TREE:
		return signal_tree(sig);
	case RUNX_SCOPE_CGROUP: {
		if (sig == SIGKILL)
			return runx_cgroup_kill(&s->cg);
		struct cgroup_signal cs = {s, sig, 0};
		int r = runx_cgroup_each_pid(&s->cg, signal_cgroup_pid, &cs);
		return r < 0 ? r : cs.reached;
	}
	default:
		return -ENOTSUP;
	}
}

int runx_scope_event_fd(const struct runx_scope *s)
{
	return s->has_cgroup ? s->cg.events_fd : -1;
}

const char *runx_scope_describe(const struct runx_scope *s, char *buf,
				size_t size)
{
	switch (s->kind) {
	case RUNX_SCOPE_CHILD:
		snprintf(buf, size, "process %d", (int)s->child);
		break;
	case RUNX_SCOPE_GROUP:
		snprintf(buf, size, "process group %d", (int)s->child);
		break;
	case RUNX_SCOPE_TREE:
		snprintf(buf, size, "process tree of runx (pid %d)",
			 (int)getpid());
		break;
	case RUNX_SCOPE_CGROUP:
		snprintf(buf, size, "cgroup %s", s->cg.path);
		break;
	default:
		snprintf(buf, size, "%s scope", runx_scope_kind_name(s->kind));
	}
	return buf;
}

int runx_scope_release(struct runx_scope *s)
{
	int r = 0;

	if (s->has_cgroup)
		r = runx_cgroup_remove(&s->cg);
	s->has_cgroup = false;
	return r;
}
