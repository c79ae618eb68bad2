/* SPDX-License-Identifier: MIT */
/* Helpers shared by the safetensors and GGUF header readers (safetensors.c, gguf.c). */
#ifndef AXL_LIB_MODEL_FILE_H
#define AXL_LIB_MODEL_FILE_H

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "model.h"

/* Every count unknown (< 0), no dtypes, the source and the id (the file's base name). */
static inline void axl__model_file_init(struct axl__model *m, enum axl__model_src src, const char *path)
{
	memset(m, 0, sizeof *m);
	m->source = src;
	const char *base = path ? strrchr(path, '/') : NULL;
	snprintf(m->id, sizeof m->id, "%s", base ? base + 1 : path ? path : "");
	m->layers = m->hidden = m->heads = m->kv_heads = m->head_dim = m->intermediate = -1;
	m->vocab = -1;
	m->max_context = -1;
	m->attn = AXL__ATTN_UNKNOWN;
	m->sliding_window = m->sliding_layers = -1;
	m->experts = m->experts_per_token = m->shared_experts = m->moe_intermediate = -1;
	m->dense_layers = -1;
	m->kv_lora_rank = m->q_lora_rank = m->qk_rope_dim = m->qk_nope_dim = m->v_head_dim = -1;
	m->params = m->active_params = -1;
	m->weight_bytes = -1;
}

/* Add params and bytes to the dtype called name (appended when new). -1 when the table
 * is full or a sum would overflow. */
static inline int axl__model_file_add(struct axl__model *m, const char *name, double bits, int64_t params,
				      int64_t bytes)
{
	size_t i = 0;
	while (i < m->ndtypes && strcmp(m->dtypes[i].name, name) != 0)
		i++;
	if (i == m->ndtypes) {
		if (i >= AXL__MODEL_DTYPES_MAX)
			return -1;
		memset(&m->dtypes[i], 0, sizeof m->dtypes[i]);
		snprintf(m->dtypes[i].name, sizeof m->dtypes[i].name, "%s", name);
		m->dtypes[i].bits = bits;
		m->ndtypes++;
	}
	struct axl__model_dtype *d = &m->dtypes[i];
	if (__builtin_add_overflow(d->params, params, &d->params) ||
	    __builtin_add_overflow(d->bytes, bytes, &d->bytes))
		return -1;
	return 0;
}

#endif
