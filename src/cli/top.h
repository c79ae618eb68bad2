/* SPDX-License-Identifier: MIT */
/* axl top: the layout (top_draw.c, pure: a sample and a view state in, a frame of W x H
 * cells out) shared by the curses screen and the plain-text batch mode (top.c). */
#ifndef AXL_TOP_H
#define AXL_TOP_H

#include <stddef.h>
#include <stdio.h>
#include <stdint.h>

#include "axl.h"

/* What a cell looks like; the curses side maps these onto colours or attributes. */
enum top_style {
	TS_NORMAL = 0,
	TS_TITLE,   /* the header line, column titles */
	TS_SELECT,  /* the selected device, the sort column */
	TS_LOW,     /* a bar below 50% */
	TS_MID,     /* 50..80% */
	TS_HIGH,    /* above 80% */
	TS_LOST,    /* a lost device */
	TS_DIM,     /* unknown values, borders */
	TS_UTIL,    /* the utilisation graph */
	TS_MEM,     /* the memory graph */
	TS__COUNT
};

/* A frame: w x h cells, each a character (a Unicode code point; ASCII unless the
 * grid was made with unicode) and a style. */
struct top_grid {
	int w, h;
	int unicode;
	uint32_t *ch;
	unsigned char *st;
};

int top_grid_init(struct top_grid *g, int w, int h, int unicode);
void top_grid_free(struct top_grid *g);
void top_grid_clear(struct top_grid *g);
/* The grid as text: h lines, trailing blanks dropped, UTF-8. */
void top_grid_write(const struct top_grid *g, FILE *f);

enum top_sort { SORT_UTIL = 0, SORT_MEMORY, SORT_PID, SORT_NAME, SORT__COUNT };

#define TOP_HISTORY 512

/* One device's recent past: utilisation and memory use in percent, NAN when unknown. */
struct top_history {
	float util[TOP_HISTORY];
	float mem[TOP_HISTORY];
	int len;  /* how many are filled */
	int head; /* where the next one goes */
};

/* What the user chose and what was seen; owned by the loop, read by the layout. */
struct top_state {
	const char *host;
	int interval_ms;
	int paused;
	int help;
	int sort;        /* enum top_sort */
	int reverse;     /* reverse the sort's natural order */
	size_t selected; /* the selected device (sample index) */
	int filter;      /* 0: every device's processes, 1: the selected device's */
	int show_processes;
	size_t ndev;
	struct top_history *hist; /* ndev of them */
};

/* Add a sample's values to the history (resizing it to the sample's devices). */
int top_state_record(struct top_state *s, const axl_sample *smp);
void top_state_free(struct top_state *s);

/* Whether device i of smp has a place in the list (partitions without values do not). */
int top_visible(const axl_sample *smp, size_t i);
/* Lay out one frame of smp (NULL: nothing sampled yet) into g. */
void top_layout(struct top_grid *g, const axl_sample *smp, const struct top_state *s);

#endif
