/* SPDX-License-Identifier: MIT */
/* The JSON reader: what it accepts, what it refuses, and that what the writer writes
 * reads back the same. */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "util/json.h"
#include "util/jsonr.h"

static const struct axl__jv *parse(const char *text, struct axl__jdoc **doc)
{
	char err[128];
	if (axl__jdoc_parse(text, strlen(text), doc, err, sizeof err) != 0)
		return NULL;
	return axl__jdoc_root(*doc);
}

static int refuses(const char *text, const char *why)
{
	struct axl__jdoc *doc = NULL;
	char err[128] = "";
	int rc = axl__jdoc_parse(text, strlen(text), &doc, err, sizeof err);
	axl__jdoc_free(doc);
	if (rc == 0) {
		fprintf(stderr, "accepted: %s\n", text);
		return 0;
	}
	if (why && !strstr(err, why)) {
		fprintf(stderr, "refused '%s' for '%s', expected '%s'\n", text, err, why);
		return 0;
	}
	return 1;
}

int main(void)
{
	struct axl__jdoc *doc = NULL;
	const struct axl__jv *v = parse(
		" {\"f\":\"nvmlDeviceGetName\",\"d\":\"0\",\"a\":[1,2],\"r\":0,\"o\":\"NVIDIA H100 80GB HBM3\","
		"\"big\":9223372036854775807,\"neg\":-12,\"x\":1.5e3,\"t\":true,\"n\":null,"
		"\"s\":\"a\\u00e9\\ud83d\\ude00\\n\","
		"\"o2\":{},\"e\":[], \"dup\":1, \"dup\":2} ",
		&doc);
	CHECK(v != NULL);
	if (v) {
		CHECK(v->type == AXL__J_OBJ);
		CHECK_STR(axl__jv_str(v, "f"), "nvmlDeviceGetName");
		CHECK_STR(axl__jv_str(v, "o"), "NVIDIA H100 80GB HBM3");
		int64_t i = 0;
		CHECK(axl__jv_int(v, "big", &i) && i == INT64_MAX);
		CHECK(axl__jv_int(v, "neg", &i) && i == -12);
		CHECK(!axl__jv_int(v, "x", &i)); /* not an integer literal */
		double d = 0;
		CHECK(axl__jv_num(v, "x", &d) && d == 1500);
		CHECK(axl__jv_get(v, "t")->type == AXL__J_BOOL && axl__jv_get(v, "t")->b);
		CHECK(axl__jv_get(v, "n")->type == AXL__J_NULL);
		CHECK_STR(axl__jv_str(v, "s"), "a\xc3\xa9\xf0\x9f\x98\x80\n");
		const struct axl__jv *a = axl__jv_get(v, "a");
		CHECK(a && a->type == AXL__J_ARR && a->len == 2 && a->items[1].i == 2);
		CHECK(axl__jv_get(v, "o2")->type == AXL__J_OBJ && axl__jv_get(v, "o2")->len == 0);
		CHECK(axl__jv_get(v, "e")->len == 0);
		CHECK(axl__jv_int(v, "dup", &i) && i == 2); /* the last one */
		CHECK(axl__jv_get(v, "missing") == NULL);
		CHECK(axl__jv_str(v, "neg") == NULL); /* another type */
	}
	axl__jdoc_free(doc);

	/* 2^63 does not fit: a double only */
	doc = NULL;
	v = parse("[9223372036854775808, -0, 0.0]", &doc);
	CHECK(v && !v->items[0].is_int && v->items[0].num > 9e18 && v->items[1].is_int);
	axl__jdoc_free(doc);

	CHECK(refuses("", "unexpected end"));
	CHECK(refuses("{", NULL));
	CHECK(refuses("{\"a\":1,}", "expected a key"));
	CHECK(refuses("[1,]", NULL));
	CHECK(refuses("[01]", NULL));
	CHECK(refuses("[1.]", "bad number"));
	CHECK(refuses("[.5]", NULL));
	CHECK(refuses("[1e]", "bad number"));
	CHECK(refuses("[1e999]", "out of range"));
	CHECK(refuses("{\"a\" 1}", "expected ':'"));
	CHECK(refuses("[\"tab\there\"]", "control character"));
	CHECK(refuses("[\"\\x\"]", "bad escape"));
	CHECK(refuses("[\"\\u12\"]", "bad \\u escape"));
	CHECK(refuses("[\"\\ud800\"]", "unpaired surrogate"));
	CHECK(refuses("[\"\\udc00\"]", "unpaired surrogate"));
	CHECK(refuses("[\"\\u0000\"]", "U+0000"));
	CHECK(refuses("[\"\xff\"]", "UTF-8"));
	CHECK(refuses("[\"\xc0\xaf\"]", "UTF-8"));          /* overlong '/' */
	CHECK(refuses("[\"\xed\xa0\x80\"]", "UTF-8"));      /* an encoded surrogate */
	CHECK(refuses("[\"unterminated]", "unterminated"));
	CHECK(refuses("[tru]", NULL));
	CHECK(refuses("nul", NULL));
	CHECK(refuses("[1] [2]", "trailing"));
	CHECK(refuses("{\"a\":1}x", "trailing"));
	/* nesting is bounded */
	char deep[300];
	memset(deep, '[', 200);
	memset(deep + 200, ']', 99);
	deep[299] = '\0';
	CHECK(refuses(deep, "nested deeper"));
	char ok[131];
	memset(ok, '[', 65);
	memset(ok + 65, ']', 65);
	ok[130] = '\0';
	CHECK(refuses(ok, "nested deeper")); /* 65 levels: one too many */
	memset(ok, '[', 64);
	memset(ok + 64, ']', 64);
	ok[128] = '\0';
	doc = NULL;
	CHECK(parse(ok, &doc) != NULL); /* 64 levels */
	axl__jdoc_free(doc);

	/* the writer's output reads back: every string, every number */
	struct axl__sb sb = AXL__SB_INIT;
	struct axl__json w;
	axl__json_init(&w, &sb, true);
	axl__json_obj(&w);
	axl__json_kstr(&w, "s", "x\"y\\z\n\t\x01 caf\xc3\xa9");
	axl__json_kint(&w, "i", INT64_MIN);
	axl__json_knum(&w, "f", 0.1);
	axl__json_obj_end(&w);
	size_t len;
	char *text = axl__sb_steal(&sb, &len);
	doc = NULL;
	v = text ? parse(text, &doc) : NULL;
	CHECK(v != NULL);
	if (v) {
		int64_t i = 0;
		double d = 0;
		CHECK_STR(axl__jv_str(v, "s"), "x\"y\\z\n\t\x01 caf\xc3\xa9");
		CHECK(axl__jv_int(v, "i", &i) && i == INT64_MIN);
		CHECK(axl__jv_num(v, "f", &d) && d == 0.1);
	}
	axl__jdoc_free(doc);
	free(text);
	printf("%d passed, %d failed\n", check_passed, check_failed);
	return check_failed != 0;
}
