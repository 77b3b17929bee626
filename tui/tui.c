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

#include "swaptune/change.h"
#include "swaptune/utc.h"
#include "tui-internal.h"

static const struct tui_panel *const panels[] = {
	&tui_panel_status, &tui_panel_live, &tui_panel_runs, &tui_panel_advice,
	&tui_panel_probe, &tui_panel_history, &tui_panel_cgroups, &tui_panel_switchback,
};
#define PANEL_PROBE 4
#define NPANELS ((int)(sizeof(panels) / sizeof(panels[0])))

/* Keys every panel has; the panel's own follow in the footer. */
static const struct tui_key_help global_keys[] = {
	{ "F1", "help" }, { "1-8", "panel" }, { "F5", "probe" }, { "F10", "quit" },
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

/*
 * What the screen may do to the host, in the header: "root" (probe, apply,
 * roll back the live host), "sysroot rw" (apply and roll back write the
 * captured tree), or "read-only" (nothing changes; the keys say why).
 */
static const char *rights_label(const struct tui_ctx *c)
{
	if (c->root)
		return "root";
	if (c->can_change)
		return c->h->live ? "may apply" : "sysroot rw";
	return "read-only";
}

/*
 * An apply --confirm-within undoes itself unless confirmed (issue 34, finding
 * 3): the header says so from any panel. The store is asked at most once a
 * second, and not while a probe owns its connection (the last answer stays).
 */
static void pending_look(struct tui_ctx *c)
{
	struct change_pending p;
	struct st_err e = { 0 };
	uint64_t t = now_ns();

	if (c->probe_busy || (c->pend_looked_ns && t - c->pend_looked_ns < 1000000000ull))
		return;
	c->pend_looked_ns = t;
	if (change_pending_confirm(c->st, c->h, &p, &e) == 1) {
		c->pend_run = p.run_id;
		c->pend_deadline = p.deadline;
	} else {
		c->pend_run = 0;	/* none, or the store cannot say: nothing to warn of */
	}
}

/* "confirm run 12: 95 s" (the seconds left), or "" when nothing awaits confirmation. */
static void pending_label(const struct tui_ctx *c, char *buf, size_t n)
{
	double left;

	buf[0] = 0;
	if (!c->pend_run)
		return;
	if (c->pend_deadline <= 0) {
		snprintf(buf, n, "confirm run %lld", (long long)c->pend_run);
		return;
	}
	left = c->pend_deadline - utc_now();
	snprintf(buf, n, "confirm run %lld: %.0f s", (long long)c->pend_run, left > 0 ? left : 0);
}

/* How the tabs are spelt: " 1 Status " each; "1 Status" one blank apart; only the current one named. */
enum tab_form { TABS_LOOSE, TABS_TIGHT, TABS_NUMBERS };

static int tabs_width(enum tab_form f, int cur)
{
	int w = 0;

	for (int i = 0; i < NPANELS; i++) {
		int t = (int)strlen(panels[i]->title);

		w += f == TABS_LOOSE ? t + 4 : f == TABS_TIGHT || i == cur ? t + 2 : 1;
	}
	return w + (f == TABS_LOOSE ? 0 : NPANELS - 1);
}

static void draw_bars(struct tui_ctx *c, int cur, void **state, void *ap, int rows,
		      int cols)
{
	const struct tui_key_help *own = ap ? tui_overlay_apply.keys(c, ap) :
		panels[cur]->keys ? panels[cur]->keys(c, state[cur]) : NULL;
	const char *right = rights_label(c);
	char pend[48];
	int x = 0, rw = (int)strlen(right) + 2, pw;
	enum tab_form form = TABS_TIGHT;
	bool name = false;

	pending_look(c);
	pending_label(c, pend, sizeof(pend));
	pw = pend[0] ? (int)strlen(pend) + 2 : 0;
	/*
	 * The program's name only when the tabs and the labels fit beside it; at
	 * 80 columns the tabs close up (one blank apart) so that the rights still
	 * show. A pending confirmation matters more than the rights: when both do
	 * not fit it replaces them, and when it alone does not fit beside the tabs
	 * only the current tab keeps its name.
	 */
	if (10 + tabs_width(TABS_LOOSE, cur) + pw + rw <= cols) {
		name = true;
		form = TABS_LOOSE;
	} else if (tabs_width(TABS_LOOSE, cur) + pw + rw <= cols) {
		form = TABS_LOOSE;
	} else if (tabs_width(TABS_TIGHT, cur) + pw + rw <= cols || !pw) {
		form = TABS_TIGHT;
	} else if (tabs_width(TABS_TIGHT, cur) + pw <= cols) {
		rw = 0;
	} else {
		form = TABS_NUMBERS;
		if (tabs_width(TABS_NUMBERS, cur) + pw + rw > cols)
			rw = 0;
	}
	attron(tui_style(c, TS_BAR));
	mvhline(0, 0, ' ', cols);
	if (name)
		mvaddnstr(0, 0, " swaptune ", cols);
	attroff(tui_style(c, TS_BAR));
	x = name ? 10 : 0;
	for (int i = 0; i < NPANELS && x < cols; i++) {
		char tab[40];

		if (form == TABS_LOOSE)
			snprintf(tab, sizeof(tab), " %d %s ", i + 1, panels[i]->title);
		else if (form == TABS_TIGHT || i == cur)
			snprintf(tab, sizeof(tab), "%d %s", i + 1, panels[i]->title);
		else
			snprintf(tab, sizeof(tab), "%d", i + 1);
		attron(i == cur ? A_BOLD : tui_style(c, TS_BAR));
		mvaddnstr(0, x, tab, cols - x);
		attroff(i == cur ? A_BOLD : tui_style(c, TS_BAR));
		x += (int)strlen(tab) + (form != TABS_LOOSE && i + 1 < NPANELS);
	}
	if (rw && x + rw <= cols) {
		attr_t a = tui_style(c, TS_BAR) | (strcmp(right, "read-only") ? A_BOLD : 0);

		attron(a);
		mvprintw(0, cols - rw, " %s ", right);
		attroff(a);
	}
	if (pw && x + pw + rw <= cols) {
		attr_t a = tui_style(c, TS_WARN) | A_BOLD;

		attron(a);
		mvprintw(0, cols - rw - pw, " %s ", pend);
		attroff(a);
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

/* One help row: the key, then its text wrapped under the text column; rows used. */
static int help_row(WINDOW *win, int y, int h, int w, const struct tui_key_help *k)
{
	const char *t = k->what;
	int room = w - 23, used = 0;

	wattron(win, A_BOLD);
	mvwaddnstr(win, y, 2, k->key, 18);
	wattroff(win, A_BOLD);
	while (*t && y + used < h - 1) {
		int n = (int)strlen(t);

		if (n > room) {
			n = room;
			while (n > room / 2 && t[n] != ' ')
				n--;
			if (t[n] != ' ')
				n = room;
		}
		mvwaddnstr(win, y + used, 21, t, n);
		t += n;
		while (*t == ' ')
			t++;
		used++;
	}
	return used ? used : 1;
}

static void draw_help(struct tui_ctx *c, int cur, void **state, int rows, int cols)
{
	const struct tui_key_help *own = panels[cur]->keys ? panels[cur]->keys(c, state[cur]) : NULL;
	static const struct tui_key_help more[] = {
		{ "? h F1", "this help (any key closes it)" },
		{ "1-8 F2", "Status, Live, Runs, Advice, Probe, History, Cgroups, Switch(back) (F2 or Tab: the next one)" },
		{ "a", "apply a probe run's verdict (Probe result, Runs)" },
		{ "Tab Left Right", "next / previous panel" },
		{ "F5 p", "the probe form" },
		{ "Up Down PgUp PgDn", "scroll or choose" },
		{ "/ s", "search a list, sort it (Runs, History, Cgroups)" },
		{ "r", "refresh now" },
		{ "q F10", "quit; a running probe is stopped first" },
		{ NULL, NULL },
	};
	char rights[200];
	int w = cols > 82 ? 78 : cols - 4, h = 0, y;
	WINDOW *win;

	for (const struct tui_key_help *k = more; k->key; k++)
		h += 1 + (int)strlen(k->what) / (w - 23);
	for (const struct tui_key_help *k = own; k && k->key; k++)
		h += 1 + (int)strlen(k->what) / (w - 23);
	h += 9;
	if (h > rows - 2)
		h = rows - 2;
	if (w < 30 || h < 5)
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
	{
		/* what this screen may do to the host, first: it decides what the keys below can do */
		struct tui_key_help k = { rights_label(c), rights };

		if (c->root)
			snprintf(rights, sizeof(rights), "probe, apply and rollback change this host "
				 "(journaled; a probe restores it when it ends)");
		else if (c->can_change)
			snprintf(rights, sizeof(rights), "apply and rollback write the --sysroot tree; "
				 "no probing there");
		else
			snprintf(rights, sizeof(rights), "nothing here changes the host: %.150s", c->change_why);
		wattron(win, tui_style(c, TS_DIM));
		y += help_row(win, y, h, w, &k);
		wattroff(win, tui_style(c, TS_DIM));
	}
	for (const struct tui_key_help *k = more; k->key && y < h - 1; k++)
		y += help_row(win, y, h, w, k);
	if (own && own->key && y < h - 2) {
		y++;
		wattron(win, tui_style(c, TS_TITLE));
		mvwprintw(win, y++, 2, "%.40s panel", panels[cur]->title);
		wattroff(win, tui_style(c, TS_TITLE));
	}
	for (const struct tui_key_help *k = own; k && k->key && y < h - 1; k++)
		y += help_row(win, y, h, w, k);
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
