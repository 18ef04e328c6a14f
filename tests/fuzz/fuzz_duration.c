/*
 * libFuzzer target: runx_duration_parse() and runx_duration_format().
 * Invariants: a parsed value is in 0..RUNX_DURATION_INF; a rejected text
 * leaves the value alone; format -> parse gives the same value back; the
 * same text always gives the same result.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "duration.h"

#define SENTINEL INT64_C(-77)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = malloc(size + 1), formatted[64];
	int64_t ns = SENTINEL, again = SENTINEL, back = SENTINEL;
	int rc;

	if (text == NULL)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	rc = runx_duration_parse(text, &ns);
	if (rc != 0) {
		if (rc != -22 || ns != SENTINEL) /* -EINVAL, unchanged */
			abort();
		free(text);
		return 0;
	}
	if (ns < 0 || ns > RUNX_DURATION_INF)
		abort();
	if (runx_duration_parse(text, &again) != 0 || again != ns)
		abort();
	runx_duration_format(ns, formatted, sizeof(formatted));
	if (runx_duration_parse(formatted, &back) != 0 || back != ns)
		abort();
	/* a short buffer is never overrun and always terminated */
	runx_duration_format(ns, formatted, (size_t)(data[0] % 8) + 1);
	if (memchr(formatted, '\0', (size_t)(data[0] % 8) + 1) == NULL)
		abort();
	free(text);
	return 0;
}
