/*
 * tsan-options.c - linked into the ThreadSanitizer build only (make
 * check-tsan): every report goes to TSAN_LOG.<pid> (the build dir), so a
 * race in a binary the tests drive under tmux is seen even when the
 * screen shows nothing. The process goes on after a report (exit status
 * 66 at the end): a probe stopped dead in its engine thread would leave
 * the host on its settings, scratch swap and cgroup.
 */
#ifndef TSAN_LOG
#error "TSAN_LOG: the path prefix of the reports"
#endif

const char *__tsan_default_options(void);

const char *__tsan_default_options(void)
{
	return "halt_on_error=0:exitcode=66:second_deadlock_stack=1:log_path=" TSAN_LOG;
}
