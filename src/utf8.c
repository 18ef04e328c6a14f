/* UTF-8 well-formedness, for the JSON writer and message quoting. */
#include "config.h"

#include "utf8.h"

size_t runx_utf8_sequence(const unsigned char *s, size_t avail)
{
	unsigned char lo = 0x80, hi = 0xBF;
	size_t n;

	if (s[0] >= 0xC2 && s[0] <= 0xDF)
		n = 2;
	else if (s[0] >= 0xE0 && s[0] <= 0xEF)
		n = 3;
	else if (s[0] >= 0xF0 && s[0] <= 0xF4)
		n = 4;
	else
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
