/*
 * --kill-scope=cgroup: the job runs in a cgroup v2 of its own, made below
 * runx's cgroup, which the command enters before its first instruction
 * (launch.h).  The first signal goes to every pid of the subtree while it
 * is frozen (cgroup.freeze, so nothing forks in between, as runc's kill
 * --all does); SIGKILL is one write to cgroup.kill, which also reaches
 * child cgroups and processes that called setsid(2)
 * (Documentation/admin-guide/cgroup-v2.rst).
 */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cgroup_walk.h"
#include "log.h"
#include "proc.h"
#include "scope_impl.h"
#include "syscalls.h"

/* How long the first signal waits for the freeze to complete (ns). */
#define FREEZE_WAIT_NS (100 * 1000 * 1000LL)
/* The most processes a pass freezes (see freeze()). */
#define FREEZE_MAX 1000

/*
 * How long release waits for a cgroup that still has processes (ns): after
 * a failed launch its one process dies at once; after the supervisor gave
 * up on processes in uninterruptible sleep (10 s), waiting again would
 * only repeat that wait.
 */
#define RELEASE_KILL_WAIT_NS (1000 * 1000 * 1000LL)

/* The scope's own state (struct runx_scope.priv). */
struct cgroup_scope {
	struct runx_cgroup cg;
	bool has_cgroup; /* cg is made and must be removed */
	/* what the newcomer passes know between them (cgroup_newcomers()) */
	long pass_pid;		     /* runx_proc_last_pid() as the last
				      * complete one began (0: none) */
	struct runx_pidbits settled; /* pids it found held by a process a
				      * signal reached, not a fork copy */
};

/* The job's cgroup of s. */
#define CG(s) (&((struct cgroup_scope *)(s)->priv)->cg)
/* True once the job's cgroup of s exists. */
#define HAS_CG(s)                                                              \
	((s)->priv != NULL && ((struct cgroup_scope *)(s)->priv)->has_cgroup)

/*
 * What to do without a writable cgroup, as advice that can work here:
 * systemd-run only where systemd is the init (/run/systemd/system, as
 * sd_booted(3) tests).
 */
static const char *delegate_hint(void)
{
	if (access("/run/systemd/system", F_OK) == 0)
		return "; run runx in a cgroup delegated to you, e.g. "
		       "'systemd-run --user --scope -p Delegate=yes runx ...', "
		       "or use --kill-scope=tree";
	return "; run runx in a cgroup delegated to you (one whose directory "
	       "and cgroup.procs are yours), or use --kill-scope=tree";
}

int runx_scope_cgroup_probe(char *why, size_t whysize)
{
	char own[PATH_MAX];
	int r = runx_cgroup_find_own(own, sizeof(own));

	if (r < 0) {
		snprintf(why, whysize,
			 "no cgroup2 mount holds runx's cgroup (%s)",
			 strerror(-r));
		return r;
	}
	r = runx_cgroup_probe(own);
	if (r < 0)
		snprintf(why, whysize, "cannot create a cgroup in '%s': %s",
			 own, strerror(-r));
	return r;
}

/* Says with -v where the job's cgroup with limits went, and runx; named
 * for what asked for that layout: a limit, or only --retry-on=oom. */
static void tell_layout(const struct runx_scope *s,
			const struct runx_cgroup_limits *limits)
{
	const struct runx_cgroup *cg = CG(s);
	const char *why =
	    runx_cgroup_limits_any(limits) ? "limits" : "--retry-on=oom";

	if (cg->moved)
		runx_verbose("%s: runx moved itself from '%s' into "
			     "'%s/supervisor'; the job's cgroup is '%s'",
			     why, cg->home, cg->top, cg->path);
	else
		runx_verbose("%s: the job's cgroup is '%s'", why, cg->path);
}

/* Makes the job's cgroup with the limits set (where the layout allows,
 * runx_cgroup_create_limited) and opens its fds. */
static int cgroup_prepare_limited(struct runx_scope *s, const char *own,
				  const struct runx_cgroup_limits *limits,
				  char *err, size_t errsize)
{
	int r = runx_cgroup_create_limited(CG(s), own, limits, err, errsize);

	if (r < 0)
		return r;
	((struct cgroup_scope *)s->priv)->has_cgroup = true;
	tell_layout(s, limits);
	return 0;
}

/* Makes the job's cgroup below runx's own and opens its fds. */
static int cgroup_prepare(struct runx_scope *s,
			  const struct runx_cgroup_limits *limits, char *err,
			  size_t errsize)
{
	char own[PATH_MAX], why[PATH_MAX + 128];
	struct cgroup_scope *cs = calloc(1, sizeof(*cs));

	if (cs == NULL)
		return -ENOMEM;
	cs->cg.dir_fd = cs->cg.procs_fd = cs->cg.events_fd = cs->cg.kill_fd =
	    cs->cg.freeze_fd = -1;
	s->priv = cs;
	int r = runx_cgroup_find_own(own, sizeof(own));

	if (r == -EMFILE || r == -ENFILE) {
		snprintf(err, errsize,
			 "cannot set up the cgroup scope: %s (raise ulimit -n)",
			 strerror(-r));
		return r;
	}
	if (r < 0) {
		snprintf(err, errsize,
			 "no writable cgroup v2: no cgroup2 mount holds runx's "
			 "cgroup (%s)%s",
			 strerror(-r), delegate_hint());
		return r;
	}
	if (limits != NULL)
		return cgroup_prepare_limited(s, own, limits, err, errsize);
	r = runx_cgroup_create(CG(s), own, why, sizeof(why));
	if (r < 0) {
		/* out of fds: the advice to delegate a cgroup would mislead */
		bool fds = r == -EMFILE || r == -ENFILE;
		snprintf(err, errsize, "%s: %s%s",
			 fds ? "cannot set up the cgroup scope"
			     : "no writable cgroup v2",
			 why, fds ? " (raise ulimit -n)" : delegate_hint());
		return r;
	}
	cs->has_cgroup = true;
	return 0;
}

/* Adds one pid of cgroup.procs to the census. */
static int found_pid(pid_t pid, void *arg)
{
	runx_census_found(arg, pid);
	return 0;
}

/* Lists the subtree's pids into the census; their number, or -errno. */
static int list_pids(struct runx_scope *s, struct runx_census *c)
{
	int r = runx_cgroup_each_pid(CG(s), found_pid, c);

	if (r < 0)
		return r;
	int count = c->count;
	c->count = 0; /* the caller sets the count */
	return count;
}

/* What the job's cgroup measured (runx_cgroup_read_usage). */
static int cgroup_usage(const struct runx_scope *s, struct runx_cgroup_usage *u)
{
	if (!HAS_CG(s)) {
		*u = (struct runx_cgroup_usage){false, -1, -1, -1, -1};
		return -ENOTSUP;
	}
	runx_cgroup_read_usage(CG(s), u);
	return 0;
}

/* The child starts in the job's cgroup (launch.h: clone3's
 * CLONE_INTO_CGROUP, or cgroup.procs before execve). */
static int cgroup_launch(struct runx_scope *s, struct runx_launch_request *req,
			 struct runx_launched *out)
{
	req->cgroup_fd = CG(s)->dir_fd;
	req->cgroup_procs_fd = CG(s)->procs_fd;
	return runx_launch(req, out);
}

/* Live processes of the job's subtree; an unreadable cgroup is UNKNOWN. */
static void cgroup_census(struct runx_scope *s, struct runx_census *c)
{
	int populated = runx_cgroup_populated(CG(s));

	if (populated == 0)
		return;
	if (populated < 0) {
		runx_census_unknown(c, populated);
		return;
	}
	if (!c->want_count && c->pids == NULL) {
		c->count = 1; /* populated: not empty, no need to list */
		return;
	}
	int count =
	    c->pids != NULL ? list_pids(s, c) : runx_cgroup_count(CG(s));
	if (count < 0)
		runx_census_unknown(c, count);
	/* populated, being listed: not empty even if the list came up short */
	c->count = count > 0 ? count : 1;
}

struct cgroup_signal {
	struct runx_scope *scope;
	int sig;
	int times;     /* > 1: each process gets sig so many times (a burst of
			* forwarded real-time signals, cgroup_signal_times()) */
	bool only_new; /* skip pids in scope->reached */
	bool frozen; /* the subtree is frozen: a listed pid cannot be reused */
	bool then_cont;	      /* follow sig with SIGCONT */
	pid_t spare_pgrp;     /* > 0: a member of this process group is passed
			       * over (cgroup_signal_outside_group()) */
	uint64_t listed_tick; /* > 0: the boot clock tick (/proc/PID/stat's
			       * start time) in which the walk of
			       * cgroup.procs began (first_pass_pid()) */
	bool no_pidfd;	      /* pidfd_open(2) was refused in this pass */
	struct runx_pidbits *settled; /* a newcomer pass: pids passed over
				       * unread, and those found reached */
	bool walked;		      /* every pid of the subtree was listed */
	pid_t sent_pgrp;    /* > 0: sig (and SIGCONT) went to this process
			     * group as a whole (group_first()) ... */
	uint64_t sent_tick; /* ... in this boot clock tick: a member that
			     * started in an earlier one is reached */
	int reached;
	int error;
};

/*
 * Signals one pid with kill(2), where its pid cannot have been reused:
 * in a frozen subtree (a frozen process cannot exit while the freeze
 * lasts; only a SIGKILL from elsewhere could end it, and then kill(2)
 * finds nothing or a process outside: ESRCH in the common case), or right
 * after a cgroup check (a reuse in between would need the pid to wrap
 * within microseconds).  No fd, no /proc read.  1, 0 (gone), or -errno.
 */
static int kill_pid(struct cgroup_signal *cs, pid_t pid)
{
	if (kill(pid, cs->sig) < 0)
		return errno == ESRCH ? 0 : -errno;
	for (int k = 1; k < cs->times && kill(pid, cs->sig) == 0; k++)
		; /* a failed send (gone, EAGAIN: queue full) ends the run */
	if (cs->then_cont)
		kill(pid, SIGCONT);
	return 1;
}

/*
 * True if the process pinned by pidfd is in the job's cgroup subtree: its
 * cgroup id (PIDFD_GET_INFO, no cgroup lock) is the job cgroup's, or else
 * /proc/PID/cgroup (a nested cgroup, or a kernel before 6.13) names the
 * subtree.  /proc/PID/cgroup takes cgroup_mutex and css_set_lock, which
 * thousands of exiting processes contend for: checking 10,000 pids that
 * way took 5-6 s here, while they died.
 */
static bool pinned_in_job(const struct runx_cgroup *cg, int pidfd, pid_t pid)
{
	uint64_t id;

	if (cg->id != 0 && runx_pidfd_cgroupid(pidfd, &id) == 0 && id == cg->id)
		return true;
	return runx_cgroup_holds(cg, pid);
}

/* cs's signal through pidfd fd, cs->times times (at least once; a failed
 * send, the process gone or its queue full, ends the run): 1 if the first
 * send reached the process, else 0. */
static int send_pinned(const struct cgroup_signal *cs, int fd)
{
	if (runx_pidfd_send_signal(fd, cs->sig) < 0)
		return 0;
	for (int k = 1;
	     k < cs->times && runx_pidfd_send_signal(fd, cs->sig) == 0; k++)
		;
	return 1;
}

/*
 * Signals one pid through a pidfd, if it is still the job's (the pidfd
 * pins the process; pinned_in_job() says where it is): 1, 0, -errno.
 */
static int signal_pinned_pid(struct cgroup_signal *cs, pid_t pid)
{
	int fd = runx_pidfd_open(pid, 0), r = 0;

	if (fd < 0 && errno == ESRCH)
		return 0;
	if (fd < 0) /* pidfd_open(2) refused */
		return runx_cgroup_holds(CG(cs->scope), pid) ? kill_pid(cs, pid)
							     : 0;
	if (pinned_in_job(CG(cs->scope), fd, pid)) {
		r = send_pinned(cs, fd);
		if (r > 0 && cs->then_cont)
			runx_pidfd_send_signal(fd, SIGCONT);
	}
	close(fd);
	return r;
}

/* Counts one's outcome in cs: reached, or its first error. */
static void count_outcome(struct cgroup_signal *cs, int one)
{
	if (one < 0 && cs->error == 0)
		cs->error = one;
	cs->reached += one > 0;
}

/* Remembers id as reached by cs's signal (noting a fork copy,
 * runx_resend_after_exec(), from the stat read before the signal). */
static void remember_reached(struct cgroup_signal *cs,
			     const struct runx_proc_stat *id, bool copy)
{
	if (runx_pidset_remember(&cs->scope->reached, id, copy) < 0 &&
	    cs->error == 0)
		cs->error = -ENOMEM;
}

/* Notes id's pid in cs->settled (a newcomer pass): the process a signal
 * reached, no fork copy, read from /proc (its start time known). */
static void settle(struct cgroup_signal *cs, const struct runx_proc_stat *id)
{
	if (cs->settled != NULL && id->start_time != 0)
		(void)runx_pidbits_add(cs->settled, id->pid); /* -ENOMEM: read
							       * again */
}

/*
 * The unfrozen first pass over one pid of cgroup.procs: pins it with a
 * pidfd first, then reads its /proc/PID/stat.  A process whose start
 * time is a whole clock tick before the walk began held the pid from
 * before it was listed until the read, so it is the listed process (the
 * job's as of the listing) and the one pinned: it is signalled with no cgroup
 * check (one ioctl(2) less per process).  A younger one, or one /proc cannot
 * show, gets pinned_in_job(); so does each where pre (not NULL) is its
 * stat, read before the pin (signal_cgroup_pid()).  1 if signalled
 * (and remembered), 0 (gone, passed over, not the job's), or -errno;
 * -ENOSYS when pidfd_open(2) is refused (the caller signals it the other
 * way).
 */
static int first_pass_pid(struct cgroup_signal *cs, pid_t pid,
			  const struct runx_proc_stat *pre)
{
	struct runx_proc_stat id = {.pid = pid};
	int fd = runx_pidfd_open(pid, 0), one = 0;

	if (fd < 0)
		return errno == ESRCH ? 0 : -ENOSYS;
	bool seen = pre != NULL || runx_proc_stat(pid, &id) == 0;
	if (pre != NULL)
		id = *pre;
	else if (!seen)
		id = (struct runx_proc_stat){.pid = pid};
	bool ours = pre == NULL && seen && id.start_time < cs->listed_tick;
	if ((cs->spare_pgrp <= 0 || id.pgrp != cs->spare_pgrp) &&
	    (ours || pinned_in_job(CG(cs->scope), fd, pid))) {
		bool copy = runx_resend_after_exec(&id, cs->sig);
		one = send_pinned(cs, fd);
		if (one > 0 && cs->then_cont)
			runx_pidfd_send_signal(fd, SIGCONT);
		if (one > 0)
			remember_reached(cs, &id, copy);
	}
	close(fd);
	return one;
}

/*
 * After the first signal went to the command's process group as a whole
 * (cs->sent_pgrp): if id, a /proc/PID/stat read of a listed pid, is a
 * member that started before that send, remembers it as reached (marked
 * as runx_resend_after_exec() says) with no pidfd and no signal of its
 * own: true then.  A pid reused since it was listed starts after the
 * send, so it is never taken for one.
 */
static bool reached_by_group(struct cgroup_signal *cs,
			     const struct runx_proc_stat *id)
{
	if (id->pgrp != cs->sent_pgrp || id->start_time >= cs->sent_tick)
		return false;
	remember_reached(cs, id, runx_resend_after_exec(id, cs->sig));
	count_outcome(cs, runx_proc_is_dead(id) ? 0 : 1);
	return true;
}

/*
 * Signals one pid of cgroup.procs and remembers it as reached (noting a
 * fork copy, runx_resend_after_exec()); with only_new, a pid reached already
 * gets the signal again only as runx_reach_again() says.  A member of the
 * process group the signal went to as a whole is only remembered
 * (reached_by_group()).
 */
static int signal_cgroup_pid(pid_t pid, void *arg)
{
	struct cgroup_signal *cs = arg;
	struct runx_proc_stat id = {.pid = pid}, pre;
	const struct runx_proc_stat *read = NULL;
	int one;

	if (cs->settled != NULL && runx_pidbits_has(cs->settled, pid))
		return 0; /* reached, and the pid not allocated since */
	/* a stat read fails for a process gone, or one /proc cannot show:
	 * it is pinned and read as in a pass with no group send */
	if (cs->sent_pgrp > 0 && runx_proc_stat(pid, &pre) == 0) {
		if (reached_by_group(cs, &pre))
			return 0;
		read = &pre;
	}
	if (!cs->only_new && !cs->frozen && cs->listed_tick > 0 &&
	    !cs->no_pidfd) {
		one = first_pass_pid(cs, pid, read);
		if (one != -ENOSYS) {
			count_outcome(cs, one);
			return 0;
		}
		cs->no_pidfd = true;
	}
	/* the incarnation, not the pid: after a pid wrap a reused pid is a
	 * new process (start time 0 where /proc cannot tell) */
	if (read != NULL)
		id = *read;
	else if (!cs->scope->proc_trusted || runx_proc_stat(pid, &id) < 0)
		id = (struct runx_proc_stat){.pid = pid}; /* another namespace's
							   * /proc: not this
							   * pid's */
	if (cs->spare_pgrp > 0 && id.pgrp == cs->spare_pgrp)
		return 0;
	struct runx_pidset_entry *e =
	    runx_pidset_find(&cs->scope->reached, &id);
	if (cs->only_new && e != NULL) {
		one = runx_reach_again(e, &id, cs->sig);
		if (!e->fork_copy)
			settle(cs, &id);
	} else {
		bool copy = runx_resend_after_exec(&id, cs->sig);
		one =
		    cs->frozen ? kill_pid(cs, pid) : signal_pinned_pid(cs, pid);
		if (one > 0)
			remember_reached(cs, &id, copy);
		if (one > 0 && !copy)
			settle(cs, &id);
	}
	count_outcome(cs, one);
	return 0;
}

/* Signals every pid of cs's subtree as cs says. */
static int signal_pids(struct cgroup_signal *cs)
{
	/* a tick earlier than any pid's listing; none where /proc shows
	 * another namespace's processes */
	if (cs->scope->proc_trusted)
		cs->listed_tick = runx_proc_uptime_ticks();
	int r = runx_cgroup_each_pid(CG(cs->scope), signal_cgroup_pid, cs);

	cs->walked = r == 0;
	if (r == 0)
		r = cs->error;
	return r < 0 && cs->reached == 0 ? r : cs->reached;
}

/* sig to every pid of the subtree outside process group pgrp. */
static int cgroup_signal_outside_group(struct runx_scope *s, int sig,
				       pid_t pgrp)
{
	struct cgroup_signal cs = {.scope = s, .sig = sig, .spare_pgrp = pgrp};

	return signal_pids(&cs);
}

/* SIGKILL through cgroup.kill, counted first only if asked. */
static int cgroup_kill_counted(struct runx_scope *s, bool count)
{
	int n = count ? runx_cgroup_count(CG(s)) : 1;
	int r = runx_cgroup_kill(CG(s));

	if (r < 0)
		return r;
	return n > 0 ? n : 1;
}

/* Counts pid in *arg; 1 (the walk stops) once past FREEZE_MAX. */
static int count_past_freeze_max(pid_t pid, void *arg)
{
	(void)pid;
	return ++*(int *)arg > FREEZE_MAX;
}

/*
 * Freezes the subtree for a pass (cgroup.freeze): true once it is frozen.
 * Not for more than FREEZE_MAX processes: each must run to reach the
 * freezer, and again to thaw, before it can act on its signal (for
 * 10,000 sleeping ones here the freeze and the thaw took 1.7 s, while the
 * kernel's SIGKILL of all of them took 6 s), and a pass that checks each
 * pid through a pidfd costs less.  A freeze not complete within
 * FREEZE_WAIT_NS (a task in D state) is undone at once, so that the pass
 * does not leave part of the job frozen, unable to act on its signal.
 */
static bool freeze(struct runx_scope *s)
{
	int n = 0;

	/* counted only up to FREEZE_MAX + 1: at 10,000 a full count read
	 * all of cgroup.procs once more before the pass read it again */
	if (runx_cgroup_each_pid(CG(s), count_past_freeze_max, &n) != 0)
		return false;
	if (runx_cgroup_freeze(CG(s), true, FREEZE_WAIT_NS) == 0)
		return true;
	runx_cgroup_freeze(CG(s), false, 0);
	return false;
}

/*
 * A signal (a forwarded one, times times in a row) to every process of
 * the job, in one pass with the subtree frozen meanwhile where the kernel
 * can (a frozen task keeps the signal pending until the thaw, and cannot
 * fork in between): a burst of forwarded signals costs one freeze and one
 * walk of cgroup.procs, not one each (about 1.4 ms here: a burst of 1,000
 * held back the deadline by a quarter of a second).
 */
static int cgroup_signal_times(struct runx_scope *s, int sig, int times,
			       bool count)
{
	if (sig == SIGKILL)
		return cgroup_kill_counted(s, count);
	struct cgroup_signal cs = {
	    .scope = s, .sig = sig, .times = times, .frozen = freeze(s)};
	int r = signal_pids(&cs);
	if (cs.frozen)
		runx_cgroup_freeze(CG(s), false, 0);
	return r;
}

/* The first signal (or any forwarded one) to every process of the job:
 * cgroup_signal_times() once. */
static int cgroup_signal(struct runx_scope *s, int sig, bool count)
{
	return cgroup_signal_times(s, sig, 1, count);
}

/*
 * The first signal (and SIGCONT) to the command's process group at once,
 * where it can go (runx_scope_signal_group_first()) and the command is
 * still in the job's subtree (a command that left it is signalled through
 * its pidfd by the stop, which says so).  A member of that group that
 * left the subtree is the job's all the same (the command's session), and
 * gets the signal too.  The pass that follows signals only the processes
 * outside the group, or inside it and born since (reached_by_group()).
 */
static void group_first(struct cgroup_signal *cs)
{
	struct runx_scope *s = cs->scope;

	if (s->child_pidfd >= 0 &&
	    pinned_in_job(CG(s), s->child_pidfd, s->child))
		(void)runx_scope_signal_group_first(
		    s, cs->sig, cs->then_cont, &cs->sent_pgrp, &cs->sent_tick);
}

/*
 * The first signal and SIGCONT to every process, in one pass, frozen up
 * to FREEZE_MAX processes (freeze()); the command's process group first
 * (group_first()), except when count is asked for (-v, --report): its
 * members die before the pass can count them.  Then the cgroups below the
 * job's that the job froze are thawed (runx_cgroup_thaw_below()).
 */
static int cgroup_stop_signal(struct runx_scope *s, int sig, bool count)
{
	if (sig == SIGKILL)
		return cgroup_kill_counted(s, count);
	bool frozen = freeze(s);
	struct cgroup_signal cs = {.scope = s,
				   .sig = sig,
				   .frozen = frozen,
				   .then_cont = sig != SIGCONT};
	if (!count)
		group_first(&cs);
	int r = signal_pids(&cs);
	if (frozen)
		runx_cgroup_freeze(CG(s), false, 0);
	/* as SIGCONT for a stopped process: one the job froze in a cgroup
	 * of its own would keep the signal pending until the SIGKILL */
	(void)runx_cgroup_thaw_below(CG(s));
	if (r == 0 && cs.sent_pgrp > 0)
		r = 1; /* the group had a member: ESRCH otherwise */
	return r;
}

/*
 * The first signal and SIGCONT to processes no signal reached yet.  A
 * pass reads /proc/PID/stat only for the pids it cannot pass over: those
 * the pass before did not find held by a process reached (no fork copy),
 * and those allocated since that pass began (runx_proc_last_pid() then
 * and now: the kernel allocates pids upwards from the last one,
 * kernel/pid.c alloc_pid(), so any other pid still names the process
 * found, or none).  The first pass, one after a walk that failed, a pid
 * counter that went down (it wrapped) or cannot be read, and a /proc of
 * another pid namespace: every pid is read.  With 10,000 processes that
 * catch the signal and take their time, a pass read 10,000 stat files
 * every 100 ms before; it now reads cgroup.procs and the few new pids.
 * The last pass before the SIGKILL (last) reads every pid too: one chosen
 * with clone3(2)'s set_tid does not move the counter, and may be one
 * settled before.  Each pass then thaws the cgroups below the job's that
 * the job froze since (runx_cgroup_thaw_below()), as the first signal
 * does: a process frozen after it keeps its signal pending.
 */
static int cgroup_newcomers(struct runx_scope *s, int sig, bool last)
{
	if (sig == SIGKILL)
		return cgroup_kill_counted(s, false);
	struct cgroup_scope *cgs = s->priv;
	long now = s->proc_trusted ? runx_proc_last_pid() : -1;
	if (!last && now > 0 && cgs->pass_pid > 0 && now >= cgs->pass_pid)
		runx_pidbits_forget_range(&cgs->settled, cgs->pass_pid, now);
	else
		runx_pidbits_clear(&cgs->settled);
	struct cgroup_signal cs = {.scope = s,
				   .sig = sig,
				   .only_new = true,
				   .then_cont = sig != SIGCONT,
				   .settled = &cgs->settled};
	int r = signal_pids(&cs);
	cgs->pass_pid = cs.walked && now > 0 ? now : 0;
	if (sig != SIGCONT)
		(void)runx_cgroup_thaw_below(CG(s));
	return r;
}

/* SIGKILL to the whole subtree: the cgroup.kill fd opened in advance. */
static int cgroup_kill(struct runx_scope *s)
{
	return cgroup_kill_counted(s, false);
}

/* cgroup.events: POLLPRI when "populated" changes. */
static int cgroup_event_fd(const struct runx_scope *s)
{
	return HAS_CG(s) ? CG(s)->events_fd : -1;
}

/* "cgroup /sys/fs/cgroup/.../runx-..." */
static void cgroup_describe(const struct runx_scope *s, char *buf, size_t size)
{
	snprintf(buf, size, "cgroup %s", s->priv != NULL ? CG(s)->path : "");
}

/*
 * True if cgroup id a (the kernel's) names the cgroup whose directory has
 * inode number b: equal on a 64-bit kernel; a 32-bit kernel's cgroup id
 * holds the inode's generation in its upper 32 bits and st_ino only the
 * lower ones (fs/kernfs: kernfs_id_ino(), kernfs_id_gen()), so a 32-bit
 * build compares those.
 */
static bool same_cgroup_id(uint64_t a, uint64_t b)
{
	return a == b || (sizeof(long) < 8 && (uint32_t)a == (uint32_t)b);
}

/*
 * False if the command, alive, has left the job's cgroup subtree (a root
 * job can move itself out): its pidfd's cgroup id is the job cgroup's
 * (PIDFD_GET_INFO, Linux 6.13), or else /proc/PID/cgroup says where it is
 * (runx_cgroup_where()).  Where neither can tell, it is held: a command
 * still inside must not get its first signal twice.
 */
static bool cgroup_holds_child(const struct runx_scope *s)
{
	uint64_t id;

	if (!HAS_CG(s) || s->child_pidfd < 0 || !runx_scope_child_alive(s))
		return true;
	if (CG(s)->id != 0 && runx_pidfd_cgroupid(s->child_pidfd, &id) == 0 &&
	    same_cgroup_id(id, CG(s)->id))
		return true;
	return runx_cgroup_where(CG(s), s->child) != 0;
}

/* The enter of cgroup_died_outside()'s walk: 1 (the walk ends there) at
 * the cgroup whose directory's inode number is *(uint64_t *)arg. */
static int is_cgroup_id(int dir_fd, size_t depth, void *arg)
{
	struct stat st;

	(void)depth;
	return fstat(dir_fd, &st) == 0 &&
	       same_cgroup_id(*(uint64_t *)arg, (uint64_t)st.st_ino);
}

/*
 * True if the command, reaped, died in a cgroup that is neither the job's
 * nor one below it: where the kernel kept the id of the cgroup it died in
 * (runx_pidfd_exit_cgroupid()), that id is not the job cgroup's, and a
 * walk of the job's subtree finds no directory with it as inode number.
 * False where it cannot tell (no id kept, the walk failed).  A cgroup
 * below the job's that the job removed after the command died in it is
 * not found either: the command is then said to have died outside.
 */
static bool cgroup_died_outside(const struct runx_scope *s, int pidfd)
{
	uint64_t id;

	if (!HAS_CG(s) || pidfd < 0 ||
	    runx_pidfd_exit_cgroupid(pidfd, &id) < 0 ||
	    same_cgroup_id(id, CG(s)->id))
		return false;
	struct runx_cgroup_visit v = {.enter = is_cgroup_id, .arg = &id};
	return runx_cgroup_walk(CG(s)->dir_fd, &v) == 0;
}

/* Empties (if needed) and removes the job's cgroup. */
static int cgroup_release(struct runx_scope *s)
{
	int r = 0;

	if (HAS_CG(s))
		r = runx_cgroup_remove(CG(s), RELEASE_KILL_WAIT_NS);
	if (s->priv != NULL)
		runx_pidbits_free(&((struct cgroup_scope *)s->priv)->settled);
	free(s->priv);
	s->priv = NULL;
	runx_pidset_free(&s->reached);
	return r;
}

const struct runx_scope_ops runx_scope_cgroup_ops = {
    .kind = RUNX_SCOPE_CGROUP,
    .prepare = cgroup_prepare,
    .launch = cgroup_launch,
    .usage = cgroup_usage,
    .signal = cgroup_signal,
    .signal_times = cgroup_signal_times,
    .stop_signal = cgroup_stop_signal,
    .newcomers = cgroup_newcomers,
    .signal_outside_group = cgroup_signal_outside_group,
    .census = cgroup_census,
    .kill = cgroup_kill,
    .event_fd = cgroup_event_fd,
    .describe = cgroup_describe,
    .holds_child = cgroup_holds_child,
    .died_outside = cgroup_died_outside,
    .release = cgroup_release,
};
