/* Between two attempts: the wait and its signals (between.h). */
#include "config.h"

#include "between.h"

#include <errno.h>
#include <poll.h>
#include <sys/random.h>
#include <sys/signalfd.h>
#include <sys/wait.h>
#include <unistd.h>

#include "clock.h"
#include "log.h"
#include "signals.h"

/* Reaps every child that exited: as PID 1, orphans keep arriving. */
static void reap_all(void)
{
	while (waitpid(-1, NULL, WNOHANG) > 0)
		;
}

/* One signal read during the wait: its number if it ends the run. */
static int on_signal(const struct signalfd_siginfo *si,
		     const sigset_t *stop_signals, int64_t next)
{
	int sig = (int)si->ssi_signo;
	char name[32];

	if (sig == SIGCHLD) {
		reap_all();
		return 0;
	}
	runx_signal_name(sig, name, sizeof(name));
	if (sigismember(stop_signals, sig) == 1) {
		runx_verbose("received %s during the wait before attempt %lld; "
			     "ending the run",
			     name, (long long)next);
		return sig;
	}
	if (sig == SIGTSTP || sig == SIGTTIN || sig == SIGTTOU) {
		runx_verbose("received %s during the wait: stopping runx "
			     "(job control)",
			     name);
		runx_log_flush(false); /* told before runx stops */
		if (getpid() != 1)
			kill(getpid(), SIGSTOP);
		return 0;
	}
	runx_verbose("received %s during the wait before attempt %lld; no "
		     "command to forward it to",
		     name, (long long)next);
	return 0;
}

/* The time left until until_ns in whole ms, rounded up, for poll(2). */
static int ms_left(int64_t until_ns)
{
	int64_t left = until_ns - runx_now_ns();

	if (left <= 0)
		return 0;
	left = left / 1000000 + (left % 1000000 != 0);
	return left > 1000000000 ? 1000000000 : (int)left;
}

int runx_between_wait(const struct runx_supervisor *sup,
		      const sigset_t *stop_signals, int64_t until_ns,
		      int64_t next)
{
	struct signalfd_siginfo si;

	reap_all();
	for (;;) {
		struct pollfd p[2] = {
		    {.fd = sup->sigfd, .events = POLLIN},
		    {.fd = runx_log_poll_fd(), .events = POLLOUT}};
		int ms = ms_left(until_ns), retry = runx_log_retry_ms();

		if (ms == 0)
			return 0;
		if (poll(p, 2, retry >= 0 && retry < ms ? retry : ms) < 0 &&
		    errno != EINTR)
			return -errno;
		if (p[1].revents != 0 || retry >= 0)
			runx_log_flush(p[1].revents != 0);
		while (read(sup->sigfd, &si, sizeof(si)) ==
		       (ssize_t)sizeof(si)) {
			int sig = on_signal(&si, stop_signals, next);
			if (sig != 0)
				return sig;
		}
	}
}

uint64_t runx_between_random(void)
{
	uint64_t bits;

	if (getrandom(&bits, sizeof(bits), GRND_NONBLOCK) ==
	    (ssize_t)sizeof(bits))
		return bits;
	return (uint64_t)runx_now_ns() * UINT64_C(0x9e3779b97f4a7c15);
}
