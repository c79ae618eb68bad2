/* SPDX-License-Identifier: MIT */
/* The deadline runner of vendor compute calls (compute/ccall.h): arguments copied to the
 * worker and back, errors carried from the worker's thread, concurrent calls on separate
 * workers, a hanging call ended by the deadline, and the library wedged after it. */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "axl.h"
#include "ccall.h"
#include "check.h"
#include "internal.h"

static int64_t now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

struct add {
	int a, b, sum;
	pthread_t thread;
};

static int do_add(void *p)
{
	struct add *x = p;
	x->sum = x->a + x->b;
	x->thread = pthread_self();
	return 0;
}

static int do_fail(void *p)
{
	(void)p;
	return axl__error(AXL_ENOMEM, "fakeMemAlloc: 4096 bytes asked, 0 free");
}

/* Sleeps until released: with 8 callers at once, each finishes only when all 8 are in,
 * which a pool that serialised them would never reach. */
static atomic_int inside, release_all;
static int do_rendezvous(void *p)
{
	(void)p;
	atomic_fetch_add(&inside, 1);
	int64_t t0 = now_ms();
	while (atomic_load(&inside) < 8 && !atomic_load(&release_all) && now_ms() - t0 < 5000)
		usleep(1000);
	return atomic_load(&inside) >= 8 ? 0 : AXL_EIO;
}

static atomic_int hang_ran;
static int do_hang(void *p)
{
	(void)p;
	atomic_fetch_add(&hang_ran, 1);
	for (;;)
		sleep(3600);
	return 0;
}

static struct axl__ccall *shared;
static void *caller(void *arg)
{
	int *rc = arg;
	int dummy = 0;
	*rc = axl__ccall_run(shared, do_rendezvous, &dummy, sizeof dummy, "rendezvous");
	return NULL;
}

int main(void)
{
	/* a plain call: the arguments go to a worker thread and the answer comes back */
	struct axl__ccall *p = axl__ccall_new("testlib", 2000);
	CHECK(p != NULL);
	struct add x = { 2, 40, 0, pthread_self() };
	CHECK_INT(axl__ccall_run(p, do_add, &x, sizeof x, "add"), 0);
	CHECK_INT(x.sum, 42);
	CHECK(!pthread_equal(x.thread, pthread_self()));
	/* a second call reuses the idle worker */
	pthread_t first = x.thread;
	x.a = 1;
	CHECK_INT(axl__ccall_run(p, do_add, &x, sizeof x, "add"), 0);
	CHECK_INT(x.sum, 41);
	CHECK(pthread_equal(x.thread, first));

	/* an error and its message reach the caller's thread */
	axl__error(0, "%s", "");
	CHECK_INT(axl__ccall_run(p, do_fail, &x, sizeof x, "fakeMemAlloc"), AXL_ENOMEM);
	CHECK(strstr(axl_error_last(), "4096 bytes asked, 0 free") != NULL);

	/* 8 threads at once: each gets a worker of its own */
	shared = p;
	pthread_t t[8];
	int rcs[8];
	for (int i = 0; i < 8; i++)
		CHECK(pthread_create(&t[i], NULL, caller, &rcs[i]) == 0);
	for (int i = 0; i < 8; i++) {
		pthread_join(t[i], NULL);
		CHECK_INT(rcs[i], 0);
	}

	/* a call that hangs: AXL_ETIMEDOUT at the deadline, naming the call */
	struct axl__ccall *h = axl__ccall_new("hanglib", 200);
	int dummy = 0;
	int64_t t0 = now_ms();
	CHECK_INT(axl__ccall_run(h, do_hang, &dummy, sizeof dummy, "fakeStreamSynchronize on dev0"), AXL_ETIMEDOUT);
	int64_t took = now_ms() - t0;
	CHECK(took >= 190 && took < 2000);
	CHECK(strstr(axl_error_last(), "fakeStreamSynchronize on dev0") != NULL);
	CHECK(strstr(axl_error_last(), "200 ms") != NULL);
	/* the library is wedged: later calls fail at once and run nothing */
	x.sum = 0;
	t0 = now_ms();
	CHECK_INT(axl__ccall_run(h, do_add, &x, sizeof x, "add"), AXL_ETIMEDOUT);
	CHECK(now_ms() - t0 < 100);
	CHECK_INT(x.sum, 0);
	CHECK(strstr(axl_error_last(), "hung earlier") != NULL);
	/* so does a new pool of the same library; other libraries are not affected */
	struct axl__ccall *h2 = axl__ccall_new("hanglib", 200);
	CHECK_INT(axl__ccall_run(h2, do_add, &x, sizeof x, "add"), AXL_ETIMEDOUT);
	CHECK_INT(axl__ccall_run(p, do_add, &x, sizeof x, "add"), 0);
	CHECK_INT(hang_ran, 1);
	/* freed with its worker still hanging: the worker is abandoned, not waited for */
	axl__ccall_free(h);
	axl__ccall_free(h2);
	axl__ccall_free(p);

	/* no deadline: the call runs on the caller's thread */
	struct axl__ccall *n = axl__ccall_new("nodeadline", 0);
	CHECK_INT(axl__ccall_run(n, do_add, &x, sizeof x, "add"), 0);
	CHECK(pthread_equal(x.thread, pthread_self()));
	axl__ccall_free(n);
	axl__ccall_free(NULL);

	return check_summary();
}
