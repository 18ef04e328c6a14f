/*
 * What is alive in the scope while runx supervises it: censuses, the
 * pidfds that wake the loop as the scope empties, and the processes named
 * at the deadline and after the grace period.
 */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/timerfd.h>
#include <sys/wait.h>
#include <unistd.h>

#include "clock.h"
#include "duration.h"
#include "log.h"
#include "proc.h"
#include "signals.h"
#include "supervise_impl.h"
#include "syscalls.h"
#include "utf8.h"

/* Closes the census's pidfds, freeing fds for the next /proc walk. */
void sup_close_watches(struct supervisor *s)
{
	for (int i = 0; i < s->nwatch; i++)
		close(s->watch[i]);
	s->nwatch = 0;
}

/*
 * Re-counts the scope and renews the pidfds that wake runx as it empties;
 * counting: the number matters (-v, --report), else "some" will do.
 * A census that cannot look (out of fds, /proc unreadable) counts as
 * alive: runx never takes "could not see" for "gone".
 */
int sup_census(struct supervisor *s, bool counting)
{
	struct runx_census c = {.watch = s->watch,
				.max = RUNX_MAX_WATCH,
				.want_count = counting && s->count};

	sup_close_watches(s);
	runx_scope_census(s->scope, &c);
	s->nwatch = c.nwatch;
	s->live_unknown = c.state == RUNX_CENSUS_UNKNOWN;
	if (s->live_unknown && !s->told_unknown) {
		runx_error("cannot list the processes of the scope: %s; "
			   "counting it as not empty",
			   strerror(-c.error));
		s->told_unknown = true;
	}
	s->live =
	    c.state == RUNX_CENSUS_EMPTY ? 0 : (c.count > 0 ? c.count : 1);
	return s->live;
}

/* True if pid is gone or exiting (runx_proc_is_exiting()), by a read of
 * its /proc/PID/stat into *st. */
static bool gone_or_exiting(pid_t pid, struct runx_proc_stat *st)
{
	return runx_proc_stat(pid, st) < 0 || runx_proc_is_exiting(st);
}

/* What read_named() found of a process. */
enum named_read {
	READ_NAMED,  /* alive: *np filled */
	READ_GONE,   /* gone, or exiting */
	READ_UNSEEN, /* there, but /proc/PID shows nothing of it (a mount over
		      * it, runx out of fds) */
};

/* True if pid names a process the kernel still has (pidfd_open(2) does
 * not say ESRCH): what /proc could not show is not taken for gone. */
static bool still_there(pid_t pid)
{
	int fd = runx_pidfd_open(pid, 0);

	if (fd < 0)
		return errno != ESRCH;
	close(fd);
	return true;
}

/*
 * Reads one process's age and command line into *np.  Gone or exiting
 * (no longer running the job's code) also when that happened between the
 * two reads: an exiting process's command line is empty once its memory
 * is released, so an empty one is checked again.  Where /proc is another
 * PID namespace's (!trusted: runx as PID 1 with the /proc it inherited),
 * /proc/PID is another process: none is read, and one still there is
 * unseen.
 */
static enum named_read read_named(pid_t pid, uint64_t now_ticks, long hz,
				  bool trusted, struct runx_named_proc *np)
{
	struct runx_proc_stat st;

	if (!trusted || runx_proc_stat(pid, &st) < 0)
		return still_there(pid) ? READ_UNSEEN : READ_GONE;
	if (runx_proc_is_exiting(&st) || runx_proc_signal_ending(pid))
		return READ_GONE;
	np->pid = pid;
	np->age_ns = now_ticks > st.start_time
			 ? (int64_t)((now_ticks - st.start_time) *
				     (1000000000ULL / (uint64_t)hz))
			 : 0;
	int n = runx_proc_cmdline_raw(pid, np->argv, sizeof(np->argv),
				      &np->argv_cut);
	np->argv_len = n > 0 ? (size_t)n : 0;
	return n > 0 || !gone_or_exiting(pid, &st) ? READ_NAMED : READ_GONE;
}

/* Says with -v which processes are alive (pid, age, command line). */
void sup_tell_named(const struct runx_named *named, const char *when)
{
	for (int i = 0; i < named->n; i++) {
		const struct runx_named_proc *np = &named->v[i];
		char cmd[sizeof(np->argv)];
		size_t len = np->argv_len;
		memcpy(cmd, np->argv, len);
		if (len > 0 && cmd[len - 1] == '\0')
			len--; /* the last argument's NUL */
		for (size_t k = 0; k < len; k++)
			cmd[k] = cmd[k] ? cmd[k] : ' ';
		if (np->argv_cut) /* no part of a character at the cut */
			len = runx_utf8_whole_prefix(cmd, len);
		cmd[len] = '\0';
		/* tenths of a second, rounded half up as the report's
		 * seconds would be read (0.49 s: "0.5s", not "0.4s") */
		long long tenths =
		    (long long)((np->age_ns + 50000000) / 100000000);
		runx_verbose("alive %s: pid %d, age %lld.%llds: %s%s", when,
			     (int)np->pid, tenths / 10, tenths % 10,
			     np->argv_len ? cmd : "[no command line]",
			     np->argv_cut ? " [command line cut at 512 bytes]"
					  : "");
	}
	/* none named: processes a census counted where /proc showed none
	 * (hidden, or no /proc of runx's PID namespace) */
	if (named->count > 0 && named->n == 0)
		runx_verbose("alive %s: %d process%s that /proc does not show",
			     when, named->count, named->count == 1 ? "" : "es");
	else if (named->count > named->n)
		runx_verbose("alive %s: and %d more", when,
			     named->count - named->n);
}

bool sup_zombie_child(void)
{
	siginfo_t si = {.si_pid = 0};

	return waitid(P_ALL, 0, &si, WEXITED | WNOHANG | WNOWAIT) == 0 &&
	       si.si_pid != 0;
}

int sup_census_reaped(struct supervisor *s)
{
	int alive = 0;

	for (int round = 0; round < 4; round++) {
		sup_reap(s);
		alive = sup_census(s, true);
		if (alive == 0 || !sup_zombie_child())
			break;
	}
	return alive;
}

int sup_take_named(struct supervisor *s, struct runx_named *named, bool reaping)
{
	pid_t pids[RUNX_MAX_NAMED];
	struct runx_census c;
	uint64_t now_ticks = runx_proc_uptime_ticks();
	long hz = sysconf(_SC_CLK_TCK);
	int unseen = 0;

	if (!s->count)
		return -1;
	sup_close_watches(s);
	for (int round = 0; round < 4; round++) {
		if (reaping)
			sup_reap(s);
		c = (struct runx_census){.pids = pids,
					 .maxpids = RUNX_MAX_NAMED};
		runx_scope_census(s->scope, &c);
		if (!reaping || c.count == 0 || !sup_zombie_child())
			break;
	}
	named->taken = true;
	named->n = 0;
	for (int i = 0; i < c.npids; i++) {
		enum named_read r =
		    read_named(pids[i], now_ticks, hz > 0 ? hz : 100,
			       s->scope->proc_trusted, &named->v[named->n]);
		named->n += r == READ_NAMED;
		unseen += r == READ_UNSEEN;
	}
	/* the count is of what is named, what is there unseen and, past the
	 * list's end or where the scope can name none (c.unnamed), the rest
	 * the census counted; not what it counted without listing it (a
	 * cgroup still populated by exiting tasks, which cgroup.procs no
	 * longer lists) */
	named->count = named->n + unseen;
	if ((c.npids >= c.maxpids || c.unnamed) && c.count > c.npids)
		named->count += c.count - c.npids;
	return named->count;
}

bool sup_add_named(struct supervisor *s, struct runx_named *named, pid_t pid)
{
	long hz = sysconf(_SC_CLK_TCK);

	if (!s->count)
		return true;
	if (!named->taken)
		*named = (struct runx_named){.taken = true};
	if (named->n < RUNX_MAX_NAMED) {
		enum named_read r =
		    read_named(pid, runx_proc_uptime_ticks(), hz > 0 ? hz : 100,
			       s->scope->proc_trusted, &named->v[named->n]);
		if (r == READ_GONE)
			return false;
		named->n += r == READ_NAMED;
	}
	named->count++;
	return true;
}

void sup_name_alive(struct supervisor *s, struct runx_named *named,
		    const char *when)
{
	if (sup_take_named(s, named, false) >= 0)
		sup_tell_named(named, when);
}

/* A signal's name for messages. */
const char *sup_signame(int sig, char *buf, size_t size)
{
	return runx_signal_name(sig, buf, size);
}

/* The scope's description for messages. */
const char *sup_scope_text(struct supervisor *s, char *buf, size_t size)
{
	return runx_scope_describe(s->scope, buf, size);
}

/* Counts st, a live process left in the scope, in k. */
static void count_left(const struct runx_proc_stat *st, struct sup_left *k)
{
	if (st->state == 'D')
		k->uninterruptible++;
	else if (!runx_proc_is_exiting(st))
		k->unreached++;
	k->dying += runx_proc_is_dying_of_signal(st);
}

void sup_count_left(struct supervisor *s, struct sup_left *k)
{
	pid_t pids[RUNX_MAX_NAMED];
	struct runx_census c = {.pids = pids, .maxpids = RUNX_MAX_NAMED};
	struct runx_proc_stat st;

	*k = (struct sup_left){.listed = 1};
	if (!s->scope->proc_trusted)
		return; /* another namespace's /proc tells nothing of these */
	sup_close_watches(s);
	runx_scope_census(s->scope, &c);
	k->seen = c.state != RUNX_CENSUS_UNKNOWN;
	k->listed = k->seen ? c.count : 1;
	for (int i = 0; i < c.npids; i++)
		if (runx_proc_stat(pids[i], &st) == 0 &&
		    !runx_proc_is_dead(&st))
			count_left(&st, k);
		else
			k->vanished++;
	if (!s->exited && c.npids == 0 &&
	    runx_proc_stat(s->res->pid, &st) == 0 && !runx_proc_is_dead(&st))
		count_left(&st, k); /* the command alone, outside the scope */
}
