/* SPDX-License-Identifier: MIT */
/* The JSON writer on arbitrary strings: the output must always be valid UTF-8 with no
 * raw control characters, whatever the input bytes. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "util/json.h"
#include "util/jsonr.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int valid_utf8(const unsigned char *s, size_t n)
{
	for (size_t i = 0; i < n;) {
		unsigned char c = s[i];
		size_t len = c < 0x80 ? 1 : (c >> 5) == 6 ? 2 : (c >> 4) == 14 ? 3 : (c >> 3) == 30 ? 4 : 0;
		if (!len || i + len > n)
			return 0;
		if (c < 0x20)
			return 0;
		for (size_t k = 1; k < len; k++)
			if ((s[i + k] & 0xc0) != 0x80)
				return 0;
		i += len;
	}
	return 1;
}

/* UTF-8 validity alone (decoded strings may hold control characters) */
static int utf8_ok(const unsigned char *s, size_t n)
{
	for (size_t i = 0; i < n;) {
		unsigned char c = s[i];
		size_t len = c < 0x80 ? 1 : (c >> 5) == 6 ? 2 : (c >> 4) == 14 ? 3 : (c >> 3) == 30 ? 4 : 0;
		if (!len || i + len > n)
			return 0;
		for (size_t k = 1; k < len; k++)
			if ((s[i + k] & 0xc0) != 0x80)
				return 0;
		i += len;
	}
	return 1;
}

/* The reader on arbitrary bytes: a document or a clean refusal, never a crash; a
 * document it accepts holds only valid UTF-8 strings. */
static void reader(const uint8_t *data, size_t size)
{
	struct axl__jdoc *doc = NULL;
	char err[128];
	if (axl__jdoc_parse((const char *)data, size, &doc, err, sizeof err) != 0) {
		if (!err[0])
			abort();
		return;
	}
	const struct axl__jv *stack[AXL__JSONR_MAX_DEPTH + 1];
	size_t idx[AXL__JSONR_MAX_DEPTH + 1];
	int top = 0;
	stack[0] = axl__jdoc_root(doc);
	idx[0] = 0;
	if (stack[0]->type == AXL__J_STR && !utf8_ok((const unsigned char *)stack[0]->s, stack[0]->len))
		abort();
	while (top >= 0) {
		const struct axl__jv *v = stack[top];
		if ((v->type != AXL__J_ARR && v->type != AXL__J_OBJ) || idx[top] >= v->len) {
			top--;
			continue;
		}
		const struct axl__jv *c = &v->items[idx[top]];
		if (v->type == AXL__J_OBJ &&
		    !utf8_ok((const unsigned char *)v->keys[idx[top]], strlen(v->keys[idx[top]])))
			abort();
		idx[top]++;
		if (c->type == AXL__J_STR && (strlen(c->s) != c->len || !utf8_ok((const unsigned char *)c->s, c->len)))
			abort();
		if (top + 1 > AXL__JSONR_MAX_DEPTH)
			abort();
		stack[++top] = c;
		idx[top] = 0;
	}
	axl__jdoc_free(doc);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	reader(data, size);
	struct axl__sb sb = AXL__SB_INIT;
	struct axl__json w;
	axl__json_init(&w, &sb, size & 1);
	axl__json_obj(&w);
	axl__json_key(&w, "k");
	axl__json_strn(&w, (const char *)data, size);
	axl__json_key(&w, (size > 0 && data[0] == 'x') ? "\xff" : "n");
	double v = 0;
	if (size >= sizeof v)
		memcpy(&v, data, sizeof v);
	axl__json_num(&w, v);
	axl__json_obj_end(&w);
	size_t len = 0;
	char *out = axl__sb_steal(&sb, &len);
	if (out) {
		/* pretty output has newlines between tokens: those are allowed */
		for (size_t i = 0; i < len; i++)
			if (out[i] == '\n')
				out[i] = ' ';
		if (!valid_utf8((const unsigned char *)out, len))
			abort();
		free(out);
	}
	return 0;
}
