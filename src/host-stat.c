/*
 * host-stat.c - the host layer's reader of the kernel's CPU statistics
 * (HOST_STAT, see host.h): the aggregate CPU time with steal, and the
 * number of runnable and blocked tasks. A probe trial reads it before and
 * after to tell a busy host's trials from a quiet one's.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "swaptune/host.h"

/* Up to max decimal numbers after the first word of line; how many, or -1 on garbage. */
static int numbers(const char *line, uint64_t *v, int max)
{
	const char *p = line + strcspn(line, " \t");
	int n = 0;

	while (*p) {
		char *end;

		while (*p == ' ' || *p == '\t')
			p++;
		if (!*p || *p == '\n')
			break;
		if (*p < '0' || *p > '9' || n == max)
			return -1;
		errno = 0;
		v[n] = strtoull(p, &end, 10);
		if (errno || (*end && *end != ' ' && *end != '\t' && *end != '\n'))
			return -1;
		n++;
		p = end;
	}
	return n;
}

int host_cpu_stat_line(struct host_cpu_stat *s, const char *line, struct st_err *e)
{
	uint64_t v[16];
	int n;

	if (!strncmp(line, "cpu ", 4)) {
		n = numbers(line, v, 16);
		if (n < 4)
			return err_set(e, -EBADMSG, "/%s: the cpu line is not a list of counters", HOST_STAT);
		s->user = v[0];
		s->nice = v[1];
		s->system = v[2];
		s->idle = v[3];
		s->iowait = n > 4 ? v[4] : 0;
		s->irq = n > 5 ? v[5] : 0;
		s->softirq = n > 6 ? v[6] : 0;
		s->have_steal = n > 7;
		s->steal = n > 7 ? v[7] : 0;
		s->have_cpu = true;
	} else if (!strncmp(line, "procs_running ", 14) || !strncmp(line, "procs_blocked ", 14)) {
		if (numbers(line, v, 1) != 1)
			return err_set(e, -EBADMSG, "/%s: %.13s is not a number", HOST_STAT, line);
		if (line[6] == 'r')
			s->procs_running = v[0];
		else
			s->procs_blocked = v[0];
	}
	return 0;
}

static int finish(struct host_cpu_stat *s, bool running, bool blocked, const char *name,
		  struct st_err *e)
{
	s->have_procs = running && blocked;
	if (!s->have_cpu && !s->have_procs)
		return err_set(e, -EBADMSG, "%s: no cpu line and no procs_running line", name);
	return 0;
}

int host_cpu_stat_parse(struct host_cpu_stat *s, const char *text, const char *name,
			struct st_err *e)
{
	bool running = false, blocked = false;
	int r;

	memset(s, 0, sizeof(*s));
	for (const char *l = text; l && *l;) {
		const char *nl = strchr(l, '\n');

		if ((r = host_cpu_stat_line(s, l, e)) < 0)
			return r;
		running |= !strncmp(l, "procs_running ", 14);
		blocked |= !strncmp(l, "procs_blocked ", 14);
		l = nl ? nl + 1 : NULL;
	}
	return finish(s, running, blocked, name, e);
}

int host_read_cpu_stat(const struct host *h, struct host_cpu_stat *s, struct st_err *e)
{
	bool running = false, blocked = false;
	char *line = NULL, name[64];
	size_t cap = 0;
	int fd = host_openat(h, HOST_STAT, O_RDONLY), r = 0;
	FILE *f;

	memset(s, 0, sizeof(*s));
	if (fd < 0)
		return host_open_error(h, HOST_STAT, fd, false, e);
	f = fdopen(fd, "r");
	if (!f) {
		r = -errno;
		close(fd);
		return err_set(e, r, "cannot read /%s: %s", HOST_STAT, strerror(-r));
	}
	while (r == 0 && getline(&line, &cap, f) >= 0) {
		r = host_cpu_stat_line(s, line, e);
		running |= !strncmp(line, "procs_running ", 14);
		blocked |= !strncmp(line, "procs_blocked ", 14);
	}
	if (r == 0 && ferror(f))
		r = err_set(e, -EIO, "cannot read /%s", HOST_STAT);
	free(line);
	fclose(f);
	snprintf(name, sizeof(name), "/%s", HOST_STAT);
	return r < 0 ? r : finish(s, running, blocked, name, e);
}
