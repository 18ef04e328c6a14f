/*
 * The least a dynamically linked supervisor does, for the startup table of
 * scripts/bench: posix_spawn(3) the command, waitpid(2) for it, exit with
 * its status.  No deadline, no signal handling, no scope: what is left is
 * the dynamic loader, libc's start-up and one spawn, which every
 * dynamically linked supervisor (runx, GNU timeout, tini) pays too.
 *
 * usage: spawn_wait COMMAND [ARG]...
 */
#include <spawn.h>
#include <stdio.h>
#include <sys/wait.h>

extern char **environ;

int main(int argc, char **argv)
{
	pid_t pid;
	int status;

	if (argc < 2) {
		fprintf(stderr, "usage: spawn_wait COMMAND [ARG]...\n");
		return 125;
	}
	if (posix_spawn(&pid, argv[1], NULL, NULL, argv + 1, environ) != 0)
		return 127;
	if (waitpid(pid, &status, 0) < 0)
		return 125;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}
