/* SPDX-License-Identifier: MIT */
/* Model description from a GGUF header: architecture metadata and the tensors'
 * ggml types with their real bits per weight. Only the header is read (bounded buffered
 * reads), never the tensor data. */
#ifndef AXL_LIB_GGUF_H
#define AXL_LIB_GGUF_H

#include <stddef.h>
#include <stdint.h>

#include "model.h"

#define AXL__GGUF_MAX_TENSORS 1000000
#define AXL__GGUF_MAX_KV 1000000
#define AXL__GGUF_MAX_STRING (1u << 20)
#define AXL__GGUF_MAX_ARRAY 100000000

/* A GGUF v2 or v3 file. 0, or -1 with a message naming the file and the problem. */
int axl__model_from_gguf(const char *path, struct axl__model *out, char *err, size_t errcap);
/* The same on a whole file in memory (for the fuzzer). */
int axl__model_from_gguf_mem(const uint8_t *buf, size_t len, const char *name, struct axl__model *out, char *err,
			     size_t errcap);

/* Bits per weight of a ggml type by name ("Q4_K" 4.5, "Q6_K" 6.5625, without case);
 * -1 when unknown. */
double axl__gguf_type_bits(const char *name);

#endif
