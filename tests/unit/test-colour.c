/*
 * test-colour.c - colour on a terminal (src/colour.c) and the stop-signal
 * catcher (src/stop.c): colour on a pty only, off for a pipe, with NO_COLOR
 * set (not empty) and for TERM=dumb or unset; the verdict words' colours;
 * SIGINT, SIGTERM and SIGHUP set the flag, the old handlers come back, and
 * SIGPIPE is ignored only when asked.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <pty.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "swaptune/colour.h"
#include "swaptune/stop.h"

static void test_colour_rule(void **state)
{
	int master, slave, p[2];
	FILE *tty, *pipe_w;

	(void)state;
	assert_int_equal(openpty(&master, &slave, NULL, NULL, NULL), 0);
	assert_int_equal(pipe(p), 0);
	tty = fdopen(slave, "w");
	pipe_w = fdopen(p[1], "w");
	setenv("TERM", "xterm", 1);
	unsetenv("NO_COLOR");
	assert_true(colour_on(tty));
	assert_false(colour_on(pipe_w));
	assert_string_equal(colour_start(tty, COLOUR_BAD), "\033[31m");
	assert_string_equal(colour_end(tty, COLOUR_BAD), "\033[0m");
	assert_string_equal(colour_start(tty, COLOUR_PLAIN), "");
	assert_string_equal(colour_start(pipe_w, COLOUR_GOOD), "");
	assert_string_equal(colour_end(pipe_w, COLOUR_GOOD), "");
	setenv("NO_COLOR", "", 1);		/* empty: no opinion */
	assert_true(colour_on(tty));
	setenv("NO_COLOR", "1", 1);
	assert_false(colour_on(tty));
	unsetenv("NO_COLOR");
	setenv("TERM", "dumb", 1);
	assert_false(colour_on(tty));
	unsetenv("TERM");
	assert_false(colour_on(tty));
	assert_int_equal(colour_of_verdict("change"), COLOUR_GOOD);
	assert_int_equal(colour_of_verdict("CHANGE"), COLOUR_GOOD);
	assert_int_equal(colour_of_verdict("inconclusive"), COLOUR_WARN);
	assert_int_equal(colour_of_verdict("keep"), COLOUR_BOLD);
	assert_int_equal(colour_of_verdict("other"), COLOUR_PLAIN);
	fclose(tty);
	fclose(pipe_w);
	close(master);
	close(p[0]);
}

static int mark;

static void old_handler(int sig)
{
	mark = sig;
}

static void test_stop(void **state)
{
	struct sigaction sa = { .sa_handler = old_handler }, now;
	struct stop_catch s;

	(void)state;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGHUP, &sa, NULL);
	stop_catch(&s, 0);
	assert_int_equal(stop_signal, 0);
	raise(SIGTERM);
	assert_int_equal(stop_signal, SIGTERM);
	raise(SIGHUP);
	assert_int_equal(stop_signal, SIGHUP);
	assert_int_equal(mark, 0);
	sigaction(SIGPIPE, NULL, &now);
	assert_true(now.sa_handler != SIG_IGN);
	stop_release(&s);
	raise(SIGHUP);
	assert_int_equal(mark, SIGHUP);		/* the old handler is back */
	stop_catch(&s, STOP_IGNORE_PIPE);
	assert_int_equal(stop_signal, 0);	/* reset */
	raise(SIGPIPE);				/* ignored: still here */
	raise(SIGINT);
	assert_int_equal(stop_signal, SIGINT);
	stop_release(&s);
	sigaction(SIGPIPE, NULL, &now);
	assert_true(now.sa_handler == SIG_DFL);
	assert_string_equal(stop_signal_name(SIGINT), "SIGINT");
	assert_string_equal(stop_signal_name(SIGTERM), "SIGTERM");
	assert_string_equal(stop_signal_name(64), "signal 64");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_colour_rule),
		cmocka_unit_test(test_stop),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
