/* SPDX-License-Identifier: MIT */
/*
 * What every header of src/abi/ shares. src/abi/<vendor>/ declares, once, each foreign C
 * ABI axl calls or replaces (the CUDA driver, NVML, HIP, ROCm SMI, Level Zero): the
 * vendors' own names, types, constants and prototypes, never an axl type. The library,
 * the limiter and compat use them; tests/vendorabi compares each with the vendor's own
 * header as Debian ships it (docs/internals/testing.md, "Vendor ABIs").
 *
 * A declaration newer than the header it is compared with sits under
 * `#if AXL_ABI_HAVE(version)`: the comparison defines AXL_ABI_HEADER_VERSION to the
 * vendor header's version and leaves it out (and says so); a build sees everything.
 */
#ifndef AXL_ABI_ABI_H
#define AXL_ABI_ABI_H

#ifdef AXL_ABI_HEADER_VERSION
#define AXL_ABI_HAVE(version) (AXL_ABI_HEADER_VERSION >= (version))
#else
#define AXL_ABI_HAVE(version) 1
#endif

#endif
