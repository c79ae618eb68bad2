/* SPDX-License-Identifier: MIT */
/* A strict, bounded JSON reader (see jsonr.h). Memory comes from a bump allocator
 * owned by the document, so a tree is released with one call. */
#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jsonr.h"
#include "parse.h"

struct block {
	struct block *next;
	size_t used, cap;
	max_align_t data[];
};

struct axl__jdoc {
	struct block *blocks;
	struct axl__jv root;
};

struct parser {
	const char *p, *start, *end;
	struct axl__jdoc *doc;
	char *err;
	size_t errcap;
	bool failed;
	size_t fail_off;
};

static void *bump(struct axl__jdoc *doc, size_t size)
{
	size = (size + sizeof(max_align_t) - 1) & ~(sizeof(max_align_t) - 1);
	struct block *b = doc->blocks;
	if (!b || b->cap - b->used < size) {
		size_t cap = size > 65536 ? size : 65536;
		b = malloc(sizeof *b + cap);
		if (!b)
			return NULL;
		b->cap = cap;
		b->used = 0;
		/* keep the partly used block in front when the new one is a big one-off */
		if (doc->blocks && size > 65536) {
			b->next = doc->blocks->next;
			doc->blocks->next = b;
		} else {
			b->next = doc->blocks;
			doc->blocks = b;
		}
	}
	void *r = (char *)b->data + b->used;
	b->used += size;
	return r;
}

#if defined(__GNUC__)
__attribute__((format(printf, 2, 3)))
#endif
static void fail(struct parser *ps, const char *fmt, ...)
{
	if (ps->failed)
		return;
	ps->failed = true;
	ps->fail_off = (size_t)(ps->p - ps->start);
	if (!ps->err || !ps->errcap)
		return;
	int n = snprintf(ps->err, ps->errcap, "offset %zu: ", (size_t)(ps->p - ps->start));
	if (n < 0 || (size_t)n >= ps->errcap)
		return;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(ps->err + n, ps->errcap - (size_t)n, fmt, ap);
	va_end(ap);
}

static void ws(struct parser *ps)
{
	while (ps->p < ps->end && (*ps->p == ' ' || *ps->p == '\t' || *ps->p == '\n' || *ps->p == '\r'))
		ps->p++;
}

static bool lit(struct parser *ps, const char *word)
{
	size_t n = strlen(word);
	if ((size_t)(ps->end - ps->p) < n || memcmp(ps->p, word, n) != 0)
		return false;
	ps->p += n;
	return true;
}

static int hex4(const char *s)
{
	int v = 0;
	for (int i = 0; i < 4; i++) {
		char c = s[i];
		int d = c >= '0' && c <= '9'   ? c - '0'
			: c >= 'a' && c <= 'f' ? c - 'a' + 10
			: c >= 'A' && c <= 'F' ? c - 'A' + 10
					       : -1;
		if (d < 0)
			return -1;
		v = v * 16 + d;
	}
	return v;
}

static size_t put_utf8(char *o, unsigned cp)
{
	if (cp < 0x80) {
		o[0] = (char)cp;
		return 1;
	}
	if (cp < 0x800) {
		o[0] = (char)(0xc0 | (cp >> 6));
		o[1] = (char)(0x80 | (cp & 0x3f));
		return 2;
	}
	if (cp < 0x10000) {
		o[0] = (char)(0xe0 | (cp >> 12));
		o[1] = (char)(0x80 | ((cp >> 6) & 0x3f));
		o[2] = (char)(0x80 | (cp & 0x3f));
		return 3;
	}
	o[0] = (char)(0xf0 | (cp >> 18));
	o[1] = (char)(0x80 | ((cp >> 12) & 0x3f));
	o[2] = (char)(0x80 | ((cp >> 6) & 0x3f));
	o[3] = (char)(0x80 | (cp & 0x3f));
	return 4;
}

/* ps->p at the opening quote. The decoded string is never longer than the source. */
static const char *string(struct parser *ps, size_t *outlen)
{
	const char *s = ++ps->p;
	const char *q = s;
	while (q < ps->end && *q != '"') {
		if (*q == '\\')
			q++;
		q++;
	}
	if (q >= ps->end) {
		fail(ps, "unterminated string");
		return NULL;
	}
	char *out = bump(ps->doc, (size_t)(q - s) + 1);
	if (!out) {
		fail(ps, "out of memory");
		return NULL;
	}
	size_t n = 0;
	while (ps->p < q) {
		unsigned char c = (unsigned char)*ps->p;
		if (c < 0x20) {
			fail(ps, "control character in a string");
			return NULL;
		}
		if (c != '\\') {
			size_t l = axl__utf8_len((const unsigned char *)ps->p, (size_t)(q - ps->p));
			if (!l) {
				fail(ps, "invalid UTF-8 in a string");
				return NULL;
			}
			memcpy(out + n, ps->p, l);
			n += l;
			ps->p += l;
			continue;
		}
		ps->p++;
		char e = *ps->p++;
		switch (e) {
		case '"': out[n++] = '"'; break;
		case '\\': out[n++] = '\\'; break;
		case '/': out[n++] = '/'; break;
		case 'b': out[n++] = '\b'; break;
		case 'f': out[n++] = '\f'; break;
		case 'n': out[n++] = '\n'; break;
		case 'r': out[n++] = '\r'; break;
		case 't': out[n++] = '\t'; break;
		case 'u': {
			int cp = q - ps->p >= 4 ? hex4(ps->p) : -1;
			if (cp < 0) {
				fail(ps, "bad \\u escape");
				return NULL;
			}
			ps->p += 4;
			if (cp >= 0xd800 && cp <= 0xdbff) {
				int lo = q - ps->p >= 6 && ps->p[0] == '\\' && ps->p[1] == 'u' ? hex4(ps->p + 2) : -1;
				if (lo < 0xdc00 || lo > 0xdfff) {
					fail(ps, "unpaired surrogate");
					return NULL;
				}
				ps->p += 6;
				cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
			} else if (cp >= 0xdc00 && cp <= 0xdfff) {
				fail(ps, "unpaired surrogate");
				return NULL;
			} else if (cp == 0) {
				fail(ps, "U+0000 in a string");
				return NULL;
			}
			/* an escape takes 6 or 12 source bytes and at most 4 decoded ones */
			n += put_utf8(out + n, (unsigned)cp);
			break;
		}
		default:
			fail(ps, "bad escape '\\%c'", e);
			return NULL;
		}
	}
	ps->p = q + 1;
	out[n] = '\0';
	*outlen = n;
	return out;
}

static bool number(struct parser *ps, struct axl__jv *v)
{
	const char *s = ps->p;
	const char *q = s;
	if (q < ps->end && *q == '-')
		q++;
	if (q >= ps->end || *q < '0' || *q > '9') {
		fail(ps, "bad number");
		return false;
	}
	if (*q == '0')
		q++;
	else
		while (q < ps->end && *q >= '0' && *q <= '9')
			q++;
	bool integer = true;
	if (q < ps->end && *q == '.') {
		integer = false;
		q++;
		if (q >= ps->end || *q < '0' || *q > '9') {
			fail(ps, "bad number");
			return false;
		}
		while (q < ps->end && *q >= '0' && *q <= '9')
			q++;
	}
	if (q < ps->end && (*q == 'e' || *q == 'E')) {
		integer = false;
		q++;
		if (q < ps->end && (*q == '+' || *q == '-'))
			q++;
		if (q >= ps->end || *q < '0' || *q > '9') {
			fail(ps, "bad number");
			return false;
		}
		while (q < ps->end && *q >= '0' && *q <= '9')
			q++;
	}
	char buf[64];
	size_t n = (size_t)(q - s);
	if (n >= sizeof buf) {
		/* long digit strings: only as a double, through a heap copy */
		char *copy = strndup(s, n);
		if (!copy) {
			fail(ps, "out of memory");
			return false;
		}
		v->num = strtod(copy, NULL);
		free(copy);
	} else {
		memcpy(buf, s, n);
		buf[n] = '\0';
		v->num = strtod(buf, NULL);
		if (integer) {
			errno = 0;
			long long ll = strtoll(buf, NULL, 10);
			if (errno == 0) {
				v->is_int = true;
				v->i = ll;
			}
		}
	}
	if (!isfinite(v->num)) {
		fail(ps, "number out of range");
		return false;
	}
	v->type = AXL__J_NUM;
	ps->p = q;
	return true;
}

struct tmpvec {
	struct axl__jv *v;
	const char **k;
	size_t n, cap;
};

static bool value(struct parser *ps, struct axl__jv *v, int depth);

static bool grow(struct tmpvec *t, bool keys)
{
	if (t->n < t->cap)
		return true;
	size_t cap = t->cap ? t->cap * 2 : 8;
	struct axl__jv *nv = realloc(t->v, cap * sizeof *nv);
	if (!nv)
		return false;
	t->v = nv;
	if (keys) {
		const char **nk = realloc(t->k, cap * sizeof *nk);
		if (!nk)
			return false;
		t->k = nk;
	}
	t->cap = cap;
	return true;
}

static bool container(struct parser *ps, struct axl__jv *v, int depth, bool obj)
{
	if (depth >= AXL__JSONR_MAX_DEPTH) {
		fail(ps, "nested deeper than %d", AXL__JSONR_MAX_DEPTH);
		return false;
	}
	char close = obj ? '}' : ']';
	ps->p++;
	struct tmpvec t = {0};
	bool ok = true;
	ws(ps);
	if (ps->p < ps->end && *ps->p == close) {
		ps->p++;
	} else {
		for (;;) {
			if (!grow(&t, obj)) {
				fail(ps, "out of memory");
				ok = false;
				break;
			}
			ws(ps);
			if (obj) {
				size_t kl;
				if (ps->p >= ps->end || *ps->p != '"') {
					fail(ps, "expected a key");
					ok = false;
					break;
				}
				t.k[t.n] = string(ps, &kl);
				if (!t.k[t.n]) {
					ok = false;
					break;
				}
				ws(ps);
				if (ps->p >= ps->end || *ps->p != ':') {
					fail(ps, "expected ':'");
					ok = false;
					break;
				}
				ps->p++;
			}
			memset(&t.v[t.n], 0, sizeof t.v[t.n]);
			if (!value(ps, &t.v[t.n], depth + 1)) {
				ok = false;
				break;
			}
			t.n++;
			ws(ps);
			if (ps->p < ps->end && *ps->p == ',') {
				ps->p++;
				continue;
			}
			if (ps->p < ps->end && *ps->p == close) {
				ps->p++;
				break;
			}
			fail(ps, "expected ',' or '%c'", close);
			ok = false;
			break;
		}
	}
	if (ok) {
		v->type = obj ? AXL__J_OBJ : AXL__J_ARR;
		v->len = t.n;
		if (t.n) {
			v->items = bump(ps->doc, t.n * sizeof *v->items);
			if (obj)
				v->keys = bump(ps->doc, t.n * sizeof *v->keys);
			if (!v->items || (obj && !v->keys)) {
				fail(ps, "out of memory");
				ok = false;
			} else {
				memcpy(v->items, t.v, t.n * sizeof *v->items);
				if (obj)
					memcpy(v->keys, t.k, t.n * sizeof *v->keys);
			}
		}
	}
	free(t.v);
	free(t.k);
	return ok;
}

static bool value(struct parser *ps, struct axl__jv *v, int depth)
{
	ws(ps);
	v->off = (size_t)(ps->p - ps->start);
	if (ps->p >= ps->end) {
		fail(ps, "unexpected end");
		return false;
	}
	switch (*ps->p) {
	case '{': return container(ps, v, depth, true);
	case '[': return container(ps, v, depth, false);
	case '"':
		v->type = AXL__J_STR;
		v->s = string(ps, &v->len);
		return v->s != NULL;
	case 't':
		if (lit(ps, "true")) {
			v->type = AXL__J_BOOL;
			v->b = true;
			return true;
		}
		break;
	case 'f':
		if (lit(ps, "false")) {
			v->type = AXL__J_BOOL;
			return true;
		}
		break;
	case 'n':
		if (lit(ps, "null")) {
			v->type = AXL__J_NULL;
			return true;
		}
		break;
	default:
		return number(ps, v);
	}
	fail(ps, "unexpected character '%c'", *ps->p);
	return false;
}

void axl__jdoc_free(struct axl__jdoc *doc)
{
	if (!doc)
		return;
	struct block *b = doc->blocks;
	while (b) {
		struct block *n = b->next;
		free(b);
		b = n;
	}
	free(doc);
}

int axl__jdoc_parse(const char *text, size_t len, struct axl__jdoc **out, char *err, size_t errcap)
{
	return axl__jdoc_parse_at(text, len, out, err, errcap, NULL);
}

int axl__jdoc_parse_at(const char *text, size_t len, struct axl__jdoc **out, char *err, size_t errcap,
		       size_t *err_off)
{
	if (err_off)
		*err_off = 0;
	*out = NULL;
	if (err && errcap)
		err[0] = '\0';
	struct axl__jdoc *doc = calloc(1, sizeof *doc);
	if (!doc) {
		if (err && errcap)
			snprintf(err, errcap, "out of memory");
		return -1;
	}
	struct parser ps = {text, text, text + len, doc, err, errcap, false, 0};
	if (value(&ps, &doc->root, 0)) {
		ws(&ps);
		if (ps.p != ps.end)
			fail(&ps, "trailing characters after the document");
	}
	if (ps.failed) {
		if (err_off)
			*err_off = ps.fail_off;
		axl__jdoc_free(doc);
		return -1;
	}
	*out = doc;
	return 0;
}

const struct axl__jv *axl__jdoc_root(const struct axl__jdoc *doc)
{
	return doc ? &doc->root : NULL;
}

const struct axl__jv *axl__jv_get(const struct axl__jv *v, const char *key)
{
	if (!v || v->type != AXL__J_OBJ)
		return NULL;
	for (size_t i = v->len; i-- > 0;)
		if (strcmp(v->keys[i], key) == 0)
			return &v->items[i];
	return NULL;
}

bool axl__jv_int(const struct axl__jv *obj, const char *key, int64_t *out)
{
	const struct axl__jv *v = axl__jv_get(obj, key);
	if (!v || v->type != AXL__J_NUM || !v->is_int)
		return false;
	*out = v->i;
	return true;
}

bool axl__jv_num(const struct axl__jv *obj, const char *key, double *out)
{
	const struct axl__jv *v = axl__jv_get(obj, key);
	if (!v || v->type != AXL__J_NUM)
		return false;
	*out = v->num;
	return true;
}

const char *axl__jv_str(const struct axl__jv *obj, const char *key)
{
	const struct axl__jv *v = axl__jv_get(obj, key);
	return v && v->type == AXL__J_STR ? v->s : NULL;
}
