/*
 * libFuzzer target: runx_signal_parse(), runx_signal_name() and
 * runx_signal_is_handled().  Invariants: a parsed signal is in
 * 0..SIGRTMAX; a rejected text leaves the value alone; the name of a
 * parsed signal parses back to the same number; KILL and STOP are never
 * "handled".
 */
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "signals.h"

#define SENTINEL (-77)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = malloc(size + 1), name[32];
	int signo = SENTINEL, back = SENTINEL;
	int rc;

	if (text == NULL)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	rc = runx_signal_parse(text, &signo);
	free(text);
	if (rc != 0) {
		if (signo != SENTINEL)
			abort();
		return 0;
	}
	if (signo < 0 || signo > SIGRTMAX)
		abort();
	runx_signal_name(signo, name, sizeof(name));
	if (runx_signal_parse(name, &back) != 0 || back != signo)
		abort();
	if (runx_signal_is_handled(signo) &&
	    (signo == 0 || signo == SIGKILL || signo == SIGSTOP))
		abort();
	/* a short buffer is never overrun and always terminated */
	runx_signal_name(signo, name, (size_t)(size % 8) + 1);
	if (memchr(name, '\0', (size_t)(size % 8) + 1) == NULL)
		abort();
	return 0;
}
