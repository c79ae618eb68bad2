/* SPDX-License-Identifier: MIT */
/*
 * Vendor-library calls under a deadline. A backend that calls into a vendor library
 * (NVML, ROCm SMI, Level Zero) runs all of its calls in one worker thread, started
 * early so that the library's start-up overlaps the PCI scan, and waits for it at
 * most the context's vendor_timeout_ms. A worker that misses its deadline is abandoned,
 * never killed (it may hold the library's locks): it frees its work when it returns, if
 * ever, and the library is marked wedged so that this process does not call into it
 * again. The worker must never touch the inventory or the context: it fills its own
 * data, which the backend applies on the calling thread after a successful wait.
 */
#ifndef AXL_VJOB_H
#define AXL_VJOB_H

#include <stdbool.h>

struct axl__vjob;

/* Run work(arg) in a detached worker (or right here when no thread can be made).
 * release(arg) frees arg once both the worker and the caller are done with it. NULL on
 * allocation failure (arg is then released at once). */
struct axl__vjob *axl__vjob_start(void (*work)(void *arg), void (*release)(void *arg), void *arg);
/* Wait for the worker at most timeout_ms. true: it finished, arg is the caller's to
 * read until axl__vjob_free(). false: it missed the deadline; the job is abandoned and
 * freed (do not use it or arg again) and lib is marked wedged. */
bool axl__vjob_wait(struct axl__vjob *j, int timeout_ms, const char *lib);
void *axl__vjob_arg(const struct axl__vjob *j);
/* Drop the caller's side (after a successful wait, or without waiting at all). */
void axl__vjob_free(struct axl__vjob *j);

/* now + timeout_ms on CLOCK_MONOTONIC (what the workers' condition variables wait on). */
struct timespec;
void axl__deadline(struct timespec *dl, int timeout_ms);

/* Did a call into lib ("nvml", "rocm-smi", ...) hang earlier in this process? */
bool axl__vlib_wedged(const char *lib);
/* Mark lib wedged (a worker of one's own missed its deadline). */
void axl__vlib_wedge(const char *lib);

#endif
