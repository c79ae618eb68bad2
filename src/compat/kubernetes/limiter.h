/* SPDX-License-Identifier: MIT */
/*
 * The limiter that holds a share of a device in a container, as `axl device-plugin
 * --shares` and `axl dra-plugin --shares` mount it (docs/kubernetes.md): where it is on the
 * host (--limiter, or the one installed beside axl), where it goes in the container, and
 * the preload list beside it that the dynamic loader reads for every process (ld.so(8)).
 * Also where the commands find their other files beside axl (the gRPC module).
 */
#ifndef AXL_K8S_LIMITER_H
#define AXL_K8S_LIMITER_H

#include <stddef.h>

/* Where a share's limiter is mounted in the container. */
#define KP_LIMITER_PATH "/opt/axl/lib/libaxl_limiter.so"
/* The dynamic loader's list of libraries every process preloads (ld.so(8)). */
#define KP_PRELOAD_LIST "/etc/ld.so.preload"
/* The file beside the limiter that holds KP_LIMITER_PATH for KP_PRELOAD_LIST. */
#define KP_PRELOAD_FILE "ld.so.preload"
/* The limiter's file name as installed. */
#define KP_LIMITER_NAME "libaxl_limiter.so"

/* The first of: the variable var's value (var NULL: none), <exe dir>/<build_sub>/<name> (a
 * build tree), <exe dir>/../<libdir>/axl/<name> (an installed prefix, wherever it was
 * moved), <AXL_PKGLIBDIR>/<name>. out, or NULL when none is readable (out then holds the
 * last tried). */
const char *kp_find_file(const char *var, const char *build_sub, const char *name, char *out, size_t cap);

/* The limiter for `axl <who> --shares shares`: given (--limiter), else the one beside axl,
 * into lim (absolute, readable), and the preload list beside it into pre with *preload =
 * pre when it holds KP_LIMITER_PATH (else *preload = NULL and a line says LD_PRELOAD is
 * used instead). 0, or 1 after a message. */
int kp_limiter_find(const char *who, int shares, const char *given, char *lim, size_t lcap, char *pre, size_t pcap,
		    const char **preload);

#endif
