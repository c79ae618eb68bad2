/* SPDX-License-Identifier: MIT */
/* axl top's layout: a sample and the view state in, a W x H frame of cells out. No
 * terminal here: the curses screen and the plain-text batch mode both print these
 * frames, so what the tests read is what a terminal shows. */
#define _GNU_SOURCE
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli.h"
#include "top.h"

/* ---- the grid ------------------------------------------------------------------------ */

int top_grid_init(struct top_grid *g, int w, int h, int unicode)
{
	g->w = w < 1 ? 1 : w;
	g->h = h < 1 ? 1 : h;
	g->unicode = unicode;
	g->ch = calloc((size_t)g->w * (size_t)g->h, sizeof *g->ch);
	g->st = calloc((size_t)g->w * (size_t)g->h, 1);
	if (!g->ch || !g->st) {
		top_grid_free(g);
		return -1;
	}
	top_grid_clear(g);
	return 0;
}

void top_grid_free(struct top_grid *g)
{
	free(g->ch);
	free(g->st);
	g->ch = NULL;
	g->st = NULL;
}

void top_grid_clear(struct top_grid *g)
{
	for (size_t k = 0; k < (size_t)g->w * (size_t)g->h; k++) {
		g->ch[k] = ' ';
		g->st[k] = TS_NORMAL;
	}
}

static void utf8_put(uint32_t c, FILE *f)
{
	if (c < 0x80)
		fputc((int)c, f);
	else if (c < 0x800) {
		fputc((int)(0xc0 | (c >> 6)), f);
		fputc((int)(0x80 | (c & 0x3f)), f);
	} else {
		fputc((int)(0xe0 | (c >> 12)), f);
		fputc((int)(0x80 | ((c >> 6) & 0x3f)), f);
		fputc((int)(0x80 | (c & 0x3f)), f);
	}
}

void top_grid_write(const struct top_grid *g, FILE *f)
{
	for (int y = 0; y < g->h; y++) {
		const uint32_t *row = g->ch + (size_t)y * (size_t)g->w;
		int end = g->w;
		while (end > 0 && row[end - 1] == ' ')
			end--;
		for (int x = 0; x < end; x++)
			utf8_put(row[x], f);
		fputc('\n', f);
	}
}

static void put(struct top_grid *g, int x, int y, uint32_t c, int st)
{
	if (x < 0 || y < 0 || x >= g->w || y >= g->h)
		return;
	g->ch[(size_t)y * (size_t)g->w + (size_t)x] = (c < 0x20 || c == 0x7f) ? '?' : c;
	g->st[(size_t)y * (size_t)g->w + (size_t)x] = (unsigned char)st;
}

/* Text at (x, y), at most maxw cells (< 0: to the edge); returns the column after it.
 * Bytes outside ASCII (a model name from a hostile tree) show as '?'. */
static int text(struct top_grid *g, int x, int y, const char *s, int maxw, int st)
{
	if (maxw < 0 || x + maxw > g->w)
		maxw = g->w - x;
	int n = 0;
	for (; s && *s && n < maxw; s++, n++)
		put(g, x + n, y, (unsigned char)*s < 0x80 ? (unsigned char)*s : '?', st);
	return x + n;
}

static void style_row(struct top_grid *g, int y, int x0, int x1, int st)
{
	for (int x = x0; x < x1 && x < g->w; x++)
		if (y >= 0 && y < g->h && x >= 0)
			g->st[(size_t)y * (size_t)g->w + (size_t)x] = (unsigned char)st;
}

/* Right-aligned text ending at column x1 (exclusive); returns where it starts. */
static int rtext(struct top_grid *g, int x1, int y, const char *s, int st)
{
	int x = x1 - (int)strlen(s);
	text(g, x, y, s, x1 - x, st);
	return x;
}

/* ---- values ---------------------------------------------------------------------------- */

static int get(const axl_sample *smp, size_t i, axl_metric m, double *v)
{
	return smp && axl_sample_get(smp, i, m, v, NULL) == 0 && isfinite(*v);
}

/* Bytes in at most 6 characters, in binary units named as binary units (nvtop's "Gi"):
 * "192Gi", "12.3Gi", "280Mi", "512Ki", "0". */
static void short_bytes(double b, char *buf, size_t cap)
{
	static const char units[] = "BKMGTP";
	int u = 0;
	while (b >= 1000 && u < 5) {
		b /= 1024;
		u++;
	}
	if (u == 0)
		snprintf(buf, cap, "%.0f", b);
	else
		snprintf(buf, cap, b < 10 ? "%.1f%ci" : "%.0f%ci", b, units[u]);
}

/* Used and total memory in the total's unit, written once, as nvidia-smi writes
 * "49152MiB / 81559MiB" but shorter: "49/80GiB", "2.5/24GiB", "-/80GiB". */
static void mem_pair(int has_used, double used, int has_total, double total, char *buf, size_t cap)
{
	static const char units[] = "BKMGTP";
	double div = 1;
	int u = 0;
	double ref = has_total ? total : has_used ? used : 0;
	while (ref / div >= 1000 && u < 5) {
		div *= 1024;
		u++;
	}
	char a[16] = "-", b[16] = "-";
	if (has_used)
		snprintf(a, sizeof a, used / div < 10 && u ? "%.1f" : "%.0f", used / div);
	if (has_total)
		snprintf(b, sizeof b, total / div < 10 && u ? "%.1f" : "%.0f", total / div);
	if (u)
		snprintf(buf, cap, "%s/%s%ciB", a, b, units[u]);
	else
		snprintf(buf, cap, "%s/%sB", a, b);
}

static int level_style(double pct)
{
	return pct >= 80 ? TS_HIGH : pct >= 50 ? TS_MID : TS_LOW;
}

/* A bar "NAME[|||||   label]" w cells wide; pct NAN: unknown (no fill). */
static void bar(struct top_grid *g, int x, int y, int w, const char *name, double pct, const char *label)
{
	int x0 = text(g, x, y, name, -1, TS_TITLE);
	int inner = w - (x0 - x) - 2;
	if (inner < 1)
		return;
	put(g, x0, y, '[', TS_DIM);
	put(g, x0 + 1 + inner, y, ']', TS_DIM);
	int fill = 0;
	if (!isnan(pct)) {
		double p = pct < 0 ? 0 : pct > 100 ? 100 : pct;
		fill = (int)(p / 100.0 * inner + 0.5);
	}
	int st = isnan(pct) ? TS_DIM : level_style(pct);
	for (int k = 0; k < inner; k++)
		put(g, x0 + 1 + k, y, k < fill ? '|' : ' ', k < fill ? st : TS_NORMAL);
	int ll = (int)strlen(label);
	if (ll > inner)
		return; /* a number cut short would read as another number ("2%" of "82%") */
	int lx = x0 + 1 + inner - ll;
	text(g, lx, y, label, ll, isnan(pct) ? TS_DIM : TS_NORMAL);
}

static float hist_at(const float *series, const struct top_history *h, int back)
{
	/* back = 0: the newest */
	if (back >= h->len)
		return NAN;
	int k = (h->head - 1 - back + TOP_HISTORY * 2) % TOP_HISTORY;
	return series[k];
}

/* One line: the newest value at the right; unknown values blank. */
static void sparkline(struct top_grid *g, int x, int y, int w, const float *series, const struct top_history *h,
		      int st)
{
	static const char ascii[] = "_.-=+*#@";
	static const uint32_t blocks[] = {0x2581, 0x2582, 0x2583, 0x2584, 0x2585, 0x2586, 0x2587, 0x2588};
	for (int k = 0; k < w; k++) {
		float v = hist_at(series, h, w - 1 - k);
		if (isnan(v)) {
			put(g, x + k, y, ' ', TS_NORMAL);
			continue;
		}
		int lv = (int)(v / 100.0f * 7.0f + 0.5f);
		lv = lv < 0 ? 0 : lv > 7 ? 7 : lv;
		put(g, x + k, y, g->unicode ? blocks[lv] : (uint32_t)ascii[lv], st);
	}
}

/* A chart rows high: one column per sample, the newest at the right, with a title. */
static void chart(struct top_grid *g, int x, int y, int w, int rows, const float *series,
		  const struct top_history *h, int st, const char *title)
{
	static const uint32_t eighths[] = {' ', 0x2581, 0x2582, 0x2583, 0x2584, 0x2585, 0x2586, 0x2587, 0x2588};
	int steps = g->unicode ? 8 : 2;
	for (int k = 0; k < w; k++) {
		float v = hist_at(series, h, w - 1 - k);
		int units = isnan(v) ? 0 : (int)(v / 100.0f * (float)(rows * steps) + 0.5f);
		if (!isnan(v) && v > 0 && units == 0)
			units = 1; /* busy at all shows */
		for (int r = 0; r < rows; r++) {
			int cell = units - r * steps; /* this row's share, from the bottom */
			uint32_t c = ' ';
			if (cell >= steps)
				c = g->unicode ? 0x2588 : '|';
			else if (cell > 0)
				c = g->unicode ? eighths[cell] : '.';
			else if (r == 0 && !isnan(v))
				c = g->unicode ? 0x2581 : '_'; /* known and idle: a baseline */
			put(g, x + k, y + rows - 1 - r, c, c == ' ' ? TS_NORMAL : st);
		}
	}
	/* the title and the newest value over the chart */
	char t[48];
	float v = hist_at(series, h, 0);
	if (isnan(v))
		snprintf(t, sizeof t, "%s -", title);
	else
		snprintf(t, sizeof t, "%s %.0f%%", title, v);
	text(g, x, y, t, w, TS_TITLE);
}

/* ---- the state ------------------------------------------------------------------------- */

int top_state_record(struct top_state *s, const axl_sample *smp)
{
	size_t n = axl_sample_device_count(smp);
	if (n != s->ndev) {
		struct top_history *h = calloc(n ? n : 1, sizeof *h);
		if (!h)
			return -1;
		free(s->hist);
		s->hist = h;
		s->ndev = n;
		if (s->selected >= n)
			s->selected = n ? n - 1 : 0;
	}
	for (size_t i = 0; i < n; i++) {
		struct top_history *h = &s->hist[i];
		double u, used, tot;
		h->util[h->head] = get(smp, i, AXL_METRIC_UTILIZATION, &u) ? (float)u : NAN;
		h->mem[h->head] = get(smp, i, AXL_METRIC_MEMORY_USED, &used) &&
						  get(smp, i, AXL_METRIC_MEMORY_TOTAL, &tot) && tot > 0 ?
					  (float)(used / tot * 100.0) :
					  NAN;
		h->head = (h->head + 1) % TOP_HISTORY;
		if (h->len < TOP_HISTORY)
			h->len++;
	}
	return 0;
}

void top_state_free(struct top_state *s)
{
	free(s->hist);
	s->hist = NULL;
	s->ndev = 0;
}

/* A partition nothing can be read for is left out of the list (its parent stands for it). */
int top_visible(const axl_sample *smp, size_t i)
{
	return !(axl_sample_device_state(smp, i) == AXL_SAMPLE_NONE &&
		 strchr(axl_device_id(axl_sample_device(smp, i)), '/'));
}

/* ---- a device ------------------------------------------------------------------------- */

struct devtext {
	const char *id, *model, *state;
	int lost, none;
	double util, memfrac; /* NAN: unknown */
	char utiltxt[16], memtxt[32], power[32], temps[48], tshort[16], clocks[48], pcie[48];
};

static void device_text(const axl_sample *smp, size_t i, struct devtext *t)
{
	memset(t, 0, sizeof *t);
	const axl_device *d = axl_sample_device(smp, i);
	t->id = axl_device_id(d);
	if (axl_device_get_str(d, AXL_ATTR_MODEL, &t->model) != 0 || !t->model)
		t->model = "(unknown model)";
	axl_sample_state st = axl_sample_device_state(smp, i);
	t->state = axl_sample_state_name(st);
	t->lost = st == AXL_SAMPLE_LOST;
	t->none = st == AXL_SAMPLE_NONE;
	double v, w;
	t->util = get(smp, i, AXL_METRIC_UTILIZATION, &v) ? v : NAN;
	if (!isnan(t->util))
		snprintf(t->utiltxt, sizeof t->utiltxt, "%.0f%%", t->util);
	else
		snprintf(t->utiltxt, sizeof t->utiltxt, "-");
	int hu = get(smp, i, AXL_METRIC_MEMORY_USED, &v), ht = get(smp, i, AXL_METRIC_MEMORY_TOTAL, &w);
	t->memfrac = hu && ht && w > 0 ? v / w * 100.0 : NAN;
	mem_pair(hu, v, ht, w, t->memtxt, sizeof t->memtxt);
	int hp = get(smp, i, AXL_METRIC_POWER, &v), hl = get(smp, i, AXL_METRIC_POWER_LIMIT, &w);
	if (hp && hl)
		snprintf(t->power, sizeof t->power, "%.0f/%.0fW", v, w);
	else if (hp)
		snprintf(t->power, sizeof t->power, "%.0fW/-", v);
	else if (hl)
		snprintf(t->power, sizeof t->power, "-/%.0fW", w);
	else
		snprintf(t->power, sizeof t->power, "-");
	char e[12] = "-", hs[12] = "-", m[12] = "-";
	if (get(smp, i, AXL_METRIC_TEMPERATURE, &v))
		snprintf(e, sizeof e, "%.0fC", v);
	if (get(smp, i, AXL_METRIC_TEMPERATURE_HOTSPOT, &v))
		snprintf(hs, sizeof hs, "%.0fC", v);
	if (get(smp, i, AXL_METRIC_TEMPERATURE_MEMORY, &v))
		snprintf(m, sizeof m, "%.0fC", v);
	snprintf(t->temps, sizeof t->temps, "TEMP %s hot %s mem %s", e, hs, m);
	/* the one temperature a short line has room for: the edge, else the hotspot */
	snprintf(t->tshort, sizeof t->tshort, "%s%s", strcmp(e, "-") || !strcmp(hs, "-") ? "" : "hot ",
		 strcmp(e, "-") ? e : hs);
	char sc[12] = "-", mc[12] = "-";
	if (get(smp, i, AXL_METRIC_SM_CLOCK, &v))
		snprintf(sc, sizeof sc, "%.0f", v);
	if (get(smp, i, AXL_METRIC_MEMORY_CLOCK, &v))
		snprintf(mc, sizeof mc, "%.0f", v);
	snprintf(t->clocks, sizeof t->clocks, "SM %s MEM %s MHz", sc, mc);
	char rx[16] = "-", tx[16] = "-";
	if (get(smp, i, AXL_METRIC_PCIE_RX, &v)) {
		short_bytes(v, rx, sizeof rx);
		strcat(rx, "/s");
	}
	if (get(smp, i, AXL_METRIC_PCIE_TX, &v)) {
		short_bytes(v, tx, sizeof tx);
		strcat(tx, "/s");
	}
	snprintf(t->pcie, sizeof t->pcie, "PCIe rx %s tx %s", rx, tx);
}

/* The id column: the selected device stands out; a lost one says so. */
static int id_cell(struct top_grid *g, int x, int y, int w, const struct devtext *t, int selected)
{
	char buf[80];
	snprintf(buf, sizeof buf, "%c%s", selected ? '>' : ' ', t->id);
	int e = text(g, x, y, buf, w, selected ? TS_SELECT : TS_TITLE);
	if (selected)
		style_row(g, y, x, x + w, TS_SELECT);
	return e > x + w ? e : x + w;
}

/* What a device with no values says instead of bars. */
static void no_values(struct top_grid *g, int x, int y, const struct devtext *t)
{
	if (t->lost)
		text(g, x, y, "LOST: the device is gone or failing, no values", -1, TS_LOST);
	else
		text(g, x, y, "no values: nothing to read this device with (no driver or library)", -1, TS_DIM);
}

/* Full: a title line, the bars, the numbers, then `rows` of history. */
static void device_full(struct top_grid *g, int y, const struct devtext *t, const struct top_history *h,
			int selected, int rows, int idw)
{
	int W = g->w;
	int x = id_cell(g, 0, y, idw, t, selected);
	char st[24];
	snprintf(st, sizeof st, " %s", t->lost ? "LOST" : t->state);
	int sx = rtext(g, W, y, st, t->lost ? TS_LOST : TS_DIM);
	int px = t->lost || t->none ? sx : rtext(g, sx - 1, y, t->pcie, TS_NORMAL);
	text(g, x + 1, y, t->model, px - x - 2, TS_NORMAL);
	if (t->lost || t->none) {
		no_values(g, 2, y + 1, t);
	} else {
		int half = (W - 2) / 2;
		bar(g, 1, y + 1, half - 1, "GPU", t->util, t->utiltxt);
		bar(g, half + 1, y + 1, W - half - 2, "MEM", t->memfrac, t->memtxt);
		char line[200];
		snprintf(line, sizeof line, "POW %s  %s  %s", t->power, t->temps, t->clocks);
		text(g, 1, y + 2, line, W - 1, TS_NORMAL);
	}
	if (!h || rows < 1)
		return;
	int gy = y + 3;
	int cw = (W - 3) / 2;
	if (rows == 1) {
		text(g, 1, gy, "util", -1, TS_TITLE);
		sparkline(g, 6, gy, cw - 5, h->util, h, TS_UTIL);
		text(g, cw + 2, gy, "mem", -1, TS_TITLE);
		sparkline(g, cw + 6, gy, W - cw - 7, h->mem, h, TS_MEM);
	} else {
		chart(g, 1, gy, cw, rows, h->util, h, TS_UTIL, "util");
		chart(g, cw + 2, gy, W - cw - 3, rows, h->mem, h, TS_MEM, "mem");
		for (int r = 0; r < rows; r++)
			put(g, cw + 1, gy + r, g->unicode ? 0x2502 : '|', TS_DIM);
	}
}

/* Condensed: one line of bars and power, and (lines == 2) a line of numbers with a
 * utilisation sparkline in what is left. */
static void device_short(struct top_grid *g, int y, const struct devtext *t, const struct top_history *h,
			 int selected, int lines, int idw)
{
	int W = g->w;
	int x = id_cell(g, 0, y, idw, t, selected) + 1;
	if (t->lost || t->none) {
		no_values(g, x, y, t);
		if (lines >= 2)
			text(g, 2, y + 1, t->model, W - 2, TS_DIM);
		return;
	}
	/* power (and in one line the temperature) in a fixed column, so bars align */
	char right[48];
	snprintf(right, sizeof right, "%10s%s%s", t->power, lines == 1 ? " " : "", lines == 1 ? t->tshort : "");
	int rw = lines == 1 ? 18 : 10;
	int rest = W - x - rw - 1;
	int uw = rest * 2 / 5;
	/* each bar holds its whole number ("NAME[" and "]" around it): a narrow terminal
	 * gives the utilisation bar only what its number needs, and narrower still, the
	 * numbers go without bars; a number is never cut */
	int need_u = 5 + (int)strlen(t->utiltxt), need_m = 5 + (int)strlen(t->memtxt);
	if (uw < need_u)
		uw = need_u;
	if (rest - uw - 1 < need_m)
		uw = rest - 1 - need_m;
	if (uw >= need_u) {
		bar(g, x, y, uw, "GPU", t->util, t->utiltxt);
		bar(g, x + uw + 1, y, rest - uw - 1, "MEM", t->memfrac, t->memtxt);
		text(g, W - rw, y, right, rw, TS_NORMAL);
	} else {
		char line[96];
		const char *pw = t->power;
		while (*pw == ' ')
			pw++;
		snprintf(line, sizeof line, "%s %s %s", t->utiltxt, t->memtxt, pw);
		text(g, x, y, line, -1, TS_NORMAL);
	}
	if (lines < 2)
		return;
	char line[200];
	snprintf(line, sizeof line, "%s  %s  %s", t->temps, t->clocks, t->pcie);
	int e = text(g, 2, y + 1, line, W - 2, TS_NORMAL);
	if (h && W - e - 2 >= 8)
		sparkline(g, e + 2, y + 1, W - e - 2, h->util, h, TS_UTIL);
}

/* ---- processes ------------------------------------------------------------------------ */

static int sort_key, sort_rev;
static const axl_sample *sort_smp;

static int cmp_proc(const void *a, const void *b)
{
	const struct axl_process *p = axl_sample_process(sort_smp, *(const size_t *)a);
	const struct axl_process *q = axl_sample_process(sort_smp, *(const size_t *)b);
	int r = 0;
	switch (sort_key) {
	case SORT_UTIL:
	case SORT_MEMORY: {
		double x = sort_key == SORT_UTIL ? p->utilization_percent : (double)p->memory_used_bytes;
		double y = sort_key == SORT_UTIL ? q->utilization_percent : (double)q->memory_used_bytes;
		if ((x < 0) != (y < 0))
			return x < 0 ? 1 : -1; /* unknown last, whichever the order */
		r = x > y ? -1 : x < y ? 1 : 0; /* biggest first */
		break;
	}
	case SORT_NAME:
		r = strcmp(p->name ? p->name : "", q->name ? q->name : "");
		break;
	default:
		break;
	}
	if (!r)
		r = p->pid < q->pid ? -1 : p->pid > q->pid ? 1 : strcmp(p->device, q->device);
	return sort_rev ? -r : r;
}

static const char *const sort_names[] = {"util", "memory", "pid", "name"};

static const char *short_type(const char *t)
{
	if (!t)
		return "-";
	if (!strcmp(t, "compute+graphics"))
		return "cmp+gfx";
	return t;
}

static void processes(struct top_grid *g, int y, int h, const axl_sample *smp, const struct top_state *s)
{
	if (h < 1)
		return;
	int W = g->w;
	const char *only = NULL;
	if (s->filter && smp && s->selected < axl_sample_device_count(smp))
		only = axl_device_id(axl_sample_device(smp, s->selected));
	size_t np = smp ? axl_sample_process_count(smp) : 0, n = 0;
	size_t *idx = np ? malloc(np * sizeof *idx) : NULL;
	int devw = 6;
	for (size_t k = 0; idx && k < np; k++) {
		const struct axl_process *p = axl_sample_process(smp, k);
		if (only && strcmp(only, p->device ? p->device : "") != 0)
			continue;
		idx[n++] = k;
		int l = p->device ? (int)strlen(p->device) : 1;
		devw = l > devw ? l : devw;
	}
	devw = devw > 16 ? 16 : devw;
	sort_key = s->sort;
	sort_rev = s->reverse;
	sort_smp = smp;
	if (n > 1)
		qsort(idx, n, sizeof *idx, cmp_proc);
	/* the title line */
	char title[160];
	if (!s->show_processes)
		snprintf(title, sizeof title, " processes: not listed (--no-processes) ");
	else
		snprintf(title, sizeof title, " processes on %s: %zu, by %s%s ", only ? only : "all devices", n,
			 sort_names[s->sort], s->reverse ? " (reversed)" : "");
	for (int x = 0; x < W; x++)
		put(g, x, y, g->unicode ? 0x2500 : '-', TS_DIM);
	text(g, 2, y, title, W - 2, TS_TITLE);
	if (h >= 2 && s->show_processes) {
		/* columns: DEVICE PID NAME TYPE MEMORY UTIL CONTAINER; NAME takes what is left */
		int cont = W >= 64 ? 12 : 0;
		int namew = W - (devw + 1 + 7 + 1 + 1 + 7 + 1 + 7 + 1 + 5 + (cont ? 1 + cont : 0));
		if (namew > 32)
			namew = 32;
		if (namew < 4)
			namew = 4;
		struct {
			const char *h;
			int w, right, key;
		} col[] = {{"DEVICE", devw, 0, -1},   {"PID", 7, 1, SORT_PID},     {"NAME", namew, 0, SORT_NAME},
			   {"TYPE", 7, 0, -1},        {"MEMORY", 7, 1, SORT_MEMORY}, {"UTIL", 5, 1, SORT_UTIL},
			   {"CONTAINER", cont, 0, -1}};
		int ncol = cont ? 7 : 6;
		int x = 0;
		for (int c = 0; c < ncol; c++) {
			char hd[40];
			snprintf(hd, sizeof hd, "%s", col[c].h);
			int st = col[c].key == s->sort ? TS_SELECT : TS_TITLE;
			if (col[c].right)
				rtext(g, x + col[c].w, y + 1, hd, st);
			else
				text(g, x, y + 1, hd, col[c].w, st);
			x += col[c].w + 1;
		}
		style_row(g, y + 1, 0, 0, TS_TITLE);
		int rows = h - 2;
		for (size_t r = 0; r < n && (int)r < rows; r++) {
			const struct axl_process *p = axl_sample_process(smp, idx[r]);
			int yy = y + 2 + (int)r;
			if ((int)r == rows - 1 && n > (size_t)rows) {
				char more[64];
				snprintf(more, sizeof more, "  ... %zu more", n - r);
				text(g, 0, yy, more, -1, TS_DIM);
				break;
			}
			char pid[16], mem[16] = "-", util[16] = "-", cid[16] = "-";
			snprintf(pid, sizeof pid, "%d", p->pid);
			if (p->memory_used_bytes >= 0)
				short_bytes((double)p->memory_used_bytes, mem, sizeof mem);
			if (p->utilization_percent >= 0 && isfinite(p->utilization_percent))
				snprintf(util, sizeof util, "%.0f%%", p->utilization_percent);
			if (p->container_id)
				snprintf(cid, sizeof cid, "%.12s", p->container_id);
			x = 0;
			text(g, x, yy, p->device ? p->device : "-", devw, TS_NORMAL);
			x += devw + 1;
			rtext(g, x + 7, yy, pid, TS_NORMAL);
			x += 8;
			text(g, x, yy, p->name ? p->name : "-", namew, TS_NORMAL);
			x += namew + 1;
			text(g, x, yy, short_type(p->type), 7, TS_NORMAL);
			x += 8;
			rtext(g, x + 7, yy, mem, strcmp(mem, "-") ? TS_NORMAL : TS_DIM);
			x += 8;
			rtext(g, x + 5, yy, util, strcmp(util, "-") ? TS_NORMAL : TS_DIM);
			x += 6;
			if (cont)
				text(g, x, yy, cid, cont, TS_NORMAL);
		}
		if (n == 0 && rows > 0)
			text(g, 2, y + 2, smp ? "(no processes)" : "(sampling...)", -1, TS_DIM);
	}
	free(idx);
}

/* ---- the frame ------------------------------------------------------------------------ */

static void header(struct top_grid *g, const axl_sample *smp, const struct top_state *s)
{
	char clock[16] = "--:--:--", line[256];
	if (smp) {
		time_t t = (time_t)(axl_sample_time_ns(smp) / 1000000000);
		struct tm tm;
		if (localtime_r(&t, &tm))
			strftime(clock, sizeof clock, "%H:%M:%S", &tm);
	}
	size_t n = smp ? axl_sample_device_count(smp) : s->ndev, hidden = 0;
	for (size_t i = 0; smp && i < n; i++)
		hidden += !top_visible(smp, i);
	char right[48];
	snprintf(right, sizeof right, "%s%s", s->paused ? "[paused] " : "", clock);
	/* the longest that fits: the partitions note goes first, then the name's length */
	for (int k = 0; k < 4; k++) {
		char parts[48] = "", every[32] = "";
		if (hidden && k == 0)
			snprintf(parts, sizeof parts, " (+%zu partitions without values)", hidden);
		else if (hidden && k == 1)
			snprintf(parts, sizeof parts, " (+%zu partitions)", hidden);
		if (k < 3) /* and last the interval, rather than a number cut short */
			snprintf(every, sizeof every, "  every %d ms", s->interval_ms);
		snprintf(line, sizeof line, "axl top  %s  %zu device%s%s%s", s->host ? s->host : "-", n - hidden,
			 n - hidden == 1 ? "" : "s", parts, every);
		if ((int)(strlen(line) + strlen(right)) + 1 <= g->w)
			break;
	}
	text(g, 0, 0, line, g->w - (int)strlen(right) - 1, TS_TITLE);
	rtext(g, g->w, 0, right, s->paused ? TS_HIGH : TS_TITLE);
	style_row(g, 0, 0, g->w, TS_TITLE);
}

static void footer(struct top_grid *g, int y)
{
	text(g, 0, y, "q quit  h help  s sort  r reverse  j/k select  d filter  +/- interval  p pause", g->w,
	     TS_DIM);
}

static void help_overlay(struct top_grid *g)
{
	static const char *const lines[] = {
		"axl top: keys",
		"",
		"s, F6      sort by util, memory, pid, name",
		"r          reverse the sort",
		"j/k, Up/Dn select a device",
		"d, Tab     processes: all / selected device",
		"+ / -      sample slower / faster",
		"p          pause / resume sampling",
		"h, ?       this help (any key closes it)",
		"q, Esc     quit",
		"",
		"'-' is a value the device does not report",
	};
	int n = (int)(sizeof lines / sizeof *lines);
	int bw = 48 < g->w ? 48 : g->w, bh = n + 2 < g->h ? n + 2 : g->h;
	int x0 = (g->w - bw) / 2, y0 = (g->h - bh) / 2;
	for (int y = 0; y < bh; y++)
		for (int x = 0; x < bw; x++) {
			int edge = y == 0 || y == bh - 1 || x == 0 || x == bw - 1;
			put(g, x0 + x, y0 + y, edge ? (y == 0 || y == bh - 1 ? '-' : '|') : ' ', TS_TITLE);
		}
	for (int k = 0; k < n && k + 1 < bh - 1; k++)
		text(g, x0 + 2, y0 + 1 + k, lines[k], bw - 4, k == 0 ? TS_SELECT : TS_NORMAL);
}

/* Limited workloads (the LD_PRELOAD limiter's regions): a line each, usage against the
 * limit; what it used of the lines. Nothing when the sample has none. */
static int workloads(struct top_grid *g, int y, int h, const axl_sample *smp)
{
	size_t nw = smp ? axl_sample_workload_count(smp) : 0;
	int used = 0;
	for (size_t k = 0; k < nw && used < h; k++) {
		const struct axl_workload *w = axl_sample_workload(smp, k);
		const char *base = strrchr(w->region, '/');
		base = base ? base + 1 : w->region;
		char mu[16], ml[16] = "-", cu[16] = "-", cl[16] = "-", line[512];
		short_bytes((double)w->memory_used_bytes, mu, sizeof mu);
		if (w->memory_limit_bytes >= 0)
			short_bytes((double)w->memory_limit_bytes, ml, sizeof ml);
		if (w->compute_used_percent >= 0)
			snprintf(cu, sizeof cu, "%.0f%%", w->compute_used_percent);
		if (w->compute_limit_percent >= 0)
			snprintf(cl, sizeof cl, "%d%%", w->compute_limit_percent);
		snprintf(line, sizeof line, "workload %s %s  mem %s/%s  compute %s/%s  procs %d", base,
			 w->device ? w->device : w->uuid ? w->uuid : "-", mu, ml, cu, cl, w->processes);
		int st = w->memory_limit_bytes >= 0 && w->memory_used_bytes >= w->memory_limit_bytes ? level_style(100)
											       : TS_NORMAL;
		text(g, 1, y + used, line, g->w - 2, st);
		used++;
	}
	return used;
}

void top_layout(struct top_grid *g, const axl_sample *smp, const struct top_state *s)
{
	top_grid_clear(g);
	int W = g->w, H = g->h;
	header(g, smp, s);
	if (H < 2)
		return;
	int foot = H >= 10;
	int avail = H - 1 - foot;
	size_t all = smp ? axl_sample_device_count(smp) : 0, n = 0;
	size_t *vis = all ? malloc(all * sizeof *vis) : NULL;
	size_t selpos = 0;
	for (size_t i = 0; vis && i < all; i++)
		if (top_visible(smp, i)) {
			if (i == s->selected)
				selpos = n;
			vis[n++] = i;
		}
	int pmin = avail >= 8 ? 4 : 0; /* title, column titles, two rows */
	int idw = 10;
	for (size_t k = 0; k < n; k++) {
		int l = (int)strlen(axl_device_id(axl_sample_device(smp, vis[k]))) + 1;
		idw = l > idw ? l : idw;
	}
	idw = idw > 18 ? 18 : idw;
	int per = 1, rows = 0, first = 0, shown = (int)n;
	int dev_area = avail - pmin;
	if (n && (int)n * 4 <= dev_area && W >= 60) {
		/* full blocks; the charts share what is not kept for processes */
		int reserve = avail / 3 > pmin ? avail / 3 : pmin;
		rows = (avail - reserve - (int)n * 3) / (int)n;
		rows = rows < 1 ? 1 : rows > 8 ? 8 : rows;
		per = 3 + rows;
	} else if (n && (int)n * 2 <= dev_area) {
		per = 2;
	} else {
		per = 1;
		/* more devices than lines: a window that keeps the selected one in view */
		if ((int)n > dev_area) {
			shown = dev_area > 0 ? dev_area : 0;
			first = (int)selpos - shown / 2;
			if (first + shown > (int)n)
				first = (int)n - shown;
			if (first < 0)
				first = 0;
		}
	}
	int y = 1;
	if (!n) {
		text(g, 1, y++, smp ? "no accelerators found" : "sampling...", -1, TS_DIM);
	}
	for (int k = 0; k < shown && y < 1 + avail; k++) {
		size_t i = vis[first + k];
		struct devtext t;
		device_text(smp, i, &t);
		const struct top_history *h = i < s->ndev ? &s->hist[i] : NULL;
		if (per >= 4)
			device_full(g, y, &t, h, i == s->selected, rows, idw);
		else
			device_short(g, y, &t, h, i == s->selected, per, idw);
		y += per;
	}
	if (shown < (int)n && y - 1 > 0) {
		/* say that some are out of view, over the last id column's line */
		char more[48];
		snprintf(more, sizeof more, " [%d-%d of %zu] ", first + 1, first + shown, n);
		rtext(g, W, y - 1, more, TS_TITLE);
	}
	free(vis);
	/* workloads: a line each, keeping the processes' minimum */
	int wl = 1 + avail - y - pmin;
	if (wl > 0)
		y += workloads(g, y, wl, smp);
	processes(g, y, 1 + avail - y, smp, s);
	if (foot)
		footer(g, H - 1);
	if (s->help)
		help_overlay(g);
}
