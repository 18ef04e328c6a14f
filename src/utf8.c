/* UTF-8 well-formedness, for the JSON writer and message quoting. */
#include "config.h"

#include "utf8.h"

/* The bytes the lead byte c announces, itself included: 2 to 4, or 0. */
static size_t announced(unsigned char c)
{
	if (c >= 0xC2 && c <= 0xDF)
		return 2;
	if (c >= 0xE0 && c <= 0xEF)
		return 3;
	return c >= 0xF0 && c <= 0xF4 ? 4 : 0;
}

size_t runx_utf8_sequence(const unsigned char *s, size_t avail)
{
	unsigned char lo = 0x80, hi = 0xBF;
	size_t n = announced(s[0]);

	if (n == 0)
		return 0; /* ASCII, continuation, C0, C1 or F5..FF */
	if (s[0] == 0xE0)
		lo = 0xA0;
	else if (s[0] == 0xED)
		hi = 0x9F;
	else if (s[0] == 0xF0)
		lo = 0x90;
	else if (s[0] == 0xF4)
		hi = 0x8F;
	if (n > avail || s[1] < lo || s[1] > hi)
		return 0;
	for (size_t i = 2; i < n; i++)
		if ((s[i] & 0xC0) != 0x80)
			return 0;
	return n;
}

size_t runx_utf8_whole_prefix(const char *s, size_t len)
{
	const unsigned char *u = (const unsigned char *)s;

	/* back over at most 3 continuation bytes to a lead byte */
	for (size_t back = 1; back <= 4 && back <= len; back++) {
		unsigned char c = u[len - back];

		if (c >= 0x80 && c <= 0xbf)
			continue;
		return announced(c) > back ? len - back : len;
	}
	return len;
}
