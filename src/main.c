/*
 * runx: run a command, stop it on time, leave nothing behind.
 * options -> plan -> a run of attempts (each: acquire -> launch ->
 * supervise -> result) -> exit status.
 */
#include "config.h"

#include <errno.h>
#include <signal.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "exit_status.h"
#include "log.h"
#include "options.h"
#include "run.h"
#include "sigmask.h"
#include "stdio_guard.h"

/*
 * Ends runx by signal sig, as the command ended, so that its parent sees
 * what it would have seen without runx: a shell stops a script on a
 * Ctrl-C only when its child died of SIGINT (bash's "wait and cooperative
 * exit"), and Python's returncode is -N.  No core file (SIGXCPU, SIGSYS,
 * SIGQUIT... dump core by default): RLIMIT_CORE 0 first (setrlimit(2)),
 * and not dumpable (prctl(2) PR_SET_DUMPABLE 0), since a core_pattern
 * that pipes to a program ignores RLIMIT_CORE 0 (core(5)).  Returns only where
 * the signal cannot end runx: as PID 1 (of a container or pid namespace,
 * signals without a handler do not reach it, pid_namespaces(7)).
 */
static void die_by(int sig)
{
	struct rlimit none = {0, 0};
	sigset_t one;

	if (getpid() == 1)
		return;
	setrlimit(RLIMIT_CORE, &none);
	prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
	/* the system calls themselves, not sigaction(), raise() and
	 * sigprocmask(): glibc refuses or leaves out its reserved real-time
	 * signals (32, 33), by which the command may have died too */
	runx_signal_raw_default(sig);
	sigemptyset(&one);
	runx_sigset_add_raw(&one, sig);
	/* tgkill(2) itself (runx has one thread: its tid is its pid): glibc's
	 * raise() refuses 32 and 33, and kill(2) would read as runx signalling
	 * a process of its scope in a trace */
	syscall(SYS_tgkill, getpid(), getpid(), sig); /* blocked: pending */
	runx_sigmask_raw(SIG_UNBLOCK, &one, NULL);
}

/* --help, --version: 0, or 125 when stdout is closed, full or broken. */
static int write_text(const char *text)
{
	int r = runx_write_stdout(text);

	if (r < 0)
		runx_error("write error: %s", strerror(-r));
	return r < 0 ? RUNX_EXIT_FAILED : 0;
}

int main(int argc, char **argv)
{
	static struct runx_run run; /* large (paths): not on the stack */
	struct runx_options opts;
	sigset_t orig_mask;
	char err[512];

	/* Before anything else, so no signal can act before the child exists.
	 */
	if (runx_signals_block(&orig_mask) < 0 || runx_stdio_guard() < 0) {
		runx_error("cannot set up signals or standard fds: %s",
			   strerror(errno));
		return RUNX_EXIT_FAILED;
	}
	switch (runx_options_parse(argc, argv, &opts, err, sizeof(err))) {
	case RUNX_PARSE_ERROR:
		/* one line, as every message (SPEC): GNU's pointer to --help
		 * at its end, not on a line of its own */
		runx_error("%s%s", err,
			   opts.hint_help ? "; try 'runx --help'" : "");
		return RUNX_EXIT_FAILED;
	case RUNX_PARSE_HELP:
		return write_text(runx_usage());
	case RUNX_PARSE_VERSION:
		return write_text(runx_version_text());
	case RUNX_PARSE_OK:
		break;
	}
	runx_log_set_verbose(opts.verbose);
	runx_run_init(&run, &opts, &orig_mask);
	int status = runx_run(&run);
	int sig = runx_run_death_signal(&run);
	if (sig != 0)
		die_by(sig);
	return status;
}
