/*
 * The result of a run: what happened, from the launch to the end, for the
 * exit status, -v and the report.  Filled by main.c and supervise.c.
 */
#ifndef RUNX_RESULT_H
#define RUNX_RESULT_H

#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/resource.h>
#include <sys/types.h>
#include <time.h>

#include "cgroup.h"
#include "kinds.h"
#include "signal_log.h"

/* Why the run ended (the report's "reason"). */
enum runx_end_reason {
	RUNX_END_EXITED,	/* the command exited on its own */
	RUNX_END_SIGNALED,	/* killed by a signal runx did not send */
	RUNX_END_TIMEOUT,	/* the deadline fired */
	RUNX_END_IDLE_TIMEOUT,	/* the idle deadline fired */
	RUNX_END_RUNX_SIGNALED, /* runx got a stop signal and stopped it, or
				 * got a signal, forwarded it, and the
				 * command died by it */
	RUNX_END_EXEC_FAILED,	/* the command could not be executed */
	RUNX_END_RUNX_ERROR,	/* runx itself failed (exit 125) */
};

/* Processes named in -v and the report (runx(1): "at most 20"). */
#define RUNX_MAX_NAMED 20

/* One process still alive at a moment of the stop. */
struct runx_named_proc {
	pid_t pid;
	int64_t age_ns; /* since it started, nanoseconds */
	/* /proc/PID/cmdline: each argument ends with a NUL, but a last one
	 * that a cut left (argv_cut); its first 512 bytes, and the NUL after
	 * them (runx_proc_cmdline_raw()) */
	char argv[512 + 1];
	size_t argv_len; /* bytes used in argv */
	bool argv_cut;	 /* the command line had more than argv holds */
};

/* The processes alive at the deadline, or when the grace ended. */
struct runx_named {
	bool taken; /* the list was made (at that moment, with -v/--report) */
	int count;  /* how many were alive (all of them, not only named) */
	int n;	    /* how many are named in v */
	struct runx_named_proc v[RUNX_MAX_NAMED];
};

struct runx_result {
	enum runx_end_reason reason;
	bool launched; /* a backend tried to start the command */
	enum runx_launch_kind backend; /* the last one that tried */
	pid_t pid;	       /* the direct child's pid (pidns: the init's),
				* 0 if none ran */
	pid_t command_pid;     /* pidns: the command's pid on runx's side,
				* 0 if unknown; else the same as pid */
	struct timespec start; /* CLOCK_REALTIME at the launch */
	struct timespec end;   /* CLOCK_REALTIME at the end */
	int64_t start_ns;      /* CLOCK_MONOTONIC at the launch, ns */
	int64_t end_ns;	       /* CLOCK_MONOTONIC at the end, ns */
	int exec_errno;	       /* with RUNX_END_EXEC_FAILED */
	int wait_status;       /* of the command, as waitpid(2) gives it */
	int runx_signal;       /* with RUNX_END_RUNX_SIGNALED: the signal */
	bool stop_without_command; /* with RUNX_END_RUNX_SIGNALED: runx_signal
				    * came while no command ran (a FIFO's
				    * open, the wait between attempts): runx
				    * dies by it; wait_status stays the last
				    * command's, if one ran */
	bool forwarded_death;	   /* with RUNX_END_RUNX_SIGNALED: runx_signal
				    * was only forwarded (not a stop signal),
				    * and the command died by it */
	uint64_t forwarded;	   /* signals runx forwarded in this attempt:
				    * bit (sig - 1), 1 <= sig <= 64 */
	int told_to_stop;	   /* a stop signal runx got while the attempt
				    * was being stopped (after its deadline, or
				    * its leftovers) or its output delivered, or
				    * from the terminal with --foreground: the
				    * run ends with it */
	int leftovers;		   /* alive when the command exited */
	int killed;		   /* alive when SIGKILL was sent */
	int unkillable;		   /* alive RUNX_KILL_WAIT_NS after SIGKILL */
	int unkillable_d;	   /* of them, in uninterruptible sleep (D) */
	bool unreached;		   /* one of them was not in D: the SIGKILL did
				    * not reach it (exit status 125) */
	bool unverified;	   /* the scope could not be seen at the end */
	bool unreleased;	   /* nothing else left, the command has ended
				    * but runx cannot reap it: its tracer holds
				    * the zombie (ptrace(2)) */
	bool total_timeout;	   /* the run's deadline (--total-timeout) ended
				    * it: reason is RUNX_END_TIMEOUT */
	struct runx_cgroup_usage usage;	 /* the job's cgroup, once empty */
	struct runx_named at_deadline;	 /* alive when the deadline fired */
	struct runx_named after_grace;	 /* alive when the grace period ended */
	struct runx_signal_log signals;	 /* what runx sent */
	char scope_where[PATH_MAX + 64]; /* "process group 123", or "" */
	char error[PATH_MAX + 512];	 /* runx's error message, or "" */
	int exit_status;		 /* what runx exits with */
};

#endif
