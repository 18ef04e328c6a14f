/*
 * A whole attempt (attempt.h: acquire, start, supervise, release), planned
 * from parsed options (runx_plan_make) and carried out against the test
 * binary as its own helper (helper.h): a command that ignores SIGTERM
 * past a short deadline ends 124 (-p: 137) after TERM, CONT and KILL, and
 * one that exits 3 ends 3.  Each runs in every scope the machine allows.
 * The test process blocks the signals runx blocks, as runx's main() does,
 * before the supervisor's signalfd is opened.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "attempt.h"
#include "clock.h"
#include "common.h"
#include "exit_status.h"
#include "helper.h"
#include "options.h"
#include "plan.h"
#include "sigmask.h"
#include "syscalls.h"

extern char **environ;

#define MS 1000000LL /* nanoseconds */

/* The scopes, as --kill-scope names them. */
static const struct {
	const char *option;
	enum runx_scope_kind kind;
} scopes[] = {
    {"--kill-scope=group", RUNX_SCOPE_GROUP},
    {"--kill-scope=tree", RUNX_SCOPE_TREE},
    {"--kill-scope=child", RUNX_SCOPE_CHILD},
    {"--kill-scope=cgroup", RUNX_SCOPE_CGROUP},
    {"--kill-scope=pidns", RUNX_SCOPE_PIDNS},
};

/* What an attempt came to. */
struct outcome {
	int status;		/* runx's exit status */
	struct runx_result res; /* the attempt's result */
	int child_pidfd;	/* the direct child's, kept past release */
	int command_pidfd;	/* the command's (pidns: not the init) */
	int64_t elapsed_ns;	/* acquire to release */
	char output[64];	/* what the helper wrote */
};

static char self[PATH_MAX];
static char dir[64];
static char out_path[PATH_MAX];
static sigset_t orig_mask;
static struct runx_attempt attempt; /* large: not on the stack */
static struct outcome got;

/*
 * Per test, in its own process: the signals blocked as runx's main()
 * blocks them, and SIGTERM ignored, so that the helper ignores it from
 * its first instruction on (runx keeps what it found ignored, launch.h):
 * a deadline of 0.3 s cannot beat the helper's own sigaction(2).
 */
static void setup(void)
{
	ck_assert_int_eq(helper_self(self, sizeof(self)), 0);
	ck_assert_int_eq(runx_signals_block(&orig_mask), 0);
	signal(SIGTERM, SIG_IGN);
	snprintf(dir, sizeof(dir), "/tmp/check_supervise.XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(dir));
	leftover_note(dir);
	snprintf(out_path, sizeof(out_path), "%s/out", dir);
	leftover_note(out_path);
}

/* "runx WORDS -o OUT HELPER --helper MODE..." into argv; its argc. */
static int command_line(char **argv, const char *const *words,
			const char *const *mode)
{
	int argc = 0;

	argv[argc++] = (char *)"runx";
	for (; *words != NULL; words++)
		argv[argc++] = (char *)*words;
	argv[argc++] = (char *)"-o";
	argv[argc++] = out_path;
	argv[argc++] = self;
	argv[argc++] = (char *)"--helper";
	for (; *mode != NULL; mode++)
		argv[argc++] = (char *)*mode;
	argv[argc] = NULL;
	return argc;
}

/* Starts the planned attempt a, keeping pidfds of what it started. */
static void start(struct runx_attempt *a, const struct runx_attempt_env *env)
{
	char where[PATH_MAX + 64];

	runx_attempt_init(a, 1);
	ck_assert_msg(runx_attempt_acquire(a, env) == 0, "acquire: %s",
		      a->result.error);
	runx_scope_describe(&a->scope, where, sizeof(where));
	if (strncmp(where, "cgroup /", 8) == 0)
		leftover_note(where + 7);
	ck_assert_msg(runx_attempt_start(a, env) == 0, "start: %s",
		      a->result.error);
	got.child_pidfd = fcntl(a->child.pidfd, F_DUPFD_CLOEXEC, 3);
	ck_assert_int_ge(got.child_pidfd, 0);
	/* in a pid namespace the init may have reaped a quick command */
	got.command_pidfd = -1;
	if (a->result.command_pid == a->child.pid)
		got.command_pidfd = fcntl(a->child.pidfd, F_DUPFD_CLOEXEC, 3);
	else if (a->result.command_pid > 0)
		got.command_pidfd = runx_pidfd_open(a->result.command_pid, 0);
	ck_assert(got.command_pidfd >= 0 || errno == ESRCH);
}

/* Reads what the helper wrote to its -o file into got.output. */
static void read_output(void)
{
	int fd = open(out_path, O_RDONLY | O_CLOEXEC);

	ck_assert_int_ge(fd, 0);
	ssize_t n = read(fd, got.output, sizeof(got.output) - 1);
	close(fd);
	got.output[n > 0 ? n : 0] = '\0';
}

/*
 * Parses words and the helper's mode as runx's command line, plans it,
 * and runs one attempt from acquire to release, as runx_run() does,
 * into got.
 */
static void run_attempt(const char *const *words, const char *const *mode)
{
	char *argv[32], err[PATH_MAX + 256];
	struct runx_options opts;
	struct runx_plan plan;
	struct runx_stdio stdio;
	struct runx_supervisor sup = RUNX_SUPERVISOR_CLOSED;
	int argc = command_line(argv, words, mode);

	ck_assert_int_eq(
	    runx_options_parse(argc, argv, &opts, err, sizeof(err)),
	    RUNX_PARSE_OK);
	ck_assert_msg(runx_plan_make(&opts, NULL, &plan, err, sizeof(err)) == 0,
		      "plan: %s", err);
	ck_assert_msg(runx_stdio_open(&plan.redirects, &plan.stop.stop_signals,
				      0, &stdio, err, sizeof(err)) == 0,
		      "stdio: %s", err);
	ck_assert_int_eq(runx_supervisor_open(&sup, &plan), 0);
	const struct runx_attempt_env env = {&plan, &stdio, &sup, &orig_mask,
					     environ};
	int64_t t0 = runx_now_ns();
	start(&attempt, &env);
	got.status = runx_attempt_supervise(&attempt, &env);
	ck_assert_int_eq(runx_attempt_release(&attempt, got.status),
			 got.status);
	got.elapsed_ns = runx_now_ns() - t0;
	got.res = attempt.result;
	runx_stdio_close(&stdio);
	runx_supervisor_close(&sup);
	read_output();
}

/* Nothing the attempt started is left: dead, and reaped by runx. */
static void check_nothing_left(void)
{
	int fds[] = {got.child_pidfd, got.command_pidfd};
	siginfo_t si;

	for (int i = 0; i < NELEM(fds); i++) {
		struct pollfd p = {fds[i], POLLIN, 0};
		if (fds[i] < 0)
			continue; /* gone before it could be pinned */
		ck_assert_int_eq(poll(&p, 1, 0), 1); /* exited */
		ck_assert_int_eq(runx_pidfd_send_signal(fds[i], 0), -1);
		ck_assert_int_eq(errno, ESRCH);
		close(fds[i]);
	}
	/* no child of the test process (the tree's subreaper) is left */
	ck_assert_int_eq(waitid(P_ALL, 0, &si, WEXITED | WNOHANG | WNOWAIT),
			 -1);
	ck_assert_int_eq(errno, ECHILD);
}

/*
 * TERM at the deadline, CONT with it, KILL when the grace period ran
 * out; then only KILL again (re-sent while anything is left).  Lower
 * bounds only: a timerfd never fires early.
 */
static void check_term_cont_kill(void)
{
	const struct runx_signal_log *log = &got.res.signals;
	int n = runx_signal_log_listed(log);

	ck_assert_int_ge(n, 3);
	ck_assert_int_eq(runx_signal_log_at(log, 0)->signo, SIGTERM);
	ck_assert_int_eq(runx_signal_log_at(log, 1)->signo, SIGCONT);
	ck_assert_int_eq(runx_signal_log_at(log, 2)->signo, SIGKILL);
	for (int i = 3; i < n; i++)
		ck_assert_int_eq(runx_signal_log_at(log, i)->signo, SIGKILL);
	ck_assert_int_ge(runx_signal_log_at(log, 0)->reached, 1);
	ck_assert_int_ge(runx_signal_log_at(log, 0)->offset_ns,
			 300 * MS); /* -t 0.3 */
	ck_assert_int_ge(runx_signal_log_at(log, 2)->offset_ns -
			     runx_signal_log_at(log, 0)->offset_ns,
			 300 * MS); /* -k */
}

START_TEST(a_command_ignoring_term_is_killed_after_the_grace_and_ends_124)
{
	if (!scope_available(scopes[_i].kind))
		return;
	run_attempt((const char *const[]){"-t", "0.3", "-k", "0.3",
					  scopes[_i].option, NULL},
		    (const char *const[]){"ignore-term", NULL});
	ck_assert_int_eq(got.status, 124);
	ck_assert_int_eq(got.res.reason, RUNX_END_TIMEOUT);
	ck_assert_int_ge(got.res.killed, 1);
	ck_assert(WIFSIGNALED(got.res.wait_status));
	ck_assert_int_eq(WTERMSIG(got.res.wait_status), SIGKILL);
	ck_assert_str_eq(got.output, "ready\n"); /* it ran, ignoring TERM */
	ck_assert_int_ge(got.command_pidfd, 0);
	check_term_cont_kill();
	ck_assert_int_lt(got.elapsed_ns, 10000 * MS);
	check_nothing_left();
}
END_TEST

START_TEST(preserve_status_ends_137_for_the_kill)
{
	if (!scope_available(scopes[_i].kind))
		return;
	run_attempt((const char *const[]){"-p", "-t", "0.3", "-k", "0.3",
					  scopes[_i].option, NULL},
		    (const char *const[]){"ignore-term", NULL});
	ck_assert_int_eq(got.status, 128 + SIGKILL);
	ck_assert_int_eq(got.res.reason, RUNX_END_TIMEOUT);
	ck_assert_int_ge(got.res.killed, 1);
	check_term_cont_kill();
	ck_assert_int_lt(got.elapsed_ns, 10000 * MS);
	check_nothing_left();
}
END_TEST

START_TEST(a_command_exiting_3_before_the_deadline_ends_3)
{
	if (!scope_available(scopes[_i].kind))
		return;
	run_attempt((const char *const[]){"-t", "10", "-k", "0.3",
					  scopes[_i].option, NULL},
		    (const char *const[]){"exit", "3", NULL});
	ck_assert_int_eq(got.status, 3);
	ck_assert_int_eq(got.res.reason, RUNX_END_EXITED);
	ck_assert(WIFEXITED(got.res.wait_status));
	ck_assert_int_eq(WEXITSTATUS(got.res.wait_status), 3);
	ck_assert_int_eq(runx_signal_log_listed(&got.res.signals), 0);
	ck_assert_int_eq(got.res.killed, 0);
	ck_assert_int_eq(got.res.leftovers, 0);
	ck_assert_int_lt(got.elapsed_ns, 10000 * MS); /* not the deadline */
	check_nothing_left();
}
END_TEST

/* Adds to log a signal sig sent at offset k ns (forwarded or not). */
static void log_add(struct runx_signal_log *log, int sig, int k, bool fwd)
{
	const struct runx_signal_event e = {
	    .offset_ns = k, .signo = sig, .reached = 1, .to_command = false};

	runx_signal_log_add(log, &e, fwd);
}

START_TEST(the_signal_log_keeps_a_stops_signals_past_a_burst)
{
	struct runx_signal_log log;
	int k = 0;

	memset(&log, 0, sizeof(log));
	for (; k < 40; k++) /* forwarded: the first 32 are listed */
		log_add(&log, SIGRTMIN, k, true);
	ck_assert_int_eq(runx_signal_log_listed(&log), RUNX_SIGNALS_HEAD);
	ck_assert_int_eq(runx_signal_log_omitted(&log), 8);
	/* the stop: TERM, CONT, then 40 SIGKILLs re-sent, with a forwarded
	 * signal after each */
	log_add(&log, SIGTERM, k++, false);
	log_add(&log, SIGCONT, k++, false);
	for (int i = 0; i < 40; i++) {
		log_add(&log, SIGKILL, k++, false);
		log_add(&log, SIGRTMIN, k++, true);
	}
	int n = runx_signal_log_listed(&log);
	ck_assert_int_eq(n, RUNX_SIGNALS_HEAD + RUNX_SIGNALS_STOP_FIRST +
				RUNX_SIGNALS_STOP_LAST);
	/* 8 + 40 forwarded, and the 42 - 32 signals of the stop between its
	 * first 16 and its last 16 */
	ck_assert_int_eq(runx_signal_log_omitted(&log), 8 + 40 + 42 - 32);
	ck_assert_int_eq(runx_signal_log_at(&log, 31)->signo, SIGRTMIN);
	ck_assert_int_eq(runx_signal_log_at(&log, 32)->signo, SIGTERM);
	ck_assert_int_eq(runx_signal_log_at(&log, 33)->signo, SIGCONT);
	for (int i = 34; i < n; i++)
		ck_assert_int_eq(runx_signal_log_at(&log, i)->signo, SIGKILL);
	/* in the order sent, ending with the last SIGKILL */
	for (int i = 1; i < n; i++)
		ck_assert_int_lt(runx_signal_log_at(&log, i - 1)->offset_ns,
				 runx_signal_log_at(&log, i)->offset_ns);
	ck_assert_int_eq(runx_signal_log_at(&log, n - 1)->offset_ns, k - 2);
}
END_TEST

START_TEST(a_stops_signals_after_the_head_are_listed_in_order)
{
	struct runx_signal_log log;

	memset(&log, 0, sizeof(log));
	/* even k: a forwarded SIGHUP; odd k: a stop's SIGTERM */
	for (int k = 0; k < 50; k++)
		log_add(&log, k % 2 ? SIGTERM : SIGHUP, k, k % 2 == 0);
	/* 0..31, then the stop's 33, 35, ..., 49; the 9 forwarded ones
	 * from 32 to 48 are omitted */
	ck_assert_int_eq(runx_signal_log_listed(&log), 32 + 9);
	ck_assert_int_eq(runx_signal_log_omitted(&log), 9);
	for (int i = 0; i < 32; i++)
		ck_assert_int_eq(runx_signal_log_at(&log, i)->offset_ns, i);
	for (int i = 32; i < 41; i++)
		ck_assert_int_eq(runx_signal_log_at(&log, i)->offset_ns,
				 33 + 2 * (i - 32));
}
END_TEST

/* A give-up's cause, and 125 only when the SIGKILL reached not one. */
START_TEST(a_give_up_names_why_processes_outlived_sigkill)
{
	struct runx_stop_policy stop;
	struct runx_result res;

	memset(&stop, 0, sizeof(stop));
	memset(&res, 0, sizeof(res));
	res.reason = RUNX_END_EXITED;
	res.wait_status = 0; /* the command exited 0 */
	ck_assert_str_eq(runx_give_up_cause(&res), "");
	res.unkillable = 2;
	res.unkillable_d = 2;
	ck_assert_str_eq(runx_give_up_cause(&res), " (uninterruptible sleep)");
	ck_assert_int_eq(runx_exit_status(&stop, &res), 0);
	res.unkillable_d = 1;
	ck_assert_str_eq(runx_give_up_cause(&res), "");
	ck_assert_int_eq(runx_exit_status(&stop, &res), 0);
	res.unreached = true;
	ck_assert_str_eq(runx_give_up_cause(&res), " (not reached by it)");
	ck_assert_int_eq(runx_exit_status(&stop, &res), 125);
	res.unkillable_d = 0;
	ck_assert_str_eq(runx_give_up_cause(&res), " (not reached by it)");
}
END_TEST

/* The timerfds runx_supervisor_open() opens for words (options only):
 * each of deadline, grace, re-check, idle, true if open. */
struct timers {
	bool deadline, grace, recheck, idle;
};

static struct timers timers_for(const char *const *words)
{
	char *argv[16], err[PATH_MAX + 256];
	struct runx_options opts;
	struct runx_plan plan;
	struct runx_supervisor sup = RUNX_SUPERVISOR_CLOSED;
	int argc = 0;

	argv[argc++] = (char *)"runx";
	for (; *words != NULL; words++)
		argv[argc++] = (char *)*words;
	argv[argc++] = (char *)"--";
	argv[argc++] = (char *)"true";
	argv[argc] = NULL;
	ck_assert_int_eq(
	    runx_options_parse(argc, argv, &opts, err, sizeof(err)),
	    RUNX_PARSE_OK);
	ck_assert_msg(runx_plan_make(&opts, NULL, &plan, err, sizeof(err)) == 0,
		      "plan: %s", err);
	ck_assert_int_eq(runx_supervisor_open(&sup, &plan), 0);
	struct timers t = {sup.deadline_fd >= 0, sup.grace_fd >= 0,
			   sup.recheck_fd >= 0, sup.idle_fd >= 0};
	ck_assert_int_ge(sup.sigfd, 0);
	runx_supervisor_close(&sup);
	ck_assert_int_eq(sup.sigfd, -1);
	return t;
}

/* An option not used costs no system call: no deadline without -t or
 * --total-timeout, no idle timer without --idle-timeout; the grace and
 * re-check timers always, for a stop signal. */
START_TEST(only_the_timers_the_plan_needs_are_opened)
{
	static const char *const none[] = {NULL};
	static const char *const t5[] = {"-t", "5s", NULL};
	static const char *const total[] = {"--attempts=2",
					    "--total-timeout=9s", NULL};
	static const char *const idle[] = {"--idle-timeout=3s", NULL};
	struct timers t = timers_for(none);

	ck_assert(!t.deadline && t.grace && t.recheck && !t.idle);
	t = timers_for(t5);
	ck_assert(t.deadline && t.grace && t.recheck && !t.idle);
	t = timers_for(total);
	ck_assert(t.deadline && t.grace && t.recheck && !t.idle);
	t = timers_for(idle);
	ck_assert(!t.deadline && t.grace && t.recheck && t.idle);
}
END_TEST

int main(int argc, char **argv)
{
	HELPER_DISPATCH(argc, argv);
	Suite *s = suite_create("supervise");
	TCase *tc = tcase_create("attempt");

	tcase_add_checked_fixture(tc, setup, NULL);
	tcase_set_timeout(tc, 60);
	add_table_test(
	    tc, a_command_ignoring_term_is_killed_after_the_grace_and_ends_124,
	    scopes);
	add_table_test(tc, preserve_status_ends_137_for_the_kill, scopes);
	add_table_test(tc, a_command_exiting_3_before_the_deadline_ends_3,
		       scopes);
	suite_add_tcase(s, tc);
	TCase *log = tcase_create("signal log");
	tcase_add_test(log, the_signal_log_keeps_a_stops_signals_past_a_burst);
	tcase_add_test(log, a_stops_signals_after_the_head_are_listed_in_order);
	tcase_add_test(log, a_give_up_names_why_processes_outlived_sigkill);
	suite_add_tcase(s, log);
	TCase *fds = tcase_create("open");
	tcase_add_test(fds, only_the_timers_the_plan_needs_are_opened);
	suite_add_tcase(s, fds);
	leftovers_open();
	int status = run_suite(s);
	leftovers_clean();
	return status;
}
