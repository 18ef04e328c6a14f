/*
 * The kill scope: the set of processes a stop reaches and runx waits for.
 * One interface (struct runx_scope_ops), one implementation per kind:
 * scope_child.c, scope_group.c, scope_tree.c, scope_cgroup.c, scope_pidns.c.  A
 * new scope is a new file and an entry in runx_scope_ops_for() (scope.c).
 */
#ifndef RUNX_SCOPE_H
#define RUNX_SCOPE_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/resource.h>
#include <sys/types.h>

#include "cgroup.h"
#include "kinds.h"
#include "launch.h"
#include "pidset.h"

/* What a census of the scope found. */
enum runx_census_state {
	RUNX_CENSUS_EMPTY,   /* verified: no live process is left */
	RUNX_CENSUS_ALIVE,   /* at least one live process */
	RUNX_CENSUS_UNKNOWN, /* the census could not look: counts as alive */
};

/*
 * One census.  The caller may hand in room for pidfds (watch, max); a
 * scope that lists its members one by one opens one (O_CLOEXEC, owned by
 * the caller, who closes them) per live member it finds, up to max, so the
 * caller can wait for the scope to empty without polling (each becomes
 * readable when its process exits, pidfd_open(2)); the cgroup scope hands
 * out none, its runx_scope_event_fd() (cgroup.events) wakes the caller.  A
 * pidfd that cannot be opened (EMFILE) is simply not handed out: the census
 * stays true without it.
 */
struct runx_census {
	enum runx_census_state state;
	int count; /* live processes seen; with UNKNOWN a lower bound */
	int error; /* with UNKNOWN: -errno of what failed */
	int *watch;
	int max;
	int nwatch;
	pid_t *pids; /* room for the first maxpids live members, or NULL */
	int maxpids;
	int npids;
	bool want_count; /* count every member; else ALIVE may mean "some"
			  * (count 1), which a scope can often tell
			  * without a /proc walk */
	bool unnamed;	 /* set by the scope: count holds members it cannot
			  * name at all (no /proc of runx's PID namespace),
			  * which the lists of what is alive count too */
};

struct runx_scope;

struct runx_scope_ops {
	enum runx_scope_kind kind;
	/* True if the scope's orphans are re-parented to runx (a subreaper):
	 * they die as runx's children, which runx may have the kernel
	 * release as they exit (autoreap.h). */
	bool adopts_orphans;
	/* Acquires what the scope needs before the launch (limits: the
	 * cgroup's, borrowed, or NULL); -errno + err. */
	int (*prepare)(struct runx_scope *s,
		       const struct runx_cgroup_limits *limits, char *err,
		       size_t errsize);
	/* Starts the command in the scope (NULL: runx_launch() as it is). */
	int (*launch)(struct runx_scope *s, struct runx_launch_request *req,
		      struct runx_launched *out);
	/* The command's pid on runx's side (NULL: the direct child). */
	pid_t (*command_pid)(const struct runx_scope *s);
	/* A pidfd of the command when it is not the direct child (owned by
	 * the scope), or -1; NULL: the direct child's. */
	int (*command_pidfd)(const struct runx_scope *s);
	/* The job's figures (NULL: none, -ENOTSUP). */
	int (*usage)(const struct runx_scope *s, struct runx_cgroup_usage *u);
	/* Sends sig to every live member; processes reached, or -errno. */
	int (*signal)(struct runx_scope *s, int sig, bool count);
	/* signal, times times, with one look at the members (NULL: signal
	 * called up to times times, counting with the first call only, until
	 * one fails); processes reached, or -errno. */
	int (*signal_times)(struct runx_scope *s, int sig, int times,
			    bool count);
	/* sig to every live member outside process group pgrp (NULL: the
	 * scope has none there, as with child); processes reached, or
	 * -errno. */
	int (*signal_outside_group)(struct runx_scope *s, int sig, pid_t pgrp);
	/* The first signal of a stop and SIGCONT in one pass (NULL: two
	 * calls of signal); processes reached, or -errno. */
	int (*stop_signal)(struct runx_scope *s, int sig, bool count);
	/* Signals members no signal reached yet (NULL: none can appear);
	 * last: the pass right before the SIGKILL. */
	int (*newcomers)(struct runx_scope *s, int sig, bool last);
	/* Counts the live members into *c. */
	void (*census)(struct runx_scope *s, struct runx_census *c);
	/* SIGKILLs every member; processes reached (for messages), -errno. */
	int (*kill)(struct runx_scope *s);
	/* An fd to poll(2) for POLLPRI while the scope empties, or -1. */
	int (*event_fd)(const struct runx_scope *s);
	/* "process group 123", "cgroup /sys/..." for messages. */
	void (*describe)(const struct runx_scope *s, char *buf, size_t size);
	/* False if the direct child, alive, has left the scope (a root job
	 * that moved itself out of its cgroup); NULL: it cannot leave (the
	 * tree's root, the namespace's init, the group's leader: a session
	 * leader cannot setpgid(2), setsid(2)). */
	bool (*holds_child)(const struct runx_scope *s);
	/* True if the direct child, reaped, died outside the scope: it had
	 * left it (pidfd: runx's, still open); NULL: it cannot leave. */
	bool (*died_outside)(const struct runx_scope *s, int pidfd);
	/* Undoes prepare (after the scope is empty); 0 or -errno. */
	int (*release)(struct runx_scope *s);
	/*
	 * For a scope whose direct child is not the command (pidns: its
	 * init), NULL elsewhere.  adopted: the launch is over.  command_fd:
	 * an fd to poll(2) for POLLIN that wakes runx when the command ended
	 * while the direct child runs on, or -1.  command_ended: true with
	 * the command's wait status once it ended (and the direct child is
	 * still needed: something else is left).  child_reaped: the direct
	 * child was reaped with *status; replaces it with the command's.
	 */
	void (*adopted)(struct runx_scope *s);
	int (*command_fd)(const struct runx_scope *s);
	bool (*command_ended)(struct runx_scope *s, int *status);
	void (*child_reaped)(struct runx_scope *s, int *status);
};

struct runx_scope {
	const struct runx_scope_ops *ops;
	pid_t child;		  /* the direct child, 0 before launch */
	int child_pidfd;	  /* borrowed from the caller; -1 once reaped */
	bool proc_trusted;	  /* /proc lists runx's pid namespace */
	bool child_leads_session; /* the direct child was started with
				   * setsid(2) (runx_scope_launch()): its
				   * process group holds only the job */
	struct runx_pidset reached;   /* processes a signal of a stop reached
				       * (scope_signal.c's helpers) */
	unsigned long long stop_tick; /* boot clock ticks when the first
				       * signal went out, or 0 */
	void *priv; /* the kind's own state, private to its file, or NULL */
};

/* The implementation of kind (never RUNX_SCOPE_AUTO), or NULL. */
const struct runx_scope_ops *runx_scope_ops_for(enum runx_scope_kind kind);

/*
 * 0 if a job cgroup can be made below runx's own cgroup v2 (a cgroup2 mount
 * holds runx, and that directory and its cgroup.procs are writable,
 * access(2) semantics, which also sees read-only mounts); else -errno with
 * the reason in why.  Makes nothing.  Used by the plan to decide auto.
 */
int runx_scope_cgroup_probe(char *why, size_t whysize);

/*
 * Sets the scope of kind up before the launch (the kind's prepare: tree
 * makes runx a child subreaper, PR_SET_CHILD_SUBREAPER, prctl(2), Linux
 * 3.4; cgroup makes the job's cgroup v2 and opens its fds, with limits
 * set on it if limits is not NULL, runx_cgroup_create_limited; limits is
 * borrowed and must outlive the scope).  Returns 0, or -errno with a
 * one-line message in err; nothing is left behind then.
 */
int runx_scope_prepare(struct runx_scope *s, enum runx_scope_kind kind,
		       const struct runx_cgroup_limits *limits, char *err,
		       size_t errsize);

/*
 * What the job's cgroup measured (runx_cgroup_read_usage) into *u, for
 * the report; call it once the scope is empty, before release.  Returns
 * 0, or -ENOTSUP (u->valid false) for a scope without a cgroup.
 */
int runx_scope_usage(const struct runx_scope *s, struct runx_cgroup_usage *u);

/*
 * Starts the command described by *req in the scope: the scope adds its
 * placement to req (the job cgroup's fds) or wraps the launch (pidns: in a
 * new PID namespace under runx's init, pidns.h), then runx_launch().
 * Records whether the child starts in a session of its own
 * (req->new_session: s->child_leads_session).  Returns as runx_launch()
 * (launch.h); out->pid is the direct child (for pidns the init).
 */
int runx_scope_launch(struct runx_scope *s, struct runx_launch_request *req,
		      struct runx_launched *out);

/*
 * The command's pid on runx's side once adopted: the direct child, or for
 * pidns the init's only child (0 once it is reaped, or if it cannot be
 * found).
 */
pid_t runx_scope_command_pid(const struct runx_scope *s);

/*
 * Records the launched direct child (the command, or for pidns its init):
 * pid, and a pidfd the caller keeps owning.
 */
void runx_scope_adopt(struct runx_scope *s, pid_t child, int child_pidfd);

/*
 * Tells the scope the direct child was reaped with wait status *status and
 * (wait4(2)): its pidfd must not be used any more.  Where the
 * direct child is not the command (pidns), replaces *status with
 * the command's (when the init died before the command was seen to end,
 * the command died with the namespace: SIGKILL, the init's own status).
 */
void runx_scope_child_reaped(struct runx_scope *s, int *status);

/*
 * An fd (owned by the scope) that becomes readable (POLLIN) when the
 * command ended while the direct child runs on, or -1: only pidns, whose
 * init outlives the command while leftovers run.
 */
int runx_scope_command_fd(const struct runx_scope *s);

/*
 * After runx_scope_command_fd() woke runx: true, with the command's wait
 * status, if the command ended while other processes are left
 * in the scope; false if it has not ended, or if nothing else is left (the
 * direct child exits then, and runx_scope_child_reaped() gives the status).
 */
bool runx_scope_command_ended(struct runx_scope *s, int *status);

/*
 * Sends signal number sig to every live process of the scope (see each
 * scope's file for how).  Returns the number of processes reached, or
 * -errno; ESRCH (nothing left) counts as 0 reached.  count: the caller
 * wants the number (for -v/--report); without it a scope may report 1 for
 * "some" rather than spend a /proc scan before the signal.
 */
int runx_scope_signal(struct runx_scope *s, int sig, bool count);

/*
 * runx_scope_signal() times times (times >= 1) in a row: a burst of one
 * queued (real-time) signal, forwarded.  A scope that lists its members
 * from /proc (tree) lists them once for all: a burst of N forwarded
 * signals costs one walk of /proc, not N; and with count, the members are
 * counted once, for the first send (the group scope's count is a walk of
 * /proc too).  Each member gets sig times times (signal(7): a real-time
 * signal is queued once per send, a standard one is pending at most
 * once).  Returns the processes reached (counted with count), or -errno:
 * a scope with its own operation (tree; cgroup, which freezes the job
 * once for the run) answers for the whole run; else
 * runx_scope_signal() is called up to times times, its first result is
 * returned, and the first -errno ends the run of sends.
 */
int runx_scope_signal_times(struct runx_scope *s, int sig, int times,
			    bool count);

/*
 * Sends sig to every live member of the scope that is not in process
 * group pgrp: with --foreground, where the terminal's Ctrl-Z reached
 * runx's own group (the command's) already, the members that left it
 * (setsid(2), setpgid(2)) must be stopped by runx (runx(1), Job
 * control).  A pidfd per process, the start time re-checked, as
 * runx_scope_signal(); tree sweeps until no pass finds a new member,
 * cgroup makes one pass of cgroup.procs (no freeze).  Returns the
 * processes reached, or -errno.
 */
int runx_scope_signal_outside_group(struct runx_scope *s, int sig, pid_t pgrp);

/*
 * Sends signal number sig to the command alone (--forward-to=child): the
 * direct child through its pidfd, or for pidns the command through the
 * pidfd the init sent (never a leftover that is the init's child once the
 * command is gone), else the init's child on runx's side (a pidfd opened
 * for the call).  Returns 1 if sent (a zombie not reaped yet included), 0
 * if it is gone, or -errno.
 */
int runx_scope_signal_command(struct runx_scope *s, int sig);

/*
 * Sends sig, followed by SIGCONT, to the processes of the scope that no
 * signal of runx's reached yet: born or re-parented while a stop is under
 * way, so that none of them meets only the SIGKILL (runx(1), STOPPING).
 * last: the pass right before the SIGKILL, which must find every one
 * (the pidns and group scopes then walk all of /proc).  Returns the
 * number reached, or -errno.
 */
int runx_scope_newcomers(struct runx_scope *s, int sig, bool last);

/*
 * The first signal of a stop: sig, then SIGCONT (so that a stopped process
 * can act on it), to every live process of the scope, in one pass where
 * the scope can.  Returns the number reached, or -errno.
 */
int runx_scope_stop_signal(struct runx_scope *s, int sig, bool count);

/*
 * False if runx's direct child, alive, is no longer a member of the scope
 * (the ops' holds_child); true if it is, cannot leave, has exited, or where
 * it cannot be told.  The cgroup scope: a waitid(2) of the child's pidfd,
 * its PIDFD_GET_INFO ioctl, and where that cannot tell one read of
 * /proc/PID/cgroup (one fd); the other scopes: nothing.
 */
bool runx_scope_holds_child(const struct runx_scope *s);

/*
 * True if runx's direct child, reaped, died outside the scope, which it
 * had left (the ops' died_outside; pidfd: runx's pidfd of it, borrowed);
 * false if it died inside, cannot leave, or where it cannot be told.  The
 * cgroup scope: one PIDFD_GET_INFO ioctl; where the child died in another
 * cgroup than the job's, a walk of the job's cgroups below (fds as
 * runx_cgroup_walk() says).
 */
bool runx_scope_died_outside(const struct runx_scope *s, int pidfd);

/* SIGKILLs every process of the scope; reached, or -errno. */
int runx_scope_kill(struct runx_scope *s);

/* Counts the live processes of the scope (zombies are dead) into *c. */
void runx_scope_census(struct runx_scope *s, struct runx_census *c);

/* The scope's POLLPRI fd (cgroup.events) or -1; owned by the scope. */
int runx_scope_event_fd(const struct runx_scope *s);

/* Describes the scope for messages into buf; returns buf. */
const char *runx_scope_describe(const struct runx_scope *s, char *buf,
				size_t size);

/* The scope's kind name ("group", ...). */
const char *runx_scope_name(const struct runx_scope *s);

/* True if the scope's orphans become runx's children (the tree and group
 * scopes: runx is a child subreaper, prctl(2) PR_SET_CHILD_SUBREAPER). */
bool runx_scope_adopts_orphans(const struct runx_scope *s);

/*
 * Undoes runx_scope_prepare; for the cgroup, removes the job's cgroup
 * (emptying it first if something is still in it).  Safe to call on a
 * scope that was never prepared.  Returns 0 or -errno of rmdir(2).
 */
int runx_scope_release(struct runx_scope *s);

#endif
