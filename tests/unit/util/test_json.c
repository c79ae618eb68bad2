/* SPDX-License-Identifier: MIT */
/* The JSON writer: structure, escaping, invalid UTF-8, numbers. */
#include <math.h>
#include <stdlib.h>

#include "check.h"
#include "util/json.h"

static char *render(void (*fn)(struct axl__json *))
{
	struct axl__sb sb = AXL__SB_INIT;
	struct axl__json w;
	axl__json_init(&w, &sb, false);
	fn(&w);
	return axl__sb_steal(&sb, NULL);
}

static void doc1(struct axl__json *w)
{
	axl__json_obj(w);
	axl__json_kstr(w, "a", "x\"y\\z\n\t\x01");
	axl__json_key(w, "b");
	axl__json_arr(w);
	axl__json_int(w, -5);
	axl__json_num(w, 1.5);
	axl__json_num(w, NAN);
	axl__json_bool(w, true);
	axl__json_null(w);
	axl__json_arr_end(w);
	axl__json_key(w, "e");
	axl__json_obj(w);
	axl__json_obj_end(w);
	axl__json_key(w, "h");
	axl__json_hex(w, 0x10de, 4);
	axl__json_obj_end(w);
}

static void doc_utf8(struct axl__json *w)
{
	axl__json_arr(w);
	axl__json_str(w, "caf\xc3\xa9");            /* valid */
	axl__json_str(w, "bad\xff\xfe");            /* invalid bytes */
	axl__json_str(w, "trunc\xe2\x82");          /* truncated sequence */
	axl__json_str(w, "over\xc0\xaf");           /* overlong */
	axl__json_str(w, "sur\xed\xa0\x80");        /* surrogate */
	axl__json_str(w, "\x7f");
	axl__json_arr_end(w);
}

static void doc_numbers(struct axl__json *w)
{
	axl__json_arr(w);
	axl__json_num(w, 3350);
	axl__json_num(w, 0.1);
	axl__json_num(w, 989.4);
	axl__json_num(w, INFINITY);
	axl__json_num(w, 1e300);
	axl__json_arr_end(w);
}

static void doc_deep(struct axl__json *w)
{
	for (int i = 0; i < 100; i++)
		axl__json_arr(w);
	for (int i = 0; i < 100; i++)
		axl__json_arr_end(w);
}

int main(void)
{
	char *s = render(doc1);
	CHECK_STR(s, "{\"a\":\"x\\\"y\\\\z\\n\\t\\u0001\",\"b\":[-5,1.5,null,true,null],\"e\":{},\"h\":\"0x10de\"}");
	free(s);
	s = render(doc_utf8);
	CHECK_STR(s, "[\"caf\xc3\xa9\",\"bad\\ufffd\\ufffd\",\"trunc\\ufffd\\ufffd\",\"over\\ufffd\\ufffd\","
		     "\"sur\\ufffd\\ufffd\\ufffd\",\"\\u007f\"]");
	free(s);
	s = render(doc_numbers);
	CHECK_STR(s, "[3350,0.1,989.4,null,1e+300]");
	free(s);
	s = render(doc_deep); /* too deep: refused, never overflows */
	CHECK(s == NULL);
	free(s);
	return check_summary();
}
