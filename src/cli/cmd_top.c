/* SPDX-License-Identifier: MIT */
/* axl top: a live view of every device and its processes, like nvtop, for any vendor.
 * The layout is top_draw.c's; this file samples, reads keys and prints frames, either
 * with curses on a terminal or as plain text (--batch, or when standard output is not
 * a terminal) for scripts and tests. */
#define _GNU_SOURCE
#include <errno.h>
#include <langinfo.h>
#include <locale.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#ifdef AXL_TOP_NCURSESW
#include <ncursesw/curses.h>
#else
#include <curses.h>
#endif
#include <stddef.h>

#include "cli.h"
#include "top.h"

/* ---- curses, loaded when the screen is drawn ------------------------------------------
 * The command does not link curses (dl.c): the functions and the two data objects the
 * screen uses, typed by <curses.h>, are resolved from the library when axl top draws on
 * a terminal (batch frames need none). The macros after the table route every call,
 * including those inside curses.h's own macros (getch, mvaddch, timeout, ...), through
 * it; one left out is an undefined reference when linking. $AXL_CURSES_LIBRARY loads
 * that file instead (tests). */
#if defined(NCURSES_REENTRANT) && NCURSES_REENTRANT
#error "a reentrant ncurses: stdscr and curscr are functions there, not the data objects resolved below"
#endif
#ifdef AXL_TOP_NCURSESW
#define CURSES_SONAME "libncursesw.so.6"
#define CURSES_PACKAGE "libncursesw6"
#define CURSES_WIDE(X) X(setcchar) X(wadd_wch)
#else
#define CURSES_SONAME "libncurses.so.6"
#define CURSES_PACKAGE "libncurses6"
#define CURSES_WIDE(X)
#endif
#define CURSES_FUNCTIONS(X)                                                                            \
	X(newterm) X(delscreen) X(endwin) X(cbreak) X(noecho) X(nonl) X(keypad) X(curs_set)          \
	X(set_escdelay) X(has_colors) X(start_color) X(use_default_colors) X(init_pair) X(wmove)      \
	X(waddch) X(wnoutrefresh) X(doupdate) X(wgetch) X(wtimeout) X(ungetch) X(clearok)            \
	CURSES_WIDE(X)
#define CURSES_DATA(X) X(stdscr) X(curscr)
static struct {
#define X(f) __typeof__(f) *f;
	CURSES_FUNCTIONS(X)
	CURSES_DATA(X)
#undef X
} cu;
static const struct cli_sym cu_syms[] = {
#define X(f) {#f, offsetof(__typeof__(cu), f)},
	CURSES_FUNCTIONS(X)
	CURSES_DATA(X)
#undef X
};
#define newterm (*cu.newterm)
#define delscreen (*cu.delscreen)
#define endwin (*cu.endwin)
#define cbreak (*cu.cbreak)
#define noecho (*cu.noecho)
#define nonl (*cu.nonl)
#define keypad (*cu.keypad)
#define curs_set (*cu.curs_set)
#define set_escdelay (*cu.set_escdelay)
#define has_colors (*cu.has_colors)
#define start_color (*cu.start_color)
#define use_default_colors (*cu.use_default_colors)
#define init_pair (*cu.init_pair)
#define wmove (*cu.wmove)
#define waddch (*cu.waddch)
#define wnoutrefresh (*cu.wnoutrefresh)
#define doupdate (*cu.doupdate)
#define wgetch (*cu.wgetch)
#define wtimeout (*cu.wtimeout)
#define ungetch (*cu.ungetch)
#define clearok (*cu.clearok)
#ifdef AXL_TOP_NCURSESW
#define setcchar (*cu.setcchar)
#define wadd_wch (*cu.wadd_wch)
#endif
#define stdscr (*cu.stdscr)
#define curscr (*cu.curscr)

static volatile sig_atomic_t stop;
static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static void catch_signals(void)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_signal; /* no SA_RESTART: a wait in getch() ends at once */
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
}

static int64_t now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void sleep_ms(int ms)
{
	struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
	while (!stop && nanosleep(&ts, &ts) != 0 && errno == EINTR)
		;
}

/* The steps '+' and '-' move the interval through. */
static const int steps[] = {100, 200, 250, 500, 1000, 2000, 3000, 5000, 10000, 30000, 60000};
#define NSTEPS ((int)(sizeof steps / sizeof *steps))

static int step_interval(int ms, int dir)
{
	if (dir > 0) {
		for (int k = 0; k < NSTEPS; k++)
			if (steps[k] > ms)
				return steps[k];
		return ms;
	}
	for (int k = NSTEPS - 1; k >= 0; k--)
		if (steps[k] < ms)
			return steps[k];
	return ms;
}

/* COLUMNS / LINES as a size for batch frames; def when unset or not a sane number. */
static int env_size(const char *name, int def, int lo, int hi)
{
	const char *v = getenv(name);
	if (!v || !*v)
		return def;
	char *end;
	long n = strtol(v, &end, 10);
	if (*end || n < lo || n > hi)
		return def;
	return (int)n;
}

/* ---- batch: frames as plain text ------------------------------------------------------ */

/* The options (the table closes the file) */
static int64_t interval_ms;
static long count_arg;
static int no_processes, batch_arg;

static int run_batch(axl_sampler *smpl, struct top_state *st)
{
	int w = env_size("COLUMNS", 80, 20, 1000), h = env_size("LINES", 24, 3, 1000);
	struct top_grid g;
	if (top_grid_init(&g, w, h, 0)) {
		fprintf(stderr, "axl: out of memory\n");
		return 1;
	}
	long count = count_arg ? count_arg : (interval_ms ? 0 : 1);
	/* rates need two readings: the first frame's come from one taken 100 ms before */
	axl_sample *first;
	if (axl_sampler_sample(smpl, &first) == 0)
		axl_sample_free(first);
	sleep_ms(st->interval_ms < 100 ? st->interval_ms : 100);
	int rc = 0;
	for (long k = 0; !stop && (count == 0 || k < count); k++) {
		if (k)
			sleep_ms(st->interval_ms);
		if (stop)
			break;
		axl_sample *smp;
		if (axl_sampler_sample(smpl, &smp)) {
			fprintf(stderr, "axl: %s\n", axl_error_last());
			rc = 1;
			break;
		}
		if (top_state_record(st, smp)) {
			axl_sample_free(smp);
			rc = 1;
			break;
		}
		top_layout(&g, smp, st);
		axl_sample_free(smp);
		/* frames are exactly h lines; a form feed line between two */
		if (k)
			fputs("\f\n", stdout);
		top_grid_write(&g, stdout);
		if (fflush(stdout) != 0 || ferror(stdout)) {
			rc = 1;
			break;
		}
	}
	top_grid_free(&g);
	return rc;
}

/* ---- the terminal --------------------------------------------------------------------- */

static int curses_on;
static void curses_off(void)
{
	if (curses_on) {
		curses_on = 0;
		endwin();
	}
}

static attr_t style_attr[TS__COUNT];

static void init_styles(void)
{
	int colour = has_colors() && start_color() == OK;
	if (colour) {
		int bg = use_default_colors() == OK ? -1 : COLOR_BLACK;
		init_pair(1, COLOR_GREEN, bg);
		init_pair(2, COLOR_YELLOW, bg);
		init_pair(3, COLOR_RED, bg);
		init_pair(4, COLOR_CYAN, bg);
		init_pair(5, COLOR_MAGENTA, bg);
		init_pair(6, COLOR_BLUE, bg);
	}
	style_attr[TS_NORMAL] = A_NORMAL;
	style_attr[TS_TITLE] = A_BOLD;
	style_attr[TS_SELECT] = A_REVERSE | A_BOLD;
	style_attr[TS_LOW] = colour ? COLOR_PAIR(1) : A_NORMAL;
	style_attr[TS_MID] = colour ? COLOR_PAIR(2) : A_NORMAL;
	style_attr[TS_HIGH] = colour ? COLOR_PAIR(3) | A_BOLD : A_BOLD;
	style_attr[TS_LOST] = colour ? COLOR_PAIR(3) | A_BOLD | A_REVERSE : A_BOLD | A_REVERSE;
	style_attr[TS_DIM] = colour ? COLOR_PAIR(6) : A_NORMAL;
	style_attr[TS_UTIL] = colour ? COLOR_PAIR(4) : A_NORMAL;
	style_attr[TS_MEM] = colour ? COLOR_PAIR(5) : A_NORMAL;
}

static void draw(const struct top_grid *g)
{
	for (int y = 0; y < g->h; y++)
		for (int x = 0; x < g->w; x++) {
			size_t k = (size_t)y * (size_t)g->w + (size_t)x;
			attr_t a = style_attr[g->st[k] < TS__COUNT ? g->st[k] : 0];
			uint32_t c = g->ch[k];
#ifdef AXL_TOP_NCURSESW
			if (c >= 0x80) {
				wchar_t wc[2] = {(wchar_t)c, 0};
				cchar_t cc;
				setcchar(&cc, wc, a, (short)PAIR_NUMBER(a), NULL);
				mvadd_wch(y, x, &cc);
				continue;
			}
#endif
			mvaddch(y, x, (chtype)(c < 0x80 ? c : '?') | a);
		}
	wnoutrefresh(stdscr);
	doupdate();
}

/* A key; arrows the terminal sent as ESC [ A .. ESC [ D (or ESC O A ..) when curses did
 * not know them (a terminal that ignores keypad mode) are arrows too, a lone ESC is ESC. */
static int read_key(void)
{
	int ch = getch();
	if (ch != 27)
		return ch;
	timeout(30);
	int c1 = getch();
	if (c1 == ERR)
		return 27;
	if (c1 != '[' && c1 != 'O') {
		ungetch(c1);
		return 27;
	}
	int c2 = getch();
	switch (c2) {
	case 'A': return KEY_UP;
	case 'B': return KEY_DOWN;
	case 'C': return KEY_RIGHT;
	case 'D': return KEY_LEFT;
	default:
		/* something else (a function key curses did not know): swallow its rest */
		while (c2 != ERR && !(c2 >= 0x40 && c2 <= 0x7e))
			c2 = getch();
		return -2; /* not a key axl top uses */
	}
}

static int run_screen(axl_sampler *smpl, struct top_state *st)
{
	setlocale(LC_ALL, "");
	int unicode = 0;
#ifdef AXL_TOP_NCURSESW
	unicode = strcmp(nl_langinfo(CODESET), "UTF-8") == 0;
#endif
	/* newterm, not initscr: an unknown terminal is an error message, not an exit */
	SCREEN *scr = newterm(NULL, stdout, stdin);
	if (!scr) {
		fprintf(stderr, "axl: cannot draw on this terminal (TERM=%s); axl top --batch prints text\n",
			getenv("TERM") ? getenv("TERM") : "");
		return 1;
	}
	curses_on = 1;
	atexit(curses_off);
	cbreak();
	noecho();
	nonl();
	keypad(stdscr, TRUE);
	curs_set(0);
	set_escdelay(25);
	init_styles();

	struct top_grid g = {0};
	int rc = 0, h, w, dirty = 1;
	getmaxyx(stdscr, h, w);
	if (top_grid_init(&g, w, h, unicode)) {
		curses_off();
		fprintf(stderr, "axl: out of memory\n");
		return 1;
	}
	axl_sample *cur = NULL;
	/* the first sample at once (rates unknown), the second soon after for them */
	int64_t due = now_ms();
	int first = 1;
	while (!stop) {
		int64_t now = now_ms();
		if (!st->paused && now >= due) {
			axl_sample *smp;
			if (axl_sampler_sample(smpl, &smp)) {
				rc = 1;
				break;
			}
			axl_sample_free(cur);
			cur = smp;
			if (top_state_record(st, cur)) {
				rc = 1;
				break;
			}
			due = first ? now + (st->interval_ms < 200 ? st->interval_ms : 200) : due + st->interval_ms;
			if (due <= now)
				due = now + st->interval_ms;
			first = 0;
			dirty = 1;
		}
		if (dirty) {
			top_layout(&g, cur, st);
			draw(&g);
			dirty = 0;
		}
		int64_t wait = st->paused ? 500 : due - now_ms();
		timeout((int)(wait < 10 ? 10 : wait > 500 ? 500 : wait));
		int ch = read_key();
		if (ch == ERR)
			continue;
		dirty = 1;
		if (st->help && ch != KEY_RESIZE) {
			st->help = 0; /* any key closes the help */
			continue;
		}
		switch (ch) {
		case 'q':
		case 'Q':
		case 27:
			stop = 1;
			break;
		case 'h':
		case 'H':
		case '?':
			st->help = 1;
			break;
		case 's':
		case KEY_F(6):
			st->sort = (st->sort + 1) % SORT__COUNT;
			break;
		case 'r':
			st->reverse = !st->reverse;
			break;
		case 'j':
		case KEY_DOWN:
		case 'k':
		case KEY_UP: {
			/* the next device in the list, skipping those left out of it */
			int dir = ch == 'j' || ch == KEY_DOWN ? 1 : -1;
			size_t n = cur ? axl_sample_device_count(cur) : 0;
			for (size_t i = st->selected + (size_t)dir; cur && i < n; i += (size_t)dir)
				if (top_visible(cur, i)) {
					st->selected = i;
					break;
				}
			break;
		}
		case '\t':
		case 'd':
			st->filter = !st->filter;
			break;
		case '+':
		case '=':
		case '-':
		case '_': {
			int nw = step_interval(st->interval_ms, ch == '+' || ch == '=' ? 1 : -1);
			due += nw - st->interval_ms;
			st->interval_ms = nw;
			break;
		}
		case 'p':
		case ' ':
			st->paused = !st->paused;
			if (!st->paused)
				due = now_ms();
			break;
		case KEY_RESIZE:
		case 12: /* ^L: redraw everything */
			getmaxyx(stdscr, h, w);
			top_grid_free(&g);
			if (top_grid_init(&g, w, h, unicode)) {
				rc = 1;
				stop = 1;
			}
			clearok(curscr, TRUE);
			break;
		default:
			dirty = 0;
			break;
		}
	}
	axl_sample_free(cur);
	top_grid_free(&g);
	curses_off();
	delscreen(scr);
	return rc;
}

static int cmd_top(struct opts *o, int argc, char **argv)
{
	(void)argc, (void)argv;
	int batch = batch_arg || !isatty(STDOUT_FILENO) || !isatty(STDIN_FILENO);
	/* the screen needs curses: said before anything is read */
	if (!batch && cli_dlopen("top", "AXL_CURSES_LIBRARY", CURSES_SONAME, CURSES_PACKAGE, cu_syms,
				 sizeof cu_syms / sizeof *cu_syms, &cu)) {
		fprintf(stderr, "axl: (axl top --batch prints the frames as text without it)\n");
		return 1;
	}
	axl_context *ctx;
	axl_inventory *inv;
	if (open_inventory(o, &ctx, &inv))
		return 1;
	axl_sampler *smpl;
	if (axl_sampler_open(&smpl, inv, no_processes ? 0 : AXL_SAMPLER_PROCESSES)) {
		fprintf(stderr, "axl: %s\n", axl_error_last());
		axl_inventory_free(inv);
		axl_context_free(ctx);
		return 1;
	}
	struct top_state st = {0};
	const char *host = NULL;
	if (axl_host_get_str(axl_inventory_host(inv), AXL_HOST_HOSTNAME, &host) != 0 || !host)
		host = "-"; /* unknown */
	st.host = host;
	st.interval_ms = interval_ms ? (int)interval_ms : 1000;
	st.show_processes = !no_processes;
	catch_signals();
	int rc = batch ? run_batch(smpl, &st) : run_screen(smpl, &st);
	if (batch)
		print_warnings(inv);
	top_state_free(&st);
	axl_sampler_free(smpl);
	axl_inventory_free(inv);
	axl_context_free(ctx);
	return rc;
}

static const struct cli_opt options[] = {
	{.type = CLI_OPT_DURATION, .name = "interval", .value = &interval_ms,
	 .help = "refresh every DURATION (default 1s; 500ms, 2s)", .min = 1, .max = 86400000},
	{.type = CLI_OPT_COUNT, .name = "count", .value = &count_arg, .help = "stop after N frames", .min = 1,
	 .max = 1e15},
	{.type = CLI_OPT_FLAG, .name = "no-processes", .value = &no_processes, .help = "no process list"},
	{.type = CLI_OPT_FLAG, .name = "batch", .value = &batch_arg,
	 .help = "plain-text frames of COLUMNS x LINES (default 80x24; also when not on\na terminal): --count of "
	         "them, default 1"},
	{0},
};

const struct cli_command cli_cmd_top = {
	"top", cmd_top, CLI_G_NODE, options, NULL, "a live view of every device and its processes, like nvtop",
	"A live view of every device (bars, history) and its processes, like nvtop. Keys: s sort,\n"
	"r reverse, j/k select, d filter, +/- interval, p pause, h help, q quit.",
};
