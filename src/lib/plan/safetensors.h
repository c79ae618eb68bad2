/* SPDX-License-Identifier: MIT */
/* Model description from safetensors headers: exact parameter counts, dtypes
 * and bytes, and what the tensor names and shapes say about the architecture. Only the
 * 8-byte length and the JSON header of each file are read, never the tensor data. */
#ifndef AXL_LIB_SAFETENSORS_H
#define AXL_LIB_SAFETENSORS_H

#include <stddef.h>
#include <stdint.h>

#include "model.h"

/* Largest JSON header accepted (bytes). */
#define AXL__ST_HEADER_MAX (100u * 1024 * 1024)

/* A .safetensors file, or a sharded "*.safetensors.index.json" (its weight_map names the
 * shards, read from the same directory). 0, or -1 with a message naming the file and the
 * problem in err. Unknown architecture facts stay < 0 (model.h).
 *
 * Packed quantised checkpoints (GPTQ, AWQ): a tensor "<x>.qweight" of dtype I32 holds 8
 * 4-bit weights per element; it is counted as nelem x 8 logical parameters under the
 * dtype "INT4", whose bytes also take the group metadata "<x>.qzeros", "<x>.scales" and
 * "<x>.g_idx" (so its bits per weight include the scale overhead); those are not counted
 * as parameters. */
int axl__model_from_safetensors(const char *path, struct axl__model *out, char *err, size_t errcap);

/* The same on a whole single file held in memory (for the fuzzer): buf[0..len) is the
 * 8-byte length, the header and the data section. */
int axl__model_from_safetensors_mem(const uint8_t *buf, size_t len, const char *name, struct axl__model *out,
				    char *err, size_t errcap);

#endif
