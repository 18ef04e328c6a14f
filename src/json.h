/*
 * A small JSON (RFC 8259) writer: appends a pretty-printed document (two
 * spaces per level, as the report has always been written) to a growable
 * heap buffer.  No floating point and no locale: numbers are written with
 * integer arithmetic, so LC_NUMERIC can never turn "1.5" into "1,5".
 *
 * Usage: runx_json_init(), then calls that build one value (usually an
 * object: begin_object, key + value pairs, end_object), then
 * runx_json_finish().  The value calls add nothing on their own: they
 * check their place (a key only directly inside an object, a value only
 * after a key there, one top-level value) and write the comma, newline
 * and indentation in front.  Errors are sticky: after the first one
 * (-ENOMEM, or -EINVAL for misuse) every call does nothing, and
 * runx_json_finish() frees the buffer and returns it.
 */
#ifndef RUNX_JSON_H
#define RUNX_JSON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* How deep containers may nest; deeper is -EINVAL. */
#define RUNX_JSON_MAX_DEPTH 32

struct runx_json {
	char *buf;  /* the text so far (heap, owned), or NULL */
	size_t len; /* bytes used in buf */
	size_t cap; /* bytes allocated in buf */
	int err;    /* 0, or the first error (-ENOMEM, -EINVAL): sticky */
	int depth;  /* open containers */
	bool empty; /* the innermost container has no member yet */
	bool key;   /* a key was written, its value is due */
	bool done;  /* the top-level value is complete */
	bool object[RUNX_JSON_MAX_DEPTH]; /* per level: object, else array */
	/* realloc(3) by default; tests put a failing one here */
	void *(*realloc_fn)(void *ptr, size_t size);
};

/* Starts an empty document in j (no allocation yet; cannot fail). */
void runx_json_init(struct runx_json *j);

/*
 * Open and close an object or an array.  Closing what is not open, or an
 * array with end_object (and the reverse), or an object with a key whose
 * value is missing, is -EINVAL.  An empty container is written "{}"/"[]".
 */
void runx_json_begin_object(struct runx_json *j);
void runx_json_end_object(struct runx_json *j);
void runx_json_begin_array(struct runx_json *j);
void runx_json_end_array(struct runx_json *j);

/* The key of the next member of the innermost object (escaped like a
 * string, see runx_json_string); outside an object, -EINVAL. */
void runx_json_key(struct runx_json *j, const char *key);

/*
 * A string value from the NUL-terminated bytes s, or null when s is NULL.
 * Escaping (RFC 8259, section 7): '"' and '\' get a backslash; the control
 * characters below 0x20 are \b \f \n \r \t or \u00XX (\u0000 with
 * runx_json_stringn); DEL (0x7F) and U+2028/U+2029 stay raw, as RFC 8259
 * allows.  The bytes need not be UTF-8: every byte that does not belong
 * to a well-formed sequence (RFC 3629, section 4: a bad lead byte, a
 * stray continuation byte, a truncated sequence, an overlong form, a
 * surrogate U+D800..U+DFFF, above U+10FFFF) becomes U+FFFD, one per byte;
 * well-formed sequences are copied.
 */
void runx_json_string(struct runx_json *j, const char *s);

/* The same for the len bytes at s, which may hold NUL bytes. */
void runx_json_stringn(struct runx_json *j, const char *s, size_t len);

/* An integer value, in decimal: -9223372036854775808 .. 922...807. */
void runx_json_int(struct runx_json *j, int64_t v);

/* true or false. */
void runx_json_bool(struct runx_json *j, bool v);

/* null. */
void runx_json_null(struct runx_json *j);

/*
 * ns nanoseconds as a number of seconds, exact: the integer part, a point
 * and the fraction without trailing zeros but with at least one digit, so
 * that parsers read it as a real as they did jansson's output: 1500000000
 * is 1.5, 1 is 0.000000001, 0 is 0.0, -1500000000 is -1.5, INT64_MAX is
 * 9223372036.854775807.
 */
void runx_json_seconds_ns(struct runx_json *j, int64_t ns);

/*
 * sec seconds plus usec microseconds (a struct timeval, usec 0..999999;
 * anything else is -EINVAL) as seconds, written like
 * runx_json_seconds_ns: {1, 500000} is 1.5, {0, 75} is 0.000075.
 */
void runx_json_seconds_us(struct runx_json *j, int64_t sec, long usec);

/*
 * Ends the document.  On success stores the text in *text (heap, NUL-
 * terminated, ending with a newline; the caller frees it) and its length
 * without the NUL in *len, and returns 0.  Returns the sticky error
 * (-ENOMEM, -EINVAL), or -EINVAL when the value is incomplete (nothing
 * written, a container still open); then *text is NULL and the buffer is
 * freed.  Either way j holds nothing afterwards.
 */
int runx_json_finish(struct runx_json *j, char **text, size_t *len);

#endif
