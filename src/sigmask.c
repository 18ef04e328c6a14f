/* The signals runx handles, blocked from the start of main(). */
#include "config.h"

#include "sigmask.h"

#include <errno.h>
#include <signal.h>
#include <stddef.h>

/* The signals runx forwards (and SIGCHLD, to reap). */
void runx_handled_signals(sigset_t *set)
{
	static const int forwarded[] = {SIGHUP,	 SIGINT,   SIGQUIT,
					SIGTERM, SIGUSR1,  SIGUSR2,
					SIGALRM, SIGWINCH, SIGCONT};

	sigemptyset(set);
	for (size_t i = 0; i < sizeof(forwarded) / sizeof(forwarded[0]); i++)
		sigaddset(set, forwarded[i]);
	for (int s = SIGRTMIN; s <= SIGRTMAX; s++)
		sigaddset(set, s);
	sigaddset(set, SIGCHLD);
}

int runx_signals_block(sigset_t *orig)
{
	struct sigaction sa;
	sigset_t set;

	runx_handled_signals(&set);
	/* A write to a closed pipe returns EPIPE instead of killing runx. */
	sigaddset(&set, SIGPIPE);
	if (sigprocmask(SIG_BLOCK, &set, orig) < 0)
		return -errno;
	if (sigaction(SIGCHLD, NULL, &sa) == 0 && sa.sa_handler == SIG_IGN) {
		sa.sa_handler = SIG_DFL;
		sa.sa_flags = 0;
		sigaction(SIGCHLD, &sa, NULL);
	}
	return 0;
}
