/* Redirect files for the command's fds 0, 1 and 2. */
#include "config.h"

#include "redirect.h"

#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "log.h"
#include "sigmask.h"
#include "signals.h"
#include "stdio_guard.h"

static sigjmp_buf open_jump;		  /* where on_stop() ends an open(2) */
static volatile sig_atomic_t open_signal; /* the signal that ended it */
static volatile sig_atomic_t foreign_alarm; /* a SIGALRM not the timer's */
static sigset_t open_caught; /* the stop signals caught meanwhile */
static volatile sig_atomic_t open_jobctl; /* SIGTSTP, SIGTTIN or SIGTTOU
					   * that came meanwhile, or 0 */

/* A stop signal while open_stoppable() waits: back to its sigsetjmp(3),
 * with the handler's mask (every signal blocked), which open_stoppable()
 * sets back to runx's own. */
static void on_stop(int sig)
{
	open_signal = sig;
	siglongjmp(open_jump, 1);
}

/* True if si is the SIGALRM of open_stoppable()'s own timer (SI_TIMER,
 * its value open_jump's address: arm_deadline()), the total deadline. */
static bool deadline_alarm(const siginfo_t *si)
{
	return si->si_code == SI_TIMER && si->si_value.sival_ptr == &open_jump;
}

/* Takes a signal of set that is pending (blocked, as every signal in
 * runx), with no wait (sigtimedwait(2), its siginfo into *si unless
 * NULL): its number, or -1 if none is. */
static int take_pending(const sigset_t *set, siginfo_t *si)
{
	static const struct timespec now = {0, 0};

	return sigtimedwait(set, si, &now);
}

/* SIGALRM while open_stoppable() waits: from its timer (SI_TIMER, its
 * value open_jump's address), the total deadline; a stop signal where
 * the stop signals hold it; else one for the command, noted and raised
 * again afterwards (the open(2) it interrupted is made again). */
static void on_alarm(int sig, siginfo_t *si, void *context)
{
	(void)context;
	if (deadline_alarm(si))
		on_stop(-1);
	else if (sigismember(&open_caught, sig) == 1)
		on_stop(sig);
	foreign_alarm = 1;
}

/*
 * A timer that sends SIGALRM (caught by on_alarm()) at until_ns of
 * CLOCK_MONOTONIC, into *timer: true if armed (timer_create(2),
 * timer_settime(2) with TIMER_ABSTIME); the caller deletes it.
 */
static bool arm_deadline(int64_t until_ns, timer_t *timer)
{
	struct sigevent ev = {.sigev_notify = SIGEV_SIGNAL,
			      .sigev_signo = SIGALRM,
			      .sigev_value.sival_ptr = &open_jump};
	struct itimerspec at = {.it_value = {(time_t)(until_ns / 1000000000),
					     (long)(until_ns % 1000000000)}};

	if (timer_create(CLOCK_MONOTONIC, &ev, timer) < 0)
		return false;
	if (timer_settime(*timer, TIMER_ABSTIME, &at, NULL) == 0)
		return true;
	timer_delete(*timer);
	return false;
}

/* The lowest fd that is not open, which open(2) returns next (runx has
 * one thread), or -1. */
static int lowest_free_fd(void)
{
	int fd = fcntl(STDIN_FILENO, F_DUPFD, 0);

	if (fd >= 0)
		close(fd);
	return fd;
}

/* Installs on_stop() for each signal of stop, each one's old action into
 * old[]; those into caught.  One ignored when runx started (SIG_IGN: a
 * background job of a script has SIGINT so) is caught too, as a stop
 * signal is in every other phase of the run (supervise.c, between.c):
 * left ignored and blocked, it stayed pending through the wait, and the
 * command it was sent to prevent started, only to be stopped at once. */
static void catch_stop(const sigset_t *stop, struct sigaction *old,
		       sigset_t *caught)
{
	struct sigaction on = {.sa_handler = on_stop};

	sigfillset(&on.sa_mask);
	sigemptyset(caught);
	for (int n = 1; n < NSIG; n++)
		if (sigismember(stop, n) == 1 &&
		    sigaction(n, NULL, &old[n]) == 0 &&
		    sigaction(n, &on, NULL) == 0)
			sigaddset(caught, n);
}

/* Job control while open_stoppable() waits: back to its sigsetjmp(3)
 * too (2: every signal blocked again), which stops runx (stop_self())
 * and waits again.  A jump, not a flag: one that came while the signals
 * were blocked runs as they are unblocked, before open(2) waits. */
static void on_jobctl(int sig)
{
	open_jobctl = sig;
	siglongjmp(open_jump, 2);
}

/* Installs on_jobctl() for SIGTSTP, SIGTTIN and SIGTTOU (never stop
 * signals: options.c refuses them there), each one's old action into
 * old[]; those into jobctl and caught. */
static void catch_jobctl(struct sigaction *old, sigset_t *jobctl,
			 sigset_t *caught)
{
	static const int sigs[] = {SIGTSTP, SIGTTIN, SIGTTOU};
	struct sigaction on = {.sa_handler = on_jobctl};

	sigfillset(&on.sa_mask);
	sigemptyset(jobctl);
	open_jobctl = 0;
	for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
		if (sigaction(sigs[i], NULL, &old[sigs[i]]) == 0 &&
		    sigaction(sigs[i], &on, NULL) == 0) {
			sigaddset(jobctl, sigs[i]);
			sigaddset(caught, sigs[i]);
		}
}

/* Takes a pending SIGCONT (blocked, as every signal in runx): true if
 * there was one. */
static bool take_cont(void)
{
	sigset_t cont;

	sigemptyset(&cont);
	sigaddset(&cont, SIGCONT);
	return take_pending(&cont, NULL) == SIGCONT;
}

/*
 * Job control (Ctrl-Z) came while a FIFO's open waited for path's other
 * end (every signal blocked now): runx stops itself, as in the wait
 * between attempts (between.c), with no job to stop yet, and the caller
 * waits again once it is continued.  The SIGCONT that continued it is
 * taken: it is runx's, not the command's.  runx does not stop where a
 * SIGCONT is pending already (one sent after the job control signal:
 * generating that discarded any SIGCONT before it, kernel/signal.c
 * prepare_signal()), nor where a stop signal is (it ends the wait once
 * the signals are unblocked).  One that comes between that check and the
 * SIGSTOP (a system call's time) is discarded by the SIGSTOP, and runx
 * waits for the next.  The line is held in memory if stderr has no room
 * (runx_log_defer(): run.c ends that), so that no stop waits on it.  As
 * PID 1, which the kernel does not stop (SIGNAL_UNKILLABLE), it says so.
 */
static void stop_self(const char *path)
{
	char name[32], q[RUNX_QUOTE_SIZE];
	bool pid1 = getpid() == 1;
	sigset_t pending;

	runx_signal_name(open_jobctl, name, sizeof(name));
	open_jobctl = 0;
	runx_log_defer();
	runx_verbose("received %s while opening '%s' (a FIFO waits for its "
		     "other end): %s (job control)",
		     name, runx_quote(path, q, sizeof(q)),
		     pid1 ? "runx is PID 1 and cannot stop" : "stopping runx");
	runx_log_flush(false);
	if (pid1 || take_cont() || sigpending(&pending) < 0)
		return;
	for (int n = 1; n < NSIG; n++)
		if (sigismember(&open_caught, n) == 1 &&
		    sigismember(&pending, n) == 1)
			return;
	if (kill(getpid(), SIGSTOP) == 0)
		(void)take_cont();
}

/*
 * While a FIFO's open waits, with a total deadline (until_ns > 0): on_alarm()
 * on SIGALRM (its old action into *old) and a timer for until_ns; false
 * where either cannot be had (the wait is then not bounded).
 */
static bool catch_alarm(int64_t until_ns, timer_t *timer, struct sigaction *old)
{
	struct sigaction on = {.sa_sigaction = on_alarm,
			       .sa_flags = SA_SIGINFO};

	foreign_alarm = 0;
	if (until_ns <= 0 || sigaction(SIGALRM, NULL, old) < 0)
		return false;
	sigfillset(&on.sa_mask);
	if (sigaction(SIGALRM, &on, NULL) < 0)
		return false;
	if (arm_deadline(until_ns, timer))
		return true;
	sigaction(SIGALRM, old, NULL);
	return false;
}

/* Undoes catch_alarm(); a SIGALRM for the command that came meanwhile is
 * raised again, pending (blocked) until it is forwarded. */
static void release_alarm(timer_t timer, const struct sigaction *old)
{
	timer_delete(timer);
	sigaction(SIGALRM, old, NULL);
	if (foreign_alarm)
		raise(SIGALRM);
}

/*
 * What came once the open's mask was put back (the stop signals blocked
 * again) and is pending now, taken with sigtimedwait(2) and no wait: the
 * first signal of stop, returned (0 if none).  The timer's own SIGALRM
 * (timed: until_ns's; a deleted timer may leave it pending) is dropped,
 * as the open did not wait for it; one from elsewhere that is no stop
 * signal is raised again, pending for the command.  Left pending, a stop
 * signal would start a stop as soon as the command started, or be
 * discarded where its action goes back to SIG_IGN (POSIX discards a
 * pending signal whose action is set to SIG_IGN).  Called right before
 * the actions are put back: one that comes during those sigaction(2)
 * calls (microseconds) may still be, where it was ignored when runx
 * started; runx must put SIG_IGN back, for the command to inherit it.
 */
static int late_stop(const sigset_t *stop, bool timed)
{
	sigset_t set = *stop;
	siginfo_t si;
	int sig, first = 0;
	bool foreign = false;

	if (timed)
		sigaddset(&set, SIGALRM);
	while (first == 0 && (sig = take_pending(&set, &si)) > 0) {
		if (sig == SIGALRM && deadline_alarm(&si))
			continue;
		if (sigismember(stop, sig) == 1)
			first = sig;
		else
			foreign = true;
	}
	if (foreign)
		raise(SIGALRM);
	return first;
}

/* fd, or next (the lowest fd that was free) where it is fifo: open(2)
 * returned it just before a jump, fd not set yet. */
static int returned_fd(int fd, int next, const struct stat *fifo)
{
	struct stat got;

	if (fd < 0 && next >= 0 && fstat(next, &got) == 0 &&
	    got.st_dev == fifo->st_dev && got.st_ino == fifo->st_ino)
		return next;
	return fd;
}

/*
 * Installs open_stoppable()'s handlers: catch_stop() for the signals of
 * stop (into caught and open_caught), catch_jobctl() (into jobctl and
 * caught), catch_alarm() for until_ns (SIGALRM into caught; true if its
 * timer is armed).  Then sets runx's mask back to *mask: musl's
 * sigaction(3) unblocks its reserved signals 33 and 34 at the first
 * handler a process installs (these are runx's first), which must stay
 * blocked in runx, pending for the command.
 */
static bool catch_all(const sigset_t *stop, int64_t until_ns,
		      struct sigaction *old, sigset_t *caught, sigset_t *jobctl,
		      timer_t *timer, struct sigaction *alarm_old,
		      const sigset_t *mask)
{
	catch_stop(stop, old, caught);
	open_caught = *caught;
	catch_jobctl(old, jobctl, caught);
	bool timed = catch_alarm(until_ns, timer, alarm_old);
	if (timed)
		sigaddset(caught, SIGALRM);
	runx_sigmask_raw(SIG_SETMASK, mask, NULL);
	return timed;
}

/*
 * open(2) of path with flags and mode 0666.  A FIFO's waits until its
 * other end is opened (fifo(7)), maybe for good: the signals of stop are
 * caught meanwhile (catch_stop()), so a stop signal (Ctrl-C) ends
 * the wait, and so does the run's total deadline, until_ns of
 * CLOCK_MONOTONIC (0: none; a POSIX timer's SIGALRM); the others stay
 * blocked, pending for the command, as runx keeps every signal from the
 * start (signals.h).  Any other file is opened as it is (a stop signal
 * waits for the command).  The fd (the caller's), or -1 with errno;
 * EINTR: *sig is the stop signal, or -1 for the deadline (also when it
 * came as open(2) returned: that fd, the lowest that was free, is
 * closed).  Job control meanwhile stops runx (stop_self()), and the
 * wait goes on.  Uses sigsetjmp(3): one call at a time, with no mask
 * saved (a jump leaves the handler's, every signal blocked), for runx's
 * own is set again with runx_sigmask_raw(): glibc's siglongjmp(3) would
 * restore it without the C library's reserved real-time signals, and so
 * unblock them.
 */
static int open_stoppable(const char *path, int flags, const sigset_t *stop,
			  int64_t until_ns, int *sig)
{
	struct sigaction old[NSIG], alarm_old;
	struct stat fifo;
	sigset_t caught, mask, jobctl;
	volatile int fd = -1, e = 0;
	timer_t timer;

	if (stat(path, &fifo) < 0 || !S_ISFIFO(fifo.st_mode))
		return open(path, flags, 0666);
	int next = lowest_free_fd();
	runx_sigmask_raw(SIG_SETMASK, NULL, &mask);
	bool timed = catch_all(stop, until_ns, old, &caught, &jobctl, &timer,
			       &alarm_old, &mask);
	open_signal = 0;
again:
	switch (sigsetjmp(open_jump, 0)) { /* the mask: see above */
	case 0:
		sigprocmask(SIG_UNBLOCK, &caught, NULL);
		while ((fd = open(path, flags, 0666)) < 0 && errno == EINTR)
			; /* a SIGALRM for the command */
		e = errno;
		break;
	case 2: /* job control: runx stops, then waits again if it must */
		runx_sigmask_raw(SIG_SETMASK, &mask, NULL);
		fd = returned_fd(fd, next, &fifo);
		stop_self(path);
		if (fd < 0)
			goto again;
		break;
	default: /* a stop signal, or the deadline (-1) */
		*sig = open_signal;
		e = EINTR;
		fd = returned_fd(fd, next, &fifo);
	}
	runx_sigmask_raw(SIG_SETMASK, &mask, NULL);
	/* the alarm first: where SIGALRM is a stop signal too, its action
	 * before catch_stop() is old[SIGALRM], put back last */
	if (timed)
		release_alarm(timer, &alarm_old);
	int late = late_stop(&open_caught, timed);
	if (open_signal == 0 && late != 0) {
		open_signal = late;
		*sig = late;
		e = EINTR;
	}
	for (int n = 1; n < NSIG; n++)
		if (sigismember(&open_caught, n) == 1 ||
		    sigismember(&jobctl, n) == 1)
			sigaction(n, &old[n], NULL);
	if (open_signal != 0 && fd >= 0)
		close(fd);
	errno = e;
	return open_signal != 0 ? -1 : fd;
}

/*
 * Opens path as the source of fd slot; the message quotes the path.  With
 * O_CREAT, notes whether the open made the file (O_EXCL first: an
 * existing one, a symbolic link included, is opened again without).
 */
static int open_file(const char *path, int flags, struct runx_stdio *s,
		     int slot, char *err, size_t errsize)
{
	int fd = -1;

	flags |= O_CLOEXEC | O_NOCTTY;
	if (flags & O_CREAT) {
		fd = open_stoppable(path, flags | O_EXCL, s->stop, s->until_ns,
				    &s->stopped);
		s->created[slot] = fd >= 0;
	}
	if (fd < 0 && (!(flags & O_CREAT) || errno == EEXIST))
		fd = open_stoppable(path, flags, s->stop, s->until_ns,
				    &s->stopped);

	if (fd < 0) {
		int e = errno;
		char quoted[RUNX_QUOTE_SIZE], name[32];

		runx_quote(path, quoted, sizeof(quoted));
		if (s->stopped < 0)
			snprintf(err, errsize,
				 "total deadline of the run reached while "
				 "opening '%s' (a FIFO waits for its other "
				 "end); nothing was started",
				 quoted);
		else if (s->stopped > 0)
			snprintf(
			    err, errsize,
			    "received %s while opening '%s' (a FIFO waits "
			    "for its other end); nothing was started",
			    runx_signal_name(s->stopped, name, sizeof(name)),
			    quoted);
		else
			snprintf(err, errsize, "cannot open '%s': %s", quoted,
				 strerror(e));
		return -e;
	}
	s->source[slot] = fd;
	s->opened[slot] = true;
	s->path[slot] = path;
	return 0;
}

/* True if path names the file already open as fd. */
static bool same_file(const char *path, int fd)
{
	struct stat a, b;

	return stat(path, &a) == 0 && fstat(fd, &b) == 0 &&
	       a.st_dev == b.st_dev && a.st_ino == b.st_ino;
}

int runx_stdio_open(const struct runx_redirects *want, const sigset_t *stop,
		    int64_t until_ns, struct runx_stdio *s, char *err,
		    size_t errsize)
{
	int wflags = O_WRONLY | O_CREAT | (want->append ? O_APPEND : 0);
	int r = 0;

	s->stop = stop;
	s->until_ns = until_ns;
	s->stopped = 0;
	for (int i = 0; i < 3; i++) {
		s->source[i] = -1;
		s->opened[i] = s->truncate[i] = s->created[i] = false;
		s->path[i] = NULL;
	}
	s->committed = false;
	if (want->stdin_path != NULL)
		r = open_file(want->stdin_path, O_RDONLY, s, 0, err, errsize);
	if (r == 0 && want->stdout_path != NULL)
		r = open_file(want->stdout_path, wflags, s, 1, err, errsize);
	if (r == 0 && want->stderr_path != NULL) {
		if (s->opened[1] && same_file(want->stderr_path, s->source[1]))
			s->source[2] = s->source[1]; /* one file description */
		else
			r = open_file(want->stderr_path, wflags, s, 2, err,
				      errsize);
	}
	/* -m: fd 1 as it will be, closed too (runx_stdio_guard()'s
	 * placeholder for a closed fd 1 is not the command's) */
	if (r == 0 && want->merge && s->opened[1])
		s->source[2] = s->source[1];
	else if (r == 0 && want->merge)
		s->source[2] = runx_stdio_was_closed(1) ? RUNX_STDIO_CLOSED : 1;
	for (int i = 1; i < 3; i++)
		s->truncate[i] = s->opened[i] && !want->append;
	if (r < 0)
		runx_stdio_discard(s);
	return r;
}

void runx_stdio_commit(struct runx_stdio *s)
{
	struct stat st;

	if (s->committed)
		return;
	s->committed = true;
	for (int i = 1; i < 3; i++) {
		char quoted[RUNX_QUOTE_SIZE];
		if (!s->truncate[i] || fstat(s->source[i], &st) < 0 ||
		    !S_ISREG(st.st_mode) || ftruncate(s->source[i], 0) == 0)
			continue;
		runx_error("cannot truncate '%s': %s",
			   runx_quote(s->path[i], quoted, sizeof(quoted)),
			   strerror(errno));
	}
}

void runx_stdio_discard(struct runx_stdio *s)
{
	struct stat a, b;

	for (int i = 0; i < 3 && !s->committed; i++)
		if (s->opened[i] && s->created[i] && s->path[i] != NULL &&
		    fstat(s->source[i], &a) == 0 && stat(s->path[i], &b) == 0 &&
		    a.st_dev == b.st_dev && a.st_ino == b.st_ino)
			unlink(s->path[i]);
	runx_stdio_close(s);
}

void runx_stdio_close(struct runx_stdio *s)
{
	for (int i = 0; i < 3; i++) {
		if (s->opened[i])
			close(s->source[i]);
		s->opened[i] = false;
		s->source[i] = -1;
	}
}
