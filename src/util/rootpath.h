/* SPDX-License-Identifier: MIT */
/* Paths inside another root: a driver root (the host's / mounted at /host in a container,
 * the GPU Operator's /run/nvidia/driver) whose symbolic links are the root's own, so an
 * absolute link (Debian's libcuda.so.1 -> /etc/alternatives/libcuda.so.1) resolves inside
 * it, never in the caller's tree, and ".." never climbs out of it. No axl types. */
#ifndef AXL_UTIL_ROOTPATH_H
#define AXL_UTIL_ROOTPATH_H

#include <stddef.h>

/* Resolve path (absolute, as the root's own system sees it) inside root ("/" or NULL:
 * the caller's own tree): every symbolic link on the way is followed as the root's
 * system would follow it. out gets the resolved path as the root sees it ("/usr/lib/
 * x86_64-linux-gnu/nvidia/current/libcuda.so.535.261.03"), without root. Returns 0, or
 * -ENOENT (a component or a link's target missing: a dangling link), -ENOTDIR, -ELOOP
 * (more than 40 links), -ENAMETOOLONG (out too small), -EINVAL (path not absolute), or
 * another -errno of lstat/readlink. */
int axl__root_resolve(const char *root, const char *path, char *out, size_t cap);

/* root + path as one path of the caller's tree ("/host" + "/usr/lib" -> "/host/usr/lib";
 * root "/" or NULL: path). 0, or -ENAMETOOLONG. */
int axl__root_join(const char *root, const char *path, char *out, size_t cap);

#endif
