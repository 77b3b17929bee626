/*
 * stop.h - the one stop-signal catcher of long runs (probe, verify,
 * switchback, verify --live, sample, the TUI's probe and switchback):
 * SIGINT, SIGTERM and SIGHUP set a flag the run polls, so that it can stop
 * at a safe point and restore the host instead of dying with settings
 * changed. Installed without SA_RESTART: a sleep or wait
 * returns early and the flag is seen at once.
 */
#ifndef SWAPTUNE_STOP_H
#define SWAPTUNE_STOP_H

#include <signal.h>

/* The signal that asked to stop (0 = none). Reset by stop_catch(). */
extern volatile sig_atomic_t stop_signal;

enum {
	STOP_IGNORE_PIPE = 1 << 0,	/* also ignore SIGPIPE: a closed reader ends the run, not the process */
};

struct stop_catch {
	struct sigaction old[4];	/* INT, TERM, HUP, PIPE as they were */
	unsigned flags;
};

/* Catch the stop signals into stop_signal (and flags' extras) until stop_release(). */
void stop_catch(struct stop_catch *s, unsigned flags);
/* Put the handlers back as stop_catch() found them. */
void stop_release(struct stop_catch *s);
/*
 * Set and read a stop flag (stop_signal, or a run's c->stop pointing at
 * it) across threads: the TUI's screen asks its engine thread to stop.
 * volatile sig_atomic_t is enough between a signal handler and its
 * thread, not between two threads: these are atomic. stop_requested(NULL)
 * is 0.
 */
static inline void stop_request(volatile sig_atomic_t *flag, int sig)
{
	__atomic_store_n(flag, sig, __ATOMIC_SEQ_CST);
}

static inline int stop_requested(const volatile sig_atomic_t *flag)
{
	return flag ? __atomic_load_n(flag, __ATOMIC_SEQ_CST) : 0;
}

/* "SIGINT", "SIGTERM", "SIGHUP", "SIGPIPE" or "signal N" */
const char *stop_signal_name(int sig);

#endif
