/*
 * runx_proc_stat and the fork-copy rule (proc.c) against real processes:
 * this one, and a child before and after its execve(2).
 */
#include "config.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "common.h"
#include "proc.h"
#include "scope.h"
#include "syscalls.h"

static void on_usr1(int sig)
{
	(void)sig;
}

/* Forks a child that names itself name, then waits for a byte on a pipe
 * and execs sleep(1); *go is the pipe's write end. */
static pid_t fork_waiting(const char *name, int *go)
{
	int p[2];

	ck_assert_int_eq(pipe(p), 0);
	pid_t pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		char c;
		close(p[1]);
		prctl(PR_SET_NAME, name);
		if (read(p[0], &c, 1) == 1)
			execl("/bin/sleep", "sleep", "30", (char *)NULL);
		_exit(127);
	}
	close(p[0]);
	*go = p[1];
	return pid;
}

/*
 * Polls (up to 3 s) until pid's image is no longer its parent's and its
 * new one is in place: in the middle of execve(2) the new mm has no
 * start_stack yet (exec_mmap() comes before setup_arg_pages(),
 * fs/exec.c), which is no longer the parent's image either (an ASan CI
 * run read it there once).
 */
static bool wait_exec(pid_t pid, struct runx_proc_stat *st)
{
	for (int i = 0; i < 300; i++) {
		if (runx_proc_stat(pid, st) == 0 &&
		    !runx_proc_is_fork_copy(st) && st->start_stack != 0)
			return true;
		nanosleep(&(struct timespec){0, 10000000}, NULL);
	}
	return false;
}

/* True if a and b show one memory image (stat fields 28 and 48, both
 * known and equal): no execve(2) in between. */
static bool same_image(const struct runx_proc_stat *a,
		       const struct runx_proc_stat *b)
{
	return a->start_stack != 0 && a->start_stack == b->start_stack &&
	       a->arg_start == b->arg_start;
}

static void reap(pid_t pid)
{
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
}

START_TEST(own_stat_fields)
{
	struct runx_proc_stat st;

	ck_assert_int_eq(runx_proc_stat(getpid(), &st), 0);
	ck_assert_int_eq(st.pid, getpid());
	ck_assert_int_eq(st.ppid, getppid());
	ck_assert_int_eq(st.pgrp, getpgrp());
	ck_assert_int_eq(st.session, getsid(0));
	ck_assert(st.state == 'R');
	ck_assert(st.start_time > 0);
	ck_assert(st.start_stack != 0);
	ck_assert(st.arg_start != 0);
	ck_assert(!runx_proc_is_dead(&st));
}
END_TEST

/*
 * A line as Linux 6.18 wrote it for a process being released (state X),
 * read by a walk of /proc during a test run: its process group and
 * session are -1.  Before, the walk failed with EINVAL on it, and a stop
 * said "cannot list the processes of the scope" for any process of the
 * machine that exited at that moment.
 */
START_TEST(a_process_being_released)
{
	char line[] = "29139 (sleep) X 0 -1 -1 0 -1 4228108 460 0 0 0 0 1 0 0 "
		      "20 0 0 0 3232445 0 0 0 0 0 0 0 0 0 0 0 0 1 0 0 17 1 0 "
		      "0 0 0 0 0 0 0 0 0 0 0 0\n";
	struct runx_proc_stat st;

	ck_assert_int_eq(runx_proc_parse_stat(line, 29139, &st), 0);
	ck_assert_int_eq(st.pid, 29139);
	ck_assert(st.state == 'X');
	ck_assert_int_eq(st.ppid, 0);
	ck_assert_int_eq(st.pgrp, -1);
	ck_assert_int_eq(st.session, -1);
	ck_assert_int_eq(st.threads, 0); /* released: none counts */
	ck_assert(st.start_time == 3232445);
	ck_assert(runx_proc_is_dead(&st));
}
END_TEST

/* A line with every field, and the same with one field that is not one:
 * an error, as any line that is not of /proc/PID/stat. */
START_TEST(a_line_that_is_not_one)
{
	char none[] = "";
	char no_state[] = "12 (sh)";
	char valid[] =
	    "12 (sh) S 1 12 12 0 -1 4194304 0 0 0 0 0 0 0 0 20 0 1 0 "
	    "5 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 "
	    "0 0 0";
	char signed_ppid[] =
	    "12 (sh) S -1 12 12 0 -1 4194304 0 0 0 0 0 0 0 0 20 0 1 0 "
	    "5 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 "
	    "0 0 0";
	char dash_only[] =
	    "12 (sh) S 1 - 12 0 -1 4194304 0 0 0 0 0 0 0 0 20 0 1 0 5 "
	    "0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 "
	    "0 0";
	struct runx_proc_stat st;

	ck_assert_int_eq(runx_proc_parse_stat(valid, 12, &st), 0);
	ck_assert_int_eq(st.ppid, 1);
	ck_assert_int_eq(st.pgrp, 12);
	ck_assert_int_eq(st.threads, 1);
	ck_assert(st.start_time == 5);
	ck_assert_int_eq(runx_proc_parse_stat(none, 12, &st), -EINVAL);
	ck_assert_int_eq(runx_proc_parse_stat(no_state, 12, &st), -EINVAL);
	ck_assert_int_eq(runx_proc_parse_stat(signed_ppid, 12, &st), -EINVAL);
	ck_assert_int_eq(runx_proc_parse_stat(dash_only, 12, &st), -EINVAL);
}
END_TEST

/* pid 12's line with every field, field 9 (flags) and 31 (pending
 * signals) as %u (snprintf(3)) */
#define STAT_LINE_PENDING                                                      \
	"12 (sh) S 1 12 12 0 -1 %u 0 0 0 0 0 0 0 0 20 0 1 0 5 0 0 0 0 0 0 0 "  \
	"0 %u 0 2 0 0 0 0 17 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0"

/*
 * Field 31 is the main thread's pending signals: SIGKILL there (bit 8,
 * queued by complete_signal() to every thread of a process that a
 * signal ends, as it is sent) makes the process exiting, though its state
 * is still S and it has not run since; another pending signal does not.
 * Field 33 (ignored) is read apart from it.  A signal is ending it then,
 * as it is one in do_exit() that PF_SIGNALED marks; one in do_exit()
 * without it exits on its own.
 */
START_TEST(a_pending_sigkill_is_exiting)
{
	const unsigned rnd = 0x400000, exiting = 0x4, signaled = 0x400;
	char line[256];
	struct runx_proc_stat st;

	snprintf(line, sizeof(line), STAT_LINE_PENDING, rnd,
		 1u << (SIGKILL - 1));
	ck_assert_int_eq(runx_proc_parse_stat(line, 12, &st), 0);
	ck_assert(st.pending == 256);
	ck_assert(st.ignored == 2); /* SIGINT, read apart from it */
	ck_assert_int_eq(st.exit_signal, 17);
	ck_assert(!runx_proc_is_dead(&st));
	ck_assert(runx_proc_is_exiting(&st));
	ck_assert(runx_proc_is_dying_of_signal(&st));
	snprintf(line, sizeof(line), STAT_LINE_PENDING, rnd,
		 1u << (SIGUSR1 - 1));
	ck_assert_int_eq(runx_proc_parse_stat(line, 12, &st), 0);
	ck_assert(st.pending == 512);
	ck_assert(!runx_proc_is_exiting(&st));
	ck_assert(!runx_proc_is_dying_of_signal(&st));
	/* in do_exit(): of a signal, or on its own (a pid that may hop) */
	snprintf(line, sizeof(line), STAT_LINE_PENDING,
		 rnd | exiting | signaled, 0u);
	ck_assert_int_eq(runx_proc_parse_stat(line, 12, &st), 0);
	ck_assert(runx_proc_is_exiting(&st));
	ck_assert(runx_proc_is_dying_of_signal(&st));
	snprintf(line, sizeof(line), STAT_LINE_PENDING, rnd | exiting, 0u);
	ck_assert_int_eq(runx_proc_parse_stat(line, 12, &st), 0);
	ck_assert(runx_proc_is_exiting(&st));
	ck_assert(!runx_proc_is_dying_of_signal(&st));
	/* SIGKILL taken off the queue, PF_EXITING not set yet (a core dump,
	 * a tracer's exit stop): exiting too */
	snprintf(line, sizeof(line), STAT_LINE_PENDING, rnd | signaled, 0u);
	ck_assert_int_eq(runx_proc_parse_stat(line, 12, &st), 0);
	ck_assert(runx_proc_is_dying_of_signal(&st));
	ck_assert(runx_proc_is_exiting(&st));
}
END_TEST

/* The status text of a process: state, threads and the signal lines. */
static void status_text(char *buf, size_t size, char state, int threads,
			unsigned long long shd, unsigned long long pnd,
			unsigned long long blk, unsigned long long cgt)
{
	snprintf(buf, size,
		 "Name:\tsleep\nUmask:\t0022\nState:\t%c (x)\nTgid:\t7\n"
		 "Threads:\t%d\nSigQ:\t1/1000\nSigPnd:\t%016llx\n"
		 "ShdPnd:\t%016llx\nSigBlk:\t%016llx\n"
		 "SigIgn:\t0000000000001000\nSigCgt:\t%016llx\n"
		 "CapInh:\t0000000000000000\n",
		 state, threads, pnd, shd, blk, cgt);
}

/*
 * /proc/PID/status: a signal pending that ends the process, neither
 * blocked, ignored nor caught, on one thread not stopped nor traced, is a
 * process dying (the SIGTERM complete_signal() made a group exit of stays
 * in ShdPnd); any of those otherwise is not.
 */
START_TEST(a_pending_fatal_signal_in_status_is_ending)
{
	const unsigned long long term = 1ULL << (SIGTERM - 1),
				 chld = 1ULL << (SIGCHLD - 1),
				 rt40 = 1ULL << (40 - 1),
				 pipe = 1ULL << (SIGPIPE - 1);
	char t[1024];

	status_text(t, sizeof(t), 'R', 1, term, 0, 0, 0);
	ck_assert(runx_proc_status_signal_ending(t));
	status_text(t, sizeof(t), 'S', 1, 0, rt40, 0, 0);
	ck_assert(runx_proc_status_signal_ending(t));
	status_text(t, sizeof(t), 'R', 1, term, 0, 0, term); /* caught */
	ck_assert(!runx_proc_status_signal_ending(t));
	status_text(t, sizeof(t), 'R', 1, term, 0, term, 0); /* blocked */
	ck_assert(!runx_proc_status_signal_ending(t));
	status_text(t, sizeof(t), 'R', 1, pipe, 0, 0, 0); /* ignored (SigIgn) */
	ck_assert(!runx_proc_status_signal_ending(t));
	status_text(t, sizeof(t), 'T', 1, term, 0, 0, 0); /* stopped */
	ck_assert(!runx_proc_status_signal_ending(t));
	status_text(t, sizeof(t), 't', 1, term, 0, 0, 0); /* traced */
	ck_assert(!runx_proc_status_signal_ending(t));
	status_text(t, sizeof(t), 'R', 2, term, 0, 0, 0); /* two threads */
	ck_assert(!runx_proc_status_signal_ending(t));
	status_text(t, sizeof(t), 'R', 1, chld, chld, 0, 0); /* ends none */
	ck_assert(!runx_proc_status_signal_ending(t));
	ck_assert(!runx_proc_status_signal_ending("State:\tR (running)\n"));
	ck_assert(!runx_proc_status_signal_ending(""));
	/* runx's own: nothing pending */
	ck_assert(!runx_proc_signal_ending(getpid()));
	ck_assert(!runx_proc_signal_ending(-1));
	ck_assert_int_lt(runx_proc_tracer(-1), 0); /* no such file */
}
END_TEST

START_TEST(a_name_with_parentheses_and_spaces)
{
	struct runx_proc_stat st;
	int go;
	pid_t pid = fork_waiting("a) b (c) 1 2", &go);

	/* until the name is set, the child may still show the old one */
	for (int i = 0; i < 300; i++) {
		char comm[64] = "";
		char path[64];
		snprintf(path, sizeof(path), "/proc/%d/comm", (int)pid);
		FILE *f = fopen(path, "r");
		if (f != NULL) {
			(void)!fgets(comm, sizeof(comm), f);
			fclose(f);
		}
		if (strncmp(comm, "a) b (c)", 8) == 0)
			break;
		nanosleep(&(struct timespec){0, 10000000}, NULL);
	}
	ck_assert_int_eq(runx_proc_stat(pid, &st), 0);
	ck_assert_int_eq(st.ppid, getpid());
	ck_assert_int_eq(st.pgrp, getpgrp());
	ck_assert(st.state == 'S' || st.state == 'R');
	close(go);
	reap(pid);
}
END_TEST

START_TEST(a_fork_copy_until_its_exec)
{
	struct runx_proc_stat before, after, self;
	struct sigaction sa = {.sa_handler = on_usr1};
	int go;

	sigemptyset(&sa.sa_mask);
	ck_assert_int_eq(sigaction(SIGUSR1, &sa, NULL), 0);
	pid_t pid = fork_waiting("copy", &go);

	ck_assert_int_eq(runx_proc_stat(pid, &before), 0);
	ck_assert_int_eq(runx_proc_stat(getpid(), &self), 0);
	/* the child's image is this process's: a copy, with its handler */
	ck_assert(runx_proc_is_fork_copy(&before));
	ck_assert(same_image(&before, &self));
	ck_assert(runx_proc_may_divert(&before, SIGUSR1));
	ck_assert(!runx_proc_may_divert(&before, SIGUSR2));
	ck_assert(!runx_proc_may_divert(&before, SIGKILL));
	ck_assert(!runx_proc_may_divert(&before, SIGCONT));
	ck_assert(!runx_proc_may_divert(&before, 0));
	ck_assert(runx_proc_may_divert(&before, SIGRTMIN)); /* not shown */

	ck_assert_int_eq(write(go, "x", 1), 1);
	ck_assert(wait_exec(pid, &after));
	/* after execve(2): a new image, the same incarnation, no handler */
	ck_assert(!same_image(&before, &after));
	ck_assert(after.start_time == before.start_time);
	ck_assert(after.start_stack != 0);
	ck_assert(!runx_proc_may_divert(&after, SIGUSR1));
	close(go);
	reap(pid);
}
END_TEST

/*
 * A copy whose parent has exited (re-parented to a reaper running
 * another image) still runs the handlers it inherited: still a copy,
 * until its own execve(2).
 */
START_TEST(an_orphaned_copy_is_still_one)
{
	struct runx_proc_stat st;
	int p[2], go[2], status;
	pid_t g = 0;

	ck_assert_int_eq(pipe(p), 0);
	ck_assert_int_eq(pipe(go), 0);
	pid_t a = fork();
	ck_assert_int_ge(a, 0);
	if (a == 0) {
		pid_t c = fork();
		if (c == 0) {
			char x;
			close(go[1]);
			if (read(go[0], &x, 1) == 1)
				execl("/bin/sleep", "sleep", "30",
				      (char *)NULL);
			_exit(127);
		}
		(void)!write(p[1], &c, sizeof(c));
		_exit(c > 0 ? 0 : 1);
	}
	close(go[0]);
	close(p[1]);
	ck_assert_int_eq(read(p[0], &g, sizeof(g)), (ssize_t)sizeof(g));
	close(p[0]);
	ck_assert_int_eq(waitpid(a, &status, 0), a);
	ck_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	int fd = runx_pidfd_open(g, 0);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(runx_proc_stat(g, &st), 0);
	ck_assert_int_ne(st.ppid, a); /* re-parented: its parent is gone */
	ck_assert(runx_proc_is_fork_copy(&st));
	ck_assert_int_eq(write(go[1], "x", 1), 1);
	ck_assert(wait_exec(g, &st));
	ck_assert(!runx_proc_is_fork_copy(&st));
	close(go[1]);
	/* not this process's child: its reaper reaps it */
	ck_assert_int_eq(runx_pidfd_send_signal(fd, SIGKILL), 0);
	close(fd);
}
END_TEST

START_TEST(pidfd_info_names_the_parent)
{
	int go;
	pid_t pid = fork_waiting("child", &go), ppid = 0;
	int fd = runx_pidfd_open(pid, 0);

	ck_assert_int_ge(fd, 0);
	if (runx_pidfd_ppid(fd, &ppid) == 0) {
		ck_assert_int_eq(ppid, getpid());
	} else {
		/* a kernel before 6.13: the caller falls back to /proc */
		ck_assert(errno == ENOTTY || errno == EINVAL);
	}
	close(go);
	kill(pid, SIGKILL);
	siginfo_t si;
	ck_assert_int_eq(waitid(P_PID, (id_t)pid, &si, WEXITED | WNOWAIT), 0);
	/* a zombie: still this process's child, or gone (kernels differ) */
	ppid = 0;
	if (runx_pidfd_ppid(fd, &ppid) == 0)
		ck_assert_int_eq(ppid, getpid());
	else
		ck_assert(errno == ESRCH || errno == ENOTTY || errno == EINVAL);
	waitpid(pid, NULL, 0);
	/* reaped: ESRCH where the kernel has the ioctl */
	if (runx_pidfd_ppid(fd, &ppid) == 0)
		ck_abort_msg("PIDFD_GET_INFO answered for a reaped process");
	ck_assert(errno == ESRCH || errno == ENOTTY || errno == EINVAL);
	close(fd);
}
END_TEST

START_TEST(a_zombie_shows_no_image)
{
	struct runx_proc_stat st;
	pid_t pid = fork();

	ck_assert_int_ge(pid, 0);
	if (pid == 0)
		_exit(0);
	siginfo_t si;
	ck_assert_int_eq(waitid(P_PID, (id_t)pid, &si, WEXITED | WNOWAIT), 0);
	ck_assert_int_eq(runx_proc_stat(pid, &st), 0);
	ck_assert(runx_proc_is_dead(&st));
	ck_assert(st.start_stack == 0);
	ck_assert(!runx_proc_is_fork_copy(&st));
	waitpid(pid, NULL, 0);
	ck_assert_int_eq(runx_proc_stat(pid, &st), -ENOENT);
}
END_TEST

/* Counts the walk's entries and notes whether pid (*arg) was one. */
static int count_entry(const struct runx_proc_stat *st, void *arg)
{
	pid_t *seen = arg;

	if (st->pid == seen[0])
		seen[1] = 1;
	seen[2]++;
	return 0;
}

/* runx_proc_each_unknown()'s known: this process only. */
static bool is_self(pid_t pid, void *arg)
{
	(void)arg;
	return pid == getpid();
}

START_TEST(a_walk_passes_over_known_pids)
{
	pid_t all[3] = {getpid(), 0, 0}, unknown[3] = {getpid(), 0, 0};

	ck_assert_int_eq(runx_proc_each(count_entry, all), 0);
	ck_assert_int_eq(runx_proc_each_unknown(is_self, count_entry, unknown),
			 0);
	ck_assert_int_eq(all[1], 1);	 /* listed */
	ck_assert_int_eq(unknown[1], 0); /* passed over */
	ck_assert_int_ge(unknown[2], 1);
}
END_TEST

START_TEST(the_last_pid_moves_with_a_fork)
{
	long before = runx_proc_last_pid();
	pid_t pid = fork();

	ck_assert_int_ge(pid, 0);
	if (pid == 0)
		_exit(0);
	long after = runx_proc_last_pid();
	waitpid(pid, NULL, 0);
	ck_assert_int_gt(before, 0);
	ck_assert_int_ne(after, before); /* the fork allocated a pid */
}
END_TEST

/* Three children, alive until the pipe closes: runx_proc_children() lists
 * each once (in any order), then at most max of them, and none for a
 * pid that is gone. */
START_TEST(the_children_are_listed)
{
	pid_t kids[3], got[8];
	int go[2];

	ck_assert_int_eq(pipe(go), 0);
	for (int i = 0; i < 3; i++) {
		kids[i] = fork();
		ck_assert_int_ge(kids[i], 0);
		if (kids[i] == 0) {
			char c;
			close(go[1]);
			(void)!read(go[0], &c, 1);
			_exit(0);
		}
	}
	close(go[0]);
	int n = runx_proc_children(getpid(), got, 8);
	int one = runx_proc_children(getpid(), got + 4, 1);
	close(go[1]);
	for (int i = 0; i < 3; i++)
		waitpid(kids[i], NULL, 0);
	ck_assert_int_eq(n, 3);
	for (int i = 0; i < 3; i++) {
		int found = 0;
		for (int j = 0; j < n; j++)
			found += got[j] == kids[i];
		ck_assert_int_eq(found, 1);
	}
	ck_assert_int_eq(one, 1);
	ck_assert(got[4] == kids[0] || got[4] == kids[1] || got[4] == kids[2]);
	ck_assert_int_eq(runx_proc_children(kids[0], got, 8), -ENOENT);
}
END_TEST

/* Forks a child that lives until go[1] is closed (or written to);
 * returns its pid. */
static pid_t fork_until_closed(const int go[2])
{
	pid_t pid = fork();

	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		char c;
		close(go[1]);
		(void)!read(go[0], &c, 1);
		_exit(0);
	}
	return pid;
}

START_TEST(the_pids_allocated_since_are_read)
{
	pid_t seen[3] = {0, 0, 0};
	int go[2];

	ck_assert_int_eq(pipe(go), 0);
	long before = runx_proc_last_pid();
	pid_t pid = fork_until_closed(go);
	close(go[0]);
	long after = runx_proc_last_pid();
	seen[0] = pid;
	int r = runx_proc_each_allocated(before, after, count_entry, seen);
	close(go[1]);
	waitpid(pid, NULL, 0);
	ck_assert_int_eq(r, 0);
	ck_assert_int_eq(seen[1], 1); /* the child was read */
	/* nothing allocated since: no pid read */
	seen[1] = seen[2] = 0;
	ck_assert_int_eq(
	    runx_proc_each_allocated(after, after, count_entry, seen), 0);
	ck_assert_int_eq(seen[2], 0);
}
END_TEST

/* A thread that writes its id to fds[1], then waits for fds[2] to have
 * something to read (or to close). */
static void *tell_and_wait(void *arg)
{
	int *fds = arg;
	pid_t tid = gettid();
	char c;

	(void)!write(fds[1], &tid, sizeof(tid));
	(void)!read(fds[2], &c, 1);
	return NULL;
}

/*
 * A thread's id is allocated as a pid is, and /proc/TID/stat can be read
 * though /proc does not list it, with exit_signal -1 (field 38).  A walk
 * of the ids allocated since passes over it, and still reads a process
 * forked in the same window.
 */
START_TEST(a_thread_is_no_process_of_a_window)
{
	int told[2], go[2], fds[3];
	pid_t tid = 0, seen[3] = {0, 0, 0};
	struct runx_proc_stat st;
	pthread_t t;

	ck_assert_int_eq(pipe(told), 0);
	ck_assert_int_eq(pipe(go), 0);
	fds[1] = told[1];
	fds[2] = go[0];
	long before = runx_proc_last_pid();
	ck_assert_int_eq(pthread_create(&t, NULL, tell_and_wait, fds), 0);
	ck_assert_int_eq(read(told[0], &tid, sizeof(tid)), sizeof(tid));
	pid_t pid = fork_until_closed(go);
	long after = runx_proc_last_pid();
	ck_assert_int_eq(runx_proc_stat(tid, &st), 0);
	ck_assert_int_eq(st.exit_signal, -1);
	ck_assert_int_eq(runx_proc_stat(getpid(), &st), 0);
	ck_assert_int_ne(st.exit_signal, -1);
	/* another process of the machine may have ids in the window too:
	 * only the thread and the child are looked for */
	for (int since = 0; since < 2; since++) {
		int (*each)(long, long,
			    int (*)(const struct runx_proc_stat *, void *),
			    void *) =
		    since ? runx_proc_each_since : runx_proc_each_allocated;
		seen[0] = tid;
		seen[1] = 0;
		ck_assert_int_eq(each(before, after, count_entry, seen), 0);
		ck_assert_int_eq(seen[1], 0); /* the thread: passed over */
		seen[0] = pid;
		seen[1] = 0;
		ck_assert_int_eq(each(before, after, count_entry, seen), 0);
		ck_assert_int_eq(seen[1], 1); /* the child: read */
	}
	close(go[1]);
	pthread_join(t, NULL);
	waitpid(pid, NULL, 0);
}
END_TEST

/* The listing holds this process and its child, in ascending order. */
START_TEST(a_listing_holds_every_process_in_order)
{
	int go[2];
	pid_t *pids = NULL;
	size_t n = 0;
	bool self = false, child = false;

	ck_assert_int_eq(pipe(go), 0);
	pid_t pid = fork_until_closed(go);
	close(go[0]);
	ck_assert_int_eq(runx_proc_list(&pids, &n), 0);
	close(go[1]);
	waitpid(pid, NULL, 0);
	ck_assert_uint_gt(n, 2);
	for (size_t i = 0; i < n; i++) {
		if (i > 0)
			ck_assert_int_lt(pids[i - 1], pids[i]);
		self = self || pids[i] == getpid();
		child = child || pids[i] == pid;
	}
	free(pids);
	ck_assert(self && child);
}
END_TEST

START_TEST(a_pidset_finds_each_incarnation)
{
	struct runx_pidset set = {0};
	struct runx_proc_stat p = {0};

	/* 3000 pids, each in two incarnations (a reused pid) */
	for (int i = 0; i < 6000; i++) {
		p.pid = (pid_t)(1 + (i % 3000) * 7);
		p.start_time = (unsigned long long)(i / 3000 + 1);
		ck_assert(!runx_pidset_has(&set, &p));
		ck_assert_int_eq(runx_pidset_add(&set, &p, i % 2 == 0), 0);
	}
	ck_assert_uint_eq(set.n, 6000);
	for (int i = 0; i < 6000; i++) {
		p.pid = (pid_t)(1 + (i % 3000) * 7);
		p.start_time = (unsigned long long)(i / 3000 + 1);
		struct runx_pidset_entry *e = runx_pidset_find(&set, &p);
		ck_assert_ptr_nonnull(e);
		ck_assert_int_eq(e->pid, p.pid);
		ck_assert(e->start_time == p.start_time);
		ck_assert(e->fork_copy == (i % 2 == 0));
	}
	p.pid = 2; /* never added */
	p.start_time = 1;
	ck_assert(!runx_pidset_has(&set, &p));
	p.pid = 1; /* added, but not this incarnation */
	p.start_time = 3;
	ck_assert(!runx_pidset_has(&set, &p));
	runx_pidset_free(&set);
	ck_assert_uint_eq(set.n, 0);
	ck_assert(!runx_pidset_has(&set, &p));
}
END_TEST

/* runx_pidbits_forget_range(lo, hi) against an array of flags: every
 * range around the byte edges, on a set with every pid up to 100. */
START_TEST(pidbits_forget_exactly_the_range)
{
	for (long lo = -1; lo <= 40; lo++) {
		for (long hi = lo - 1; hi <= 60; hi++) {
			struct runx_pidbits b = {NULL, 0};
			bool want[200] = {false};
			for (pid_t p = 1; p <= 100; p++) {
				ck_assert_int_eq(runx_pidbits_add(&b, p), 0);
				want[p] = true;
			}
			runx_pidbits_forget_range(&b, lo, hi);
			for (long p = lo + 1; p <= hi; p++)
				if (p > 0)
					want[p] = false;
			for (pid_t p = 0; p < 200; p++)
				ck_assert_msg(
				    runx_pidbits_has(&b, p) == want[p],
				    "pid %d after forgetting (%ld, %ld]",
				    (int)p, lo, hi);
			runx_pidbits_free(&b);
		}
	}
}
END_TEST

/* A pid far beyond the bitmap: added (it grows), a range past its end
 * (nothing to clear), cleared, freed. */
START_TEST(pidbits_grow_clear_and_free)
{
	struct runx_pidbits b = {NULL, 0};

	ck_assert(!runx_pidbits_has(&b, 1));
	runx_pidbits_forget_range(&b, 0, 4194304); /* empty: no memory */
	runx_pidbits_clear(&b);
	ck_assert_int_eq(runx_pidbits_add(&b, 4194304), 0);
	ck_assert(runx_pidbits_has(&b, 4194304));
	ck_assert(!runx_pidbits_has(&b, 4194303));
	ck_assert(!runx_pidbits_has(&b, 0));
	ck_assert(!runx_pidbits_has(&b, -1));
	ck_assert_int_eq(runx_pidbits_add(&b, 7), 0);
	runx_pidbits_forget_range(&b, 4194303, 99999999);
	ck_assert(!runx_pidbits_has(&b, 4194304));
	ck_assert(runx_pidbits_has(&b, 7));
	runx_pidbits_forget(&b, 7);
	ck_assert(!runx_pidbits_has(&b, 7));
	runx_pidbits_forget(NULL, 7);
	ck_assert_int_eq(runx_pidbits_add(&b, 9), 0);
	runx_pidbits_clear(&b);
	ck_assert(!runx_pidbits_has(&b, 9));
	runx_pidbits_free(&b);
	ck_assert_ptr_null(b.bits);
	ck_assert_uint_eq(b.size, 0);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("proc");
	TCase *tc = tcase_create("stat");

	tcase_add_test(tc, own_stat_fields);
	tcase_add_test(tc, a_process_being_released);
	tcase_add_test(tc, a_line_that_is_not_one);
	tcase_add_test(tc, a_pending_sigkill_is_exiting);
	tcase_add_test(tc, a_pending_fatal_signal_in_status_is_ending);
	tcase_add_test(tc, a_name_with_parentheses_and_spaces);
	tcase_add_test(tc, a_fork_copy_until_its_exec);
	tcase_add_test(tc, a_zombie_shows_no_image);
	tcase_add_test(tc, an_orphaned_copy_is_still_one);
	tcase_add_test(tc, pidfd_info_names_the_parent);
	tcase_add_test(tc, a_walk_passes_over_known_pids);
	tcase_add_test(tc, the_last_pid_moves_with_a_fork);
	tcase_add_test(tc, the_children_are_listed);
	tcase_add_test(tc, the_pids_allocated_since_are_read);
	tcase_add_test(tc, a_thread_is_no_process_of_a_window);
	tcase_add_test(tc, a_listing_holds_every_process_in_order);
	tcase_add_test(tc, a_pidset_finds_each_incarnation);
	tcase_add_test(tc, pidbits_forget_exactly_the_range);
	tcase_add_test(tc, pidbits_grow_clear_and_free);
	suite_add_tcase(s, tc);
	return run_suite(s);
}
