/*
 * libFuzzer target: runx_quote().  Invariants: the result fits the buffer
 * and is NUL-terminated, holds no control character (so it can neither end
 * a line nor start an escape sequence), is valid UTF-8 without C1
 * controls; unescaping it gives the input back (a backslash is doubled, so
 * the escapes are unambiguous), whole or as its two ends around "...".
 */
#define _GNU_SOURCE
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The length of the valid UTF-8 character at s (1 to 4), 0 if invalid. */
static size_t utf8_char(const unsigned char *s)
{
	size_t n;
	uint32_t cp;

	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		n = 2, cp = s[0] & 0x1f;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		n = 3, cp = s[0] & 0x0f;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		n = 4, cp = s[0] & 0x07;
	else
		return 0;
	for (size_t i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (s[i] & 0x3f);
	}
	if ((n == 3 && cp < 0x800) || (n == 4 && cp < 0x10000) ||
	    (cp >= 0xd800 && cp <= 0xdfff) || cp > 0x10ffff ||
	    (cp >= 0x80 && cp <= 0x9f))
		return 0;
	return n;
}

/* Undoes runx_quote's escapes of out into buf; returns the length. */
static size_t unescape(const char *out, unsigned char *buf)
{
	static const char hex[] = "0123456789abcdef";
	size_t n = 0;

	for (const char *p = out; *p != '\0'; p++) {
		if (*p != '\\') {
			buf[n++] = (unsigned char)*p;
			continue;
		}
		p++;
		if (*p == '\\') {
			buf[n++] = '\\';
			continue;
		}
		if (*p == 'n' || *p == 't' || *p == 'r') {
			buf[n++] = *p == 'n' ? '\n' : *p == 't' ? '\t' : '\r';
			continue;
		}
		if (*p != 'x')
			abort(); /* runx_quote writes no other escape */
		buf[n++] = (unsigned char)((strchr(hex, p[1]) - hex) << 4 |
					   (strchr(hex, p[2]) - hex));
		p += 2;
	}
	return n;
}

/* Aborts unless out unescapes to text, or to its two ends around "...". */
static void check_round_trip(const char *text, const char *out, size_t bufsize,
			     unsigned char *back)
{
	size_t tlen = strlen(text), n;
	const char *dots = strstr(out, "...");

	if (dots == NULL || bufsize < 8) {
		n = unescape(out, back);
		if (n > tlen || memcmp(back, text, n) != 0 ||
		    (n != tlen && bufsize >= 8))
			abort();
		return;
	}
	char *head = strndup(out, (size_t)(dots - out));
	size_t hn = unescape(head, back);

	if (memcmp(back, text, hn) != 0)
		abort();
	n = unescape(dots + 3, back);
	if (hn + n >= tlen || memcmp(back, text + tlen - n, n) != 0)
		abort();
	free(head);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	size_t bufsize = size > 0 ? (size_t)data[0] + 1 : 1;
	char *text = malloc(size + 1), *out = malloc(bufsize);
	unsigned char *back = malloc(size + 1);
	size_t len;

	if (text == NULL || out == NULL || back == NULL)
		abort();
	memcpy(text, data, size);
	text[size] = '\0';
	runx_quote(text, out, bufsize);
	len = strnlen(out, bufsize);
	if (len >= bufsize)
		abort();
	for (size_t i = 0; i < len;) {
		size_t n = utf8_char((const unsigned char *)out + i);

		if (n == 0 || (unsigned char)out[i] < 0x20 ||
		    (unsigned char)out[i] == 0x7f)
			abort();
		i += n;
	}
	/* an input without '.' must come back from the escapes: whole, or as
	 * a prefix "..." a suffix when it was shortened (a buffer under 8
	 * bytes only truncates) */
	if (strchr(text, '.') == NULL)
		check_round_trip(text, out, bufsize, back);
	free(text);
	free(out);
	free(back);
	return 0;
}
