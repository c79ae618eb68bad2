/* SPDX-License-Identifier: MIT */
#include <stdarg.h>
#include <stdio.h>

#include "error.h"

static _Thread_local char last_error[512];

int axl__error(int code, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(last_error, sizeof last_error, fmt, ap);
	va_end(ap);
	return code;
}

void axl__error_clear(void)
{
	last_error[0] = '\0';
}

const char *axl__error_text(void)
{
	return last_error;
}
