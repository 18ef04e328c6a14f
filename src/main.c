/* runx: run a command, stop it on time, leave nothing behind. */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <stdbool.h>
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

/*
 * The backend to use: --launch, else posix_spawn (cheapest, and flat in
 * the parent's memory size), except for the cgroup scope, where only
 * clone3 can start the child inside the cgroup without an extra step.
 */
static enum runx_launch_kind pick_backend(const struct runx_options *opts,
					  const struct runx_scope *scope)
{
	if (opts->launch != RUNX_LAUNCH_DEFAULT)
		return opts->launch;
	if (scope->kind == RUNX_SCOPE_CGROUP)
		return RUNX_LAUNCH_CLONE3;
	return RUNX_LAUNCH_POSIX_SPAWN;
}

/* Why the backend cannot start the child inside the job's cgroup, or NULL. */
static const char *cgroup_refusal(enum runx_launch_kind backend)
{
#ifndef HAVE_POSIX_SPAWNATTR_SETCGROUP_NP
	if (backend == RUNX_LAUNCH_POSIX_SPAWN)
		return "posix_spawnattr_setcgroup_np needs glibc 2.39";
#endif
	return NULL;
}

/* runx_launch, falling back from clone3 to fork where the kernel lacks it. */
static int launch(struct runx_launch_request *req, bool backend_chosen,
		  struct runx_launched *child)
{
	int r = runx_launch(req, child);

	if (r == -ENOSYS && req->backend == RUNX_LAUNCH_CLONE3 &&
	    !backend_chosen) {
		runx_verbose("clone3 is not available; launching with fork");
		req->backend = RUNX_LAUNCH_FORK;
		r = runx_launch(req, child);
	}
	return r;
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
	enum runx_scope_kind kind = opts->scope;
	const char *auto_refusal = NULL;
	if (kind == RUNX_SCOPE_AUTO && opts->launch != RUNX_LAUNCH_DEFAULT &&
	    (auto_refusal = cgroup_refusal(opts->launch)) != NULL)
		kind = RUNX_SCOPE_TREE;
	if (runx_scope_prepare(&scope, kind, err, sizeof(err)) < 0) {
		runx_error("%s", err);
		runx_stdio_close(&stdio);
		close(sigfd);
		return EXIT_RUNX_FAILED;
	}
	if (auto_refusal != NULL)
		runx_verbose("auto scope: using tree, since --launch=%s cannot "
			     "use the cgroup scope (%s)",
			     runx_launch_kind_name(opts->launch), auto_refusal);
	else if (scope.auto_reason[0] != '\0')
		runx_verbose("auto scope: using tree, since the cgroup scope "
			     "is not available (%s)",
			     scope.auto_reason);
	else if (opts->scope == RUNX_SCOPE_AUTO)
		runx_verbose("auto scope: using cgroup %s", scope.cg.path);
	struct runx_launch_request req = {
		.backend = pick_backend(opts, &scope),
		.path = path,
		.argv = opts->command,
		.envp = environ,
		.new_session = runx_scope_new_session(&scope, opts->foreground),
		.stdio = &stdio,
		.close_fds = opts->close_fds,
		.child_mask = orig_mask,
		.cgroup_fd = scope.has_cgroup ? scope.cg.dir_fd : -1,
		.cgroup_procs_fd = scope.has_cgroup ? scope.cg.procs_fd : -1,
	};
	const char *refusal = scope.has_cgroup ? cgroup_refusal(req.backend)
					       : NULL;
	if (refusal != NULL) {
		runx_error("--launch=%s cannot start the command inside its "
			   "cgroup (%s); use --launch=clone3 or --launch=fork",
			   runx_launch_kind_name(req.backend), refusal);
		runx_stdio_close(&stdio);
		runx_scope_release(&scope);
		close(sigfd);
		return EXIT_RUNX_FAILED;
	}
	int64_t start_ns = runx_now_ns();
	r = launch(&req, opts->launch != RUNX_LAUNCH_DEFAULT, &child);
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
	r = runx_scope_release(&scope);
	if (r < 0)
		runx_error("cannot remove the job's cgroup: %s", strerror(-r));
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
