/* SPDX-License-Identifier: MIT */
/* The folders ROCm's user-space libraries are installed in (runtime.c): the files axl cdi
 * mounts are looked for there, and so are ROCm SMI and HIP under a driver root
 * (vendorlib/vlib.h, struct axl__vlibrary.dirs). */
#ifndef AXL_AMD_RUNTIME_H
#define AXL_AMD_RUNTIME_H

extern const char *const axl__amd_gpu_lib_dirs[];

#endif
