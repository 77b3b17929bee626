/*
 * tui.c - the screen, the tab bar, the key footer, the help overlay, the key
 * loop and the panel table.
 */
#include <langinfo.h>
#include <locale.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "tui-internal.h"

static const struct tui_panel *const panels[] = {
	&tui_panel_status, &tui_panel_live, &tui_panel_runs, &tui_panel_advice,
	&tui_panel_probe, &tui_panel_history,
};
#define PANEL_PROBE 4
#define NPANELS ((int)(sizeof(panels) / sizeof(panels[0])))

/* Keys every panel has; the panel's own follow in the footer. */
static const struct tui_key_help global_keys[] = {
	{ "F1", "help" }, { "1-6", "panel" }, { "F5", "probe" }, { "F10", "quit" },
	{ NULL, NULL },
};

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static int footer_keys(struct tui_ctx *c, const struct tui_key_help *k, int x, int row, int cols)
{
	for (; k && k->key && x < cols; k++) {
		attron(tui_style(c, TS_KEY));
		mvaddnstr(row, x, k->key, cols - x);
		attroff(tui_style(c, TS_KEY));
		x += (int)strlen(k->key);
		if (x >= cols)
			break;
		attron(tui_style(c, TS_BAR));
		mvaddch(row, x++, ' ');
		mvaddnstr(row, x, k->what, cols - x);
		x += (int)strlen(k->what);
		if (x < cols)
			mvaddch(row, x, ' ');
		attroff(tui_style(c, TS_BAR));
		x++;
	}
	return x;
}

static void draw_bars(struct tui_ctx *c, int cur, void **state, void *ap, int rows,
		      int cols)
{
	const struct tui_key_help *own = ap ? tui_overlay_apply.keys(c, ap) :
		panels[cur]->keys ? panels[cur]->keys(c, state[cur]) : NULL;
	int x;

	attron(tui_style(c, TS_BAR));
	mvhline(0, 0, ' ', cols);
	mvaddnstr(0, 0, " swaptune ", cols);
	attroff(tui_style(c, TS_BAR));
	x = 10;
	for (int i = 0; i < NPANELS && x < cols; i++) {
		char tab[40];

		snprintf(tab, sizeof(tab), " %d %s ", i + 1, panels[i]->title);
		attron(i == cur ? A_BOLD : tui_style(c, TS_BAR));
		mvaddnstr(0, x, tab, cols - x);
		attroff(i == cur ? A_BOLD : tui_style(c, TS_BAR));
		x += (int)strlen(tab);
	}
	if (x + 12 < cols) {
		attron(tui_style(c, TS_BAR));
		mvaddnstr(0, cols - 11, c->root ? "      root " : " read-only ", 11);
		attroff(tui_style(c, TS_BAR));
	}
	attron(tui_style(c, TS_BAR));
	mvhline(rows - 1, 0, ' ', cols);
	attroff(tui_style(c, TS_BAR));
	if (c->status[0]) {
		attron(tui_style(c, TS_BAR));
		mvaddnstr(rows - 1, 0, c->status, cols);
		attroff(tui_style(c, TS_BAR));
		return;
	}
	/* the panel's keys first: at 80 columns they matter more than the global ones */
	x = footer_keys(c, own, 0, rows - 1, cols);
	if (!ap)
		footer_keys(c, global_keys, x, rows - 1, cols);
}

static void draw_help(struct tui_ctx *c, int cur, void **state, int rows, int cols)
{
	const struct tui_key_help *own = panels[cur]->keys ? panels[cur]->keys(c, state[cur]) : NULL;
	static const struct tui_key_help more[] = {
		{ "? h F1", "this help (any key closes it)" },
		{ "1-6 F2", "Status, Live, Runs, Advice, Probe, History (F2 next)" },
		{ "a", "apply a probe run's verdict (Probe result, Runs)" },
		{ "Tab Left Right", "next / previous panel" },
		{ "F5 p", "the probe form" },
		{ "Up Down PgUp PgDn", "scroll or choose" },
		{ "r", "refresh now" },
		{ "q F10", "quit; a running probe is stopped first" },
		{ NULL, NULL },
	};
	int w = cols > 76 ? 72 : cols - 4, h = 0, y;
	WINDOW *win;

	for (const struct tui_key_help *k = more; k->key; k++)
		h++;
	for (const struct tui_key_help *k = own; k && k->key; k++)
		h++;
	h += 6;
	if (h > rows - 2)
		h = rows - 2;
	if (w < 20 || h < 5)
		return;
	win = newwin(h, w, (rows - h) / 2, (cols - w) / 2);
	if (!win)
		return;
	werase(win);
	box(win, 0, 0);
	wattron(win, tui_style(c, TS_TITLE));
	mvwaddnstr(win, 0, 2, " swaptune tui - keys ", w - 4);
	wattroff(win, tui_style(c, TS_TITLE));
	y = 1;
	for (const struct tui_key_help *k = more; k->key && y < h - 1; k++, y++) {
		wattron(win, A_BOLD);
		mvwaddnstr(win, y, 2, k->key, 18);
		wattroff(win, A_BOLD);
		mvwaddnstr(win, y, 21, k->what, w - 23);
	}
	if (own && own->key && y < h - 2) {
		y++;
		wattron(win, tui_style(c, TS_TITLE));
		mvwprintw(win, y++, 2, "%.40s panel", panels[cur]->title);
		wattroff(win, tui_style(c, TS_TITLE));
	}
	for (const struct tui_key_help *k = own; k && k->key && y < h - 1; k++, y++) {
		wattron(win, A_BOLD);
		mvwaddnstr(win, y, 2, k->key, 18);
		wattroff(win, A_BOLD);
		mvwaddnstr(win, y, 21, k->what, w - 23);
	}
	if (y < h - 2) {
		y++;
		wattron(win, tui_style(c, TS_DIM));
		mvwaddnstr(win, y, 2, c->root ? "running as root: probes may change the host (and restore it)"
			   : "read-only: probing needs root on the live host", w - 4);
		wattroff(win, tui_style(c, TS_DIM));
	}
	wnoutrefresh(win);
	delwin(win);
}

static void draw_frame(struct tui_ctx *c, int cur, void **state, void *ap,
		       WINDOW *body, bool help)
{
	int rows, cols;

	getmaxyx(stdscr, rows, cols);
	erase();
	draw_bars(c, cur, state, ap, rows, cols);
	wnoutrefresh(stdscr);
	werase(body);
	if (ap)
		tui_overlay_apply.draw(c, ap, body, rows - 2, cols);
	else
		panels[cur]->draw(c, state[cur], body, rows - 2, cols);
	wnoutrefresh(body);
	if (help)
		draw_help(c, cur, state, rows, cols);
	doupdate();
}

static void resize_body(WINDOW *body)
{
	int rows, cols;

	getmaxyx(stdscr, rows, cols);
	wresize(body, rows - 2 > 1 ? rows - 2 : 1, cols);
	mvwin(body, 1, 0);
	clearok(curscr, TRUE);
}

static void switch_to(struct tui_ctx *c, int *cur, int to, void **state)
{
	*cur = (to + NPANELS) % NPANELS;
	c->status[0] = 0;
	panels[*cur]->update(c, state[*cur]);
}

/* Global keys; false when the key is not one of them. */
static bool global_key(struct tui_ctx *c, int *cur, void **state, int ch, bool *help, bool *quit)
{
	if (ch == '?' || ch == 'h' || ch == KEY_F(1)) {
		*help = true;
	} else if (ch == 'q' || ch == 'Q' || ch == KEY_F(10)) {
		*quit = true;
	} else if (ch >= '1' && ch < '1' + NPANELS) {
		switch_to(c, cur, ch - '1', state);
	} else if (ch == '\t' || ch == KEY_RIGHT || ch == KEY_F(2)) {
		switch_to(c, cur, *cur + 1, state);
	} else if (ch == KEY_BTAB || ch == KEY_LEFT) {
		switch_to(c, cur, *cur - 1, state);
	} else if (ch == KEY_F(5) || ch == 'p') {
		switch_to(c, cur, PANEL_PROBE, state);
	} else if (ch == 'r') {
		panels[*cur]->update(c, state[*cur]);
	} else {
		return false;
	}
	return true;
}

bool tui_change_allowed(struct tui_ctx *c, const char *what)
{
	if (c->can_change)
		return true;
	snprintf(c->status, sizeof(c->status), " %s is disabled: %s", what, c->change_why);
	return false;
}

/* Who may apply and roll back: the change module's rule (root for the live host), and a sysroot we can write. */
static void change_rights(struct tui_ctx *c)
{
	c->can_change = true;
	if (c->h->live && geteuid() != 0) {
		c->can_change = false;
		snprintf(c->change_why, sizeof(c->change_why),
			 "changing kernel settings needs root (sudo swaptune tui)");
	} else if (!c->h->live && access(c->h->root, W_OK) != 0) {
		c->can_change = false;
		snprintf(c->change_why, sizeof(c->change_why), "the sysroot %.100s is not writable",
			 c->h->root);
	}
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
	bool help = false, quit = false;
	void *ap = NULL;
	WINDOW *body;

	if (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO))
		return err_set_exit(e, -ENOTTY, ST_EXIT_USAGE,
				    "tui needs a terminal (use swaptune status or sample --json in scripts)");
	setlocale(LC_ALL, "");
	c.utf8 = !strcmp(nl_langinfo(CODESET), "UTF-8");
	c.root = h->live && geteuid() == 0;
	change_rights(&c);
	if (!initscr())
		return err_set(e, -EIO, "cannot initialise the terminal");
	cbreak();
	noecho();
	keypad(stdscr, TRUE);
	set_escdelay(25);	/* Esc closes help and undoes an edit: no 1 s wait */
	curs_set(0);
	tui_style_init(&c);
	body = newwin(LINES - 2 > 1 ? LINES - 2 : 1, COLS, 1, 0);
	keypad(body, TRUE);
	for (int i = 0; i < NPANELS; i++)
		state[i] = panels[i]->open(&c);
	for (int i = 0; i < NPANELS; i++)
		if (i == cur || panels[i]->always_update)
			panels[i]->update(&c, state[i]);
	next = now_ns() + interval;
	while (!quit) {
		uint64_t t = now_ns();
		int ch, wait_ms;

		draw_frame(&c, cur, state, ap, body, help);
		if (o->max_frames && ++frames >= o->max_frames)
			break;
		wait_ms = t >= next ? 0 : (int)((next - t) / 1000000ull);
		/* a probe's progress is worth more than one frame a second */
		if (wait_ms > 250 && (c.probe_busy || (ap && tui_overlay_apply.busy(ap))))
			wait_ms = 250;
		timeout(wait_ms);
		ch = getch();
		if (ch != ERR && ch != KEY_RESIZE)
			c.status[0] = 0;	/* a message lasts until the next key */
		if (ch == KEY_RESIZE) {
			resize_body(body);
		} else if (ch == ERR) {
			/* timer: the tick below */
		} else if (help) {
			help = ch == KEY_F(1) || ch == '?' ? !help : false;
		} else if (ap) {
			if (ch == KEY_F(1)) {
				help = true;
			} else if (!tui_overlay_apply.key(&c, ap, ch)) {
				tui_overlay_apply.close(ap);
				ap = NULL;
				panels[cur]->update(&c, state[cur]);
			}
		} else if (panels[cur]->grabs_keys && panels[cur]->grabs_keys(state[cur])) {
			panels[cur]->key(&c, state[cur], ch);
		} else if (panels[cur]->key && panels[cur]->key(&c, state[cur], ch)) {
			/* the panel used it */
		} else if (!global_key(&c, &cur, state, ch, &help, &quit)) {
			beep();
		}
		if (c.apply_req && !ap)
			ap = tui_overlay_apply.open(&c);
		c.apply_req = 0;
		if (ap)
			tui_overlay_apply.update(&c, ap);
		if (now_ns() >= next) {
			for (int i = 0; i < NPANELS; i++)
				if (i == cur || panels[i]->always_update)
					panels[i]->update(&c, state[i]);
			next += interval;
			if (next < now_ns())
				next = now_ns() + interval;
		}
	}
	if (c.probe_busy) {
		/* quitting mid-probe: the panel's close stops it and waits for the restore */
		mvaddstr(LINES - 1, 0, " stopping the probe and restoring the host...");
		clrtoeol();
		refresh();
	}
	if (ap)
		tui_overlay_apply.close(ap);
	for (int i = 0; i < NPANELS; i++)
		panels[i]->close(state[i]);
	delwin(body);
	endwin();
	return 0;
}
