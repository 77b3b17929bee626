/*
 * sb-metric.c - the metrics of `swaptune switchback` (sbrun.h): the kernel's
 * figures by name, and the workload's own figure from a command run at the
 * end of a window, a number in a local file, or a sample of a Prometheus
 * text endpoint on this host (libcurl: http only, to loopback addresses as
 * resolved, no redirects, no proxy, a total timeout and a size cap). The
 * parsers are pure and unit-tested; the readers never block beyond their
 * timeout.
 */
#include <arpa/inet.h>
#include <curl/curl.h>
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "swaptune/sbrun.h"
#include "swaptune/stop.h"

#define OUT_MAX		(64 * 1024)	/* a command's stdout kept */
#define HTTP_MAX	(4 * 1024 * 1024)	/* an endpoint's answer */
#define FILE_MAX	(1024 * 1024)

int sbm_kernel_find(const char *name)
{
	for (int i = 0; i < SBK_COUNT; i++)
		if (!strcmp(sbm_kernel_defs[i].name, name))
			return i;
	return -1;
}

void sbm_spec_init(struct sbm_spec *m, enum sbm_source s)
{
	memset(m, 0, sizeof(*m));
	m->source = s;
	m->kernel = SBK_PSI_SOME;
	m->counter = s == SBM_FILE || s == SBM_PROM;
	m->higher_better = s != SBM_KERNEL;
	m->timeout_s = s == SBM_PROM ? 2.0 : 10.0;
}

const char *sbm_describe(const struct sbm_spec *m, char *buf, size_t len)
{
	const char *what = m->counter ? "a counter, its rate per second" : "its value";

	if (m->cpu_per_work)
		snprintf(buf, len, "CPU seconds of the cgroup per unit of work (work: %s %s)",
			 m->source == SBM_CMD ? "the command" : m->source == SBM_FILE ? "the file" :
			 "the endpoint", m->source == SBM_CMD ? m->cmd : m->source == SBM_FILE ? m->path :
			 m->url);
	else if (m->source == SBM_KERNEL)
		snprintf(buf, len, "%s (%s, kernel)", sbm_kernel_defs[m->kernel].label,
			 sbm_kernel_defs[m->kernel].unit);
	else if (m->source == SBM_CMD)
		snprintf(buf, len, "the number printed by `%s` (%s)", m->cmd, what);
	else if (m->source == SBM_FILE)
		snprintf(buf, len, "%s%s%s (%s)", m->path, m->name[0] ? " " : "", m->name, what);
	else
		snprintf(buf, len, "%s %s (%s)", m->url, m->name, what);
	return buf;
}

enum sb_kind sbm_kind(const struct sbm_spec *m)
{
	/* PSI is a share of time that is 0 on a calm host: differences, not ratios */
	if (m->source == SBM_KERNEL && (m->kernel == SBK_PSI_SOME || m->kernel == SBK_PSI_FULL))
		return SB_LEVEL;
	return SB_RATE;
}

/* ---- pure parsers ---- */

int sbm_split_argv(const char *cmd, char *buf, size_t len, char **argv, char *why,
		   size_t why_len)
{
	size_t o = 0;
	int n = 0;
	const char *p = cmd;

	while (*p) {
		char q = 0;

		while (*p == ' ' || *p == '\t' || *p == '\n')
			p++;
		if (!*p)
			break;
		if (n >= SBM_ARGV_MAX - 1) {
			snprintf(why, why_len, "more than %d words", SBM_ARGV_MAX - 1);
			return -EINVAL;
		}
		argv[n++] = buf + o;
		for (; *p && (q || (*p != ' ' && *p != '\t' && *p != '\n')); p++) {
			if (q && *p == q) {
				q = 0;
				continue;
			}
			if (!q && (*p == '\'' || *p == '"')) {
				q = *p;
				continue;
			}
			if (*p == '\\' && q != '\'' && p[1])
				p++;
			if (o + 1 >= len) {
				snprintf(why, why_len, "too long");
				return -EINVAL;
			}
			buf[o++] = *p;
		}
		if (q) {
			snprintf(why, why_len, "a quote (%c) is not closed", q);
			return -EINVAL;
		}
		if (o + 1 >= len) {
			snprintf(why, why_len, "too long");
			return -EINVAL;
		}
		buf[o++] = '\0';
	}
	argv[n] = NULL;
	if (n == 0) {
		snprintf(why, why_len, "no command");
		return -EINVAL;
	}
	return 0;
}

int sbm_parse_number(const char *text, size_t len, double *v)
{
	char buf[128], *end;
	size_t a = 0, b = len;

	while (a < b && isspace((unsigned char)text[a]))
		a++;
	while (b > a && isspace((unsigned char)text[b - 1]))
		b--;
	if (a == b || b - a >= sizeof(buf))
		return -EBADMSG;
	memcpy(buf, text + a, b - a);
	buf[b - a] = '\0';
	errno = 0;
	*v = strtod(buf, &end);
	if (*end || end == buf || errno || !isfinite(*v))
		return -EBADMSG;
	return 0;
}

/* ---- Prometheus text format 0.0.4 ---- */

struct prom_label {
	char name[64];
	char value[256];
};

#define PROM_LABELS_MAX 16

static bool name_char(char c, bool first)
{
	return isalpha((unsigned char)c) || c == '_' || c == ':' || (!first && isdigit((unsigned char)c));
}

/* Labels "{a="x",b="y"}" at *p; advances *p past the '}'. -EBADMSG if malformed. */
static int prom_labels(const char **pp, const char *end, struct prom_label *l, int *n)
{
	const char *p = *pp;

	*n = 0;
	if (p >= end || *p != '{')
		return 0;
	p++;
	for (;;) {
		size_t k = 0, o = 0;
		struct prom_label tmp, *cur = *n < PROM_LABELS_MAX ? &l[*n] : &tmp;

		while (p < end && (*p == ' ' || *p == ','))
			p++;
		if (p < end && *p == '}') {
			*pp = p + 1;
			return 0;
		}
		while (p < end && name_char(*p, k == 0) && k + 1 < sizeof(cur->name))
			cur->name[k++] = *p++;
		cur->name[k] = '\0';
		while (p < end && *p == ' ')
			p++;
		if (k == 0 || p >= end || *p != '=')
			return -EBADMSG;
		p++;
		while (p < end && *p == ' ')
			p++;
		if (p >= end || *p != '"')
			return -EBADMSG;
		for (p++; p < end && *p != '"'; p++) {
			char c = *p;

			if (c == '\\' && p + 1 < end) {
				c = *++p;
				if (c == 'n')
					c = '\n';
			}
			if (o + 1 < sizeof(cur->value))
				cur->value[o++] = c;
		}
		if (p >= end)
			return -EBADMSG;
		cur->value[o] = '\0';
		p++;
		if (*n < PROM_LABELS_MAX)
			(*n)++;
	}
}

/* The wanted series: "NAME" or "NAME{a="x"}". */
static int prom_want(const char *spec, char *name, size_t len, struct prom_label *l, int *n)
{
	size_t k = 0;
	const char *p = spec, *end = spec + strlen(spec);

	while (p < end && name_char(*p, k == 0) && k + 1 < len)
		name[k++] = *p++;
	name[k] = '\0';
	if (k == 0)
		return -EINVAL;
	if (prom_labels(&p, end, l, n) < 0 || p != end)
		return -EINVAL;
	return 0;
}

static bool labels_cover(const struct prom_label *have, int nh, const struct prom_label *want,
			 int nw)
{
	for (int i = 0; i < nw; i++) {
		bool found = false;

		for (int j = 0; j < nh && !found; j++)
			found = !strcmp(want[i].name, have[j].name) && !strcmp(want[i].value, have[j].value);
		if (!found)
			return false;
	}
	return true;
}

int sbm_prom_value(const char *text, size_t len, const char *spec, double *v, char *why,
		   size_t why_len)
{
	struct prom_label want[PROM_LABELS_MAX], have[PROM_LABELS_MAX];
	char name[SBM_NAME_MAX];
	int nw = 0, matched = 0;
	const char *p = text, *end = text + len;
	double sum = 0;

	if (prom_want(spec, name, sizeof(name), want, &nw) < 0) {
		snprintf(why, why_len, "\"%s\" is not a metric name (NAME or NAME{label=\"value\"})", spec);
		return -EINVAL;
	}
	while (p < end) {
		const char *eol = memchr(p, '\n', (size_t)(end - p)), *q = p;
		size_t k = 0;
		char got[SBM_NAME_MAX], num[64], *nend;
		int nh = 0;
		double x;

		if (!eol)
			eol = end;
		p = eol + 1;
		while (q < eol && (*q == ' ' || *q == '\t'))
			q++;
		if (q == eol || *q == '#')
			continue;
		while (q < eol && name_char(*q, k == 0) && k + 1 < sizeof(got))
			got[k++] = *q++;
		got[k] = '\0';
		if (strcmp(got, name))
			continue;
		if (prom_labels(&q, eol, have, &nh) < 0) {
			snprintf(why, why_len, "a sample of %s has malformed labels", name);
			return -EBADMSG;
		}
		if (!labels_cover(have, nh, want, nw))
			continue;
		while (q < eol && (*q == ' ' || *q == '\t'))
			q++;
		for (k = 0; q < eol && *q != ' ' && *q != '\t' && *q != '\r' && k + 1 < sizeof(num); k++)
			num[k] = *q++;
		num[k] = '\0';
		errno = 0;
		x = strtod(num, &nend);
		if (k == 0 || *nend || errno || !isfinite(x)) {
			snprintf(why, why_len, "a sample of %s has no finite value (\"%s\")", name, num);
			return -EBADMSG;
		}
		sum += x;
		matched++;
	}
	if (!matched) {
		snprintf(why, why_len, "no sample named %s", spec);
		return -ENOENT;
	}
	if (!isfinite(sum)) {
		/* each sample finite, their sum not: 1e308 twice */
		snprintf(why, why_len, "the samples of %s sum beyond the range of a number", name);
		return -ERANGE;
	}
	*v = sum;
	return 0;
}

double sbm_mean_finite(const double *x, size_t n)
{
	double s = 0.0;
	size_t m = 0;

	for (size_t i = 0; i < n; i++)
		m += isfinite(x[i]);
	if (!m)
		return NAN;
	/* each term at most its share of the largest: no overflow (1e308 twice) */
	for (size_t i = 0; i < n; i++)
		if (isfinite(x[i]))
			s += x[i] / (double)m;
	return s;
}

/* ---- URLs on this host, fetched with libcurl ---- */

bool sbm_addr_loopback(const struct sockaddr *sa)
{
	if (sa->sa_family == AF_INET)
		return (ntohl(((const struct sockaddr_in *)sa)->sin_addr.s_addr) >> 24) == 127;
	if (sa->sa_family == AF_INET6) {
		const struct in6_addr *a = &((const struct sockaddr_in6 *)sa)->sin6_addr;

		if (IN6_IS_ADDR_LOOPBACK(a))
			return true;
		return IN6_IS_ADDR_V4MAPPED(a) && a->s6_addr[12] == 127;
	}
	return false;
}

/* A loopback literal or "localhost", decided on the name as given (no lookup). */
static bool loopback_name(const char *host)
{
	struct sockaddr_in6 a6 = { .sin6_family = AF_INET6 };
	struct sockaddr_in a4 = { .sin_family = AF_INET };

	return !strcasecmp(host, "localhost") ||
	       (inet_pton(AF_INET, host, &a4.sin_addr) == 1 && sbm_addr_loopback((struct sockaddr *)&a4)) ||
	       (inet_pton(AF_INET6, host, &a6.sin6_addr) == 1 && sbm_addr_loopback((struct sockaddr *)&a6));
}

/* The port as written in url, for a message (curl says only "bad port"). */
static void port_text(const char *url, char *buf, size_t len)
{
	const char *a = strstr(url, "://"), *end, *colon;

	buf[0] = '\0';
	if (!a)
		return;
	a += 3;
	end = a + strcspn(a, "/?#");
	colon = memrchr(a, ':', (size_t)(end - a));
	if (colon && !memchr(colon, ']', (size_t)(end - colon)))
		snprintf(buf, len, "%.*s", (int)(end - colon - 1), colon + 1);
}

static pthread_once_t curl_once = PTHREAD_ONCE_INIT;
static CURLcode curl_init_rc = CURLE_FAILED_INIT;

static void curl_init(void)
{
	curl_init_rc = curl_global_init(CURL_GLOBAL_NOTHING);
}

/* curl's parse of url (the very parse the fetch uses), checked: *cu is the caller's to free. */
static int url_check(const char *url, CURLU **cu, struct sbm_url *u, char *why, size_t why_len)
{
	char *scheme = NULL, *user = NULL, *host = NULL, *port = NULL, *path = NULL, *query = NULL;
	CURLUcode uc;
	size_t hl;
	int r = -EINVAL;

	memset(u, 0, sizeof(*u));
	*cu = NULL;
	pthread_once(&curl_once, curl_init);
	if (curl_init_rc != CURLE_OK) {
		snprintf(why, why_len, "libcurl: %s", curl_easy_strerror(curl_init_rc));
		return -ENOMEM;
	}
	if (strncasecmp(url, "http://", 7)) {
		snprintf(why, why_len, "\"%s\": only http:// URLs of this host", url);
		return -EINVAL;
	}
	if (strlen(url) >= SBM_URL_MAX) {
		snprintf(why, why_len, "\"%.40s...\": longer than %d bytes", url, SBM_URL_MAX - 1);
		return -EINVAL;
	}
	*cu = curl_url();
	if (!*cu)
		return -ENOMEM;
	uc = curl_url_set(*cu, CURLUPART_URL, url, 0);
	if (uc == CURLUE_BAD_PORT_NUMBER) {
		char pt[32];

		port_text(url, pt, sizeof(pt));
		snprintf(why, why_len, "\"%s\": port %s is not in 1-65535", url, pt[0] ? pt : "(none)");
		return -EINVAL;
	}
	if (uc != CURLUE_OK) {
		snprintf(why, why_len, "\"%s\": %s", url, curl_url_strerror(uc));
		return -EINVAL;
	}
	if (curl_url_get(*cu, CURLUPART_SCHEME, &scheme, 0) || strcmp(scheme, "http")) {
		snprintf(why, why_len, "\"%s\": only http:// URLs of this host", url);
		goto out;
	}
	if (curl_url_get(*cu, CURLUPART_USER, &user, 0) != CURLUE_NO_USER ||
	    curl_url_get(*cu, CURLUPART_HOST, &host, 0) || !host[0]) {
		snprintf(why, why_len, "\"%s\": no host (user names are not taken)", url);
		goto out;
	}
	/* an IPv6 literal comes back in brackets */
	hl = strlen(host);
	if (host[0] == '[' && hl > 2 && host[hl - 1] == ']')
		snprintf(u->host, sizeof(u->host), "%.*s", (int)(hl - 2), host + 1);
	else
		snprintf(u->host, sizeof(u->host), "%s", host);
	switch (curl_url_get(*cu, CURLUPART_PORT, &port, 0)) {
	case CURLUE_OK:
		u->port = (unsigned)strtoul(port, NULL, 10);
		break;
	case CURLUE_NO_PORT:
		u->port = 80;
		break;
	default:
		snprintf(why, why_len, "\"%s\": bad port", url);
		goto out;
	}
	/* curl takes 0; a port is 1-65535 (no wrap: 99999 is not 34463) */
	if (u->port < 1 || u->port > 65535) {
		snprintf(why, why_len, "\"%s\": port %u is not in 1-65535", url, u->port);
		goto out;
	}
	/* decided on the name as curl reads it, before any lookup (no DNS query for another host) */
	if (!loopback_name(u->host)) {
		snprintf(why, why_len, "%s is not this host (localhost or a loopback address): refused",
			 u->host);
		r = -EPERM;
		goto out;
	}
	if (curl_url_get(*cu, CURLUPART_PATH, &path, 0) != CURLUE_OK)
		goto out;
	if (curl_url_get(*cu, CURLUPART_QUERY, &query, 0) != CURLUE_OK)
		query = NULL;
	if ((size_t)snprintf(u->path, sizeof(u->path), "%s%s%s", path, query ? "?" : "",
			     query ? query : "") >= sizeof(u->path))
		goto out;
	for (const char *c = u->path; *c; c++)
		if ((unsigned char)*c <= ' ' || *c == 0x7f) {
			snprintf(why, why_len, "\"%s\": a blank or control character in the path", url);
			goto out;
		}
	r = 0;
out:
	if (r == -EINVAL && !why[0])
		snprintf(why, why_len, "\"%s\": not a URL of this host", url);
	curl_free(scheme);
	curl_free(user);
	curl_free(host);
	curl_free(port);
	curl_free(path);
	curl_free(query);
	if (r < 0) {
		curl_url_cleanup(*cu);
		*cu = NULL;
	}
	return r;
}

int sbm_url_parse(const char *url, struct sbm_url *u, char *why, size_t why_len)
{
	CURLU *cu;
	int r;

	if (why_len)
		why[0] = '\0';
	r = url_check(url, &cu, u, why, why_len);
	curl_url_cleanup(cu);
	return r;
}

struct fetch {
	char *buf;
	size_t len, cap;
	bool too_large, refused;
	char refused_addr[INET6_ADDRSTRLEN];
};

static size_t fetch_write(char *data, size_t size, size_t n, void *arg)
{
	struct fetch *f = arg;
	size_t add = size * n;

	if (add > HTTP_MAX - f->len) {
		f->too_large = true;
		return 0;	/* curl stops: CURLE_WRITE_ERROR */
	}
	if (f->len + add + 1 > f->cap) {
		size_t cap = f->cap ? f->cap : 65536;
		char *nb;

		while (cap < f->len + add + 1)
			cap *= 2;
		nb = realloc(f->buf, cap);
		if (!nb)
			return 0;
		f->buf = nb;
		f->cap = cap;
	}
	memcpy(f->buf + f->len, data, add);
	f->len += add;
	f->buf[f->len] = '\0';
	return add;
}

/* Every socket curl opens: to a loopback address, as resolved, or none at all. */
static curl_socket_t fetch_socket(void *arg, curlsocktype purpose, struct curl_sockaddr *a)
{
	struct fetch *f = arg;

	if (purpose != CURLSOCKTYPE_IPCXN || !sbm_addr_loopback(&a->addr)) {
		const void *in = a->family == AF_INET6 ? (const void *)&((struct sockaddr_in6 *)&a->addr)->sin6_addr
						      : (const void *)&((struct sockaddr_in *)&a->addr)->sin_addr;

		f->refused = true;
		if (!inet_ntop(a->family, in, f->refused_addr, sizeof(f->refused_addr)))
			snprintf(f->refused_addr, sizeof(f->refused_addr), "?");
		return CURL_SOCKET_BAD;
	}
	return socket(a->family, a->socktype | SOCK_CLOEXEC, a->protocol);
}

int sbm_http_get(const struct sbm_http_req *q, char **body, size_t *blen, char *why, size_t why_len)
{
	struct sbm_url u;
	struct fetch f = { 0 };
	struct curl_slist *hdr = NULL, *pin = NULL;
	char err[CURL_ERROR_SIZE] = "";
	long code = 0;
	CURLU *cu;
	CURL *c;
	CURLcode rc;
	int r;

	if (why_len)
		why[0] = '\0';
	if ((r = url_check(q->url, &cu, &u, why, why_len)) < 0)
		return r;
	c = curl_easy_init();
	hdr = curl_slist_append(NULL, "Accept: text/plain;version=0.0.4");
	if (q->pin)
		pin = curl_slist_append(NULL, q->pin);
	if (!c || !hdr || (q->pin && !pin)) {
		r = -ENOMEM;
		goto out;
	}
	curl_easy_setopt(c, CURLOPT_CURLU, cu);
	curl_easy_setopt(c, CURLOPT_PROTOCOLS_STR, "http");
	curl_easy_setopt(c, CURLOPT_REDIR_PROTOCOLS_STR, "http");
	curl_easy_setopt(c, CURLOPT_FOLLOWLOCATION, 0L);
	/* http_proxy in the caller's environment must not carry the request elsewhere */
	curl_easy_setopt(c, CURLOPT_NOPROXY, "*");
	curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(c, CURLOPT_TIMEOUT_MS, (long)(q->timeout_s * 1000) + 1);
	curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT_MS, (long)(q->timeout_s * 1000) + 1);
	curl_easy_setopt(c, CURLOPT_MAXFILESIZE_LARGE, (curl_off_t)HTTP_MAX);
	curl_easy_setopt(c, CURLOPT_OPENSOCKETFUNCTION, fetch_socket);
	curl_easy_setopt(c, CURLOPT_OPENSOCKETDATA, &f);
	curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, fetch_write);
	curl_easy_setopt(c, CURLOPT_WRITEDATA, &f);
	curl_easy_setopt(c, CURLOPT_HTTPHEADER, hdr);
	curl_easy_setopt(c, CURLOPT_USERAGENT, "swaptune/" SWAPTUNE_VERSION);
	curl_easy_setopt(c, CURLOPT_ERRORBUFFER, err);
	curl_easy_setopt(c, CURLOPT_NETRC, (long)CURL_NETRC_IGNORED);
	if (pin)
		curl_easy_setopt(c, CURLOPT_RESOLVE, pin);
	rc = curl_easy_perform(c);
	curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &code);
	if (f.refused) {
		snprintf(why, why_len, "%s resolves to %s, not this host (a loopback address): refused",
			 u.host, f.refused_addr);
		r = -EPERM;
	} else if (f.too_large || rc == CURLE_FILESIZE_EXCEEDED) {
		snprintf(why, why_len, "%s: the answer is larger than %d MiB", q->url, HTTP_MAX >> 20);
		r = -EFBIG;
	} else if (rc == CURLE_OPERATION_TIMEDOUT) {
		snprintf(why, why_len, "%s: no answer within the timeout (%g s)", q->url, q->timeout_s);
		r = -ETIMEDOUT;
	} else if (rc != CURLE_OK) {
		snprintf(why, why_len, "%s: %s", q->url, err[0] ? err : curl_easy_strerror(rc));
		r = rc == CURLE_COULDNT_CONNECT ? -ECONNREFUSED : rc == CURLE_OUT_OF_MEMORY ? -ENOMEM : -EIO;
	} else if (code != 200) {
		/* a redirect is not followed: 3xx is an answer like any other but 200 */
		snprintf(why, why_len, "%s answered HTTP %ld, not 200", q->url, code);
		r = -EIO;
	} else {
		if (!f.buf)
			f.buf = calloc(1, 1);
		if (!f.buf) {
			r = -ENOMEM;
			goto out;
		}
		*body = f.buf;
		*blen = f.len;
		f.buf = NULL;
		r = 0;
	}
out:
	free(f.buf);
	curl_slist_free_all(hdr);
	curl_slist_free_all(pin);
	if (c)
		curl_easy_cleanup(c);
	curl_url_cleanup(cu);
	return r;
}

/* ---- the readers ---- */

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int file_value(const struct sbm_spec *m, double *v, char *why, size_t why_len)
{
	struct stat sb;
	char *buf;
	ssize_t n, got = 0;
	int fd = open(m->path, O_RDONLY | O_NONBLOCK | O_CLOEXEC), r;

	if (fd < 0) {
		r = -errno;
		snprintf(why, why_len, "%s: %s", m->path, strerror(errno));
		return r;
	}
	if (fstat(fd, &sb) < 0 || !S_ISREG(sb.st_mode)) {
		close(fd);
		snprintf(why, why_len, "%s: not an ordinary file", m->path);
		return -EINVAL;
	}
	buf = malloc(FILE_MAX + 1);
	if (!buf) {
		close(fd);
		return -ENOMEM;
	}
	while (got < FILE_MAX && (n = read(fd, buf + got, (size_t)(FILE_MAX - got))) != 0) {
		if (n < 0) {
			if (errno == EINTR)
				continue;
			r = -errno;
			snprintf(why, why_len, "%s: %s", m->path, strerror(errno));
			close(fd);
			free(buf);
			return r;
		}
		got += n;
	}
	/* one byte more than the limit: an error, never the number its first MiB holds */
	if (got == FILE_MAX) {
		char extra;

		while ((n = read(fd, &extra, 1)) < 0 && errno == EINTR)
			;
		if (n > 0) {
			close(fd);
			free(buf);
			snprintf(why, why_len, "%s: larger than %d MiB", m->path, FILE_MAX / (1024 * 1024));
			return -EFBIG;
		}
	}
	close(fd);
	buf[got] = '\0';
	if (m->name[0])
		r = sbm_prom_value(buf, (size_t)got, m->name, v, why, why_len);
	else if ((r = sbm_parse_number(buf, (size_t)got, v)) < 0)
		snprintf(why, why_len, "%s does not hold a number alone", m->path);
	free(buf);
	return r;
}

int sbm_sample_value(const struct sbm_spec *m, double *v, char *why, size_t why_len)
{
	char *body = NULL;
	size_t len = 0;
	int r;

	if (m->source == SBM_FILE)
		return file_value(m, v, why, why_len);
	if (m->source != SBM_PROM) {
		snprintf(why, why_len, "not a sampled metric");
		return -EINVAL;
	}
	r = sbm_http_get(&(struct sbm_http_req){ .url = m->url, .timeout_s = m->timeout_s }, &body, &len,
			 why, why_len);
	if (r < 0)
		return r;
	r = sbm_prom_value(body, len, m->name, v, why, why_len);
	free(body);
	return r;
}

bool sbm_cmd_findable(const char *prog)
{
	char dirs[] = SBM_CMD_PATH, path[PATH_MAX], *save = NULL;

	if (strchr(prog, '/'))
		return access(prog, X_OK) == 0;
	for (char *d = strtok_r(dirs, ":", &save); d; d = strtok_r(NULL, ":", &save)) {
		snprintf(path, sizeof(path), "%s/%s", d, prog);
		if (access(path, X_OK) == 0)
			return true;
	}
	return false;
}

static void put_env(const char *name, double v)
{
	char b[64];

	snprintf(b, sizeof(b), "%.3f", v);
	setenv(name, b, 1);
}

static void child_exec(char **argv, const struct sbm_window_env *w, int out, int err)
{
	char b[32];
	int nul = open("/dev/null", O_RDONLY | O_CLOEXEC);

	setpgid(0, 0);
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	signal(SIGINT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	signal(SIGHUP, SIG_DFL);
	signal(SIGPIPE, SIG_DFL);
	if (nul >= 0)
		dup2(nul, STDIN_FILENO);
	dup2(out, STDOUT_FILENO);
	dup2(err, STDERR_FILENO);
	/* nothing of swaptune's (the store, the host lock) reaches the command */
	close_range(3, ~0U, 0);
	/* nor the caller's environment (LD_PRELOAD, PATH): only what the header names */
	{
		static const char *const keep[] = { "HOME", "LANG", "LC_ALL", "TZ" };
		char *kept[4];

		for (int i = 0; i < 4; i++) {
			const char *val = getenv(keep[i]);

			kept[i] = val ? strdup(val) : NULL;
		}
		clearenv();
		for (int i = 0; i < 4; i++)
			if (kept[i])
				setenv(keep[i], kept[i], 1);
		setenv("PATH", SBM_CMD_PATH, 1);
	}
	snprintf(b, sizeof(b), "%u", w->index);
	setenv("SWAPTUNE_WINDOW", b, 1);
	snprintf(b, sizeof(b), "%u", w->block);
	setenv("SWAPTUNE_BLOCK", b, 1);
	put_env("SWAPTUNE_WINDOW_START", w->start_unix);
	put_env("SWAPTUNE_COUNT_START", w->count_start_unix);
	put_env("SWAPTUNE_WINDOW_END", w->end_unix);
	execvp(argv[0], argv);
	dprintf(STDERR_FILENO, "cannot run %s: %s\n", argv[0], strerror(errno));
	_exit(127);
}

/* What a command wrote on one pipe: the first cap - 1 bytes are kept, the rest read and dropped. */
struct capture {
	char *buf;
	size_t len, cap;
};

/* Read both pipes until both close, the deadline or a stop; 0, -ETIMEDOUT or -EINTR. */
static int drain(int fo, int fe, struct capture *out, struct capture *err, double deadline,
		 volatile sig_atomic_t *stop)
{
	struct pollfd pf[2] = { { .fd = fo, .events = POLLIN }, { .fd = fe, .events = POLLIN } };

	while (pf[0].fd >= 0 || pf[1].fd >= 0) {
		double left = deadline - now_s();
		int r;

		if (stop_requested(stop))
			return -EINTR;
		if (left <= 0)
			return -ETIMEDOUT;
		/* short polls: a stop is seen within 100 ms */
		r = poll(pf, 2, left > 0.1 ? 100 : (int)(left * 1000) + 1);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return -errno;
		for (int i = 0; i < 2; i++) {
			char tmp[4096];
			struct capture *c = i ? err : out;
			ssize_t n;

			if (pf[i].fd < 0 || !(pf[i].revents & (POLLIN | POLLHUP | POLLERR)))
				continue;
			n = read(pf[i].fd, tmp, sizeof(tmp));
			if (n <= 0) {
				if (n < 0 && errno == EINTR)
					continue;
				pf[i].fd = -1;
				continue;
			}
			for (ssize_t k = 0; k < n; k++)
				if (c->len + 1 < c->cap)
					c->buf[c->len++] = tmp[k];
		}
	}
	return 0;
}

static void last_line(const char *s, size_t n, char *buf, size_t len)
{
	while (n && (s[n - 1] == '\n' || s[n - 1] == ' '))
		n--;
	size_t a = n;

	while (a && s[a - 1] != '\n')
		a--;
	snprintf(buf, len, "%.*s", (int)(n - a), s + a);
	for (char *c = buf; *c; c++)
		if ((unsigned char)*c < ' ')
			*c = ' ';
}

int sbm_cmd_value(const struct sbm_spec *m, const struct sbm_window_env *w, double *v, char *why,
		  size_t why_len)
{
	char words[SBM_CMD_MAX + 1], *argv[SBM_ARGV_MAX], *out, err[1024], tail[200];
	int po[2], pe[2], status = 0, r;
	size_t olen = 0, elen = 0;
	double deadline;
	pid_t pid;

	if ((r = sbm_split_argv(m->cmd, words, sizeof(words), argv, why, why_len)) < 0)
		return r;
	out = malloc(OUT_MAX);
	if (!out)
		return -ENOMEM;
	if (pipe2(po, O_CLOEXEC) < 0 || pipe2(pe, O_CLOEXEC) < 0) {
		r = -errno;
		free(out);
		snprintf(why, why_len, "pipe: %s", strerror(-r));
		return r;
	}
	pid = fork();
	if (pid == 0)
		child_exec(argv, w, po[1], pe[1]);
	close(po[1]);
	close(pe[1]);
	if (pid < 0) {
		r = -errno;
		close(po[0]);
		close(pe[0]);
		free(out);
		snprintf(why, why_len, "fork: %s", strerror(-r));
		return r;
	}
	deadline = now_s() + m->timeout_s;
	struct capture oc = { out, 0, OUT_MAX }, ec = { err, 0, sizeof(err) };

	r = drain(po[0], pe[0], &oc, &ec, deadline, w->stop);
	olen = oc.len;
	elen = ec.len;
	close(po[0]);
	close(pe[0]);
	/* pipes closed is not exited: the deadline holds until the command is reaped */
	while (r == 0) {
		pid_t got = waitpid(pid, &status, WNOHANG);

		if (got == pid)
			break;
		if (got < 0 && errno != EINTR) {
			r = -errno;
			break;
		}
		if (stop_requested(w->stop))
			r = -EINTR;
		else if (now_s() >= deadline)
			r = -ETIMEDOUT;
		else
			usleep(10000);
	}
	if (r < 0) {
		kill(-pid, SIGKILL);
		kill(pid, SIGKILL);
		while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
			;
	}
	last_line(err, elen, tail, sizeof(tail));
	if (r == -ETIMEDOUT)
		snprintf(why, why_len, "the metric command took longer than %g s (killed)", m->timeout_s);
	else if (r == -EINTR)
		snprintf(why, why_len, "the metric command was stopped (killed)");
	else if (r < 0)
		snprintf(why, why_len, "the metric command: %s", strerror(-r));
	else if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
		r = -EIO;
		if (WIFEXITED(status))
			snprintf(why, why_len, "the metric command exited %d%s%s", WEXITSTATUS(status),
				 tail[0] ? ": " : "", tail);
		else
			snprintf(why, why_len, "the metric command was killed by signal %d",
				 WTERMSIG(status));
	} else if (sbm_parse_number(out, olen, v) < 0) {
		r = -EBADMSG;
		last_line(out, olen, tail, sizeof(tail));
		snprintf(why, why_len, "the metric command printed no number alone (\"%s\")", tail);
	}
	free(out);
	return r;
}
