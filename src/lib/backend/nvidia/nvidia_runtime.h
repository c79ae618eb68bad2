/* SPDX-License-Identifier: MIT */
/* The folders the NVIDIA driver's user-space libraries are installed in (runtime.c): the
 * files axl cdi mounts are looked for there, and so are NVML and CUDA under a driver
 * root (vendorlib/vlib.h, struct axl__vlibrary.dirs). */
#ifndef AXL_NVIDIA_RUNTIME_H
#define AXL_NVIDIA_RUNTIME_H

extern const char *const axl__nvidia_lib_dirs[];

#endif
