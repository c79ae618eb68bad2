/* SPDX-License-Identifier: MIT */
/* safetensors headers. A file is an 8-byte little-endian header length N, N
 * bytes of JSON ({"name": {"dtype": "BF16", "shape": [..], "data_offsets": [b, e]}, ...,
 * "__metadata__": {..}}) and the data section; offsets are relative to the data section.
 * Dtypes and their sizes follow the safetensors crate's Dtype (BOOL U8 I8 F8_E5M2 F8_E4M3
 * I16 U16 F16 BF16 I32 U32 F32 F64 I64 U64, and the sub-byte F4 F6_E2M3 F6_E3M2 F8_E8M0
 * added later). Every count and offset is checked before it is used. */
#define _GNU_SOURCE
#include "safetensors.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "model_file.h"
#include "util/file.h"
#include "util/jsonr.h"

#define ST_INDEX_MAX (64u * 1024 * 1024) /* a sharded index file */
#define ST_SHARDS_MAX 4096
#define ST_DIMS_MAX 16
#define ST_ELEMS_MAX (INT64_C(1) << 56) /* x 64 bits still fits int64_t */

struct st_dtype {
	const char *name;
	int bits;
};

static const struct st_dtype st_dtypes[] = {
	{"BOOL", 8},     {"U8", 8},       {"I8", 8},   {"F8_E5M2", 8}, {"F8_E4M3", 8}, {"F8_E8M0", 8},
	{"I16", 16},     {"U16", 16},     {"F16", 16}, {"BF16", 16},   {"I32", 32},    {"U32", 32},
	{"F32", 32},     {"F64", 64},     {"I64", 64}, {"U64", 64},    {"F4", 4},      {"F6_E2M3", 6},
	{"F6_E3M2", 6},
};

/* What the tensor names say, gathered over every shard. */
struct st_ctx {
	struct axl__model *m;
	const char *file; /* for messages */
	int max_layer, max_expert, first_layer_inter;
	bool any_layer, embed, lm_head, quant;
	int64_t total, bytes, quant_params;
};

static int fail(char *err, size_t errcap, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int fail(char *err, size_t errcap, const char *fmt, ...)
{
	if (err && errcap) {
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(err, errcap, fmt, ap);
		va_end(ap);
	}
	return -1;
}

static bool ends_with(const char *s, const char *suf)
{
	size_t a = strlen(s), b = strlen(suf);
	return a >= b && memcmp(s + a - b, suf, b) == 0;
}

/* The number after "<word>." at a component boundary ("model.layers.12.mlp"), or -1. */
static long index_after(const char *name, const char *word)
{
	size_t wl = strlen(word);
	for (const char *p = strstr(name, word); p; p = strstr(p + 1, word)) {
		if (p != name && p[-1] != '.')
			continue;
		const char *q = p + wl;
		if (*q != '.' || q[1] < '0' || q[1] > '9')
			continue;
		long v = 0;
		for (q++; *q >= '0' && *q <= '9'; q++) {
			v = v * 10 + (*q - '0');
			if (v > 1000000)
				return -1;
		}
		if (*q == '.' || *q == 0)
			return v;
	}
	return -1;
}

struct st_range {
	uint64_t b, e;
	const char *name;
};

static int range_cmp(const void *a, const void *b)
{
	const struct st_range *x = a, *y = b;
	return x->b < y->b ? -1 : x->b > y->b ? 1 : x->e < y->e ? -1 : x->e > y->e;
}

static int tensor(struct st_ctx *c, const char *name, const struct axl__jv *t, uint64_t data_size,
		  struct st_range *r, char *err, size_t errcap)
{
	const char *f = c->file;
	if (!t || t->type != AXL__J_OBJ)
		return fail(err, errcap, "%s: tensor '%s': not an object", f, name);
	const char *dt = axl__jv_str(t, "dtype");
	if (!dt)
		return fail(err, errcap, "%s: tensor '%s': no dtype", f, name);
	const struct st_dtype *d = NULL;
	for (size_t i = 0; i < sizeof st_dtypes / sizeof st_dtypes[0]; i++)
		if (strcmp(st_dtypes[i].name, dt) == 0)
			d = &st_dtypes[i];
	if (!d)
		return fail(err, errcap, "%s: tensor '%s': unknown dtype '%.32s'", f, name, dt);
	const struct axl__jv *shape = axl__jv_get(t, "shape");
	if (!shape || shape->type != AXL__J_ARR)
		return fail(err, errcap, "%s: tensor '%s': no shape array", f, name);
	if (shape->len > ST_DIMS_MAX)
		return fail(err, errcap, "%s: tensor '%s': %zu dimensions (at most %d)", f, name, shape->len,
			    ST_DIMS_MAX);
	int64_t n = 1, dims[ST_DIMS_MAX];
	for (size_t i = 0; i < shape->len; i++) {
		const struct axl__jv *v = &shape->items[i];
		if (v->type != AXL__J_NUM || !v->is_int || v->i < 0)
			return fail(err, errcap, "%s: tensor '%s': shape[%zu] is not a count", f, name, i);
		dims[i] = v->i;
		if (__builtin_mul_overflow(n, v->i, &n) || n > ST_ELEMS_MAX)
			return fail(err, errcap, "%s: tensor '%s': shape product overflows", f, name);
	}
	const struct axl__jv *off = axl__jv_get(t, "data_offsets");
	if (!off || off->type != AXL__J_ARR || off->len != 2)
		return fail(err, errcap, "%s: tensor '%s': data_offsets is not [begin, end]", f, name);
	for (int i = 0; i < 2; i++)
		if (off->items[i].type != AXL__J_NUM || !off->items[i].is_int || off->items[i].i < 0)
			return fail(err, errcap, "%s: tensor '%s': data_offsets[%d] is not an offset", f, name, i);
	uint64_t b = (uint64_t)off->items[0].i, e = (uint64_t)off->items[1].i;
	if (e < b)
		return fail(err, errcap, "%s: tensor '%s': data_offsets end %llu before begin %llu", f, name,
			    (unsigned long long)e, (unsigned long long)b);
	if (e > data_size)
		return fail(err, errcap, "%s: tensor '%s': data_offsets end %llu beyond the data section (%llu bytes)",
			    f, name, (unsigned long long)e, (unsigned long long)data_size);
	if ((n * d->bits) % 8)
		return fail(err, errcap, "%s: tensor '%s': %lld %s elements do not fill whole bytes", f, name,
			    (long long)n, d->name);
	int64_t bytes = n * d->bits / 8;
	if ((uint64_t)bytes != e - b)
		return fail(err, errcap, "%s: tensor '%s': %llu bytes for %lld %s elements (expected %lld)", f, name,
			    (unsigned long long)(e - b), (long long)n, d->name, (long long)bytes);
	r->b = b;
	r->e = e;
	r->name = name;

	/* what the name says about the architecture */
	long layer = index_after(name, "layers");
	if (layer < 0)
		layer = index_after(name, "h");
	if (layer < 0)
		layer = index_after(name, "blocks");
	if (layer >= 0) {
		c->any_layer = true;
		if (layer > c->max_layer)
			c->max_layer = (int)layer;
	}
	long ex = index_after(name, "experts");
	if (ex > c->max_expert)
		c->max_expert = (int)ex;
	struct axl__model *m = c->m;
	if ((ends_with(name, "embed_tokens.weight") || ends_with(name, "wte.weight") ||
	     ends_with(name, "tok_embeddings.weight") || ends_with(name, "word_embeddings.weight")) &&
	    shape->len == 2) {
		c->embed = true;
		m->vocab = dims[0];
		if (dims[1] <= INT32_MAX)
			m->hidden = (int)dims[1];
	}
	if (ends_with(name, "lm_head.weight") || strcmp(name, "output.weight") == 0)
		c->lm_head = true;
	if (layer == 0 && ex < 0 && shape->len == 2 && dims[0] <= INT32_MAX &&
	    (ends_with(name, "mlp.gate_proj.weight") || ends_with(name, "mlp.up_proj.weight")))
		m->intermediate = (int)dims[0];

	/* packed quantised weights and their group metadata */
	bool qw = ends_with(name, ".qweight") && strcmp(d->name, "I32") == 0;
	bool aux = c->quant && (ends_with(name, ".qzeros") || ends_with(name, ".scales") || ends_with(name, ".g_idx"));
	int64_t params = n;
	const char *dname = d->name;
	double bits = d->bits;
	if (qw) {
		params = n * 8;
		dname = "INT4";
		bits = 4;
		c->quant_params += params;
	} else if (aux) {
		params = 0;
		dname = "INT4";
		bits = 4;
	}
	if (axl__model_file_add(m, dname, bits, params, bytes))
		return fail(err, errcap, "%s: tensor '%s': more than %d dtypes or a count overflows", f, name,
			    AXL__MODEL_DTYPES_MAX);
	if (__builtin_add_overflow(c->total, params, &c->total) || __builtin_add_overflow(c->bytes, bytes, &c->bytes))
		return fail(err, errcap, "%s: parameter count overflows", f);
	return 0;
}

/* One header (hdr[0..hlen), JSON) whose data section holds data_size bytes. */
static int header(struct st_ctx *c, const char *hdr, size_t hlen, uint64_t data_size, char *err, size_t errcap)
{
	struct axl__jdoc *doc = NULL;
	char jerr[160];
	if (axl__jdoc_parse(hdr, hlen, &doc, jerr, sizeof jerr))
		return fail(err, errcap, "%s: header is not JSON: %s", c->file, jerr);
	const struct axl__jv *root = axl__jdoc_root(doc);
	int rc = 0;
	struct st_range *r = NULL;
	if (root->type != AXL__J_OBJ) {
		rc = fail(err, errcap, "%s: header is not a JSON object", c->file);
		goto out;
	}
	for (size_t i = 0; i < root->len; i++)
		if (ends_with(root->keys[i], ".qweight"))
			c->quant = true;
	r = calloc(root->len ? root->len : 1, sizeof *r); /* bounded by the header size */
	if (!r) {
		rc = fail(err, errcap, "%s: out of memory", c->file);
		goto out;
	}
	size_t nr = 0;
	for (size_t i = 0; i < root->len && rc == 0; i++) {
		if (strcmp(root->keys[i], "__metadata__") == 0) {
			if (root->items[i].type != AXL__J_OBJ)
				rc = fail(err, errcap, "%s: __metadata__ is not an object", c->file);
			continue;
		}
		rc = tensor(c, root->keys[i], &root->items[i], data_size, &r[nr], err, errcap);
		nr++;
	}
	if (rc == 0 && nr > 1) {
		qsort(r, nr, sizeof *r, range_cmp);
		for (size_t i = 1; i < nr; i++)
			if (r[i].b < r[i - 1].e) {
				rc = fail(err, errcap, "%s: tensors '%s' and '%s' overlap", c->file, r[i - 1].name,
					  r[i].name);
				break;
			}
	}
out:
	free(r);
	axl__jdoc_free(doc);
	return rc;
}

static void ctx_init(struct st_ctx *c, struct axl__model *m)
{
	memset(c, 0, sizeof *c);
	c->m = m;
	c->max_layer = c->max_expert = -1;
}

static void finish(struct st_ctx *c)
{
	struct axl__model *m = c->m;
	m->params = c->total;
	m->params_exact = true;
	m->weight_bytes = c->bytes;
	if (c->any_layer)
		m->layers = c->max_layer + 1;
	if (c->max_expert >= 0)
		m->experts = c->max_expert + 1;
	else if (c->any_layer)
		m->experts = 0;
	if (m->experts == 0)
		m->active_params = m->params;
	if (c->embed)
		m->tied_embeddings = !c->lm_head;
	for (size_t i = 0; i < m->ndtypes; i++)
		if (strcmp(m->dtypes[i].name, "INT4") == 0 && m->dtypes[i].params > 0)
			m->dtypes[i].bits = (double)m->dtypes[i].bytes * 8.0 / (double)m->dtypes[i].params;
}

static uint64_t le64(const uint8_t *p)
{
	uint64_t v = 0;
	for (int i = 7; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

int axl__model_from_safetensors_mem(const uint8_t *buf, size_t len, const char *name, struct axl__model *out,
				    char *err, size_t errcap)
{
	axl__model_file_init(out, AXL__MSRC_SAFETENSORS, name);
	struct st_ctx c;
	ctx_init(&c, out);
	c.file = name ? name : "safetensors";
	if (len < 8)
		return fail(err, errcap, "%s: %zu bytes, shorter than the 8-byte header length", c.file, len);
	uint64_t hl = le64(buf);
	if (hl > AXL__ST_HEADER_MAX)
		return fail(err, errcap, "%s: header length %llu above the %u-byte limit", c.file,
			    (unsigned long long)hl, AXL__ST_HEADER_MAX);
	if (hl > len - 8)
		return fail(err, errcap, "%s: header length %llu beyond the file (%zu bytes)", c.file,
			    (unsigned long long)hl, len);
	if (header(&c, (const char *)buf + 8, (size_t)hl, len - 8 - hl, err, errcap))
		return -1;
	finish(&c);
	return 0;
}

/* Read one file's header into the context. */
static int read_file(struct st_ctx *c, const char *path, char *err, size_t errcap)
{
	c->file = path;
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0)
		return fail(err, errcap, "%s: %s", path, strerror(errno));
	struct stat st;
	uint8_t lb[8];
	char *hdr = NULL;
	int rc = -1;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		fail(err, errcap, "%s: not a regular file", path);
		goto out;
	}
	uint64_t size = (uint64_t)st.st_size;
	if (size < 8 || pread(fd, lb, 8, 0) != 8) {
		fail(err, errcap, "%s: shorter than the 8-byte header length", path);
		goto out;
	}
	uint64_t hl = le64(lb);
	if (hl > AXL__ST_HEADER_MAX) {
		fail(err, errcap, "%s: header length %llu above the %u-byte limit", path, (unsigned long long)hl,
		     AXL__ST_HEADER_MAX);
		goto out;
	}
	if (hl > size - 8) {
		fail(err, errcap, "%s: header length %llu beyond the file (%llu bytes)", path, (unsigned long long)hl,
		     (unsigned long long)size);
		goto out;
	}
	hdr = malloc(hl ? hl : 1);
	if (!hdr) {
		fail(err, errcap, "%s: out of memory", path);
		goto out;
	}
	size_t got = 0;
	while (got < hl) {
		ssize_t k = pread(fd, hdr + got, hl - got, (off_t)(8 + got));
		if (k <= 0) {
			fail(err, errcap, "%s: header truncated", path);
			goto out;
		}
		got += (size_t)k;
	}
	rc = header(c, hdr, hl, size - 8 - hl, err, errcap);
out:
	free(hdr);
	close(fd);
	return rc;
}

static int str_cmp(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static int read_index(struct st_ctx *c, const char *path, char *err, size_t errcap)
{
	char *text = NULL;
	size_t len = 0;
	int r = axl__file_read(path, ST_INDEX_MAX, 0, &text, &len);
	if (r == -EFBIG)
		return fail(err, errcap, "%s: index above %u bytes", path, ST_INDEX_MAX);
	if (r)
		return fail(err, errcap, "%s: %s", path, axl__file_error(r));
	struct axl__jdoc *doc = NULL;
	char jerr[160];
	if (axl__jdoc_parse(text, len, &doc, jerr, sizeof jerr)) {
		free(text);
		return fail(err, errcap, "%s: not JSON: %s", path, jerr);
	}
	free(text);
	int rc = 0;
	const char **names = NULL;
	char *shard = NULL;
	const struct axl__jv *wm = axl__jv_get(axl__jdoc_root(doc), "weight_map");
	if (!wm || wm->type != AXL__J_OBJ || wm->len == 0) {
		rc = fail(err, errcap, "%s: no weight_map object", path);
		goto out;
	}
	names = calloc(wm->len, sizeof *names);
	if (!names) {
		rc = fail(err, errcap, "%s: out of memory", path);
		goto out;
	}
	for (size_t i = 0; i < wm->len; i++) {
		const struct axl__jv *v = &wm->items[i];
		if (v->type != AXL__J_STR || v->len == 0 || v->len > 255 || strchr(v->s, '/') || v->s[0] == '.') {
			rc = fail(err, errcap, "%s: weight_map['%s'] is not a shard file name in this directory",
				  path, wm->keys[i]);
			goto out;
		}
		names[i] = v->s;
	}
	qsort(names, wm->len, sizeof *names, str_cmp);
	const char *slash = strrchr(path, '/');
	size_t dl = slash ? (size_t)(slash - path) + 1 : 0;
	shard = malloc(dl + 256);
	if (!shard) {
		rc = fail(err, errcap, "%s: out of memory", path);
		goto out;
	}
	size_t nshards = 0;
	for (size_t i = 0; i < wm->len && rc == 0; i++) {
		if (i && strcmp(names[i], names[i - 1]) == 0)
			continue;
		if (++nshards > ST_SHARDS_MAX) {
			rc = fail(err, errcap, "%s: more than %d shards", path, ST_SHARDS_MAX);
			break;
		}
		memcpy(shard, path, dl);
		snprintf(shard + dl, 256, "%s", names[i]);
		rc = read_file(c, shard, err, errcap);
	}
out:
	free(shard);
	free(names);
	axl__jdoc_free(doc);
	return rc;
}

int axl__model_from_safetensors(const char *path, struct axl__model *out, char *err, size_t errcap)
{
	axl__model_file_init(out, AXL__MSRC_SAFETENSORS, path);
	struct st_ctx c;
	ctx_init(&c, out);
	int rc = ends_with(path, ".json") ? read_index(&c, path, err, errcap) : read_file(&c, path, err, errcap);
	if (rc)
		return -1;
	finish(&c);
	return 0;
}
