/* SPDX-License-Identifier: MIT */
/* A model from a bare size: "7B", "70b", "1.5B", "500M", "7e9". With no
 * config at hand the planner assumes the architecture of the published model nearest in
 * size among a typical family (Llama 3.x, and Qwen2.5 where Llama has no such size):
 * its real layer count, hidden size, heads, KV heads and vocabulary, with the MLP width
 * set so the total matches the size asked for. The assumption is stated in the output. */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model_catalog.h"
#include "plan.h"

int axl__parse_size(const char *s, int64_t *params)
{
	if (!s || !*s)
		return -1;
	const char *p = s;
	if (*p == '+' || *p == '-')
		p++;
	if (!isdigit((unsigned char)*p) && *p != '.')
		return -1;
	char *end;
	double v = strtod(s, &end);
	if (end == s)
		return -1;
	double mult = 1;
	if (*end) {
		switch (tolower((unsigned char)*end)) {
		case 'k': mult = 1e3; break;
		case 'm': mult = 1e6; break;
		case 'b': mult = 1e9; break;
		case 't': mult = 1e12; break;
		default: return -1;
		}
		if (end[1])
			return -1;
	}
	double n = v * mult;
	if (!isfinite(n) || n < 1e6 || n > 1e14)
		return -2; /* a size, but not one a model has */
	*params = (int64_t)llround(n);
	return 0;
}

/* The reference family: Llama 3.x, with Qwen2.5 where Llama has no model of that size. */
static const char *const family[] = {"qwen2.5-0.5b", "llama3.2-1b", "llama3.2-3b", "llama3.1-8b",
				     "qwen2.5-14b",  "qwen2.5-32b", "llama3.1-70b", "llama3.1-405b"};

int axl__model_from_size(int64_t params, struct axl__model *m, char *note, size_t cap)
{
	double best = 1e300;
	struct axl__model ref;
	int found = -1;
	for (size_t i = 0; i < sizeof family / sizeof family[0]; i++) {
		struct axl__model c;
		if (axl__model_from_catalog(family[i], &c) != 0 || c.params <= 0)
			continue;
		double d = fabs(log((double)c.params / (double)params));
		if (d < best) {
			best = d;
			ref = c;
			found = (int)i;
		}
	}
	if (found < 0)
		return -1;
	*m = ref;
	/* the MLP width that gives the size asked for (multiples of 256, at least half the hidden size) */
	const int mm = m->mlp_matrices > 0 ? m->mlp_matrices : 3;
	double base = (double)ref.params - (double)ref.layers * mm * (double)ref.hidden * ref.intermediate;
	double inter = ((double)params - base) / ((double)ref.layers * mm * ref.hidden);
	int I = (int)(llround(inter / 256) * 256);
	if (I < ref.hidden / 2)
		I = ref.hidden / 2;
	m->intermediate = I;
	m->params = axl__model_params(m, &m->active_params);
	m->params_exact = false;
	m->source = AXL__MSRC_SIZE;
	m->alias[0] = m->catalog_id[0] = 0;
	m->published_dtype[0] = 0;
	snprintf(note, cap,
		 "no config: assumed the architecture of %s (%d layers, hidden %d, %d heads, %d KV heads, "
		 "vocabulary %lld), MLP width %d for %.3g B parameters",
		 ref.id, m->layers, m->hidden, m->heads, m->kv_heads, (long long)m->vocab, I, (double)m->params / 1e9);
	return 0;
}
