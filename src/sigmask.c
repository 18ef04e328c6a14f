/* The signals runx handles, blocked from the start of main(). */
#include "config.h"

#include "sigmask.h"

#include <errno.h>
#include <signal.h>
#include <stddef.h>

/* Not forwarded, not job control, and their default action would end
 * runx with its job left running: they start a stop instead.  The last
 * five are faults' signals, caught only as kill(2) sends them: a real
 * fault in runx goes through the mask (sigmask.h). */
static const int implicit_stop[] = {
    SIGPWR,  SIGXCPU, SIGVTALRM, SIGPROF, SIGIO,  SIGSTKFLT, SIGSYS,
    SIGTRAP, SIGABRT, SIGBUS,	 SIGFPE,  SIGILL, SIGSEGV};

bool runx_signal_is_implicit_stop(int sig)
{
	for (size_t i = 0; i < sizeof(implicit_stop) / sizeof(implicit_stop[0]);
	     i++)
		if (implicit_stop[i] == sig)
			return true;
	return false;
}

void runx_implicit_stop_signals(sigset_t *set)
{
	/* looked at once, at the first call (the start of main()): one
	 * sigaction(2) per signal, not one per caller */
	static sigset_t not_ignored;
	static bool known;
	struct sigaction sa;

	if (!known) {
		sigemptyset(&not_ignored);
		for (size_t i = 0;
		     i < sizeof(implicit_stop) / sizeof(implicit_stop[0]); i++)
			if (sigaction(implicit_stop[i], NULL, &sa) < 0 ||
			    sa.sa_handler != SIG_IGN)
				sigaddset(&not_ignored, implicit_stop[i]);
		known = true;
	}
	sigorset(set, set, &not_ignored);
}

void runx_handled_signals(sigset_t *set)
{
	static const int forwarded[] = {SIGHUP,	 SIGINT,   SIGQUIT,
					SIGTERM, SIGUSR1,  SIGUSR2,
					SIGALRM, SIGWINCH, SIGCONT};
	/* not forwarded: runx stops the scope, then itself (job control) */
	static const int job_control[] = {SIGTSTP, SIGTTIN, SIGTTOU};

	sigemptyset(set);
	for (size_t i = 0; i < sizeof(forwarded) / sizeof(forwarded[0]); i++)
		sigaddset(set, forwarded[i]);
	for (size_t i = 0; i < sizeof(job_control) / sizeof(job_control[0]);
	     i++)
		sigaddset(set, job_control[i]);
	for (int s = SIGRTMIN; s <= SIGRTMAX; s++)
		sigaddset(set, s);
	runx_implicit_stop_signals(set);
	sigaddset(set, SIGCHLD);
}

int runx_signals_block(sigset_t *orig)
{
	struct sigaction sa;
	sigset_t set;

	runx_handled_signals(&set);
	/* A write to a closed pipe returns EPIPE, and a write past
	 * RLIMIT_FSIZE returns EFBIG (the relay, the report), instead of
	 * killing runx before its cleanup (signal(7), setrlimit(2)); the
	 * command gets runx's original mask, so they kill it as usual. */
	sigaddset(&set, SIGPIPE);
	sigaddset(&set, SIGXFSZ);
	if (sigprocmask(SIG_BLOCK, &set, orig) < 0)
		return -errno;
	if (sigaction(SIGCHLD, NULL, &sa) == 0 && sa.sa_handler == SIG_IGN) {
		sa.sa_handler = SIG_DFL;
		sa.sa_flags = 0;
		sigaction(SIGCHLD, &sa, NULL);
	}
	return 0;
}
