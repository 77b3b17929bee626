/*
 * stop.c - the stop-signal catcher of long runs (stop.h).
 */
#include <stdio.h>
#include <string.h>

#include "swaptune/stop.h"

volatile sig_atomic_t stop_signal;

static const int sigs[4] = { SIGINT, SIGTERM, SIGHUP, SIGPIPE };

static void on_stop(int sig)
{
	stop_request(&stop_signal, sig);
}

void stop_catch(struct stop_catch *s, unsigned flags)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_stop;
	sigemptyset(&sa.sa_mask);
	sa.sa_flags = 0;	/* no SA_RESTART: waits return so the flag is seen */
	s->flags = flags;
	stop_request(&stop_signal, 0);
	for (int i = 0; i < 3; i++)
		sigaction(sigs[i], &sa, &s->old[i]);
	if (flags & STOP_IGNORE_PIPE) {
		sa.sa_handler = SIG_IGN;
		sigaction(SIGPIPE, &sa, &s->old[3]);
	}
}

void stop_release(struct stop_catch *s)
{
	for (int i = 0; i < 3; i++)
		sigaction(sigs[i], &s->old[i], NULL);
	if (s->flags & STOP_IGNORE_PIPE)
		sigaction(SIGPIPE, &s->old[3], NULL);
}

const char *stop_signal_name(int sig)
{
	static _Thread_local char buf[24];

	switch (sig) {
	case SIGINT: return "SIGINT";
	case SIGTERM: return "SIGTERM";
	case SIGHUP: return "SIGHUP";
	case SIGPIPE: return "SIGPIPE";
	}
	snprintf(buf, sizeof(buf), "signal %d", sig);
	return buf;
}
