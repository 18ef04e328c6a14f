/* /proc readers. */
#include "config.h"

#include "proc.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "clock.h"
#include "decimal.h"
#include "signals.h"
#include "syscalls.h"

/* Reads up to size-1 bytes of a small /proc file; length or -errno. */
static ssize_t read_small(const char *path, char *buf, size_t size)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = read(fd, buf, size - 1);
	int e = errno;
	close(fd);
	if (n < 0)
		return -e;
	buf[n] = '\0';
	return n;
}

bool runx_read_long(FILE *f, long *v)
{
	int c, sign = 1;
	bool digits = false;
	long n = 0;

	while ((c = getc(f)) == ' ' || c == '\n' || c == '\t')
		;
	if (c == '-' || c == '+') {
		sign = c == '-' ? -1 : 1;
		c = getc(f);
	}
	for (; c >= '0' && c <= '9'; c = getc(f)) {
		n = n * 10 + (c - '0');
		digits = true;
	}
	if (c != EOF)
		ungetc(c, f);
	*v = sign * n;
	return digits;
}

/* True if c ends a field of /proc/PID/stat. */
static bool field_end(char c)
{
	return c == ' ' || c == '\n' || c == '\0';
}

/*
 * Passes over the field after *p (space-separated, any content: a few are
 * negative numbers); advances *p; *ok false if there is none.  No number is
 * converted: a stop reads /proc/PID/stat of every process, and strtoull(3)
 * of its 40 fields was the largest part of runx's own CPU time there
 * after the system calls.
 */
static void skip_field(char **p, bool *ok)
{
	char *q = *p;

	while (*q == ' ')
		q++;
	char *start = q;
	while (!field_end(*q))
		q++;
	if (q == start)
		*ok = false;
	*p = q;
}

/* The unsigned decimal field after *p; advances *p; *ok false if it is
 * none, holds anything else, or overflows 64 bits. */
static unsigned long long next_field(char **p, bool *ok)
{
	char *q = *p;
	unsigned long long v = 0;

	while (*q == ' ')
		q++;
	char *start = q;
	for (; *q >= '0' && *q <= '9'; q++) {
		unsigned d = (unsigned)(*q - '0');
		if (v > (ULLONG_MAX - d) / 10)
			*ok = false;
		v = v * 10 + d;
	}
	if (q == start || !field_end(*q))
		*ok = false;
	*p = q;
	return v;
}

/* "/proc/PID/stat" (pid > 0) into path (at least 32 bytes), without
 * snprintf(3). */
static void stat_path(char *path, pid_t pid)
{
	char digits[RUNX_DECIMAL_MAX], *end = digits + sizeof(digits);
	const char *first = runx_decimal((uint64_t)pid, end);
	size_t n = (size_t)(end - first);

	memcpy(path, "/proc/", 6);
	memcpy(path + 6, first, n);
	memcpy(path + 6 + n, "/stat", 6);
}

/*
 * The pid field after *p (a process group or session): a decimal that is
 * -1 while the process is being released (state X: its pids are detached
 * by then, kernel/exit.c, release_task()); advances *p; *ok false if it is
 * none.
 */
static pid_t next_pid_field(char **p, bool *ok)
{
	while (**p == ' ')
		(*p)++;
	bool minus = **p == '-';
	*p += minus;
	if (minus && (**p < '0' || **p > '9'))
		*ok = false; /* next_field() would pass over spaces */
	unsigned long long v = next_field(p, ok);
	if (v > INT_MAX)
		*ok = false;
	return minus ? -(pid_t)v : (pid_t)v;
}

int runx_proc_parse_stat(char *line, pid_t pid, struct runx_proc_stat *st)
{
	bool ok = true;

	/* after the last ')': the command name may hold spaces and ')' */
	char *p = strrchr(line, ')');
	if (p == NULL || p[1] != ' ' || p[2] == '\0')
		return -EINVAL;
	st->state = p[2];
	p += 3;
	st->ppid = (pid_t)next_field(&p, &ok); /* 4 */
	st->pgrp = next_pid_field(&p, &ok);    /* 5 */
	st->session = next_pid_field(&p, &ok); /* 6 */
	skip_field(&p, &ok);		       /* tty_nr (7) */
	skip_field(&p, &ok);		       /* tpgid (8) */
	st->flags = next_field(&p, &ok);       /* 9 */
	for (int field = 10; field < 20 && ok; field++)
		skip_field(&p, &ok);		 /* minflt (10) ... nice (19) */
	st->threads = (long)next_field(&p, &ok); /* 20 */
	skip_field(&p, &ok);			 /* itrealvalue (21) */
	st->start_time = next_field(&p, &ok);	 /* 22 */
	for (int field = 23; field < 28 && ok; field++)
		skip_field(&p, &ok);	       /* vsize (23) ... endcode (27) */
	st->start_stack = next_field(&p, &ok); /* 28 */
	skip_field(&p, &ok);		       /* kstkesp (29) */
	skip_field(&p, &ok);		       /* kstkeip (30) */
	st->pending = next_field(&p, &ok);     /* 31: signals 1-31 */
	skip_field(&p, &ok);		       /* blocked (32) */
	st->ignored = next_field(&p, &ok);     /* 33: signals 1-31 */
	st->caught = next_field(&p, &ok);      /* 34: signals 1-31 */
	for (int field = 35; field < 38 && ok; field++)
		skip_field(&p, &ok);		   /* wchan (35) ... 37 */
	st->exit_signal = next_pid_field(&p, &ok); /* 38 */
	/* fields 39 (processor) ... 47 (start_brk), then arg_start: 0
	 * where a kernel before 3.5 has no field 48 */
	bool more = ok;
	for (int field = 39; field < 48 && more; field++)
		skip_field(&p, &more);
	unsigned long long arg_start = more ? next_field(&p, &more) : 0;
	st->arg_start = more ? arg_start : 0; /* 48 */
	st->pid = pid;
	return ok ? 0 : -EINVAL;
}

int runx_proc_stat(pid_t pid, struct runx_proc_stat *st)
{
	char path[64], buf[1024];

	if (pid <= 0)
		return -ENOENT;
	stat_path(path, pid);
	ssize_t n = read_small(path, buf, sizeof(buf));
	if (n < 0)
		return (int)n;
	return runx_proc_parse_stat(buf, pid, st);
}

bool runx_proc_may_divert(const struct runx_proc_stat *st, int sig)
{
	if (sig <= 0 || sig == SIGKILL || sig == SIGSTOP || sig == SIGCONT)
		return false;
	return sig > 31 ||
	       ((st->caught | st->ignored) & (1ULL << (sig - 1))) != 0;
}

bool runx_proc_pid_may_divert(pid_t pid, int sig)
{
	struct runx_proc_stat st;

	return runx_proc_stat(pid, &st) < 0 || runx_proc_is_dead(&st) ||
	       runx_proc_may_divert(&st, sig);
}

bool runx_proc_ignores(const struct runx_proc_stat *st, int sig)
{
	return sig >= 1 && sig <= 31 &&
	       (st->ignored & (1ULL << (sig - 1))) != 0;
}

/* include/linux/sched.h: "Forked but didn't exec", "getting shut down" */
#define PF_FORKNOEXEC 0x40ULL
#define PF_EXITING    0x4ULL

bool runx_proc_is_fork_copy(const struct runx_proc_stat *st)
{
	return (st->flags & (PF_FORKNOEXEC | PF_EXITING)) == PF_FORKNOEXEC;
}

long runx_proc_last_pid(void)
{
	char buf[128];
	ssize_t n = read_small("/proc/loadavg", buf, sizeof(buf));

	if (n < 0)
		return n;
	char *last = strrchr(buf, ' ');
	if (last == NULL)
		return -EINVAL;
	char *end;
	long pid = strtol(last + 1, &end, 10);
	return end == last + 1 || pid < 0 ? -EINVAL : pid;
}

long long runx_proc_forks(void)
{
	FILE *f = fopen("/proc/stat", "re");
	char line[256];
	bool start = true; /* line holds the start of a line */
	long long forks = -ENOENT;

	if (f == NULL)
		return -errno;
	while (fgets(line, sizeof(line), f) != NULL) {
		if (start && strncmp(line, "processes ", 10) == 0) {
			char *end;
			forks = strtoll(line + 10, &end, 10);
			if (end == line + 10 || forks < 0)
				forks = -EINVAL;
			break;
		}
		start = strchr(line, '\n') != NULL; /* "intr" runs long */
	}
	fclose(f);
	return forks;
}

void runx_pass_mark_take(struct runx_pass_mark *m)
{
	/* the pid first: a fork between the two reads makes the forks look
	 * more than the pids allocated, never fewer */
	m->pid = runx_proc_last_pid();
	m->forks = runx_proc_forks();
	m->walked_ns = runx_now_ns();
}

long runx_proc_pid_max(void)
{
	char buf[32];
	ssize_t n = read_small("/proc/sys/kernel/pid_max", buf, sizeof(buf));

	if (n < 0)
		return n;
	char *end;
	long max = strtol(buf, &end, 10);
	return end == buf || max <= 1 ? -EINVAL : max;
}

int runx_proc_children(pid_t pid, pid_t *pids, int max)
{
	char path[80], buf[4096];

	snprintf(path, sizeof(path), "/proc/%d/task/%d/children", (int)pid,
		 (int)pid);
	ssize_t n = read_small(path, buf, sizeof(buf));
	if (n < 0)
		return (int)n;
	/* a list longer than buf: its last pid may be cut, so it is left
	 * out with the rest */
	if ((size_t)n == sizeof(buf) - 1) {
		char *space = strrchr(buf, ' ');
		*(space != NULL ? space : buf) = '\0';
	}
	int k = 0;
	for (char *p = buf, *end; k < max; p = end) {
		long child = strtol(p, &end, 10);
		if (end == p)
			break;
		if (child > 0 && child <= INT_MAX)
			pids[k++] = (pid_t)child;
	}
	return k;
}

pid_t runx_proc_first_child(pid_t pid)
{
	pid_t child;
	int n = runx_proc_children(pid, &child, 1);

	if (n < 0)
		return (pid_t)n;
	return n > 0 ? child : -ENOENT;
}

/* True if PID/task below the /proc at procfd (AT_FDCWD: runx's) lists
 * more than the leader; gone: false; anything else: cannot tell, so
 * true. */
static bool live_threads_in(int procfd, pid_t pid)
{
	char path[64];
	struct dirent *d;
	int tasks = 0;

	snprintf(path, sizeof(path),
		 procfd == AT_FDCWD ? "/proc/%d/task" : "%d/task", (int)pid);
	int fd = openat(procfd, path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	DIR *dir = fd < 0 ? NULL : fdopendir(fd);
	if (dir == NULL) {
		bool gone = fd < 0 && (errno == ENOENT || errno == ESRCH);
		if (fd >= 0)
			close(fd);
		return !gone;
	}
	while (tasks < 2 && (d = readdir(dir)) != NULL)
		if (isdigit((unsigned char)d->d_name[0]))
			tasks++;
	closedir(dir);
	return tasks > 1;
}

bool runx_proc_has_live_threads(pid_t pid)
{
	return live_threads_in(AT_FDCWD, pid);
}

bool runx_proc_is_dead_in(int procfd, const struct runx_proc_stat *st)
{
	if (st->state == 'X' || st->state == 'x')
		return true;
	/* a leader whose thread exited is Z while its other threads run
	 * (pthread_exit(3) from main): it is alive until they end too.  A
	 * thread counts in num_threads until it is released (the group's
	 * count drops in release_task(), kernel/exit.c), so 1 is the leader
	 * alone, dead: no need to read /proc/PID/task, which for thousands
	 * of dying processes doubled the cost of a pass */
	return st->state == 'Z' &&
	       (st->threads == 1 || !live_threads_in(procfd, st->pid));
}

bool runx_proc_is_dead(const struct runx_proc_stat *st)
{
	return runx_proc_is_dead_in(AT_FDCWD, st);
}

/* True if st is of one thread with SIGKILL pending.  complete_signal()
 * (kernel/signal.c) queues it to every thread for a signal that ends the
 * process with no core dump, blocked by none and (but SIGKILL) not
 * traced; but another thread's execve(2) queues it to the others too
 * (de_thread()), hence one thread only.  Field 31 is the thread's own
 * pending set (do_task_stat(), fs/proc/array.c). */
static bool sole_thread_sigkill_pending(const struct runx_proc_stat *st)
{
	return st->threads == 1 && (st->pending & (1ULL << (SIGKILL - 1))) != 0;
}

/* PF_SIGNALED: set by get_signal() (kernel/signal.c) on the thread that
 * takes a fatal signal off its queue, before a core dump and
 * do_group_exit(), which never return to the process's code
 * (include/linux/sched.h) */
#define PF_SIGNALED 0x400ULL

bool runx_proc_is_dying_of_signal(const struct runx_proc_stat *st)
{
	return sole_thread_sigkill_pending(st) ||
	       (st->threads == 1 && (st->flags & PF_SIGNALED) != 0);
}

bool runx_proc_is_exiting_in(int procfd, const struct runx_proc_stat *st)
{
	return ((st->flags & PF_EXITING) != 0 && st->threads == 1) ||
	       runx_proc_is_dying_of_signal(st) ||
	       runx_proc_is_dead_in(procfd, st);
}

bool runx_proc_is_exiting(const struct runx_proc_stat *st)
{
	return runx_proc_is_exiting_in(AT_FDCWD, st);
}

/* The value of line "NAME:" of text, a /proc/PID/status, past its
 * blanks, or NULL where there is none. */
static const char *status_value(const char *text, const char *name)
{
	size_t len = strlen(name);

	for (const char *l = text; l != NULL && *l != '\0';) {
		if (strncmp(l, name, len) == 0 && l[len] == ':')
			return l + len + 1 + strspn(l + len + 1, " \t");
		l = strchr(l, '\n');
		l = l != NULL ? l + 1 : NULL;
	}
	return NULL;
}

ssize_t runx_proc_status(pid_t pid, char *text, size_t size)
{
	char path[64];

	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	return read_small(path, text, size);
}

bool runx_proc_status_number(const char *text, const char *name, int base,
			     unsigned long long *v)
{
	const char *value = status_value(text, name);
	char *end;

	if (value == NULL)
		return false;
	errno = 0;
	*v = strtoull(value, &end, base);
	return errno == 0 && end != value;
}

/* The signals whose action ends a process (runx_signal_can_end()), as a
 * mask of bit N-1 for signal N. */
static unsigned long long ending_signals(void)
{
	unsigned long long mask = 0;

	for (int sig = 1; sig <= 64; sig++)
		if (runx_signal_can_end(sig))
			mask |= 1ULL << (sig - 1);
	return mask;
}

bool runx_proc_status_signal_ending(const char *text)
{
	unsigned long long shd, pnd, blk, ign, cgt, threads;
	const char *state = status_value(text, "State");

	if (state == NULL || *state == '\0' || *state == 'T' || *state == 't' ||
	    !runx_proc_status_number(text, "Threads", 10, &threads) ||
	    threads != 1 ||
	    !runx_proc_status_number(text, "ShdPnd", 16, &shd) ||
	    !runx_proc_status_number(text, "SigPnd", 16, &pnd) ||
	    !runx_proc_status_number(text, "SigBlk", 16, &blk) ||
	    !runx_proc_status_number(text, "SigIgn", 16, &ign) ||
	    !runx_proc_status_number(text, "SigCgt", 16, &cgt))
		return false;
	return ((shd | pnd) & ~blk & ~ign & ~cgt & ending_signals()) != 0;
}

bool runx_proc_signal_ending(pid_t pid)
{
	char text[4096];

	return runx_proc_status(pid, text, sizeof(text)) > 0 &&
	       runx_proc_status_signal_ending(text);
}

pid_t runx_proc_tracer(pid_t pid)
{
	char text[4096];
	unsigned long long tracer;
	ssize_t n = runx_proc_status(pid, text, sizeof(text));

	if (n < 0)
		return (pid_t)n;
	return runx_proc_status_number(text, "TracerPid", 10, &tracer)
		   ? (pid_t)tracer
		   : -ENOENT;
}

int runx_proc_each(int (*fn)(const struct runx_proc_stat *st, void *arg),
		   void *arg)
{
	return runx_proc_each_unknown(NULL, fn, arg);
}

/*
 * A pid that /proc lists but whose /proc/PID/stat is not there: gone
 * since the listing, or hidden by a mount over /proc/PID (root can).  The
 * kernel tells: a pidfd of it and its parent (PIDFD_GET_INFO, Linux 6.13)
 * give an entry with what is known (state '?', its process group and
 * session, no start time), so that the scopes still see and signal it.  False
 * if it is gone or the kernel cannot tell.  Needs one fd for the call.
 */
static bool hidden_stat(pid_t pid, struct runx_proc_stat *st)
{
	int fd = runx_pidfd_open(pid, 0);
	pid_t ppid;

	if (fd < 0)
		return false;
	bool alive = runx_pidfd_ppid(fd, &ppid) == 0;
	close(fd);
	if (!alive)
		return false;
	memset(st, 0, sizeof(*st));
	st->pid = pid;
	st->state = '?';
	st->ppid = ppid;
	/* the kernel gives these by pid too (getpgid(2), getsid(2)): -1 for
	 * a process gone meanwhile */
	st->pgrp = getpgid(pid);
	st->session = getsid(pid);
	return true;
}

/* Reads pid's stat file and calls fn with it, unless known(pid, arg):
 * fn's value, 0 for a pid gone (or known), or -errno. */
static int visit(pid_t pid, bool (*known)(pid_t pid, void *arg),
		 int (*fn)(const struct runx_proc_stat *st, void *arg),
		 void *arg)
{
	struct runx_proc_stat st;

	if (known != NULL && known(pid, arg))
		return 0;
	int s = runx_proc_stat(pid, &st);
	if (s == -ENOENT && hidden_stat(pid, &st))
		s = 0;
	if (s == 0)
		return fn(&st, arg);
	return s != -ENOENT && s != -ESRCH ? s : 0;
}

/*
 * One pid of a window: fn's value, or 0 for one with no process.  The id
 * of a thread that does not lead its process is passed over: it is no
 * process (/proc does not list it), though its stat file can be read.
 * strict: as a walk reads a listed pid (visit()), else a pid whose stat
 * file cannot be read is passed over.
 */
static int window_pid(long p, bool strict,
		      int (*fn)(const struct runx_proc_stat *st, void *arg),
		      void *arg)
{
	struct runx_proc_stat st;
	int s = runx_proc_stat((pid_t)p, &st);

	if (s == -ENOENT && strict && hidden_stat((pid_t)p, &st))
		s = 0;
	if (s == 0)
		return st.exit_signal == -1 ? 0 : fn(&st, arg);
	return strict && s != -ENOENT && s != -ESRCH ? s : 0;
}

/* The pids allocated after lo up to hi, in that order (window_pid()). */
static int each_in_window(long lo, long hi, bool strict,
			  int (*fn)(const struct runx_proc_stat *st, void *arg),
			  void *arg)
{
	long end = hi, max = 0;
	int r = 0;

	if (hi < lo) { /* wrapped: lo+1 .. pid_max - 1, then 1 .. hi */
		max = runx_proc_pid_max();
		if (max < 0)
			return (int)max;
		end = max - 1;
	}
	for (long p = lo + 1; r == 0 && p <= end; p++)
		r = window_pid(p, strict, fn, arg);
	for (long p = 1; r == 0 && max > 0 && p <= hi; p++)
		r = window_pid(p, strict, fn, arg);
	return r;
}

int runx_proc_each_allocated(long lo, long hi,
			     int (*fn)(const struct runx_proc_stat *st,
				       void *arg),
			     void *arg)
{
	return each_in_window(lo, hi, false, fn, arg);
}

int runx_proc_each_since(long lo, long hi,
			 int (*fn)(const struct runx_proc_stat *st, void *arg),
			 void *arg)
{
	return each_in_window(lo, hi, true, fn, arg);
}

/* The pids of a walk, kept to be read after the listing (walk()). */
struct deferred {
	pid_t *v;
	size_t n, cap;
};

/* Appends pid to d; false if out of memory (the caller visits it now). */
static bool defer(struct deferred *d, pid_t pid)
{
	if (d->n == d->cap) {
		size_t cap = d->cap > 0 ? d->cap * 2 : 256;
		pid_t *v = realloc(d->v, cap * sizeof(*v));
		if (v == NULL)
			return false;
		d->v = v;
		d->cap = cap;
	}
	d->v[d->n++] = pid;
	return true;
}

/* The next pid /proc lists into *pid: 1, 0 at the end of the list, or
 * -errno. */
static int next_pid(DIR *dir, pid_t *pid)
{
	struct dirent *d;

	for (;;) {
		errno = 0;
		if ((d = readdir(dir)) == NULL)
			return -errno; /* 0 at the end of the list */
		if (isdigit((unsigned char)d->d_name[0])) {
			*pid = (pid_t)atoi(d->d_name);
			return 1;
		}
	}
}

int runx_proc_list(pid_t **pids, size_t *n)
{
	struct deferred all = {NULL, 0, 0};
	DIR *dir = opendir("/proc");
	pid_t pid;
	int r;

	if (dir == NULL)
		return -errno;
	while ((r = next_pid(dir, &pid)) > 0)
		if (!defer(&all, pid)) {
			r = -ENOMEM;
			break;
		}
	closedir(dir);
	if (r < 0) {
		free(all.v);
		return r;
	}
	*pids = all.v;
	*n = all.n;
	return 0;
}

/*
 * The walk of /proc: each pid listed, in ascending order as listed; with
 * oldest_first, the pids are kept and read after the listing, those
 * above the pid allocated last (read then, so that a wrap during the
 * listing counts) first.
 */
static int walk(bool (*known)(pid_t pid, void *arg),
		int (*fn)(const struct runx_proc_stat *st, void *arg),
		void *arg, bool oldest_first)
{
	struct deferred later = {NULL, 0, 0};
	DIR *dir = opendir("/proc");
	pid_t pid;
	int r = 0, more;

	if (dir == NULL)
		return -errno;
	while (r == 0 && (more = next_pid(dir, &pid)) != 0) {
		if (more < 0)
			r = more;
		else if (!oldest_first || !defer(&later, pid))
			r = visit(pid, known, fn, arg);
	}
	closedir(dir);
	if (r == 0 && later.n > 0) {
		/* ascending as listed: those above last were allocated before
		 * the counter last wrapped below pid_max */
		long last = runx_proc_last_pid();
		size_t above = 0;
		while (last > 0 && above < later.n && later.v[above] <= last)
			above++;
		for (size_t i = 0; r == 0 && i < later.n; i++)
			r = visit(later.v[(above + i) % later.n], known, fn,
				  arg);
	}
	free(later.v);
	return r;
}

int runx_proc_each_unknown(bool (*known)(pid_t pid, void *arg),
			   int (*fn)(const struct runx_proc_stat *st,
				     void *arg),
			   void *arg)
{
	return walk(known, fn, arg, false);
}

int runx_proc_each_oldest_first(int (*fn)(const struct runx_proc_stat *st,
					  void *arg),
				void *arg)
{
	return walk(NULL, fn, arg, true);
}

bool runx_proc_is_own_namespace(void)
{
	char buf[32];
	ssize_t n = readlink("/proc/self", buf, sizeof(buf) - 1);

	if (n <= 0)
		return false;
	buf[n] = '\0';
	return atoi(buf) == (int)getpid();
}

/* runx_proc_cmdline_raw() of the file at path. */
static int cmdline_at(const char *path, char *buf, size_t size, bool *cut)
{
	char more;
	int fd;
	ssize_t n;

	*cut = false;
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return -errno;
	n = size > 0 ? read(fd, buf, size) : 0;
	int e = errno;
	if (n == (ssize_t)size && size > 0) {
		/* a NUL last ends the last argument of size - 1 bytes, unless
		 * more follows; else the last byte is a cut argument's */
		*cut = buf[size - 1] != '\0' || read(fd, &more, 1) == 1;
		if (buf[size - 1] != '\0')
			n--;
	}
	close(fd);
	return n < 0 ? -e : (int)n;
}

/* The first thread of pid's listed in /proc/PID/task other than its
 * leader, or 0 (none, or the directory cannot be read).  One fd. */
static pid_t other_thread(pid_t pid)
{
	char path[64];
	struct dirent *e;
	pid_t tid = 0;

	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	DIR *d = opendir(path);
	if (d == NULL)
		return 0;
	while (tid == 0 && (e = readdir(d)) != NULL) {
		int t = atoi(e->d_name);
		if (t > 0 && t != (int)pid)
			tid = (pid_t)t;
	}
	closedir(d);
	return tid;
}

int runx_proc_cmdline_raw(pid_t pid, char *buf, size_t size, bool *cut)
{
	char path[96];

	snprintf(path, sizeof(path), "/proc/%d/cmdline", (int)pid);
	int n = cmdline_at(path, buf, size, cut);
	if (n != 0)
		return n;
	/* empty: a leader that called pthread_exit(3) has no memory of its
	 * own to read from while its other threads run; theirs is the same
	 * (proc_pid_cmdline_read(), fs/proc/base.c, reads the task's mm) */
	pid_t tid = other_thread(pid);
	if (tid <= 0)
		return n;
	snprintf(path, sizeof(path), "/proc/%d/task/%d/cmdline", (int)pid,
		 (int)tid);
	int m = cmdline_at(path, buf, size, cut);
	return m > 0 ? m : 0; /* that thread gone too: empty, as read */
}

uint64_t runx_proc_uptime_ticks(void)
{
	struct timespec ts;
	long hz = sysconf(_SC_CLK_TCK);

	/* CLOCK_BOOTTIME is what /proc/PID/stat's start time counts from */
	clock_gettime(CLOCK_BOOTTIME, &ts);
	if (hz <= 0)
		hz = 100;
	return (uint64_t)ts.tv_sec * (uint64_t)hz +
	       (uint64_t)ts.tv_nsec / (1000000000ULL / (uint64_t)hz);
}
