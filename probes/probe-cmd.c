/*
 * probe-cmd.c - any external command as the workload: argv exec'd without a
 * shell, as a child of the trial process so it stays in the trial's memcg.
 * Metric: its wall time, or the number it prints (metric_regex group 1, the
 * last match in stdout; REG_NEWLINE, so ^ and $ match at line ends). Its rusage (faults, CPU) comes from wait4().
 *
 * The command runs in its own process group, with stdin from /dev/null,
 * stdout and stderr captured (stdout: the last 1 MiB, for metric_regex;
 * stderr: its last line, for the failure reason), SIGKILLed if the trial
 * process dies (PR_SET_PDEATHSIG) and, with everything it left running in
 * its group, when it exits or runs past max_duration_s. A failed exec or
 * privilege drop is reported back through a close-on-exec pipe.
 */
#include <fcntl.h>
#include <grp.h>
#include <poll.h>
#include <regex.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "swaptune/metric-extract.h"
#include "swaptune/workload.h"

#define CMD_OUT_MAX	(1u << 20)
#define CMD_ERR_TAIL	256
#define CMD_DRAIN_NS	100000000ull	/* after exit, wait this long for EOF from leftovers */

enum cmd_stage { CMD_STAGE_GROUPS = 1, CMD_STAGE_GID, CMD_STAGE_UID, CMD_STAGE_EXEC };

struct cmd_fail {
	int stage;
	int err;
};

static bool cmd_find(const char *name)
{
	const char *path = getenv("PATH");
	char buf[4096];

	if (strchr(name, '/'))
		return access(name, X_OK) == 0;
	if (!path)
		path = "/usr/local/bin:/usr/bin:/bin";
	while (*path) {
		size_t n = strcspn(path, ":");

		if ((size_t)snprintf(buf, sizeof(buf), "%.*s/%s", (int)n, n ? path : ".", name) <
		    sizeof(buf) && access(buf, X_OK) == 0)
			return true;
		path += n + (path[n] == ':');
	}
	return false;
}

static int cmd_regcomp(const struct workload_params *p, regex_t *re, char *reason, size_t len)
{
	int rc = regcomp(re, p->metric_regex, REG_EXTENDED | REG_NEWLINE);

	if (rc) {
		char msg[128];

		regerror(rc, re, msg, sizeof(msg));
		snprintf(reason, len, "metric_regex '%s' is invalid: %s", p->metric_regex, msg);
		return -EINVAL;
	}
	if (re->re_nsub < 1) {
		regfree(re);
		snprintf(reason, len, "metric_regex '%s' has no capture group for the number",
			 p->metric_regex);
		return -EINVAL;
	}
	return 0;
}

static bool cmd_supported(const struct workload_params *p, char *reason, size_t len)
{
	regex_t re;

	if (!p->argv || !p->argv[0] || !p->argv[0][0]) {
		snprintf(reason, len, "needs a command to run");
		return false;
	}
	if (!cmd_find(p->argv[0])) {
		snprintf(reason, len, strchr(p->argv[0], '/') ? "command %s is not executable" :
			 "command %s not found in PATH", p->argv[0]);
		return false;
	}
	if (p->metric_regex[0]) {
		if (cmd_regcomp(p, &re, reason, len) < 0)
			return false;
		regfree(&re);
	}
	if (p->metric_spec[0]) {
		bool hb;

		if (p->metric_regex[0]) {
			snprintf(reason, len, "--metric and --metric-regex are two ways to read one metric: give one");
			return false;
		}
		if (metric_spec_check(p->metric_spec, &hb, reason, len) < 0)
			return false;
	}
	if (geteuid() != 0 &&
	    ((p->run_as_uid != (uid_t)-1 && p->run_as_uid != geteuid()) ||
	     (p->run_as_gid != (gid_t)-1 && p->run_as_gid != getegid()))) {
		snprintf(reason, len, "running the command as another user or group needs root");
		return false;
	}
	if (p->max_duration_s < 0) {
		snprintf(reason, len, "max duration %g s is negative", p->max_duration_s);
		return false;
	}
	return true;
}

/* In the forked child: never returns. */
static void cmd_child(const struct workload_params *p, pid_t parent, int out, int err, int fail)
{
	struct cmd_fail f = { 0, 0 };
	sigset_t none;
	int fd;

	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	for (int s = 1; s < NSIG; s++)
		signal(s, SIG_DFL);
	setpgid(0, 0);
	fd = open("/dev/null", O_RDONLY);
	if (fd >= 0 && fd != 0) {
		dup2(fd, 0);
		close(fd);
	}
	dup2(out, 1);
	dup2(err, 2);
	if (p->run_as_gid != (gid_t)-1 || (p->run_as_uid != (uid_t)-1 && geteuid() == 0)) {
		/* no supplementary groups of ours survive a change of user */
		gid_t g = p->run_as_gid != (gid_t)-1 ? p->run_as_gid : getegid();

		if (geteuid() == 0 && setgroups(1, &g) < 0)
			f = (struct cmd_fail){ CMD_STAGE_GROUPS, errno };
		else if (p->run_as_gid != (gid_t)-1 && setgid(p->run_as_gid) < 0)
			f = (struct cmd_fail){ CMD_STAGE_GID, errno };
	}
	if (!f.stage && p->run_as_uid != (uid_t)-1 && setuid(p->run_as_uid) < 0)
		f = (struct cmd_fail){ CMD_STAGE_UID, errno };
	if (!f.stage) {
		/* after the credential change, which clears it */
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (getppid() != parent)
			_exit(127);
		execvp(p->argv[0], p->argv);
		f = (struct cmd_fail){ CMD_STAGE_EXEC, errno };
	}
	if (write(fail, &f, sizeof(f)) < 0)
		_exit(126);
	_exit(127);
}

static int cmd_pidfd(pid_t pid)
{
#ifdef SYS_pidfd_open
	return (int)syscall(SYS_pidfd_open, pid, 0);
#else
	(void)pid;
	return -1;
#endif
}

/* Append what fd has to buf (keeping the last cap - 1 bytes); false at EOF. */
static bool cmd_read(int fd, char *buf, size_t *len, size_t cap)
{
	char tmp[16384];
	ssize_t n = read(fd, tmp, sizeof(tmp));

	if (n < 0)
		return errno == EINTR || errno == EAGAIN;
	if (n == 0)
		return false;
	if ((size_t)n >= cap - 1) {
		memcpy(buf, tmp + n - (cap - 1), cap - 1);
		*len = cap - 1;
		return true;
	}
	if (*len + (size_t)n > cap - 1) {
		size_t drop = *len + (size_t)n - (cap - 1);

		memmove(buf, buf + drop, *len - drop);
		*len -= drop;
	}
	memcpy(buf + *len, tmp, (size_t)n);
	*len += (size_t)n;
	return true;
}

/* The last match of re in out (NULs read as newlines); false if none is a number. */
static bool cmd_metric(regex_t *re, char *out, size_t len, double *value)
{
	regmatch_t m[2];
	char num[64];
	size_t pos = 0;
	bool found = false;

	for (size_t i = 0; i < len; i++)
		if (!out[i])
			out[i] = '\n';
	out[len] = '\0';
	while (pos <= len &&
	       regexec(re, out + pos, 2, m, pos && out[pos - 1] != '\n' ? REG_NOTBOL : 0) == 0) {
		if (m[1].rm_so >= 0) {
			size_t n = (size_t)(m[1].rm_eo - m[1].rm_so);
			char *end;

			if (n && n < sizeof(num)) {
				memcpy(num, out + pos + m[1].rm_so, n);
				num[n] = '\0';
				double v = strtod(num, &end);
				if (*end == '\0') {
					*value = v;
					found = true;
				}
			}
		}
		pos += m[0].rm_eo > 0 ? (size_t)m[0].rm_eo : 1;
	}
	return found;
}

static void cmd_last_line(const char *err, size_t len, char *line, size_t size)
{
	while (len && (err[len - 1] == '\n' || err[len - 1] == '\r' || err[len - 1] == ' '))
		len--;
	size_t start = len;

	while (start && err[start - 1] != '\n')
		start--;
	snprintf(line, size, "%.*s", (int)(len - start), err + start);
}

static void cmd_verdict(const struct workload_params *p, struct workload_result *r,
			int status, const char *err, size_t err_len)
{
	char line[CMD_ERR_TAIL];

	cmd_last_line(err, err_len, line, sizeof(line));
	if (WIFEXITED(status))
		r->exit_status = WEXITSTATUS(status);
	else if (WIFSIGNALED(status))
		r->term_signal = WTERMSIG(status);
	if (r->timed_out) {
		r->failed = true;
		snprintf(r->reason, sizeof(r->reason), "command timed out after %g s",
			 p->max_duration_s);
	} else if (r->term_signal) {
		r->failed = true;
		snprintf(r->reason, sizeof(r->reason), "command killed by signal %d (%s)",
			 r->term_signal, strsignal(r->term_signal));
	} else if (r->exit_status != 0) {
		r->failed = true;
		snprintf(r->reason, sizeof(r->reason), "command exited with status %d%s%.200s",
			 r->exit_status, line[0] ? ": " : "", line);
	} else if (p->metric_regex[0] && !r->metric_matched) {
		r->failed = true;
		snprintf(r->reason, sizeof(r->reason),
			 "metric_regex '%.100s' matched no number in the command's output",
			 p->metric_regex);
	} else if (p->metric_spec[0] && !r->metric_matched) {
		r->failed = true;
		snprintf(r->reason, sizeof(r->reason), "--metric %.60s: not in the command's output",
			 p->metric_spec);
	}
}

static uint64_t cmd_tv_ns(struct timeval tv)
{
	return (uint64_t)tv.tv_sec * 1000000000ull + (uint64_t)tv.tv_usec * 1000ull;
}

/* A started command and what it gives back. */
struct cmd_proc {
	pid_t pid;			/* also its process group */
	int out, err;			/* the read ends of its stdout and stderr */
	uint64_t t_start;		/* workload_now_ns() before the fork */
	char *obuf;			/* its stdout, up to CMD_OUT_MAX bytes (the caller's buffer) */
	size_t olen;
	char ebuf[CMD_ERR_TAIL];	/* the tail of its stderr */
	size_t elen;
	int status;			/* as wait4() gives it */
	struct rusage ru;
};

/* Wait for the command c, collecting its output into c; fills r's wall time and timeout. */
static void cmd_collect(const struct workload_params *p, struct cmd_proc *c, struct workload_result *r)
{
	uint64_t deadline = p->max_duration_s > 0 ? c->t_start + (uint64_t)(p->max_duration_s * 1e9) : 0;
	uint64_t t_exit = 0;
	pid_t pid = c->pid;
	int pidfd = cmd_pidfd(pid), out = c->out, err = c->err;
	struct pollfd pf[3];

	for (;;) {
		uint64_t now = workload_now_ns();
		int timeout = -1;

		if (!t_exit && pidfd < 0) {
			siginfo_t si = { 0 };

			if (waitid(P_PID, (id_t)pid, &si, WEXITED | WNOHANG | WNOWAIT) == 0 &&
			    si.si_pid == pid)
				t_exit = now;
		}
		if (t_exit && ((out < 0 && err < 0) || now >= t_exit + CMD_DRAIN_NS))
			break;
		if (!t_exit && deadline && now >= deadline) {
			kill(-pid, SIGKILL);
			r->timed_out = true;
			deadline = 0;
		}
		if (t_exit)
			timeout = (int)((t_exit + CMD_DRAIN_NS - now) / 1000000 + 1);
		else if (pidfd < 0)
			timeout = 1;
		else if (deadline)
			timeout = (int)((deadline - now) / 1000000 + 1);

		pf[0] = (struct pollfd){ .fd = out, .events = POLLIN };
		pf[1] = (struct pollfd){ .fd = err, .events = POLLIN };
		pf[2] = (struct pollfd){ .fd = t_exit ? -1 : pidfd, .events = POLLIN };
		if (poll(pf, 3, timeout) < 0 && errno != EINTR)
			break;
		if (pf[2].fd >= 0 && (pf[2].revents & POLLIN))
			t_exit = workload_now_ns();
		if (out >= 0 && (pf[0].revents & (POLLIN | POLLHUP | POLLERR)) &&
		    !cmd_read(out, c->obuf, &c->olen, CMD_OUT_MAX))
			out = -1;
		if (err >= 0 && (pf[1].revents & (POLLIN | POLLHUP | POLLERR)) &&
		    !cmd_read(err, c->ebuf, &c->elen, CMD_ERR_TAIL))
			err = -1;
	}
	if (!t_exit)
		t_exit = workload_now_ns();
	/* the zombie keeps its pid and group id until reaped: no reuse race */
	kill(-pid, SIGKILL);
	while (wait4(pid, &c->status, 0, &c->ru) < 0 && errno == EINTR)
		;
	if (pidfd >= 0)
		close(pidfd);
	r->wall_ns = t_exit - c->t_start;
}

static const char *cmd_stage_what(int stage)
{
	switch (stage) {
	case CMD_STAGE_GROUPS: return "cannot drop supplementary groups for";
	case CMD_STAGE_GID: return "cannot switch group for";
	case CMD_STAGE_UID: return "cannot switch user for";
	default: return "cannot execute";
	}
}

static int cmd_run(const struct workload_params *p, struct workload_result *r, struct st_err *e)
{
	int out[2] = { -1, -1 }, err[2] = { -1, -1 }, fail[2] = { -1, -1 };
	struct sigaction dfl = { .sa_handler = SIG_DFL }, old_chld;
	char *obuf = NULL, reason[WORKLOAD_REASON_MAX], spec_why[160];
	struct cmd_proc c = { .out = -1, .err = -1 };
	struct cmd_fail f;
	bool have_re = false;
	regex_t re;
	int rc = 0, status = 0;
	pid_t pid;
	ssize_t n;

	workload_result_begin(r, &probe_cmd_info, p);
	if (!p->argv || !p->argv[0] || !p->argv[0][0])
		return workload_result_fail(r, err_set(e, -EINVAL, "cmd needs a command to run"), e);
	if (p->metric_regex[0]) {
		if (cmd_regcomp(p, &re, reason, sizeof(reason)) < 0)
			return workload_result_fail(r, err_set(e, -EINVAL, "%s", reason), e);
		have_re = true;
	}
	obuf = malloc(CMD_OUT_MAX + 1);
	if (!obuf) {
		rc = err_set(e, -ENOMEM, "cannot allocate %u bytes", CMD_OUT_MAX + 1);
		goto out;
	}
	if (pipe2(out, O_CLOEXEC) < 0 || pipe2(err, O_CLOEXEC) < 0 || pipe2(fail, O_CLOEXEC) < 0) {
		rc = err_set(e, -errno, "cannot create a pipe: %s", strerror(errno));
		goto out;
	}
	/* wait4() needs SIGCHLD not ignored by whoever runs us */
	sigaction(SIGCHLD, &dfl, &old_chld);

	uint64_t t_start = workload_now_ns();
	pid_t parent = getpid();

	pid = fork();
	if (pid < 0) {
		rc = err_set(e, -errno, "cannot fork: %s", strerror(errno));
		goto restore;
	}
	if (pid == 0)
		cmd_child(p, parent, out[1], err[1], fail[1]);
	setpgid(pid, pid);	/* also here, so kill(-pid) works at once */
	close(out[1]);
	close(err[1]);
	close(fail[1]);
	out[1] = err[1] = fail[1] = -1;

	do
		n = read(fail[0], &f, sizeof(f));
	while (n < 0 && errno == EINTR);
	if (n == (ssize_t)sizeof(f)) {
		while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
			;
		rc = err_set(e, f.err ? -f.err : -EIO, "%s %s: %s", cmd_stage_what(f.stage),
			     p->argv[0], strerror(f.err));
		goto restore;
	}

	c.pid = pid;
	c.out = out[0];
	c.err = err[0];
	c.t_start = t_start;
	c.obuf = obuf;
	cmd_collect(p, &c, r);
	r->ops = 1;
	r->elapsed_ns = r->wall_ns;
	r->throughput_ops = r->wall_ns ? 1e9 / (double)r->wall_ns : 0;
	r->maj_faults = (uint64_t)c.ru.ru_majflt;
	r->min_faults = (uint64_t)c.ru.ru_minflt;
	r->user_ns = cmd_tv_ns(c.ru.ru_utime);
	r->sys_ns = cmd_tv_ns(c.ru.ru_stime);
	if (have_re)
		r->metric_matched = cmd_metric(&re, obuf, c.olen, &r->metric_value);
	if (p->metric_spec[0])
		r->metric_matched = metric_extract(p->metric_spec, obuf, c.olen, &r->metric_value,
						   spec_why, sizeof(spec_why)) == 0;
	cmd_verdict(p, r, c.status, c.ebuf, c.elen);

restore:
	sigaction(SIGCHLD, &old_chld, NULL);
out:
	for (int i = 0; i < 2; i++) {
		if (out[i] >= 0)
			close(out[i]);
		if (err[i] >= 0)
			close(err[i]);
		if (fail[i] >= 0)
			close(fail[i]);
	}
	free(obuf);
	if (have_re)
		regfree(&re);
	return workload_result_fail(r, rc, e);
}

const struct workload_info probe_cmd_info = {
	.name = "cmd",
	.summary = "an external command: wall time or a number it prints",
	.pattern = WORKLOAD_PAT_NONE,
	.supported = cmd_supported,
	.run = cmd_run,
	.fill_anon = NULL,
};
