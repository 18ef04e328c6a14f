/* The signals runx handles, blocked from the start of main(). */
#include "config.h"

#include "sigmask.h"

#include <errno.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/syscall.h>
#include <unistd.h>

/* Not forwarded, not job control, and their default action would end
 * runx with its job left running: they start a stop instead.  The last
 * five (FAULTS) are faults' signals, caught only as kill(2) sends them: a
 * real fault in runx goes through the mask (sigmask.h). */
static const int implicit_stop[] = {
    SIGPWR,  SIGXCPU, SIGVTALRM, SIGPROF, SIGIO,  SIGSTKFLT, SIGSYS,
    SIGTRAP, SIGABRT, SIGBUS,	 SIGFPE,  SIGILL, SIGSEGV};

#define FAULTS	   5
#define N_IMPLICIT (sizeof(implicit_stop) / sizeof(implicit_stop[0]))

bool runx_signal_is_implicit_stop(int sig)
{
	for (size_t i = 0; i < N_IMPLICIT; i++)
		if (implicit_stop[i] == sig)
			return true;
	return false;
}

/* True if implicit_stop[i] is taken as it is now: not ignored; for a
 * fault's, with no handler either (a sanitizer's, installed before
 * main(), which a blocked fault would lose: sigmask.h). */
static bool taken(size_t i)
{
	struct sigaction sa;

	if (sigaction(implicit_stop[i], NULL, &sa) < 0)
		return true;
	return i < N_IMPLICIT - FAULTS ? sa.sa_handler != SIG_IGN
				       : sa.sa_handler == SIG_DFL;
}

void runx_implicit_stop_signals(sigset_t *set)
{
	/* looked at once, at the first call (the start of main()): one
	 * sigaction(2) per signal, not one per caller */
	static sigset_t at_start;
	static bool known;

	if (!known) {
		sigemptyset(&at_start);
		for (size_t i = 0; i < N_IMPLICIT; i++)
			if (taken(i))
				sigaddset(&at_start, implicit_stop[i]);
		known = true;
	}
	sigorset(set, set, &at_start);
}

void runx_sigset_add_raw(sigset_t *set, int sig)
{
	const unsigned bits = 8 * sizeof(unsigned long);

	if (sig >= 1 && sig <= RUNX_KERNEL_SIGRTMAX)
		((unsigned long *)set)[(unsigned)(sig - 1) / bits] |=
		    1UL << ((unsigned)(sig - 1) % bits);
}

int runx_sigmask_raw(int how, const sigset_t *set, sigset_t *old)
{
	/* the kernel's sigset is 64 bits (_NSIG / 8 bytes on Linux), the
	 * first word(s) of the C library's sigset_t */
	if (old != NULL)
		sigemptyset(old);
	return syscall(SYS_rt_sigprocmask, how, set, old, sizeof(uint64_t)) < 0
		   ? -errno
		   : 0;
}

/* The kernel's struct sigaction for rt_sigaction(2) (<asm/signal.h>):
 * the handler and flags first on every architecture runx builds for; the
 * rest is all zero here, wherever an architecture puts it. */
struct kernel_sigaction {
	void (*handler)(int);
	unsigned long flags;
	void (*restorer)(void);
	uint64_t mask;
};

bool runx_signal_raw_ignored(int sig)
{
	struct kernel_sigaction ksa = {0};

	if (syscall(SYS_rt_sigaction, sig, NULL, &ksa, sizeof(uint64_t)) < 0)
		return false;
	return ksa.handler == SIG_IGN;
}

int runx_signal_raw_default(int sig)
{
	struct kernel_sigaction ksa = {.handler = SIG_DFL};

	return syscall(SYS_rt_sigaction, sig, &ksa, NULL, sizeof(uint64_t)) < 0
		   ? -errno
		   : 0;
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
	/* every real-time signal of the kernel's, 32 on: the C library's
	 * SIGRTMIN is above its own reserved ones (34 with glibc, 35 with
	 * musl), which sigaddset(3) refuses, but which kill runx by their
	 * default action as any other */
	for (int s = RUNX_KERNEL_SIGRTMIN; s <= RUNX_KERNEL_SIGRTMAX; s++)
		runx_sigset_add_raw(set, s);
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
	int r = runx_sigmask_raw(SIG_BLOCK, &set, orig);
	if (r < 0)
		return r;
	if (sigaction(SIGCHLD, NULL, &sa) == 0 && sa.sa_handler == SIG_IGN) {
		sa.sa_handler = SIG_DFL;
		sa.sa_flags = 0;
		sigaction(SIGCHLD, &sa, NULL);
	}
	return 0;
}
