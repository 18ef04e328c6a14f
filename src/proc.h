/* Reading process facts from /proc (proc(5)). */
#ifndef RUNX_PROC_H
#define RUNX_PROC_H

#include <stdbool.h>
#include <stdio.h>
#include <stdint.h>
#include <sys/types.h>

struct runx_proc_stat {
	pid_t pid;
	char state; /* 'R', 'S', 'D', 'T', 'Z', 'X', ... (proc(5)) */
	pid_t ppid;
	pid_t pgrp;
	pid_t session;
	/* field 9: the kernel's PF_* flags of the task (proc(5));
	 * runx_proc_is_fork_copy() reads PF_FORKNOEXEC and PF_EXITING */
	unsigned long long flags;
	long threads;		       /* field 20: num_threads */
	unsigned long long start_time; /* field 22: clock ticks after boot */
	/* fields 28 (startstack) and 48 (arg_start, Linux 3.5): where the
	 * memory image's stack and arguments are.  fork(2) copies them (the
	 * child's mm is a copy of the parent's, a vfork(2) child shares it),
	 * execve(2) places them anew (Documentation/admin-guide/sysctl/
	 * kernel.rst, randomize_va_space); 0 for a zombie and where proc(5)
	 * hides them (no ptrace read access). */
	unsigned long long start_stack;
	unsigned long long arg_start;
	/* field 31 (signal): the signals pending for the main thread alone,
	 * bit sig-1 (signals 1-31); SIGKILL there means the process is
	 * dying (runx_proc_is_exiting()) */
	unsigned long long pending;
	/* fields 33 (sigignore) and 34 (sigcatch): bit sig-1 set if sig is
	 * ignored, caught by a handler; signals 1-31 only (the kernel masks
	 * the rest off) */
	unsigned long long ignored, caught;
	/* field 38: the signal the process sends its parent when it exits;
	 * -1 for a thread that is not its process's leader (kernel/fork.c,
	 * copy_process(): CLONE_THREAD), whose id /proc/ID/stat also shows
	 * though /proc does not list it */
	int exit_signal;
};

/*
 * Reads fields 3-6, 20, 22, 28, 33, 34, 38 and 48 of /proc/PID/stat (parsing
 * after the last ')', since the command name may hold spaces and
 * parentheses).  Needs one fd
 * for the duration of the call.  Returns 0, or -errno: -ENOENT or -ESRCH
 * once the process is gone, -EMFILE/-ENFILE when runx is out of fds.
 */
int runx_proc_stat(pid_t pid, struct runx_proc_stat *st);

/*
 * runx_proc_stat() of a line already read (NUL-terminated; pid is the
 * pid it is of).  The process group and session are -1 for a process
 * being released (state X): such a line is valid, not an error, or a
 * walk of /proc would fail on any process of the machine that exits
 * meanwhile.  Returns 0, or -EINVAL for a line that is not one of
 * /proc/PID/stat.  Writes nothing but *st.
 */
int runx_proc_parse_stat(char *line, pid_t pid, struct runx_proc_stat *st);

/*
 * Reads the next decimal integer (optionally signed) from f, skipping
 * white space before it, as fscanf(f, "%ld") would but without the
 * scanf machinery (which would double a static build's size of libc
 * code).  True if one was read into *v.
 */
bool runx_read_long(FILE *f, long *v);

/*
 * True for a process that has exited: state X, or Z with no thread left.
 * A thread-group leader that exited while other threads run shows Z in
 * /proc/PID/stat (proc(5)) but is alive: its /proc/PID/task lists more
 * than the leader.  Reads that directory (one fd) only for a Z whose
 * num_threads is not 1 (a thread counts there until it is released,
 * __exit_signal() in kernel/exit.c); a process whose threads cannot be
 * listed (EMFILE) counts as alive.
 */
bool runx_proc_is_dead(const struct runx_proc_stat *st);

/*
 * runx_proc_is_dead() and runx_proc_is_exiting() for st read from the
 * /proc whose directory fd is procfd (another PID namespace's, st->pid
 * its pid there; AT_FDCWD: runx's own /proc).  One more fd while they
 * read PID/task.
 */
bool runx_proc_is_dead_in(int procfd, const struct runx_proc_stat *st);
bool runx_proc_is_exiting_in(int procfd, const struct runx_proc_stat *st);

/*
 * True for a process that is dead (runx_proc_is_dead()) or on its way:
 * its only thread has PF_EXITING (0x4 in field 9, set by do_exit(),
 * kernel/exit.c, which it never leaves alive), or that thread has
 * SIGKILL pending (field 31): a signal whose action is to end the
 * process without a core dump (SIGKILL, or SIGTERM neither caught,
 * ignored nor blocked), sent to a process not stopped nor traced, makes
 * the kernel queue SIGKILL to each of its threads as it is sent
 * (complete_signal(), kernel/signal.c), and none returns to its code
 * again, though it may not have run since.  Or that thread has taken a
 * fatal signal off its queue (PF_SIGNALED, 0x400: runx_proc_is_dying_of_
 * signal()), which shows from there to PF_EXITING, through a core dump
 * and a tracer's PTRACE_EVENT_EXIT stop: get_signal() clears the SIGKILL
 * above as it takes it, so without this flag a process that a SIGTERM
 * was ending read as alive there (report.sh's -k 0 case, once in a
 * loaded CI run); what is left is the few instructions between the two
 * (an interrupt may preempt it there).  Other fatal signals (a core
 * dump's: SIGQUIT) show once it runs.  Only a single thread's SIGKILL is
 * read: one of several may be in execve(2) from another thread
 * (de_thread() queues SIGKILL to the rest, the leader too).  For what
 * runx names as alive (-v, --report), never to decide that a scope is empty:
 * the kernel says that (runx(1), "counts as gone").  Reads what
 * runx_proc_is_dead() reads.
 */
bool runx_proc_is_exiting(const struct runx_proc_stat *st);

/*
 * True for a process of one thread that a signal is ending: SIGKILL
 * pending (as runx_proc_is_exiting() reads it), or the thread past
 * taking a fatal signal off its queue (PF_SIGNALED, 0x400 in field 9,
 * set before its core dump and do_exit(), both on the way out).  Such a process
 * forks no more (copy_process(), kernel/fork.c, fails while a fatal signal is
 * pending), unlike one that exits on its own, whose pid may be hopping to a
 * child no walk of /proc has listed yet.  A zombie may still show the flags:
 * its callers ask runx_proc_is_dead() first.
 */
bool runx_proc_is_dying_of_signal(const struct runx_proc_stat *st);

/*
 * Reads /proc/PID/status into text (at most size - 1 bytes, then a NUL):
 * its length, or -errno (proc(5)).  One fd.
 */
ssize_t runx_proc_status(pid_t pid, char *text, size_t size);

/*
 * The number on line "NAME:" of text, a /proc/PID/status, in base (16
 * for the signal masks such as ShdPnd, 10 for Threads or TracerPid), in
 * *v: false where the line is missing or holds no number.  No errors.
 */
bool runx_proc_status_number(const char *text, const char *name, int base,
			     unsigned long long *v);

/*
 * True if text, a /proc/PID/status, shows a process of one thread, not
 * stopped nor traced (State T, t), with a signal pending (ShdPnd or
 * SigPnd) whose action ends it (runx_signal_can_end()) and that it
 * neither blocks, ignores nor catches: it runs none of its own code
 * again.  The signal lines are one snapshot (task_sig(), fs/proc/array.c,
 * reads them under the siglock), unlike /proc/PID/stat's flags and
 * pending set, which a process that get_signal() is taking SIGKILL from
 * can change between two fields; and a SIGTERM that complete_signal()
 * turned into a group exit stays in ShdPnd until the process is
 * released.  So it tells a dying process that runx_proc_is_exiting()
 * read as alive.  False for text it cannot read so.  No errors.
 */
bool runx_proc_status_signal_ending(const char *text);

/*
 * runx_proc_status_signal_ending() of /proc/PID/status, read now (one
 * fd); false if it cannot be read.  For what runx names as alive only.
 */
bool runx_proc_signal_ending(pid_t pid);

/*
 * The pid of the process that ptraces pid (/proc/PID/status TracerPid:
 * a zombie's tracer shows until it reaps or lets go of it), 0 if none, or
 * -errno if the file cannot be read.  One fd.
 */
pid_t runx_proc_tracer(pid_t pid);

/*
 * True if /proc/PID/task lists more than one thread (the leader may be a
 * zombie then), or cannot be read for another reason than the process
 * being gone (ENOENT, ESRCH): unknown counts as alive.  One fd.
 */
bool runx_proc_has_live_threads(pid_t pid);

/*
 * True if st may not take sig's default action: a handler catches it or
 * it is ignored (fields 34 and 33); true for a signal above 31, which
 * those fields do not show; false for SIGKILL, SIGSTOP (never caught nor
 * ignored), SIGCONT (continues anyway) and 0.  A fork copy that ignores
 * sig may exec a program that does not (a parent that ignores TERM and
 * resets it in the child before execve(2)).
 */
bool runx_proc_may_divert(const struct runx_proc_stat *st, int sig);

/*
 * True unless process pid is alive and neither catches nor ignores sig
 * (runx_proc_may_divert() of its /proc/PID/stat): also true once it has
 * exited (runx_proc_is_dead()) or where /proc cannot show it (pid <= 0,
 * reaped, out of fds), since nothing then tells what its handlers are.
 * Up to two fds for the duration of the call (runx_proc_stat(),
 * runx_proc_is_dead()).
 */
bool runx_proc_pid_may_divert(pid_t pid, int sig);

/* True if st ignores sig (field 33; signals 1-31 only, else false). */
bool runx_proc_ignores(const struct runx_proc_stat *st, int sig);

/*
 * True if st was forked and has not execve'd since, and is not exiting:
 * it runs the image, and the signal handlers, that its parent had at the
 * fork (a signal caught now may be taken by a handler the program it
 * execs never sees).  Field 9's PF_FORKNOEXEC (0x40 in
 * include/linux/sched.h since Linux 2.6: set by copy_process() in
 * kernel/fork.c, cleared by begin_new_exec() in fs/exec.c), without
 * PF_EXITING (0x4, set by do_exit()).  Whether its parent is alive, or
 * has execve'd since, does not matter: an orphaned copy runs its dead
 * parent's handlers all the same.  No system call.
 */
bool runx_proc_is_fork_copy(const struct runx_proc_stat *st);

/*
 * Calls fn for every process listed in /proc, stopping early when fn
 * returns non-zero (which is then returned).  Only a process that vanished
 * while being read (ENOENT, ESRCH) is skipped; any other failure to read
 * an entry (EMFILE, EACCES, ...) ends the walk with -errno, since a census
 * that silently missed a process would count a live job as gone.  Needs two
 * fds while it runs.  Returns 0, fn's value, or -errno.
 */
int runx_proc_each(int (*fn)(const struct runx_proc_stat *st, void *arg),
		   void *arg);

/*
 * Calls fn for each process whose pid was allocated after lo up to hi
 * (runx_proc_last_pid() values), in the order the kernel allocates them:
 * upwards, wrapping below pid_max (kernel/pid.c alloc_pid()), reading each
 * one's /proc/PID/stat (a pid with none is passed over, and so is the id
 * of a thread that does not lead its process); fn's non-zero
 * value ends it.  One fd at a time.  Returns 0, fn's value, or -errno if
 * pid_max is needed and cannot be read.
 */
int runx_proc_each_allocated(long lo, long hi,
			     int (*fn)(const struct runx_proc_stat *st,
				       void *arg),
			     void *arg);

/*
 * runx_proc_each() for the pids allocated after lo up to hi only
 * (runx_proc_last_pid() values), in the order the kernel allocates them
 * (as runx_proc_each_allocated()), each read as runx_proc_each() reads
 * one: a process /proc hides is still passed (through a pidfd), and a
 * read that fails but for a pid with no process ends the walk.  One fd
 * at a time (two for a hidden one).  Returns 0, fn's value, or -errno.
 */
int runx_proc_each_since(long lo, long hi,
			 int (*fn)(const struct runx_proc_stat *st, void *arg),
			 void *arg);

/*
 * runx_proc_each(), but a pid for which known(pid, arg) is true is passed
 * over without reading its /proc entry (fn is not called for it); known
 * NULL: none is.  Returns 0, fn's value, or -errno.
 */
int runx_proc_each_unknown(bool (*known)(pid_t pid, void *arg),
			   int (*fn)(const struct runx_proc_stat *st,
				     void *arg),
			   void *arg);

/*
 * The pids /proc lists, in the order listed (ascending), into *pids
 * (malloc(3)'d, 4 bytes each: the caller frees it) and their number into
 * *n.  One fd while it runs.  0, or -errno (ENOMEM, EMFILE, ...): nothing
 * to free then.
 */
int runx_proc_list(pid_t **pids, size_t *n);

/*
 * runx_proc_each(), in the order the pids were allocated as far as one
 * wrap of the pid counter goes: the pids listed are kept (4 bytes each)
 * and read after the listing, first those above the pid allocated last
 * (runx_proc_last_pid(), read after the listing: allocated before the
 * counter last wrapped below pid_max, kernel/pid.c alloc_pid()), then the
 * rest, each part in ascending order.  So a parent comes before the
 * children it forked, also across a wrap, where a child has the smaller
 * pid: a pass that signals processes one by one must not signal a child
 * first, whose death its parent could see and act on (exit) before its
 * own signal comes.  Out of memory, the rest go in ascending order as
 * listed.  Needs two fds.  Returns 0, fn's value, or -errno.
 */
int runx_proc_each_oldest_first(int (*fn)(const struct runx_proc_stat *st,
					  void *arg),
				void *arg);

/*
 * The pid most recently allocated in the pid namespace of /proc (the last
 * field of /proc/loadavg, proc(5)); while it stays the same, no process or
 * thread was created there, so no pid was reused.  -errno if unreadable.
 */
long runx_proc_last_pid(void);

/*
 * The number of forks since boot (/proc/stat's "processes" line, proc(5):
 * kernel/fork.c counts every task copy_process() makes, threads too, in
 * every pid namespace), or -errno.
 */
long long runx_proc_forks(void);

/*
 * Where the pid counter and the fork count stood (runx_proc_last_pid(),
 * runx_proc_forks(), read in that order; negative if unread): between
 * two marks, each fork whose pid the kernel allocated upwards moved the
 * counter by at least one, so more forks than that (a wrap, or
 * clone3(2)'s set_tid, which allocates a pid without moving the counter)
 * is seen as such.
 */
struct runx_pass_mark {
	long pid;
	long long forks;
	int64_t walked_ns; /* CLOCK_MONOTONIC, ns: when the mark was taken,
			    * or, for a newcomer pass that read a window, the
			    * walked_ns of the mark before it; so, when the
			    * last signal or pass that reached every process
			    * began (runx_newcomer_pass_begin()) */
};

/* Takes a mark now (walked_ns: now). */
void runx_pass_mark_take(struct runx_pass_mark *m);

/*
 * pid_max (/proc/sys/kernel/pid_max, proc(5)): pids are allocated upwards
 * from the last one and wrap below this value.  -errno if unreadable.
 */
long runx_proc_pid_max(void);

/*
 * True if /proc belongs to runx's own pid namespace (its "self" link
 * names getpid()); if not (unshare --pid without --mount-proc), the pids
 * /proc lists are not the ones kill(2) takes.
 */
bool runx_proc_is_own_namespace(void);

/*
 * Reads /proc/PID/cmdline as it is into buf: its first size - 1 bytes
 * and the NUL after them, each argument ended by a NUL ("a\0\0" is "a"
 * and "", "\0" is "", and a title that the process padded with NULs has
 * empty arguments after it).  *cut is true where there was more: then
 * the last argument may be a part of one, and has no NUL if so (the
 * length is then size - 1).  A title rewritten with no NUL at its end
 * (setproctitle) is read as it is, a last argument with no NUL.  Where
 * it is empty and the process has another thread (a leader that called
 * pthread_exit(3) reads empty while they run), that thread's
 * /proc/PID/task/TID/cmdline is read instead.  Returns the length, or
 * -errno (proc(5)).  One fd at a time.
 */
int runx_proc_cmdline_raw(pid_t pid, char *buf, size_t size, bool *cut);

/*
 * The children of process pid (its main thread's), from
 * /proc/PID/task/PID/children (proc(5), CONFIG_PROC_CHILDREN; the kernel
 * lists the children of that thread at the time of the read,
 * fs/proc/array.c), in runx's pid namespace: at most max pids into pids
 * (those past 4 KiB of the list are left out).  Returns how many, or
 * -errno (-ENOENT: no such process, or a kernel without the file).
 */
int runx_proc_children(pid_t pid, pid_t *pids, int max);

/*
 * The first child of process pid (its main thread's), from
 * /proc/PID/task/PID/children (proc(5), CONFIG_PROC_CHILDREN), in runx's
 * pid namespace: the pid, or -errno (-ENOENT also with no child listed).
 */
pid_t runx_proc_first_child(pid_t pid);

/* Seconds since boot now, in clock ticks (for ages from start_time). */
uint64_t runx_proc_uptime_ticks(void);

#endif
