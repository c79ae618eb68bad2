/* SPDX-License-Identifier: MIT */
/*
 * libaccelerator_axl.so's helpers that every file of the provider uses (tf.h): the host's
 * log callback, a bounded string copy and the monotonic clock. They depend on nothing
 * else of the provider, so no file of it needs another just for them.
 */
#define _GNU_SOURCE
#include "tf.h"

#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

static _Atomic(LogCallbackFunc) tf_log_cb;

/* ---- logging ---------------------------------------------------------------------- */
void tf_log(const char *level, const char *fmt, ...)
{
	LogCallbackFunc cb = atomic_load(&tf_log_cb);
	if (!cb)
		return;
	char msg[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	cb(level, msg);
}

TF_API AccelResult AccelRegisterLogCallback(LogCallbackFunc callback)
{
	atomic_store(&tf_log_cb, callback);
	return ACCEL_SUCCESS;
}

TF_API AccelResult RegisterLogCallback(LogCallbackFunc callback)
{
	return AccelRegisterLogCallback(callback);
}

/* ---- helpers ---------------------------------------------------------------------- */
void tf_copy(char *dst, size_t cap, const char *src)
{
	if (!cap)
		return;
	size_t n = src ? strnlen(src, cap - 1) : 0;
	if (n)
		memcpy(dst, src, n);
	dst[n] = '\0';
}

int64_t tf_now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}
