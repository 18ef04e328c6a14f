/* UTF-8: which byte sequences are well formed. */
#ifndef RUNX_UTF8_H
#define RUNX_UTF8_H

#include <stddef.h>

/*
 * Length of the well-formed UTF-8 sequence at s (avail bytes readable,
 * s[0] >= 0x80): 2 to 4, or 0 if s[0] does not start one or it is cut
 * short.  The ranges of the second byte exclude overlong forms (E0, F0),
 * surrogates (ED) and code points above U+10FFFF (F4): RFC 3629, section
 * 4; Unicode, table 3-7.  ASCII (s[0] < 0x80) gives 0 too.  No errors.
 */
size_t runx_utf8_sequence(const unsigned char *s, size_t avail);

/*
 * The length of s (len bytes) without the start of a UTF-8 character that
 * a cut left at its end: a lead byte (C2 to F4) followed by fewer
 * continuation bytes (80 to BF) than it announces.  Other bytes stay (a
 * line escapes them).  For a command line cut at 512 bytes.  No errors.
 */
size_t runx_utf8_whole_prefix(const char *s, size_t len);

#endif
