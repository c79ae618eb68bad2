/* SPDX-License-Identifier: MIT */
/* The safetensors and GGUF header readers (src/lib/safetensors.c, src/lib/gguf.c) on
 * files written here: a 2-layer Llama-shaped safetensors file (BF16 + F32 norms), the same
 * split into a 2-shard index, a GPTQ-packed one, a llama GGUF v3 with Q4_K, Q6_K and F32
 * tensors; exact counts, dtypes, bytes and architecture facts; then hostile variants,
 * each refused with a message. */
#define _GNU_SOURCE
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "gguf.h"
#include "safetensors.h"

static char dir[64];

/* ---- a growing byte buffer ---------------------------------------------------------- */
struct buf {
	uint8_t *p;
	size_t n, cap;
};

static void put(struct buf *b, const void *d, size_t n)
{
	if (b->n + n > b->cap) {
		b->cap = (b->n + n) * 2 + 64;
		b->p = realloc(b->p, b->cap);
	}
	memcpy(b->p + b->n, d, n);
	b->n += n;
}

static void putf(struct buf *b, const char *fmt, ...)
{
	char tmp[512];
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(tmp, sizeof tmp, fmt, ap);
	va_end(ap);
	put(b, tmp, (size_t)n);
}

static void le(struct buf *b, uint64_t v, int bytes)
{
	for (int i = 0; i < bytes; i++) {
		uint8_t c = (uint8_t)(v >> (8 * i));
		put(b, &c, 1);
	}
}

static const struct axl__model_dtype *dt(const struct axl__model *m, const char *name)
{
	for (size_t i = 0; i < m->ndtypes; i++)
		if (strcmp(m->dtypes[i].name, name) == 0)
			return &m->dtypes[i];
	return NULL;
}

static void write_file(const char *name, const void *d, size_t n)
{
	char path[128];
	snprintf(path, sizeof path, "%s/%s", dir, name);
	FILE *f = fopen(path, "wb");
	CHECK(f && fwrite(d, 1, n, f) == n);
	if (f)
		fclose(f);
}

/* ---- safetensors --------------------------------------------------------------------- */
struct st {
	const char *name, *dtype;
	int64_t dims[2];
	int nd;
	int size; /* bytes per element */
};

static size_t llama(struct st *t)
{
	size_t n = 0;
	t[n++] = (struct st){"model.embed_tokens.weight", "BF16", {64, 16}, 2, 2};
	static char names[2][9][64];
	static const char *const w[] = {"self_attn.q_proj", "self_attn.k_proj", "self_attn.v_proj", "self_attn.o_proj",
					"mlp.gate_proj", "mlp.up_proj", "mlp.down_proj"};
	static const int64_t wd[7][2] = {{16, 16}, {8, 16}, {8, 16}, {16, 16}, {32, 16}, {32, 16}, {16, 32}};
	for (int l = 0; l < 2; l++) {
		for (int i = 0; i < 7; i++) {
			snprintf(names[l][i], 64, "model.layers.%d.%s.weight", l, w[i]);
			t[n++] = (struct st){names[l][i], "BF16", {wd[i][0], wd[i][1]}, 2, 2};
		}
		snprintf(names[l][7], 64, "model.layers.%d.input_layernorm.weight", l);
		snprintf(names[l][8], 64, "model.layers.%d.post_attention_layernorm.weight", l);
		t[n++] = (struct st){names[l][7], "F32", {16, 0}, 1, 4};
		t[n++] = (struct st){names[l][8], "F32", {16, 0}, 1, 4};
	}
	t[n++] = (struct st){"model.norm.weight", "F32", {16, 0}, 1, 4};
	t[n++] = (struct st){"lm_head.weight", "BF16", {64, 16}, 2, 2};
	return n;
}

/* A whole safetensors file for t[0..n); data zero. */
static void st_build(struct buf *out, const struct st *t, size_t n)
{
	struct buf h = {0};
	uint64_t off = 0;
	putf(&h, "{\"__metadata__\":{\"format\":\"pt\"}");
	for (size_t i = 0; i < n; i++) {
		int64_t e = 1;
		putf(&h, ",\"%s\":{\"dtype\":\"%s\",\"shape\":[", t[i].name, t[i].dtype);
		for (int d = 0; d < t[i].nd; d++) {
			putf(&h, "%s%lld", d ? "," : "", (long long)t[i].dims[d]);
			e *= t[i].dims[d];
		}
		uint64_t sz = (uint64_t)e * (uint64_t)t[i].size;
		putf(&h, "],\"data_offsets\":[%llu,%llu]}", (unsigned long long)off, (unsigned long long)(off + sz));
		off += sz;
	}
	putf(&h, "}");
	out->n = 0;
	le(out, h.n, 8);
	put(out, h.p, h.n);
	uint8_t *z = calloc(1, off + 1);
	put(out, z, off);
	free(z);
	free(h.p);
}

static int st_refuses(const char *hdr, size_t data, const char *why)
{
	struct buf b = {0};
	le(&b, strlen(hdr), 8);
	put(&b, hdr, strlen(hdr));
	uint8_t *z = calloc(1, data + 1);
	put(&b, z, data);
	free(z);
	struct axl__model m;
	char err[256] = "";
	int rc = axl__model_from_safetensors_mem(b.p, b.n, "bad.safetensors", &m, err, sizeof err);
	free(b.p);
	if (rc == 0 || !strstr(err, why)) {
		fprintf(stderr, "header %s: rc %d err '%s', expected '%s'\n", hdr, rc, err, why);
		return 0;
	}
	return 1;
}

static void test_safetensors(void)
{
	struct st t[32];
	size_t n = llama(t);
	struct buf f = {0};
	st_build(&f, t, n);
	write_file("model.safetensors", f.p, f.n);
	char path[128], err[256] = "";
	struct axl__model m;
	snprintf(path, sizeof path, "%s/model.safetensors", dir);
	CHECK_INT(axl__model_from_safetensors(path, &m, err, sizeof err), 0);
	CHECK_STR(m.id, "model.safetensors");
	CHECK(m.source == AXL__MSRC_SAFETENSORS);
	CHECK_INT(m.params, 6736);
	CHECK(m.params_exact);
	CHECK_INT(m.active_params, 6736);
	CHECK_INT(m.weight_bytes, 6656 * 2 + 80 * 4);
	CHECK_INT(m.ndtypes, 2);
	CHECK(dt(&m, "BF16") && dt(&m, "BF16")->params == 6656 && dt(&m, "BF16")->bytes == 13312 &&
	      dt(&m, "BF16")->bits == 16);
	CHECK(dt(&m, "F32") && dt(&m, "F32")->params == 80 && dt(&m, "F32")->bytes == 320);
	CHECK_INT(m.layers, 2);
	CHECK_INT(m.hidden, 16);
	CHECK_INT(m.vocab, 64);
	CHECK_INT(m.intermediate, 32);
	CHECK_INT(m.experts, 0);
	CHECK(!m.tied_embeddings);
	CHECK_INT(m.heads, -1);
	CHECK_INT(m.kv_heads, -1);

	/* every truncation is refused */
	int refused = 0, tried = 0;
	for (size_t k = 0; k < f.n; k += 7, tried++) {
		err[0] = 0;
		refused += axl__model_from_safetensors_mem(f.p, k, "cut", &m, err, sizeof err) != 0 && err[0];
	}
	CHECK_INT(refused, tried);

	/* two shards and an index; lm_head in the second: same counts */
	struct buf s1 = {0}, s2 = {0};
	st_build(&s1, t, 10);
	st_build(&s2, t + 10, n - 10);
	write_file("model-00001-of-00002.safetensors", s1.p, s1.n);
	write_file("model-00002-of-00002.safetensors", s2.p, s2.n);
	struct buf idx = {0};
	putf(&idx, "{\"metadata\":{\"total_size\":13632},\"weight_map\":{");
	for (size_t i = 0; i < n; i++)
		putf(&idx, "%s\"%s\":\"model-0000%d-of-00002.safetensors\"", i ? "," : "", t[i].name, i < 10 ? 1 : 2);
	putf(&idx, "}}");
	write_file("model.safetensors.index.json", idx.p, idx.n);
	snprintf(path, sizeof path, "%s/model.safetensors.index.json", dir);
	CHECK_INT(axl__model_from_safetensors(path, &m, err, sizeof err), 0);
	CHECK_INT(m.params, 6736);
	CHECK_INT(m.weight_bytes, 13632);
	CHECK_INT(m.layers, 2);
	CHECK_INT(m.vocab, 64);
	CHECK(!m.tied_embeddings);
	/* an index naming a file outside the directory, and a missing shard */
	const char *evil = "{\"weight_map\":{\"a\":\"../etc/passwd\"}}";
	write_file("evil.index.json", evil, strlen(evil));
	snprintf(path, sizeof path, "%s/evil.index.json", dir);
	CHECK(axl__model_from_safetensors(path, &m, err, sizeof err) == -1 && strstr(err, "shard file name"));
	const char *missing = "{\"weight_map\":{\"a\":\"nope.safetensors\"}}";
	write_file("missing.index.json", missing, strlen(missing));
	snprintf(path, sizeof path, "%s/missing.index.json", dir);
	CHECK(axl__model_from_safetensors(path, &m, err, sizeof err) == -1 && strstr(err, "nope.safetensors"));
	free(s1.p);
	free(s2.p);
	free(idx.p);

	/* GPTQ: one linear layer of 16 x 16 packed, tied embeddings */
	struct st q[] = {
		{"model.embed_tokens.weight", "F16", {64, 16}, 2, 2},
		{"model.layers.0.self_attn.q_proj.qweight", "I32", {2, 16}, 2, 4},
		{"model.layers.0.self_attn.q_proj.qzeros", "I32", {1, 2}, 2, 4},
		{"model.layers.0.self_attn.q_proj.scales", "F16", {1, 16}, 2, 2},
		{"model.layers.0.self_attn.q_proj.g_idx", "I32", {16, 0}, 1, 4},
		{"model.norm.weight", "F16", {16, 0}, 1, 2},
	};
	st_build(&f, q, sizeof q / sizeof q[0]);
	CHECK_INT(axl__model_from_safetensors_mem(f.p, f.n, "gptq", &m, err, sizeof err), 0);
	CHECK_INT(m.params, 1024 + 256 + 16);
	CHECK(dt(&m, "INT4") && dt(&m, "INT4")->params == 256 && dt(&m, "INT4")->bytes == 128 + 8 + 32 + 64);
	CHECK(dt(&m, "INT4") && dt(&m, "INT4")->bits == 232 * 8 / 256.0);
	CHECK(dt(&m, "F16") && dt(&m, "F16")->params == 1040);
	CHECK(m.tied_embeddings);
	CHECK_INT(m.layers, 1);
	free(f.p);

	/* hostile headers */
	CHECK(st_refuses("{\"a\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[0,8]},"
			 "\"b\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[4,12]}}", 12, "overlap"));
	CHECK(st_refuses("{\"a\":{\"dtype\":\"F32\",\"shape\":[3],\"data_offsets\":[0,8]}}", 8, "expected 12"));
	CHECK(st_refuses("{\"a\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[0,8]}}", 4, "beyond the data"));
	CHECK(st_refuses("{\"a\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[8,0]}}", 8, "before begin"));
	CHECK(st_refuses("{\"a\":{\"dtype\":\"Q9\",\"shape\":[2],\"data_offsets\":[0,8]}}", 8, "unknown dtype 'Q9'"));
	CHECK(st_refuses("{\"w\":{\"dtype\":\"F32\",\"shape\":[4294967296,4294967296],\"data_offsets\":[0,8]}}", 8,
			 "tensor 'w': shape product overflows"));
	CHECK(st_refuses("{\"a\":{\"dtype\":\"F32\",\"shape\":[-1],\"data_offsets\":[0,8]}}", 8, "not a count"));
	CHECK(st_refuses("{\"a\":{\"dtype\":\"F4\",\"shape\":[3],\"data_offsets\":[0,2]}}", 8, "whole bytes"));
	CHECK(st_refuses("{\"a\":{\"dtype\":\"F32\",\"shape\":[2]}}", 8, "data_offsets"));
	CHECK(st_refuses("[1,2]", 0, "not a JSON object"));
	CHECK(st_refuses("{\"a\":", 0, "not JSON"));
	uint8_t lie[16] = {0xff, 0xff, 0, 0, 0, 0, 0, 0, '{', '}'};
	CHECK(axl__model_from_safetensors_mem(lie, 10, "lie", &m, err, sizeof err) == -1 &&
	      strstr(err, "beyond the file"));
	uint8_t huge[16] = {0, 0, 0, 0, 1, 0, 0, 0, '{', '}'};
	CHECK(axl__model_from_safetensors_mem(huge, 10, "huge", &m, err, sizeof err) == -1 && strstr(err, "limit"));
	CHECK(axl__model_from_safetensors("/nonexistent/x.safetensors", &m, err, sizeof err) == -1 &&
	      strstr(err, "/nonexistent/x.safetensors"));
}

/* ---- GGUF ---------------------------------------------------------------------------- */
static void gstr(struct buf *b, const char *s)
{
	le(b, strlen(s), 8);
	put(b, s, strlen(s));
}

enum gbad { G_OK, G_MAGIC, G_VERSION, G_NT, G_NKV, G_STRING, G_ARRAY, G_DIMS, G_TYPE, G_OVERLAP, G_ALIGN };

struct gt {
	const char *name;
	uint64_t d0, d1;
	uint32_t type;
	uint64_t bytes;
};

static const struct gt gts[] = {
	{"token_embd.weight", 256, 300, 12, 256 * 300 / 256 * 144},
	{"blk.0.attn_q.weight", 256, 256, 12, 256 * 144},
	{"blk.0.ffn_down.weight", 512, 256, 14, 512 * 210},
	{"blk.0.attn_norm.weight", 256, 0, 0, 1024},
	{"blk.1.attn_q.weight", 256, 256, 12, 256 * 144},
	{"blk.1.ffn_down.weight", 512, 256, 14, 512 * 210},
	{"blk.1.attn_norm.weight", 256, 0, 0, 1024},
	{"output_norm.weight", 256, 0, 0, 1024},
	{"output.weight", 256, 300, 14, 300 * 210},
};
#define NGT (sizeof gts / sizeof gts[0])

static void gguf_build(struct buf *b, enum gbad bad)
{
	b->n = 0;
	put(b, bad == G_MAGIC ? "GGUG" : "GGUF", 4);
	le(b, bad == G_VERSION ? 1 : 3, 4);
	le(b, bad == G_NT ? 2000000 : NGT, 8);
	le(b, bad == G_NKV ? UINT64_MAX : 11, 8);
	gstr(b, "general.architecture"), le(b, 8, 4), gstr(b, "llama");
	gstr(b, "general.name"), le(b, 8, 4);
	if (bad == G_STRING)
		le(b, (uint64_t)1 << 40, 8);
	else
		gstr(b, "tiny llama");
	static const char *const k[] = {"llama.block_count", "llama.embedding_length", "llama.attention.head_count",
					"llama.attention.head_count_kv", "llama.feed_forward_length",
					"llama.context_length"};
	static const uint32_t v[] = {2, 256, 8, 2, 512, 4096};
	for (int i = 0; i < 6; i++)
		gstr(b, k[i]), le(b, 4, 4), le(b, v[i], 4);
	gstr(b, "tokenizer.ggml.tokens"), le(b, 9, 4), le(b, 8, 4);
	le(b, bad == G_ARRAY ? (uint64_t)1 << 33 : 300, 8);
	for (int i = 0; i < 300; i++) {
		char tok[16];
		snprintf(tok, sizeof tok, "t%d", i);
		gstr(b, tok);
	}
	gstr(b, "tokenizer.ggml.scores"), le(b, 9, 4), le(b, 6, 4), le(b, 2, 8), le(b, 0, 8);
	gstr(b, "general.alignment"), le(b, 4, 4), le(b, bad == G_ALIGN ? 48 : 32, 4);
	uint64_t off = 0;
	for (size_t i = 0; i < NGT; i++) {
		gstr(b, gts[i].name);
		int nd = gts[i].d1 ? 2 : 1;
		le(b, bad == G_DIMS && i == 3 ? 5 : (uint64_t)nd, 4);
		le(b, gts[i].d0, 8);
		if (nd == 2)
			le(b, gts[i].d1, 8);
		le(b, bad == G_TYPE && i == 2 ? 5 : gts[i].type, 4);
		le(b, bad == G_OVERLAP && i == 4 ? 0 : off, 8);
		off += (gts[i].bytes + 31) / 32 * 32;
	}
	while (b->n % 32)
		le(b, 0, 1);
	/* the last tensor ends the file exactly */
	uint64_t last = gts[NGT - 1].bytes, data = off - ((last + 31) / 32 * 32 - last);
	uint8_t *z = calloc(1, data);
	put(b, z, data);
	free(z);
}

static int g_refuses(enum gbad bad, const char *why)
{
	struct buf b = {0};
	gguf_build(&b, bad);
	struct axl__model m;
	char err[256] = "";
	int rc = axl__model_from_gguf_mem(b.p, b.n, "bad.gguf", &m, err, sizeof err);
	free(b.p);
	if (rc == 0 || !strstr(err, why) || strncmp(err, "bad.gguf: ", 10) != 0) {
		fprintf(stderr, "gguf variant %d: rc %d err '%s', expected '%s'\n", bad, rc, err, why);
		return 0;
	}
	return 1;
}

static void test_gguf(void)
{
	struct buf b = {0};
	gguf_build(&b, G_OK);
	write_file("model.gguf", b.p, b.n);
	char path[128], err[256] = "";
	snprintf(path, sizeof path, "%s/model.gguf", dir);
	struct axl__model m;
	CHECK_INT(axl__model_from_gguf(path, &m, err, sizeof err), 0);
	if (err[0])
		fprintf(stderr, "%s\n", err);
	int64_t q4 = 256 * 300 + 2 * 256 * 256, q6 = 2 * 512 * 256 + 256 * 300, f32 = 3 * 256;
	CHECK_INT(m.params, q4 + q6 + f32);
	CHECK(m.params_exact && m.source == AXL__MSRC_GGUF);
	CHECK_INT(m.ndtypes, 3);
	CHECK(dt(&m, "Q4_K") && dt(&m, "Q4_K")->params == q4 && dt(&m, "Q4_K")->bytes == q4 / 256 * 144 &&
	      dt(&m, "Q4_K")->bits == 4.5);
	CHECK(dt(&m, "Q6_K") && dt(&m, "Q6_K")->params == q6 && dt(&m, "Q6_K")->bytes == q6 / 256 * 210 &&
	      dt(&m, "Q6_K")->bits == 6.5625);
	CHECK(dt(&m, "F32") && dt(&m, "F32")->params == f32 && dt(&m, "F32")->bytes == f32 * 4);
	CHECK_INT(m.weight_bytes, q4 / 256 * 144 + q6 / 256 * 210 + f32 * 4);
	CHECK_STR(m.arch, "llama");
	CHECK_INT(m.layers, 2);
	CHECK_INT(m.hidden, 256);
	CHECK_INT(m.heads, 8);
	CHECK_INT(m.kv_heads, 2);
	CHECK_INT(m.head_dim, 32);
	CHECK(m.attn == AXL__ATTN_GQA);
	CHECK_INT(m.intermediate, 512);
	CHECK_INT(m.max_context, 4096);
	CHECK_INT(m.vocab, 300);
	CHECK_INT(m.experts, 0);
	CHECK(!m.tied_embeddings);
	CHECK_INT(m.sliding_window, -1);

	int refused = 0, tried = 0;
	for (size_t k = 0; k < b.n; k += 7, tried++) {
		err[0] = 0;
		refused += axl__model_from_gguf_mem(b.p, k, "cut", &m, err, sizeof err) != 0 && err[0];
	}
	CHECK_INT(refused, tried);
	free(b.p);

	CHECK(g_refuses(G_MAGIC, "bad magic"));
	CHECK(g_refuses(G_VERSION, "version 1"));
	CHECK(g_refuses(G_NT, "tensor_count 2000000"));
	CHECK(g_refuses(G_NKV, "metadata_kv_count"));
	CHECK(g_refuses(G_STRING, "string value of 1099511627776 bytes"));
	CHECK(g_refuses(G_ARRAY, "'tokenizer.ggml.tokens': array of 8589934592"));
	CHECK(g_refuses(G_DIMS, "'blk.0.attn_norm.weight': 5 dimensions"));
	CHECK(g_refuses(G_TYPE, "'blk.0.ffn_down.weight': unknown ggml type 5"));
	CHECK(g_refuses(G_OVERLAP, "overlap"));
	CHECK(g_refuses(G_ALIGN, "general.alignment 48"));
	CHECK(axl__model_from_gguf("/nonexistent.gguf", &m, err, sizeof err) == -1 && strstr(err, "/nonexistent.gguf"));
}

int main(void)
{
	snprintf(dir, sizeof dir, "/tmp/axl-model-files-XXXXXX");
	if (!mkdtemp(dir)) {
		perror("mkdtemp");
		return 1;
	}
	test_safetensors();
	test_gguf();
	static const char *const files[] = {"model.safetensors", "model-00001-of-00002.safetensors",
					    "model-00002-of-00002.safetensors", "model.safetensors.index.json",
					    "evil.index.json", "missing.index.json", "model.gguf"};
	for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
		char p[160];
		snprintf(p, sizeof p, "%s/%s", dir, files[i]);
		unlink(p);
	}
	rmdir(dir);
	printf("%d passed, %d failed\n", check_passed, check_failed);
	return check_failed != 0;
}
