/* Releasing children: by wait(2) or by the kernel (autoreap.h). */
#include "config.h"

#include "autoreap.h"

#include <errno.h>
#include <signal.h>
#include <stddef.h>
#include <sys/wait.h>
#include <unistd.h>

#include "syscalls.h"

int runx_autoreap(bool on)
{
	struct sigaction sa;

	sigemptyset(&sa.sa_mask);
	sa.sa_handler = SIG_DFL;
	sa.sa_flags = on ? SA_NOCLDWAIT : 0;
	return sigaction(SIGCHLD, &sa, NULL) < 0 ? -errno : 0;
}

bool runx_exit_status_kept(void)
{
	static int kept = -1; /* not known yet */
	siginfo_t si;
	int status = 0;

	if (kept >= 0)
		return kept == 1;
	pid_t pid = vfork();
	if (pid == 0)
		_exit(7);
	if (pid < 0)
		return false; /* not known: asked again next time */
	int fd = runx_pidfd_open(pid, 0);
	while (waitid(P_PID, (id_t)pid, &si, WEXITED) < 0 && errno == EINTR)
		;
	kept = fd >= 0 && runx_pidfd_exit_status(fd, &status) == 0 &&
	       WIFEXITED(status) && WEXITSTATUS(status) == 7;
	if (fd >= 0)
		close(fd);
	return kept == 1;
}
