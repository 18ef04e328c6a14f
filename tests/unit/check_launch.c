/*
 * runx_launch() (launch.h) with every backend, the test binary as its own
 * helper (helper.h): exec failures (126 vs 127), the child's fds 0-2 and
 * what else it inherits, its signal mask and dispositions, its session,
 * PR_SET_PDEATHSIG, and the pidfd handed back.  Each test runs once per
 * backend, in a process of its own (check's fork mode) that blocks the
 * signals runx blocks, as runx's main() does.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "attempt.h"
#include "common.h"
#include "helper.h"
#include "launch.h"
#include "sigmask.h"
#include "syscalls.h"

extern char **environ;

static const enum runx_launch_kind backends[] = {
    RUNX_LAUNCH_POSIX_SPAWN,
    RUNX_LAUNCH_FORK,
    RUNX_LAUNCH_VFORK,
    RUNX_LAUNCH_CLONE3,
};

static char self[PATH_MAX];	/* this binary: the helper */
static char dir[64];		/* a directory of the test's own */
static sigset_t child_mask;	/* HUP and WINCH: not the test's mask */
static struct runx_stdio stdio; /* fd 1: out_fd */
static int out_fd = -1;		/* the helper's output, a file */
static char line[2048];		/* the helper's facts */

/*
 * Per test, in its own process: signals blocked as runx blocks them, a
 * directory, and an output file opened as runx opens redirects
 * (O_CLOEXEC).
 */
static void setup(void)
{
	sigset_t orig;

	ck_assert_int_eq(helper_self(self, sizeof(self)), 0);
	ck_assert_int_eq(runx_signals_block(&orig), 0);
	sigemptyset(&child_mask);
	sigaddset(&child_mask, SIGHUP);
	sigaddset(&child_mask, SIGWINCH);
	snprintf(dir, sizeof(dir), "/tmp/check_launch.XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(dir));
	leftover_note(dir);
	char out[PATH_MAX];
	snprintf(out, sizeof(out), "%s/out", dir);
	out_fd = open(out, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	ck_assert_int_ge(out_fd, 0);
	unlink(out);
	stdio = (struct runx_stdio){.source = {-1, out_fd, -1}};
}

/*
 * The request every test starts from: backend i, argv (NULL: the helper's
 * facts mode, which launch_facts() fills in), fd 1 the output file.
 */
static struct runx_launch_request request(int i, char **argv)
{
	return (struct runx_launch_request){
	    .backend = backends[i],
	    .path = argv != NULL ? argv[0] : NULL,
	    .argv = argv,
	    .envp = environ,
	    .new_session = false,
	    .parent = getpid(),
	    .stdio = &stdio,
	    .close_fds = false,
	    .child_mask = &child_mask,
	    .cgroup_fd = -1,
	    .cgroup_procs_fd = -1,
	};
}

/* True if this process has no child, live or zombie, left. */
static bool no_child_left(void)
{
	siginfo_t si;

	return waitid(P_ALL, 0, &si, WEXITED | WNOHANG | WNOWAIT) < 0 &&
	       errno == ECHILD;
}

/*
 * Launches the helper's facts mode with *req, waits for it by its pidfd
 * (exit 7), and reads the line of facts it wrote into line.
 */
static void launch_facts(struct runx_launch_request *req)
{
	char *argv[] = {self, (char *)"--helper", (char *)"facts", (char *)"7",
			NULL};
	struct runx_launched out;
	siginfo_t si;

	req->path = self;
	req->argv = argv;
	ck_assert_int_eq(runx_launch(req, &out), 0);
	ck_assert_int_eq(out.exec_errno, 0);
	ck_assert_int_gt(out.pid, 0);
	ck_assert_int_ge(out.pidfd, 0);
	memset(&si, 0, sizeof(si));
	ck_assert_int_eq(
	    waitid((idtype_t)P_PIDFD, (id_t)out.pidfd, &si, WEXITED), 0);
	ck_assert_int_eq(si.si_pid, out.pid);
	ck_assert_int_eq(si.si_code, CLD_EXITED);
	ck_assert_int_eq(si.si_status, 7);
	close(out.pidfd);
	ssize_t n = pread(out_fd, line, sizeof(line) - 1, 0);
	ck_assert_int_gt(n, 0);
	line[n] = '\0';
	ck_assert_msg(line[n - 1] == '\n', "helper wrote '%s'", line);
}

/* The value of key in the facts line (a static buffer). */
static const char *fact(const char *key)
{
	static char value[512];
	size_t len = strlen(key);

	for (const char *p = line; *p != '\0'; p += strcspn(p, " \n")) {
		p += strspn(p, " \n");
		if (strncmp(p, key, len) == 0 && p[len] == '=') {
			size_t n = strcspn(p + len + 1, " \n");
			snprintf(value, sizeof(value), "%.*s", (int)n,
				 p + len + 1);
			return value;
		}
	}
	ck_abort_msg("no %s in '%s'", key, line);
	return NULL;
}

/* The fact key as a number. */
static long fact_long(const char *key)
{
	return strtol(fact(key), NULL, 10);
}

/* True if fd is in a list "3,7" as helper_fds_above_2() writes it. */
static bool has_fd(const char *list, int fd)
{
	char padded[600], want[16];

	snprintf(padded, sizeof(padded), ",%s,", list);
	snprintf(want, sizeof(want), ",%d,", fd);
	return strstr(padded, want) != NULL;
}

/* Launches path (not runnable); its exec errno, with nothing left. */
static int exec_failure(int i, const char *path)
{
	char *argv[] = {(char *)path, NULL};
	struct runx_launch_request req = request(i, argv);
	struct runx_launched out;

	ck_assert_int_eq(runx_launch(&req, &out), 0);
	ck_assert_int_eq(out.pid, 0);
	ck_assert_int_eq(out.pidfd, -1);
	ck_assert(no_child_left()); /* the failed child was reaped */
	return out.exec_errno;
}

/*
 * What runx exits with for an exec errno (runx_attempt_exec_failed), and
 * that the result says why; its message on stderr goes to /dev/null.
 */
static int exit_status_for(const char *argv0, int err)
{
	struct runx_attempt a;
	int saved = fcntl(2, F_DUPFD_CLOEXEC, 3);
	int null_fd = open("/dev/null", O_WRONLY | O_CLOEXEC);

	ck_assert_int_ge(saved, 0);
	ck_assert_int_ge(null_fd, 0);
	ck_assert_int_eq(dup2(null_fd, 2), 2);
	runx_attempt_init(&a, 1);
	int status = runx_attempt_exec_failed(&a, argv0, err);
	ck_assert_int_eq(dup2(saved, 2), 2);
	close(saved);
	close(null_fd);
	ck_assert_int_eq(a.result.reason, RUNX_END_EXEC_FAILED);
	ck_assert_int_eq(a.result.exec_errno, err);
	ck_assert_msg(strstr(a.result.error, strerror(err)) != NULL,
		      "'%s' lacks '%s'", a.result.error, strerror(err));
	return status;
}

START_TEST(a_missing_file_is_enoent_and_127)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/no-such-command", dir);
	ck_assert_int_eq(exec_failure(_i, path), ENOENT);
	ck_assert_int_eq(exit_status_for(path, ENOENT), 127);
}
END_TEST

START_TEST(a_file_without_execute_permission_is_eacces_and_126)
{
	char file_path[PATH_MAX];

	snprintf(file_path, sizeof(file_path), "%s/not-executable", dir);
	leftover_note(file_path);
	int fd = open(file_path, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, "#!/bin/sh\n", 10), 10);
	close(fd);
	/* even root needs one execute bit (execve(2), EACCES) */
	ck_assert_int_eq(exec_failure(_i, file_path), EACCES);
	ck_assert_int_eq(exit_status_for(file_path, EACCES), 126);
}
END_TEST

START_TEST(a_directory_is_eacces_and_126)
{
	ck_assert_int_eq(exec_failure(_i, dir), EACCES);
	ck_assert_int_eq(exit_status_for(dir, EACCES), 126);
}
END_TEST

START_TEST(a_bad_stdio_fd_is_runx_failing_not_the_exec)
{
	char *argv[] = {self, (char *)"--helper", (char *)"exit", (char *)"0",
			NULL};
	struct runx_launch_request req = request(_i, argv);
	struct runx_launched out;
	/* high, so that no fd the launch opens can take its number */
	const int closed = 900;

	ck_assert_int_eq(fcntl(closed, F_GETFD), -1);
	stdio.source[0] = closed;
	ck_assert_int_eq(runx_launch(&req, &out), -EBADF);
	ck_assert_int_eq(out.exec_errno, 0);
	ck_assert_int_eq(out.pid, 0);
	ck_assert_int_eq(out.pidfd, -1);
	ck_assert(no_child_left());
}
END_TEST

/* fork and vfork: the child's write of cgroup.procs fails (an fd open
 * for reading only): nothing runs, and the message names the file. */
START_TEST(a_failed_cgroup_join_is_named)
{
	char *argv[] = {self, (char *)"--helper", (char *)"exit", (char *)"0",
			NULL};
	struct runx_launch_request req = request(_i, argv);
	struct runx_launched out;

	req.cgroup_procs_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
	ck_assert_int_ge(req.cgroup_procs_fd, 0);
	ck_assert_int_eq(runx_launch(&req, &out), -EBADF);
	ck_assert_int_eq(out.exec_errno, 0);
	ck_assert_int_eq(out.pid, 0);
	ck_assert_msg(strstr(out.why, "cgroup.procs") != NULL, "why: %s",
		      out.why);
	ck_assert(no_child_left());
	close(req.cgroup_procs_fd);
}
END_TEST

START_TEST(stdio_sources_become_fds_0_to_2)
{
	struct runx_launch_request req = request(_i, NULL);
	char want[3][64], in[PATH_MAX];

	/* a file of the test's own, as nothing else can be fd 0 already */
	snprintf(in, sizeof(in), "%s/in", dir);
	int in_fd = open(in, O_RDONLY | O_CREAT | O_CLOEXEC, 0600);
	ck_assert_int_ge(in_fd, 0);
	unlink(in);
	stdio.source[0] = in_fd; /* fd 2: -1, what the test has */
	helper_fd_identity(in_fd, want[0], sizeof(want[0]));
	helper_fd_identity(out_fd, want[1], sizeof(want[1]));
	helper_fd_identity(2, want[2], sizeof(want[2]));
	launch_facts(&req);
	ck_assert_str_eq(fact("fd0"), want[0]);
	ck_assert_str_eq(fact("fd1"), want[1]);
	ck_assert_str_eq(fact("fd2"), want[2]);
	close(in_fd);
}
END_TEST

START_TEST(a_source_already_on_its_fd_loses_close_on_exec)
{
	struct runx_launch_request req = request(_i, NULL);
	char want[64];
	int saved = fcntl(1, F_DUPFD_CLOEXEC, 3);

	/* the file is fd 1 here already, close-on-exec as runx's files are */
	ck_assert_int_ge(saved, 0);
	ck_assert_int_eq(dup3(out_fd, 1, O_CLOEXEC), 1);
	stdio.source[1] = 1;
	helper_fd_identity(out_fd, want, sizeof(want));
	launch_facts(&req);
	ck_assert_int_eq(dup2(saved, 1), 1);
	close(saved);
	ck_assert_str_eq(fact("fd1"), want);
}
END_TEST

/* Opens /dev/null as fd 20 (inheritable) and fd 21 (O_CLOEXEC). */
static void open_extra_fds(void)
{
	int fd = open("/dev/null", O_RDONLY);

	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(dup2(fd, 20), 20);
	ck_assert_int_eq(dup3(fd, 21, O_CLOEXEC), 21);
	close(fd);
}

START_TEST(only_fds_without_close_on_exec_reach_the_child)
{
	struct runx_launch_request req = request(_i, NULL);
	char want[512];

	open_extra_fds();
	ck_assert_int_eq(helper_fds_above_2(want, sizeof(want), true), 0);
	ck_assert(has_fd(want, 20));
	ck_assert(!has_fd(want, 21));
	ck_assert(!has_fd(want, out_fd));
	launch_facts(&req);
	ck_assert_str_eq(fact("open"), want);
}
END_TEST

START_TEST(close_fds_leaves_only_0_to_2)
{
	struct runx_launch_request req = request(_i, NULL);

	open_extra_fds();
	req.close_fds = true;
	launch_facts(&req);
	ck_assert_str_eq(fact("open"), "-");
}
END_TEST

/* set as /proc/PID/status shows a signal set: 16 hex digits. */
static void mask_hex(const sigset_t *set, char *buf, size_t size)
{
	uint64_t bits = 0;

	for (int sig = 1; sig <= 64; sig++)
		if (sigismember(set, sig) == 1)
			bits |= 1ULL << (sig - 1);
	snprintf(buf, size, "%016llx", (unsigned long long)bits);
}

START_TEST(the_child_has_the_signal_mask_it_is_given)
{
	struct runx_launch_request req = request(_i, NULL);
	char want[32], own[32];

	mask_hex(&child_mask, want, sizeof(want));
	helper_status_field("SigBlk", own, sizeof(own));
	ck_assert_str_ne(own, want); /* not merely this process's mask */
	launch_facts(&req);
	ck_assert_str_eq(fact("blk"), want);
}
END_TEST

static void on_signal(int sig)
{
	(void)sig;
}

START_TEST(ignored_signals_stay_ignored_handled_ones_are_reset)
{
	struct runx_launch_request req = request(_i, NULL);
	struct sigaction handle = {.sa_handler = on_signal};
	struct sigaction ignore = {.sa_handler = SIG_IGN};
	char ign[32];

	sigemptyset(&handle.sa_mask);
	sigemptyset(&ignore.sa_mask);
	ck_assert_int_eq(sigaction(SIGUSR1, &handle, NULL), 0);
	ck_assert_int_eq(sigaction(SIGINT, &handle, NULL), 0);
	ck_assert_int_eq(sigaction(SIGUSR2, &ignore, NULL), 0);
	helper_status_field("SigIgn", ign, sizeof(ign));
	launch_facts(&req);
	ck_assert_str_eq(fact("usr1"), "dfl");
	ck_assert_str_eq(fact("int"), "dfl");
	ck_assert_str_eq(fact("term"), "dfl");
	ck_assert_str_eq(fact("usr2"), "ign");
	ck_assert_str_eq(fact("ign"), ign); /* exactly what was ignored */
}
END_TEST

START_TEST(new_session_makes_the_child_a_session_leader)
{
	struct runx_launch_request req = request(_i, NULL);

	req.new_session = true;
	launch_facts(&req);
	ck_assert_int_eq(fact_long("ppid"), getpid());
	ck_assert_int_eq(fact_long("sid"), fact_long("pid"));
	ck_assert_int_eq(fact_long("pgid"), fact_long("pid"));
}
END_TEST

START_TEST(without_new_session_the_child_shares_the_session)
{
	struct runx_launch_request req = request(_i, NULL);

	launch_facts(&req);
	ck_assert_int_eq(fact_long("ppid"), getpid());
	ck_assert_int_eq(fact_long("sid"), getsid(0));
	ck_assert_int_eq(fact_long("pgid"), getpgrp());
}
END_TEST

START_TEST(the_child_dies_with_runx_except_with_posix_spawn)
{
	struct runx_launch_request req = request(_i, NULL);

	launch_facts(&req);
	/* posix_spawn(3) has no hook for PR_SET_PDEATHSIG (launch.c) */
	ck_assert_int_eq(fact_long("pdeath"),
			 backends[_i] == RUNX_LAUNCH_POSIX_SPAWN ? 0 : SIGKILL);
}
END_TEST

START_TEST(the_pidfd_signals_and_waits_for_the_child)
{
	char *argv[] = {self, (char *)"--helper", (char *)"ignore-term", NULL};
	struct runx_launch_request req = request(_i, argv);
	struct runx_launched out;
	siginfo_t si;

	ck_assert_int_eq(runx_launch(&req, &out), 0);
	ck_assert_int_ge(out.pidfd, 0);
	/* unreaped and running: only its pidfd can say otherwise */
	memset(&si, 0, sizeof(si));
	ck_assert_int_eq(
	    waitid((idtype_t)P_PIDFD, (id_t)out.pidfd, &si, WEXITED | WNOHANG),
	    0);
	ck_assert_int_eq(si.si_pid, 0);
	ck_assert_int_eq(runx_pidfd_send_signal(out.pidfd, SIGKILL), 0);
	ck_assert_int_eq(
	    waitid((idtype_t)P_PIDFD, (id_t)out.pidfd, &si, WEXITED), 0);
	ck_assert_int_eq(si.si_pid, out.pid);
	ck_assert_int_eq(si.si_code, CLD_KILLED);
	ck_assert_int_eq(si.si_status, SIGKILL);
	ck_assert(no_child_left());
	close(out.pidfd);
}
END_TEST

int main(int argc, char **argv)
{
	HELPER_DISPATCH(argc, argv);
	Suite *s = suite_create("launch");
	TCase *exec = tcase_create("exec");
	TCase *child = tcase_create("child");

	tcase_add_checked_fixture(exec, setup, NULL);
	tcase_add_checked_fixture(child, setup, NULL);
	tcase_set_timeout(exec, 60);
	tcase_set_timeout(child, 60);
	add_table_test(exec, a_missing_file_is_enoent_and_127, backends);
	add_table_test(exec,
		       a_file_without_execute_permission_is_eacces_and_126,
		       backends);
	add_table_test(exec, a_directory_is_eacces_and_126, backends);
	add_table_test(exec, a_bad_stdio_fd_is_runx_failing_not_the_exec,
		       backends);
	/* backends[1] and [2]: fork and vfork, whose child joins the cgroup */
	tcase_add_loop_test(exec, a_failed_cgroup_join_is_named, 1, 3);
	add_table_test(child, stdio_sources_become_fds_0_to_2, backends);
	add_table_test(child, a_source_already_on_its_fd_loses_close_on_exec,
		       backends);
	add_table_test(child, only_fds_without_close_on_exec_reach_the_child,
		       backends);
	add_table_test(child, close_fds_leaves_only_0_to_2, backends);
	add_table_test(child, the_child_has_the_signal_mask_it_is_given,
		       backends);
	add_table_test(child,
		       ignored_signals_stay_ignored_handled_ones_are_reset,
		       backends);
	add_table_test(child, new_session_makes_the_child_a_session_leader,
		       backends);
	add_table_test(child, without_new_session_the_child_shares_the_session,
		       backends);
	add_table_test(child, the_child_dies_with_runx_except_with_posix_spawn,
		       backends);
	add_table_test(child, the_pidfd_signals_and_waits_for_the_child,
		       backends);
	suite_add_tcase(s, exec);
	suite_add_tcase(s, child);
	leftovers_open();
	int status = run_suite(s);
	leftovers_clean();
	return status;
}
