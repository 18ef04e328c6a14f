/* The JSON writer (json.h): escaping, UTF-8 repair, exact numbers. */
#include "config.h"

#include "json.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "decimal.h"
#include "utf8.h"

/* The first allocation; then the buffer doubles. */
#define JSON_INITIAL_CAP 512

#define NS_PER_SEC INT64_C(1000000000)
#define US_PER_SEC 1000000

/* U+FFFD REPLACEMENT CHARACTER in UTF-8, for each byte that is not. */
static const char replacement[] = "\xEF\xBF\xBD";

void runx_json_init(struct runx_json *j)
{
	memset(j, 0, sizeof(*j));
	j->realloc_fn = realloc;
}

/* Records the first error; every later call then does nothing. */
static void fail(struct runx_json *j, int err)
{
	if (j->err == 0)
		j->err = err;
}

/* Makes room for n more bytes; false (and the error recorded) if not. */
static bool reserve(struct runx_json *j, size_t n)
{
	size_t cap = j->cap > 0 ? j->cap : JSON_INITIAL_CAP;
	char *buf;

	if (j->err != 0)
		return false;
	if (n <= j->cap - j->len)
		return true;
	if (n > SIZE_MAX / 2 - j->len) {
		fail(j, -ENOMEM);
		return false;
	}
	while (cap - j->len < n)
		cap *= 2;
	buf = j->realloc_fn(j->buf, cap);
	if (buf == NULL) {
		fail(j, -ENOMEM);
		return false;
	}
	j->buf = buf;
	j->cap = cap;
	return true;
}

/* Appends the n bytes at s. */
static void append(struct runx_json *j, const char *s, size_t n)
{
	if (!reserve(j, n))
		return;
	memcpy(j->buf + j->len, s, n);
	j->len += n;
}

/* Appends the byte c. */
static void append_char(struct runx_json *j, char c)
{
	append(j, &c, 1);
}

/* Starts a new line indented two spaces per open container. */
static void newline(struct runx_json *j)
{
	size_t n = 1 + 2 * (size_t)j->depth;

	if (!reserve(j, n))
		return;
	j->buf[j->len] = '\n';
	memset(j->buf + j->len + 1, ' ', n - 1);
	j->len += n;
}

/*
 * Checks that a value may come now and writes what goes in front of it
 * (in an array: the comma and the new line; in an object the key did).
 * False when it may not (the error recorded) or an error is pending.
 */
static bool value_begin(struct runx_json *j)
{
	if (j->err != 0)
		return false;
	if (j->done) {
		fail(j, -EINVAL); /* a second top-level value */
		return false;
	}
	if (j->depth == 0)
		return true;
	if (j->object[j->depth - 1]) {
		if (!j->key_due) {
			fail(j, -EINVAL); /* an object member needs its key */
			return false;
		}
		j->key_due = false;
		return true;
	}
	if (!j->empty)
		append_char(j, ',');
	newline(j);
	j->empty = false;
	return j->err == 0;
}

/* After a complete value: at the top level the document is complete. */
static void value_end(struct runx_json *j)
{
	if (j->depth == 0)
		j->done = true;
}

/* Appends the escape of the ASCII byte c, or c itself if it needs none. */
static void append_ascii(struct runx_json *j, unsigned char c)
{
	static const char hex[] = "0123456789ABCDEF";
	char esc[6] = {'\\', 'u', '0', '0', hex[c >> 4], hex[c & 0xF]};

	switch (c) {
	case '"':
	case '\\':
		esc[1] = (char)c;
		append(j, esc, 2);
		return;
	case '\b':
		append(j, "\\b", 2);
		return;
	case '\f':
		append(j, "\\f", 2);
		return;
	case '\n':
		append(j, "\\n", 2);
		return;
	case '\r':
		append(j, "\\r", 2);
		return;
	case '\t':
		append(j, "\\t", 2);
		return;
	}
	if (c < 0x20)
		append(j, esc, sizeof(esc));
	else
		append_char(j, (char)c);
}

/* Appends the len bytes at s as a quoted, escaped, valid UTF-8 string. */
static void append_string(struct runx_json *j, const char *s, size_t len)
{
	const unsigned char *u = (const unsigned char *)s;

	append_char(j, '"');
	for (size_t i = 0; i < len && j->err == 0;) {
		size_t n;

		if (u[i] < 0x80) {
			append_ascii(j, u[i]);
			i++;
		} else if ((n = runx_utf8_sequence(u + i, len - i)) > 0) {
			append(j, s + i, n);
			i += n;
		} else {
			append(j, replacement, sizeof(replacement) - 1);
			i++;
		}
	}
	append_char(j, '"');
}

/* Opens an object (is_object) or an array. */
static void begin(struct runx_json *j, bool is_object)
{
	if (!value_begin(j))
		return;
	if (j->depth == RUNX_JSON_MAX_DEPTH) {
		fail(j, -EINVAL);
		return;
	}
	append_char(j, is_object ? '{' : '[');
	j->object[j->depth++] = is_object;
	j->empty = true;
}

/* Closes the innermost container, which must be an object if is_object. */
static void end(struct runx_json *j, bool is_object)
{
	if (j->err != 0)
		return;
	if (j->depth == 0 || j->object[j->depth - 1] != is_object ||
	    j->key_due) {
		fail(j, -EINVAL);
		return;
	}
	j->depth--;
	if (!j->empty)
		newline(j);
	append_char(j, is_object ? '}' : ']');
	j->empty = false; /* the parent holds this container now */
	value_end(j);
}

void runx_json_begin_object(struct runx_json *j)
{
	begin(j, true);
}

void runx_json_end_object(struct runx_json *j)
{
	end(j, true);
}

void runx_json_begin_array(struct runx_json *j)
{
	begin(j, false);
}

void runx_json_end_array(struct runx_json *j)
{
	end(j, false);
}

void runx_json_key(struct runx_json *j, const char *key)
{
	if (j->err != 0)
		return;
	if (j->depth == 0 || !j->object[j->depth - 1] || j->key_due) {
		fail(j, -EINVAL);
		return;
	}
	if (!j->empty)
		append_char(j, ',');
	newline(j);
	append_string(j, key, strlen(key));
	append(j, ": ", 2);
	j->empty = false;
	j->key_due = true;
}

void runx_json_stringn(struct runx_json *j, const char *s, size_t len)
{
	if (!value_begin(j))
		return;
	append_string(j, s, len);
	value_end(j);
}

void runx_json_string(struct runx_json *j, const char *s)
{
	if (s == NULL)
		runx_json_null(j);
	else
		runx_json_stringn(j, s, strlen(s));
}

/* Appends the literal word (null, true, false) as a value. */
static void literal(struct runx_json *j, const char *word)
{
	if (!value_begin(j))
		return;
	append(j, word, strlen(word));
	value_end(j);
}

void runx_json_bool(struct runx_json *j, bool v)
{
	literal(j, v ? "true" : "false");
}

void runx_json_null(struct runx_json *j)
{
	literal(j, "null");
}

/* Appends v in decimal. */
static void append_u64(struct runx_json *j, uint64_t v)
{
	char digits[RUNX_DECIMAL_MAX], *end = digits + sizeof(digits);
	const char *first = runx_decimal(v, end);

	append(j, first, (size_t)(end - first));
}

/* The magnitude of v, INT64_MIN included (unsigned negation wraps). */
static uint64_t magnitude(int64_t v)
{
	return v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;
}

void runx_json_int(struct runx_json *j, int64_t v)
{
	if (!value_begin(j))
		return;
	if (v < 0)
		append_char(j, '-');
	append_u64(j, magnitude(v));
	value_end(j);
}

/*
 * Appends [-]whole.frac where frac < 10^width is written with width
 * digits, then stripped of trailing zeros down to one digit.
 */
static void append_decimal(struct runx_json *j, bool negative, uint64_t whole,
			   uint64_t frac, int width)
{
	char digits[19]; /* width <= 18 */
	int n = width;

	for (int i = width - 1; i >= 0; i--) {
		digits[i] = (char)('0' + frac % 10);
		frac /= 10;
	}
	while (n > 1 && digits[n - 1] == '0')
		n--;
	if (negative)
		append_char(j, '-');
	append_u64(j, whole);
	append_char(j, '.');
	append(j, digits, (size_t)n);
}

void runx_json_seconds_ns(struct runx_json *j, int64_t ns)
{
	uint64_t m = magnitude(ns);

	if (!value_begin(j))
		return;
	append_decimal(j, ns < 0, m / NS_PER_SEC, m % NS_PER_SEC, 9);
	value_end(j);
}

void runx_json_seconds_us(struct runx_json *j, int64_t sec, long usec)
{
	uint64_t whole = magnitude(sec), frac = (uint64_t)usec;

	if (j->err == 0 && (usec < 0 || usec >= US_PER_SEC)) {
		fail(j, -EINVAL);
		return;
	}
	if (!value_begin(j))
		return;
	if (sec < 0 && usec > 0) {
		/* -2 s + 0.5 s is -1.5 s: borrow one second */
		whole = magnitude(sec + 1);
		frac = US_PER_SEC - frac;
	}
	append_decimal(j, sec < 0, whole, frac, 6);
	value_end(j);
}

int runx_json_finish(struct runx_json *j, char **text, size_t *len)
{
	int ret;

	*text = NULL;
	*len = 0;
	if (j->err == 0 && !j->done)
		fail(j, -EINVAL);
	append(j, "\n", 2); /* the newline and the NUL */
	ret = j->err;
	if (ret == 0) {
		*text = j->buf;
		*len = j->len - 1;
	} else {
		free(j->buf);
	}
	j->buf = NULL;
	runx_json_init(j);
	return ret;
}
