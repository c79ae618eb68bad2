/* SPDX-License-Identifier: MIT */
/* GGUF headers. Layout (v2/v3, little-endian): "GGUF", u32 version, u64
 * tensor_count, u64 metadata_kv_count; each kv: string key, u32 type, value (string: u64
 * length + bytes; array: u32 element type, u64 count, elements); each tensor info: string
 * name, u32 n_dims, u64 dims[n_dims], u32 ggml type, u64 offset (relative to the data
 * section, which starts at the next multiple of general.alignment, default 32).
 *
 * The ggml types' block sizes and bytes per block follow ggml's type_traits table and the
 * block structs of ggml-common.h (e.g. block_q4_K 144 bytes per 256 weights = 4.5 bits,
 * block_q6_K 210 = 6.5625, block_q8_K 292 = 9.125, block_iq4_xs 136 = 4.25, block_mxfp4
 * 17 per 32). Ids 4, 5 and 31-33, 36-38 were removed from ggml and are refused. */
#define _GNU_SOURCE
#include "gguf.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "model_file.h"

struct gg_type {
	int id;
	const char *name;
	int blck, size;
};

static const struct gg_type gg_types[] = {
	{0, "F32", 1, 4},        {1, "F16", 1, 2},         {2, "Q4_0", 32, 18},     {3, "Q4_1", 32, 20},
	{6, "Q5_0", 32, 22},     {7, "Q5_1", 32, 24},      {8, "Q8_0", 32, 34},     {9, "Q8_1", 32, 36},
	{10, "Q2_K", 256, 84},   {11, "Q3_K", 256, 110},   {12, "Q4_K", 256, 144},  {13, "Q5_K", 256, 176},
	{14, "Q6_K", 256, 210},  {15, "Q8_K", 256, 292},   {16, "IQ2_XXS", 256, 66}, {17, "IQ2_XS", 256, 74},
	{18, "IQ3_XXS", 256, 98}, {19, "IQ1_S", 256, 50},  {20, "IQ4_NL", 32, 18},  {21, "IQ3_S", 256, 110},
	{22, "IQ2_S", 256, 82},  {23, "IQ4_XS", 256, 136}, {24, "I8", 1, 1},        {25, "I16", 1, 2},
	{26, "I32", 1, 4},       {27, "I64", 1, 8},        {28, "F64", 1, 8},       {29, "IQ1_M", 256, 56},
	{30, "BF16", 1, 2},      {34, "TQ1_0", 256, 54},   {35, "TQ2_0", 256, 66},  {39, "MXFP4", 32, 17},
};

enum { GV_U8, GV_I8, GV_U16, GV_I16, GV_U32, GV_I32, GV_F32, GV_BOOL, GV_STR, GV_ARR, GV_U64, GV_I64, GV_F64 };
static const int gv_size[] = {1, 1, 2, 2, 4, 4, 4, 1, 0, 0, 8, 8, 8};

/* The reader: a memory buffer or a FILE, a position and the size; every read checked
 * against the size first. */
struct gr {
	const uint8_t *mem;
	FILE *f;
	uint64_t pos, size;
	const char *file;
	char *err;
	size_t errcap;
};

static int fail(struct gr *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int fail(struct gr *r, const char *fmt, ...)
{
	if (r->err && r->errcap) {
		int n = snprintf(r->err, r->errcap, "%s: ", r->file);
		if (n < 0 || (size_t)n >= r->errcap)
			return -1;
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(r->err + n, r->errcap - (size_t)n, fmt, ap);
		va_end(ap);
	}
	return -1;
}

static int rd(struct gr *r, void *dst, uint64_t n)
{
	if (n > r->size - r->pos)
		return fail(r, "truncated at byte %llu (%llu more needed)", (unsigned long long)r->pos,
			    (unsigned long long)n);
	if (r->mem)
		memcpy(dst, r->mem + r->pos, (size_t)n);
	else if (fread(dst, 1, (size_t)n, r->f) != n)
		return fail(r, "read error at byte %llu", (unsigned long long)r->pos);
	r->pos += n;
	return 0;
}

static int skip(struct gr *r, uint64_t n)
{
	if (n > r->size - r->pos)
		return fail(r, "truncated at byte %llu (%llu more needed)", (unsigned long long)r->pos,
			    (unsigned long long)n);
	if (!r->mem && fseeko(r->f, (off_t)(r->pos + n), SEEK_SET))
		return fail(r, "seek error at byte %llu", (unsigned long long)r->pos);
	r->pos += n;
	return 0;
}

static int u32(struct gr *r, uint32_t *v)
{
	uint8_t b[4];
	if (rd(r, b, 4))
		return -1;
	*v = (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24;
	return 0;
}

static int u64(struct gr *r, uint64_t *v)
{
	uint8_t b[8];
	if (rd(r, b, 8))
		return -1;
	*v = 0;
	for (int i = 7; i >= 0; i--)
		*v = *v << 8 | b[i];
	return 0;
}

/* A string: up to cap-1 bytes kept NUL-terminated in buf (buf NULL: skipped); *full
 * false when it was longer. Longer than AXL__GGUF_MAX_STRING: refused. */
static int str(struct gr *r, char *buf, size_t cap, bool *full, const char *what)
{
	uint64_t n;
	if (u64(r, &n))
		return -1;
	if (n > AXL__GGUF_MAX_STRING)
		return fail(r, "%s of %llu bytes at byte %llu (at most %u)", what, (unsigned long long)n,
			    (unsigned long long)r->pos, AXL__GGUF_MAX_STRING);
	if (full)
		*full = buf && n < cap;
	if (buf && n < cap) {
		if (rd(r, buf, n))
			return -1;
		buf[n] = 0;
		if (memchr(buf, 0, (size_t)n))
			buf[0] = 0; /* an embedded NUL: matches no key */
		return 0;
	}
	if (buf && cap)
		buf[0] = 0;
	return skip(r, n);
}

#define GG_KEY 256
#define GG_NUMS 64

/* Integer metadata kept until the architecture is known. */
struct gg_num {
	char key[GG_KEY];
	int64_t v;
};

struct gg {
	struct gr r;
	char arch[48];
	struct gg_num nums[GG_NUMS];
	size_t nnums;
	uint32_t align;
	int64_t vocab;
};

static bool interesting(const char *key)
{
	static const char *const suf[] = {
		".block_count", ".embedding_length", ".attention.head_count", ".attention.head_count_kv",
		".feed_forward_length", ".context_length", ".expert_count", ".expert_used_count",
		".expert_shared_count", ".expert_feed_forward_length", ".leading_dense_block_count",
		".attention.key_length", ".attention.value_length", ".attention.sliding_window",
		".attention.kv_lora_rank", ".attention.q_lora_rank", ".rope.dimension_count", ".vocab_size",
	};
	size_t kl = strlen(key);
	for (size_t i = 0; i < sizeof suf / sizeof suf[0]; i++) {
		size_t sl = strlen(suf[i]);
		if (kl > sl && strcmp(key + kl - sl, suf[i]) == 0)
			return true;
	}
	return false;
}

/* One scalar of type t: its integer value in *iv when it is an integer (has_int). */
static int scalar(struct gg *g, uint32_t t, int64_t *iv, bool *has_int)
{
	uint8_t b[8] = {0};
	*has_int = false;
	if (rd(&g->r, b, (uint64_t)gv_size[t]))
		return -1;
	uint64_t u = 0;
	for (int i = gv_size[t] - 1; i >= 0; i--)
		u = u << 8 | b[i];
	switch (t) {
	case GV_U8: case GV_U16: case GV_U32: case GV_BOOL:
		*iv = (int64_t)u;
		*has_int = true;
		break;
	case GV_I8: *iv = (int8_t)u; *has_int = true; break;
	case GV_I16: *iv = (int16_t)u; *has_int = true; break;
	case GV_I32: *iv = (int32_t)u; *has_int = true; break;
	case GV_U64:
		*iv = u > INT64_MAX ? INT64_MAX : (int64_t)u;
		*has_int = true;
		break;
	case GV_I64: *iv = (int64_t)u; *has_int = true; break;
	default: break;
	}
	return 0;
}

static int kv(struct gg *g)
{
	struct gr *r = &g->r;
	char key[GG_KEY];
	bool full;
	if (str(r, key, sizeof key, &full, "metadata key"))
		return -1;
	uint32_t t;
	if (u32(r, &t))
		return -1;
	if (t > GV_F64)
		return fail(r, "metadata '%s': unknown value type %u", key, t);
	if (t == GV_STR) {
		if (strcmp(key, "general.architecture") == 0) {
			bool ok;
			if (str(r, g->arch, sizeof g->arch, &ok, "string value"))
				return -1;
			if (!ok)
				return fail(r, "general.architecture longer than %zu bytes", sizeof g->arch - 1);
			return 0;
		}
		return str(r, NULL, 0, NULL, "string value");
	}
	if (t == GV_ARR) {
		uint32_t et;
		uint64_t n;
		if (u32(r, &et) || u64(r, &n))
			return -1;
		if (et > GV_F64 || et == GV_ARR)
			return fail(r, "metadata '%s': array of unsupported type %u", key, et);
		if (n > AXL__GGUF_MAX_ARRAY)
			return fail(r, "metadata '%s': array of %llu elements (at most %d)", key,
				    (unsigned long long)n, AXL__GGUF_MAX_ARRAY);
		if (full && strcmp(key, "tokenizer.ggml.tokens") == 0)
			g->vocab = (int64_t)n;
		if (et == GV_STR) {
			for (uint64_t i = 0; i < n; i++)
				if (str(r, NULL, 0, NULL, "array string"))
					return -1;
			return 0;
		}
		return skip(r, n * (uint64_t)gv_size[et]);
	}
	int64_t iv = 0;
	bool has_int;
	if (scalar(g, t, &iv, &has_int))
		return -1;
	if (strcmp(key, "general.alignment") == 0) {
		if (!has_int || iv < 1 || iv > 65536 || (iv & (iv - 1)))
			return fail(r, "general.alignment %lld is not a power of two up to 65536", (long long)iv);
		g->align = (uint32_t)iv;
	} else if (full && has_int && interesting(key) && g->nnums < GG_NUMS) {
		snprintf(g->nums[g->nnums].key, GG_KEY, "%s", key);
		g->nums[g->nnums++].v = iv;
	}
	return 0;
}

/* "<arch><suffix>" as an int in [0, INT32_MAX]; -1 when absent. */
static int num(const struct gg *g, const char *suffix)
{
	size_t al = strlen(g->arch);
	for (size_t i = g->nnums; i-- > 0;) {
		const char *k = g->nums[i].key;
		if (strncmp(k, g->arch, al) == 0 && strcmp(k + al, suffix) == 0)
			return g->nums[i].v >= 0 && g->nums[i].v <= INT32_MAX ? (int)g->nums[i].v : -1;
	}
	return -1;
}

struct gg_range {
	uint64_t b, e;
};

static int range_cmp(const void *a, const void *b)
{
	const struct gg_range *x = a, *y = b;
	return x->b < y->b ? -1 : x->b > y->b;
}

static void arch_facts(struct gg *g, struct axl__model *m, bool has_output, bool has_embd)
{
	snprintf(m->arch, sizeof m->arch, "%s", g->arch);
	if (!g->arch[0])
		return;
	m->layers = num(g, ".block_count");
	m->hidden = num(g, ".embedding_length");
	m->heads = num(g, ".attention.head_count");
	m->kv_heads = num(g, ".attention.head_count_kv");
	if (m->kv_heads < 0)
		m->kv_heads = m->heads;
	m->intermediate = num(g, ".feed_forward_length");
	m->max_context = num(g, ".context_length");
	m->head_dim = num(g, ".attention.key_length");
	if (m->head_dim < 0 && m->heads > 0 && m->hidden > 0 && m->hidden % m->heads == 0)
		m->head_dim = m->hidden / m->heads;
	m->experts = num(g, ".expert_count");
	if (m->experts < 0 && m->layers >= 0)
		m->experts = 0;
	m->experts_per_token = num(g, ".expert_used_count");
	m->shared_experts = num(g, ".expert_shared_count");
	m->moe_intermediate = num(g, ".expert_feed_forward_length");
	m->dense_layers = num(g, ".leading_dense_block_count");
	m->sliding_window = num(g, ".attention.sliding_window");
	if (m->sliding_window == 0)
		m->sliding_layers = 0;
	m->kv_lora_rank = num(g, ".attention.kv_lora_rank");
	m->q_lora_rank = num(g, ".attention.q_lora_rank");
	int vs = num(g, ".vocab_size");
	m->vocab = g->vocab >= 0 ? g->vocab : vs;
	if (m->kv_lora_rank > 0) {
		m->attn = AXL__ATTN_MLA;
		m->qk_rope_dim = num(g, ".rope.dimension_count");
		m->v_head_dim = num(g, ".attention.value_length");
		if (m->head_dim > 0 && m->qk_rope_dim >= 0 && m->head_dim >= m->qk_rope_dim)
			m->qk_nope_dim = m->head_dim - m->qk_rope_dim;
	} else if (m->heads > 0 && m->kv_heads > 0) {
		m->attn = m->kv_heads == m->heads ? AXL__ATTN_MHA : m->kv_heads < m->heads ? AXL__ATTN_GQA
											     : AXL__ATTN_UNKNOWN;
	}
	if (has_embd)
		m->tied_embeddings = !has_output;
	if (m->experts == 0)
		m->active_params = m->params;
}

static int parse(struct gg *g, struct axl__model *m)
{
	struct gr *r = &g->r;
	uint8_t magic[4];
	uint32_t ver;
	uint64_t nt, nkv;
	if (rd(r, magic, 4))
		return -1;
	if (memcmp(magic, "GGUF", 4) != 0)
		return fail(r, "bad magic (not a GGUF file)");
	if (u32(r, &ver))
		return -1;
	if (ver != 2 && ver != 3)
		return fail(r, "GGUF version %u (2 and 3 are read)", ver);
	if (u64(r, &nt) || u64(r, &nkv))
		return -1;
	if (nt > AXL__GGUF_MAX_TENSORS)
		return fail(r, "tensor_count %llu (at most %d)", (unsigned long long)nt, AXL__GGUF_MAX_TENSORS);
	if (nkv > AXL__GGUF_MAX_KV)
		return fail(r, "metadata_kv_count %llu (at most %d)", (unsigned long long)nkv, AXL__GGUF_MAX_KV);
	g->align = 32;
	g->vocab = -1;
	for (uint64_t i = 0; i < nkv; i++)
		if (kv(g))
			return -1;
	/* each tensor info takes at least 24 bytes: the count is bounded by the file */
	if (nt > (r->size - r->pos) / 24)
		return fail(r, "tensor_count %llu does not fit in the file", (unsigned long long)nt);
	struct gg_range *rg = calloc(nt ? nt : 1, sizeof *rg);
	if (!rg)
		return fail(r, "out of memory");
	int64_t total = 0, bytes = 0;
	bool has_output = false, has_embd = false;
	int rc = -1;
	for (uint64_t i = 0; i < nt; i++) {
		char name[GG_KEY];
		uint32_t nd, t;
		uint64_t dims[4], off;
		if (str(r, name, sizeof name, NULL, "tensor name") || u32(r, &nd))
			goto out;
		if (nd == 0 || nd > 4) {
			fail(r, "tensor '%s': %u dimensions (1 to 4)", name, nd);
			goto out;
		}
		int64_t n = 1;
		for (uint32_t d = 0; d < nd; d++) {
			if (u64(r, &dims[d]))
				goto out;
			if (dims[d] > INT64_MAX || __builtin_mul_overflow(n, (int64_t)dims[d], &n) ||
			    n > (INT64_C(1) << 56)) {
				fail(r, "tensor '%s': dimension product overflows", name);
				goto out;
			}
		}
		if (u32(r, &t) || u64(r, &off))
			goto out;
		const struct gg_type *ty = NULL;
		for (size_t k = 0; k < sizeof gg_types / sizeof gg_types[0]; k++)
			if (gg_types[k].id == (int)t && t < 64)
				ty = &gg_types[k];
		if (!ty) {
			fail(r, "tensor '%s': unknown ggml type %u", name, t);
			goto out;
		}
		if (dims[0] % (uint64_t)ty->blck) {
			fail(r, "tensor '%s': first dimension %llu is not a multiple of %s's block of %d", name,
			     (unsigned long long)dims[0], ty->name, ty->blck);
			goto out;
		}
		if (off % g->align) {
			fail(r, "tensor '%s': offset %llu not aligned to %u", name, (unsigned long long)off, g->align);
			goto out;
		}
		int64_t b = n / ty->blck * ty->size;
		rg[i].b = off;
		rg[i].e = off + (uint64_t)b;
		if (rg[i].e < off) {
			fail(r, "tensor '%s': offset overflows", name);
			goto out;
		}
		if (axl__model_file_add(m, ty->name, 8.0 * ty->size / ty->blck, n, b) ||
		    __builtin_add_overflow(total, n, &total) || __builtin_add_overflow(bytes, b, &bytes)) {
			fail(r, "tensor '%s': a count overflows", name);
			goto out;
		}
		if (strcmp(name, "output.weight") == 0)
			has_output = true;
		if (strcmp(name, "token_embd.weight") == 0)
			has_embd = true;
	}
	uint64_t data = (r->pos + g->align - 1) / g->align * g->align;
	uint64_t dsize = r->size > data ? r->size - data : 0;
	qsort(rg, nt, sizeof *rg, range_cmp);
	for (uint64_t i = 0; i < nt; i++) {
		if (rg[i].e > dsize) {
			fail(r, "a tensor at offset %llu ends beyond the file's data section (%llu bytes)",
			     (unsigned long long)rg[i].b, (unsigned long long)dsize);
			goto out;
		}
		if (i && rg[i].b < rg[i - 1].e) {
			fail(r, "tensors at offsets %llu and %llu overlap", (unsigned long long)rg[i - 1].b,
			     (unsigned long long)rg[i].b);
			goto out;
		}
	}
	m->params = total;
	m->params_exact = true;
	m->weight_bytes = bytes;
	arch_facts(g, m, has_output, has_embd);
	rc = 0;
out:
	free(rg);
	return rc;
}

int axl__model_from_gguf_mem(const uint8_t *buf, size_t len, const char *name, struct axl__model *out, char *err,
			     size_t errcap)
{
	axl__model_file_init(out, AXL__MSRC_GGUF, name);
	struct gg *g = calloc(1, sizeof *g);
	if (!g) {
		snprintf(err, errcap, "out of memory");
		return -1;
	}
	g->r = (struct gr){.mem = buf ? buf : (const uint8_t *)"", .size = buf ? len : 0,
			   .file = name ? name : "gguf", .err = err, .errcap = errcap};
	int rc = parse(g, out);
	free(g);
	return rc;
}

int axl__model_from_gguf(const char *path, struct axl__model *out, char *err, size_t errcap)
{
	axl__model_file_init(out, AXL__MSRC_GGUF, path);
	/* non-blocking open: a FIFO is refused below instead of hanging */
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	FILE *f = fd >= 0 ? fdopen(fd, "rb") : NULL;
	if (!f) {
		snprintf(err, errcap, "%s: %s", path, strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	struct stat st;
	struct gg *g = NULL;
	int rc = -1;
	if (fstat(fileno(f), &st) || !S_ISREG(st.st_mode)) {
		snprintf(err, errcap, "%s: not a regular file", path);
		goto out;
	}
	g = calloc(1, sizeof *g);
	if (!g) {
		snprintf(err, errcap, "out of memory");
		goto out;
	}
	g->r = (struct gr){.f = f, .size = (uint64_t)st.st_size, .file = path, .err = err, .errcap = errcap};
	rc = parse(g, out);
out:
	free(g);
	fclose(f);
	return rc;
}

double axl__gguf_type_bits(const char *name)
{
	if (!name)
		return -1;
	for (size_t i = 0; i < sizeof gg_types / sizeof gg_types[0]; i++)
		if (strcasecmp(gg_types[i].name, name) == 0)
			return 8.0 * gg_types[i].size / gg_types[i].blck;
	return -1;
}
