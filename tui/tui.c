/*
 * tui.c - the screen, the tab bar, the key loop and the panel table.
 */
#include <langinfo.h>
#include <locale.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "tui-internal.h"

static const struct tui_panel *const panels[] = {
	&tui_panel_status, &tui_panel_live, &tui_panel_runs, &tui_panel_advice,
};
#define NPANELS ((int)(sizeof(panels) / sizeof(panels[0])))

void tui_print_clipped(WINDOW *w, int row, int col, int cols, const char *fmt, ...)
{
	char buf[1024];
	va_list ap;
	int room = cols - col;

	if (room <= 0)
		return;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	mvwaddnstr(w, row, col, buf, room);
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void draw_frame(struct tui_ctx *c, int cur, void **state, WINDOW *body)
{
	int rows, cols, x = 0;

	getmaxyx(stdscr, rows, cols);
	erase();
	attron(A_REVERSE);
	mvhline(0, 0, ' ', cols);
	mvaddnstr(0, 0, " swaptune ", cols);
	x = 10;
	for (int i = 0; i < NPANELS && x < cols; i++) {
		char tab[40];

		snprintf(tab, sizeof(tab), " %d %s ", i + 1, panels[i]->title);
		if (i == cur)
			attroff(A_REVERSE);
		mvaddnstr(0, x, tab, cols - x);
		if (i == cur)
			attron(A_REVERSE);
		x += (int)strlen(tab) + 1;
	}
	mvhline(rows - 1, 0, ' ', cols);
	mvaddnstr(rows - 1, 0, c->status[0] ? c->status :
		  " 1-4/Tab switch panel   r refresh   q quit", cols);
	attroff(A_REVERSE);
	wnoutrefresh(stdscr);

	werase(body);
	wresize(body, rows - 2 > 1 ? rows - 2 : 1, cols);
	panels[cur]->draw(c, state[cur], body, rows - 2, cols);
	wnoutrefresh(body);
	doupdate();
}

int tui_run(const struct host *h, struct store *st, const struct tui_opts *o,
	    struct st_err *e)
{
	struct tui_ctx c = { .h = h, .st = st, .o = o };
	void *state[NPANELS] = { 0 };
	uint64_t interval = o->interval_ns ? o->interval_ns : 1000000000ull;
	uint64_t next;
	int cur = o->start_panel >= 0 && o->start_panel < NPANELS ? o->start_panel : 0;
	int frames = 0;
	WINDOW *body;

	if (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO))
		return err_set_exit(e, -ENOTTY, ST_EXIT_USAGE,
				    "tui needs a terminal (use swaptune status or sample --json in scripts)");
	setlocale(LC_ALL, "");
	c.utf8 = !strcmp(nl_langinfo(CODESET), "UTF-8");
	if (!initscr())
		return err_set(e, -EIO, "cannot initialise the terminal");
	cbreak();
	noecho();
	keypad(stdscr, TRUE);
	curs_set(0);
	body = newwin(LINES - 2 > 1 ? LINES - 2 : 1, COLS, 1, 0);
	for (int i = 0; i < NPANELS; i++)
		state[i] = panels[i]->open(&c);
	for (int i = 0; i < NPANELS; i++)
		if (i == cur || panels[i]->always_update)
			panels[i]->update(&c, state[i]);
	next = now_ns() + interval;
	for (;;) {
		uint64_t t = now_ns();
		int ch, wait_ms;

		draw_frame(&c, cur, state, body);
		if (o->max_frames && ++frames >= o->max_frames)
			break;
		wait_ms = t >= next ? 0 : (int)((next - t) / 1000000ull);
		timeout(wait_ms);
		ch = getch();
		if (ch == 'q' || ch == 'Q')
			break;
		if (ch >= '1' && ch < '1' + NPANELS) {
			cur = ch - '1';
			panels[cur]->update(&c, state[cur]);
		} else if (ch == '\t' || ch == KEY_RIGHT) {
			cur = (cur + 1) % NPANELS;
			panels[cur]->update(&c, state[cur]);
		} else if (ch == KEY_BTAB || ch == KEY_LEFT) {
			cur = (cur + NPANELS - 1) % NPANELS;
			panels[cur]->update(&c, state[cur]);
		} else if (ch == 'r') {
			panels[cur]->update(&c, state[cur]);
		} else if (ch == ERR || ch == KEY_RESIZE) {
			/* timer or resize: fall through to the tick below */
		} else if (panels[cur]->key) {
			panels[cur]->key(&c, state[cur], ch);
		}
		if (now_ns() >= next) {
			for (int i = 0; i < NPANELS; i++)
				if (i == cur || panels[i]->always_update)
					panels[i]->update(&c, state[i]);
			next += interval;
			if (next < now_ns())
				next = now_ns() + interval;
		}
	}
	delwin(body);
	endwin();
	for (int i = 0; i < NPANELS; i++)
		panels[i]->close(state[i]);
	return 0;
}
