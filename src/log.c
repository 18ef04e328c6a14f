/* Messages on standard error. */
#include "config.h"

#include "log.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static bool verbose_on;

void runx_log_set_verbose(bool verbose)
{
	verbose_on = verbose;
}

bool runx_log_verbose(void)
{
	return verbose_on;
}

static void emit(const char *fmt, va_list ap)
{
	char line[1024] = "runx: ";
	size_t len = strlen(line);
	int n = vsnprintf(line + len, sizeof(line) - len - 1, fmt, ap);

	if (n < 0)
		return;
	len += (size_t)n < sizeof(line) - len - 1 ? (size_t)n
						  : sizeof(line) - len - 2;
	line[len++] = '\n';
	(void)!write(STDERR_FILENO, line, len);
}

void runx_error(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	emit(fmt, ap);
	va_end(ap);
}

void runx_verbose(const char *fmt, ...)
{
	va_list ap;

	if (!verbose_on)
		return;
	va_start(ap, fmt);
	emit(fmt, ap);
	va_end(ap);
}
