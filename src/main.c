/* runx: run a command, stop it on time, leave nothing behind. */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "launch.h"
#include "log.h"
#include "options.h"
#include "redirect.h"
#include "scope.h"
#include "supervise.h"

enum {
	EXIT_RUNX_FAILED = 125,
	EXIT_CANNOT_RUN = 126,
	EXIT_NOT_FOUND = 127,
};

extern char **environ;

/* The backend to use when --launch was not given, or -1 if none fits. */
static enum runx_launch_kind pick_backend(const struct runx_options *opts)
{
	if (opts->launch != RUNX_LAUNCH_DEFAULT)
		return opts->launch;
	return RUNX_LAUNCH_POSIX_SPAWN;
}

/* 126 or 127 for an execve(2) error, as GNU timeout and the shell do. */
static int exec_failure_status(int err)
{
	return err == ENOENT ? EXIT_NOT_FOUND : EXIT_CANNOT_RUN;
}

/* Sets up, launches and supervises; returns runx's exit status. */
static int run(const struct runx_options *opts, const sigset_t *orig_mask)
{
	char err[512], path[PATH_MAX];
	struct runx_scope scope;
	struct runx_stdio stdio;
	struct runx_launched child;
	struct runx_result result;
	int r, sigfd;

	r = runx_resolve_command(opts->command[0], path, sizeof(path));
	if (r < 0) {
		runx_error("failed to run command '%s': %s", opts->command[0],
			   strerror(-r));
		return exec_failure_status(-r);
	}
	if (runx_stdio_open(opts, &stdio, err, sizeof(err)) < 0) {
		runx_error("%s", err);
		return EXIT_RUNX_FAILED;
	}
	sigfd = runx_signals_open_fd();
	if (sigfd < 0) {
		runx_error("cannot create a signalfd: %s", strerror(-sigfd));
		runx_stdio_close(&stdio);
		return EXIT_RUNX_FAILED;
	}
	if (runx_scope_prepare(&scope, opts->scope, err, sizeof(err)) < 0) {
		runx_error("%s", err);
		runx_stdio_close(&stdio);
		close(sigfd);
		return EXIT_RUNX_FAILED;
	}
	struct runx_launch_request req = {
		.backend = pick_backend(opts),
		.path = path,
		.argv = opts->command,
		.envp = environ,
		.new_session = runx_scope_new_session(&scope, opts->foreground),
		.stdio = &stdio,
		.close_fds = opts->close_fds,
		.child_mask = orig_mask,
		.cgroup_fd = -1,
	};
	int64_t start_ns = runx_now_ns();
	r = runx_launch(&req, &child);
	runx_stdio_close(&stdio);
	if (r < 0 || child.exec_errno != 0) {
		if (r == -ENOTSUP)
			runx_error("launch backend '%s' cannot do what was asked "
				   "on this system",
				   runx_launch_kind_name(req.backend));
		else if (r < 0)
			runx_error("cannot start '%s': %s", opts->command[0],
				   strerror(-r));
		else
			runx_error("failed to run command '%s': %s",
				   opts->command[0], strerror(child.exec_errno));
		runx_scope_release(&scope);
		close(sigfd);
		return r < 0 ? EXIT_RUNX_FAILED
			     : exec_failure_status(child.exec_errno);
	}
	runx_scope_adopt(&scope, child.pid, child.pidfd);
	runx_verbose("started '%s' as pid %d (%s scope, %s launch)",
		     opts->command[0], (int)child.pid,
		     runx_scope_kind_name(scope.kind),
		     runx_launch_kind_name(req.backend));
	r = runx_supervise(opts, &scope, child.pid, child.pidfd, sigfd,
			   start_ns, &result);
	close(child.pidfd);
	close(sigfd);
	runx_scope_release(&scope);
	runx_verbose("exiting with status %d", result.exit_status);
	return result.exit_status;
}

int main(int argc, char **argv)
{
	struct runx_options opts;
	sigset_t orig_mask;
	char err[512];

	/* Before anything else, so no signal can act before the child exists. */
	if (runx_signals_block(&orig_mask) < 0 || runx_stdio_guard() < 0) {
		runx_error("cannot set up signals or standard fds: %s",
			   strerror(errno));
		return EXIT_RUNX_FAILED;
	}
	switch (runx_options_parse(argc, argv, &opts, err, sizeof(err))) {
	case RUNX_PARSE_ERROR:
		runx_error("%s", err);
		return EXIT_RUNX_FAILED;
	case RUNX_PARSE_HELP:
		fputs(runx_usage(), stdout);
		return fflush(stdout) == 0 ? 0 : EXIT_RUNX_FAILED;
	case RUNX_PARSE_VERSION:
		fputs(runx_version_text(), stdout);
		return fflush(stdout) == 0 ? 0 : EXIT_RUNX_FAILED;
	case RUNX_PARSE_OK:
		break;
	}
	runx_log_set_verbose(opts.verbose);
	return run(&opts, &orig_mask);
}
