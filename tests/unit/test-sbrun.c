/*
 * test-sbrun.c - around `swaptune switchback` (sbrun.h): the metric parsers
 * (command words, a number alone, Prometheus text, URLs of this host), the
 * slices of a window, the analysis input from windows (complete blocks
 * only, failures as outcomes), and a switchback run through the store and
 * back (store-switchback.c, sb-judge.c): judged as it was written, and
 * refused when what was read back does not fit its plan.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "fixture-util.h"
#include "../../src/sb-int.h"
#include "../../src/store-int.h"

#include "swaptune/advice.h"
#include "swaptune/sbrun.h"

/* ---- parsers ---- */

static void test_split_argv(void **state)
{
	char buf[256], why[128], *argv[SBM_ARGV_MAX];

	(void)state;
	assert_int_equal(sbm_split_argv("awk -f x.awk  log", buf, sizeof(buf), argv, why, sizeof(why)), 0);
	assert_string_equal(argv[0], "awk");
	assert_string_equal(argv[1], "-f");
	assert_string_equal(argv[3], "log");
	assert_null(argv[4]);
	assert_int_equal(sbm_split_argv("sh -c 'echo $X \"a\"' \"b c\" d\\ e", buf, sizeof(buf), argv, why,
					sizeof(why)), 0);
	assert_string_equal(argv[2], "echo $X \"a\"");	/* no expansion of any kind */
	assert_string_equal(argv[3], "b c");
	assert_string_equal(argv[4], "d e");
	assert_int_equal(sbm_split_argv("sh -c 'open", buf, sizeof(buf), argv, why, sizeof(why)), -EINVAL);
	assert_non_null(strstr(why, "not closed"));
	assert_int_equal(sbm_split_argv("   ", buf, sizeof(buf), argv, why, sizeof(why)), -EINVAL);
	assert_int_equal(sbm_split_argv("a b c d e f", buf, 6, argv, why, sizeof(why)), -EINVAL);
}

static void test_parse_number(void **state)
{
	double v;

	(void)state;
	assert_int_equal(sbm_parse_number(" 1582.25\n", 9, &v), 0);
	assert_true(fabs(v - 1582.25) < 1e-9);
	assert_int_equal(sbm_parse_number("-3e2", 4, &v), 0);
	assert_true(v == -300);
	assert_int_equal(sbm_parse_number("12 tps", 6, &v), -EBADMSG);
	assert_int_equal(sbm_parse_number("", 0, &v), -EBADMSG);
	assert_int_equal(sbm_parse_number("nan", 3, &v), -EBADMSG);
	assert_int_equal(sbm_parse_number("inf", 3, &v), -EBADMSG);
	assert_int_equal(sbm_parse_number("1\n2\n", 4, &v), -EBADMSG);
}

static const char prom[] =
	"# HELP pg_xact_commit_total commits\n"
	"# TYPE pg_xact_commit_total counter\n"
	"pg_xact_commit_total{db=\"postgres\",server=\"a\"} 1500\n"
	"pg_xact_commit_total{db=\"other\",server=\"a\"} 25 1700000000000\n"
	"pg_xact_commit_total_created 1.7e9\n"
	"http_requests_total{path=\"/a \\\"b\\\"\"} 7\n"
	"weird_total NaN\n";

static void test_prom(void **state)
{
	char why[200];
	double v;

	(void)state;
	assert_int_equal(sbm_prom_value(prom, strlen(prom), "pg_xact_commit_total", &v, why, sizeof(why)), 0);
	assert_true(v == 1525);	/* every label set, summed; the timestamp is not the value */
	assert_int_equal(sbm_prom_value(prom, strlen(prom), "pg_xact_commit_total{db=\"postgres\"}", &v, why,
					sizeof(why)), 0);
	assert_true(v == 1500);
	assert_int_equal(sbm_prom_value(prom, strlen(prom), "http_requests_total{path=\"/a \\\"b\\\"\"}", &v,
					why, sizeof(why)), 0);
	assert_true(v == 7);
	assert_int_equal(sbm_prom_value(prom, strlen(prom), "pg_xact_commit_total{db=\"none\"}", &v, why,
					sizeof(why)), -ENOENT);
	assert_int_equal(sbm_prom_value(prom, strlen(prom), "weird_total", &v, why, sizeof(why)), -EBADMSG);
	assert_int_equal(sbm_prom_value(prom, strlen(prom), "9bad", &v, why, sizeof(why)), -EINVAL);
	assert_int_equal(sbm_prom_value("x{a=\"1\" 3\n", 10, "x", &v, why, sizeof(why)), -EBADMSG);
	/* finite samples whose sum is not: refused, not inf */
	assert_int_equal(sbm_prom_value("big{a=\"1\"} 1e308\nbig{a=\"2\"} 1e308\n", 34, "big", &v, why,
					sizeof(why)), -ERANGE);
	assert_non_null(strstr(why, "sum beyond"));
}

/* a gauge's window mean: finite samples only, and no overflow (1e308 twice) */
static void test_mean_finite(void **state)
{
	const double big[] = { 1e308, 1e308 }, mixed[] = { 1e308, NAN, -1e308, INFINITY },
		     plain[] = { 1, 2, 3, 6 }, none[] = { NAN, NAN };

	(void)state;
	assert_true(sbm_mean_finite(big, 2) == 1e308);
	assert_true(sbm_mean_finite(mixed, 4) == 0.0);
	assert_true(sbm_mean_finite(plain, 4) == 3.0);
	assert_true(isnan(sbm_mean_finite(none, 2)));
	assert_true(isnan(sbm_mean_finite(plain, 0)));
}

static double mono_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static int url(const char *text, struct sbm_url *u)
{
	char why[200];

	return sbm_url_parse(text, u, why, sizeof(why));
}

static void test_url(void **state)
{
	struct sbm_url u;
	char why[200];

	(void)state;
	assert_int_equal(url("http://127.0.0.1:9187/metrics", &u), 0);
	assert_string_equal(u.host, "127.0.0.1");
	assert_int_equal(u.port, 9187);
	assert_string_equal(u.path, "/metrics");
	assert_int_equal(url("http://[::1]/", &u), 0);
	assert_string_equal(u.host, "::1");
	assert_int_equal(u.port, 80);
	assert_int_equal(url("http://localhost/m?a=1", &u), 0);
	assert_string_equal(u.path, "/m?a=1");
	assert_int_equal(url("https://localhost/m", &u), -EINVAL);
	assert_int_equal(url("ftp://localhost/m", &u), -EINVAL);
	assert_int_equal(url("http://u@localhost/m", &u), -EINVAL);
	assert_int_equal(url("http://localhost:9x/m", &u), -EINVAL);
	assert_int_equal(url("http://localhost/a b", &u), -EINVAL);
	/* issue 33, 9: the port's range, and the host decided before any lookup */
	assert_int_equal(sbm_url_parse("http://localhost:99999/m", &u, why, sizeof(why)), -EINVAL);
	assert_non_null(strstr(why, "port 99999 is not in 1-65535"));
	assert_int_equal(sbm_url_parse("http://localhost:0/m", &u, why, sizeof(why)), -EINVAL);
	assert_non_null(strstr(why, "port 0 is not in 1-65535"));
	assert_int_equal(url("http://localhost:65535/m", &u), 0);
	assert_int_equal(url("http://example.com/m", &u), -EPERM);
	assert_int_equal(url("http://192.0.2.1:9/m", &u), -EPERM);
	assert_int_equal(url("http://127.0.0.2:9/m", &u), 0);
	assert_int_equal(url("http://[::ffff:127.0.0.1]:9/m", &u), 0);
	/* what curl reads as 127.0.0.1 is checked as curl reads it */
	assert_int_equal(url("http://0x7f000001:9/m", &u), 0);
	assert_string_equal(u.host, "127.0.0.1");
	assert_int_equal(url("http://0xc0000201:9/m", &u), -EPERM);
}

/* A metric read from an address that is not this host is refused before connecting. */
static void test_prom_not_loopback(void **state)
{
	struct sbm_spec m;
	char why[200];
	double v;

	(void)state;
	sbm_spec_init(&m, SBM_PROM);
	snprintf(m.url, sizeof(m.url), "http://192.0.2.1:9/metrics");
	snprintf(m.name, sizeof(m.name), "x");
	assert_int_equal(sbm_sample_value(&m, &v, why, sizeof(why)), -EPERM);
	assert_non_null(strstr(why, "not this host"));
}

/*
 * A canned HTTP server on 127.0.0.1 (a child): up to conns connections, each
 * answered with reply after delay_ms, the request read first; it exits when
 * no connection comes for idle_ms, its status the connections it served.
 */
struct canned {
	const char *reply;
	size_t len;
	int delay_ms, conns, idle_ms;
};

static int serve(const struct canned *c, pid_t *pid)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t al = sizeof(a);
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

	assert_true(fd >= 0);
	assert_int_equal(bind(fd, (struct sockaddr *)&a, sizeof(a)), 0);
	assert_int_equal(listen(fd, 4), 0);
	assert_int_equal(getsockname(fd, (struct sockaddr *)&a, &al), 0);
	*pid = fork();
	assert_true(*pid >= 0);
	if (*pid == 0) {
		int served = 0;

		signal(SIGPIPE, SIG_IGN);
		alarm(30);
		while (served < c->conns) {
			struct pollfd pf = { .fd = fd, .events = POLLIN };
			char req[4096];
			size_t got = 0, off = 0;
			int s;

			if (poll(&pf, 1, c->idle_ms ? c->idle_ms : 5000) <= 0)
				break;
			s = accept(fd, NULL, NULL);
			if (s < 0)
				continue;
			served++;
			while (got + 1 < sizeof(req)) {
				ssize_t n = read(s, req + got, sizeof(req) - 1 - got);

				if (n <= 0)
					break;
				got += (size_t)n;
				req[got] = '\0';
				if (strstr(req, "\r\n\r\n"))
					break;
			}
			usleep((useconds_t)c->delay_ms * 1000);
			while (off < c->len) {
				ssize_t n = write(s, c->reply + off, c->len - off);

				if (n <= 0)
					break;
				off += (size_t)n;
			}
			close(s);
		}
		_exit(served);
	}
	close(fd);
	return ntohs(a.sin_port);
}

/* the connections the server served (it is stopped if still waiting) */
static int served(pid_t pid, bool stop)
{
	int st = 0;

	if (stop)
		kill(pid, SIGTERM);
	waitpid(pid, &st, 0);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static int fetch(int port, const char *path, double timeout_s, const char *pin, double *v, char *why,
		 size_t why_len)
{
	char u[128];
	struct sbm_spec m;
	char *body = NULL;
	size_t len = 0;
	int r;

	snprintf(u, sizeof(u), "http://localhost:%d%s", port, path);
	r = sbm_http_get(&(struct sbm_http_req){ .url = u, .timeout_s = timeout_s, .pin = pin }, &body, &len,
			 why, why_len);
	if (r < 0)
		return r;
	sbm_spec_init(&m, SBM_PROM);
	r = sbm_prom_value(body, len, "tps", v, why, why_len);
	free(body);
	return r;
}

#define OK_HEAD "HTTP/1.1 200 OK\r\nContent-Type: text/plain; version=0.0.4\r\n"

/* The endpoint through libcurl: what a Prometheus exporter may answer, and what it must not get away with. */
static void test_http(void **state)
{
	static const char plain[] = OK_HEAD "Content-Length: 10\r\n\r\ntps 12345\n";
	/* an HTTP/1.1 server may chunk: the value is cut across two chunks */
	static const char chunked[] = OK_HEAD "Transfer-Encoding: chunked\r\n\r\n"
				      "6\r\ntps 12\r\n4\r\n345\n\r\n0\r\n\r\n";
	static const char not_found[] = "HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n";
	struct canned c = { .conns = 1 };
	char why[300], redirect[256], *big;
	double v = 0, t0;
	pid_t pid, pid2;
	int port, port2;

	(void)state;
	c.reply = plain;
	c.len = sizeof(plain) - 1;
	port = serve(&c, &pid);
	assert_int_equal(fetch(port, "/metrics", 2, NULL, &v, why, sizeof(why)), 0);
	assert_true(v == 12345);
	assert_int_equal(served(pid, false), 1);

	c.reply = chunked;
	c.len = sizeof(chunked) - 1;
	port = serve(&c, &pid);
	assert_int_equal(fetch(port, "/metrics", 2, NULL, &v, why, sizeof(why)), 0);
	assert_true(v == 12345);
	served(pid, false);

	c.reply = not_found;
	c.len = sizeof(not_found) - 1;
	port = serve(&c, &pid);
	assert_int_equal(fetch(port, "/metrics", 2, NULL, &v, why, sizeof(why)), -EIO);
	assert_non_null(strstr(why, "HTTP 404"));
	served(pid, false);

	/* a redirect is not followed, not even to this host */
	c.reply = plain;
	c.len = sizeof(plain) - 1;
	c.idle_ms = 1500;
	port2 = serve(&c, &pid2);
	snprintf(redirect, sizeof(redirect), "HTTP/1.1 302 Found\r\nLocation: http://127.0.0.1:%d/metrics\r\n"
		 "Content-Length: 0\r\n\r\n", port2);
	c.reply = redirect;
	c.len = strlen(redirect);
	c.idle_ms = 0;
	port = serve(&c, &pid);
	assert_int_equal(fetch(port, "/", 2, NULL, &v, why, sizeof(why)), -EIO);
	assert_non_null(strstr(why, "HTTP 302"));
	served(pid, false);
	assert_int_equal(served(pid2, false), 0);

	/* an answer beyond 4 MiB, with no length announced: cut, an error */
	big = malloc(6 << 20);
	assert_non_null(big);
	memset(big, '#', 6 << 20);
	memcpy(big, OK_HEAD "\r\n", strlen(OK_HEAD "\r\n"));
	c.reply = big;
	c.len = 6 << 20;
	port = serve(&c, &pid);
	assert_int_equal(fetch(port, "/metrics", 5, NULL, &v, why, sizeof(why)), -EFBIG);
	assert_non_null(strstr(why, "larger than 4 MiB"));
	served(pid, false);
	free(big);

	/* a server that does not answer: the whole exchange within the timeout */
	c.reply = plain;
	c.len = sizeof(plain) - 1;
	c.delay_ms = 4000;
	port = serve(&c, &pid);
	t0 = mono_s();
	assert_int_equal(fetch(port, "/metrics", 0.5, NULL, &v, why, sizeof(why)), -ETIMEDOUT);
	assert_true(mono_s() - t0 < 2.0);
	served(pid, true);
}

/*
 * The loopback check holds on the address a name resolves to, not only on
 * the name: localhost pinned to 192.0.2.1 (as an /etc/hosts could) is
 * refused without a connection; pinned to 127.0.0.1 it is read.
 */
static void test_http_resolved(void **state)
{
	static const char plain[] = OK_HEAD "Content-Length: 10\r\n\r\ntps 12345\n";
	struct canned c = { .reply = plain, .len = sizeof(plain) - 1, .conns = 1, .idle_ms = 1500 };
	char why[300], pin[64];
	double v = 0;
	pid_t pid;
	int port = serve(&c, &pid);

	(void)state;
	snprintf(pin, sizeof(pin), "localhost:%d:192.0.2.1", port);
	assert_int_equal(fetch(port, "/metrics", 2, pin, &v, why, sizeof(why)), -EPERM);
	assert_non_null(strstr(why, "resolves to 192.0.2.1, not this host"));
	snprintf(pin, sizeof(pin), "localhost:%d:127.0.0.1", port);
	assert_int_equal(fetch(port, "/metrics", 2, pin, &v, why, sizeof(why)), 0);
	assert_true(v == 12345);
	assert_int_equal(served(pid, false), 1);
}

static void test_cmd_value(void **state)
{
	struct sbm_spec m;
	struct sbm_window_env w = { .index = 4, .block = 2, .start_unix = 100, .count_start_unix = 115,
				    .end_unix = 130 };
	char why[300];
	double v;

	(void)state;
	sbm_spec_init(&m, SBM_CMD);
	snprintf(m.cmd, sizeof(m.cmd), "sh -c 'echo $((${SWAPTUNE_WINDOW_END%%.*} - ${SWAPTUNE_COUNT_START%%.*} + $SWAPTUNE_WINDOW))'");
	assert_int_equal(sbm_cmd_value(&m, &w, &v, why, sizeof(why)), 0);
	assert_true(v == 19);	/* the counted part (15 s) and the window's index reach the command */
	snprintf(m.cmd, sizeof(m.cmd), "sh -c 'echo no >&2; exit 4'");
	assert_int_equal(sbm_cmd_value(&m, &w, &v, why, sizeof(why)), -EIO);
	assert_non_null(strstr(why, "exited 4: no"));
	snprintf(m.cmd, sizeof(m.cmd), "echo 12 tps");
	assert_int_equal(sbm_cmd_value(&m, &w, &v, why, sizeof(why)), -EBADMSG);
	m.timeout_s = 0.3;
	snprintf(m.cmd, sizeof(m.cmd), "sleep 5");
	assert_int_equal(sbm_cmd_value(&m, &w, &v, why, sizeof(why)), -ETIMEDOUT);
	snprintf(m.cmd, sizeof(m.cmd), "/nonexistent/prog");
	assert_int_equal(sbm_cmd_value(&m, &w, &v, why, sizeof(why)), -EIO);
}

/* The deadline holds after the command closed its pipes, and a stop ends the wait (issue 33, 3). */
static void test_cmd_deadline(void **state)
{
	struct sbm_spec m;
	volatile sig_atomic_t stop = 0;
	struct sbm_window_env w = { .index = 1 };
	char why[300];
	double v, t0;

	(void)state;
	sbm_spec_init(&m, SBM_CMD);
	m.timeout_s = 0.5;
	snprintf(m.cmd, sizeof(m.cmd), "sh -c 'exec >&- 2>&-; sleep 4'");
	t0 = mono_s();
	assert_int_equal(sbm_cmd_value(&m, &w, &v, why, sizeof(why)), -ETIMEDOUT);
	assert_true(mono_s() - t0 < 2.0);
	assert_non_null(strstr(why, "longer than 0.5 s (killed)"));

	/* a stop asked for before the deadline ends the wait at once */
	m.timeout_s = 10;
	stop = SIGINT;
	w.stop = &stop;
	t0 = mono_s();
	assert_int_equal(sbm_cmd_value(&m, &w, &v, why, sizeof(why)), -EINTR);
	assert_true(mono_s() - t0 < 2.0);
	assert_non_null(strstr(why, "stopped"));
}

/* The command's environment is the documented one: no LD_PRELOAD, a fixed PATH. */
static void test_cmd_environment(void **state)
{
	struct sbm_spec m;
	struct sbm_window_env w = { .index = 1 };
	char why[300];
	double v;

	(void)state;
	sbm_spec_init(&m, SBM_CMD);
	setenv("SWAPTUNE_TEST_SECRET", "1", 1);
	setenv("PATH", "/nonexistent:/usr/bin:/bin", 1);
	snprintf(m.cmd, sizeof(m.cmd),
		 "/bin/sh -c 'test -z \"$SWAPTUNE_TEST_SECRET\" && test \"$PATH\" = " SBM_CMD_PATH " && echo 7'");
	assert_int_equal(sbm_cmd_value(&m, &w, &v, why, sizeof(why)), 0);
	assert_true(v == 7);
	unsetenv("SWAPTUNE_TEST_SECRET");
}

/* A metric file beyond 1 MiB is an error, not the number its first MiB holds (issue 33, 4). */
static void test_file_too_large(void **state)
{
	struct sbm_spec m;
	char path[] = "/tmp/swaptune-sbm.XXXXXX", why[300];
	double v = 0;
	int fd = mkstemp(path);
	FILE *f;

	(void)state;
	assert_true(fd >= 0);
	f = fdopen(fd, "w");
	for (int i = 0; i < 1024 * 1024 - 2; i++)
		fputc(' ', f);
	fputs("123456\n", f);
	fclose(f);
	sbm_spec_init(&m, SBM_FILE);
	snprintf(m.path, sizeof(m.path), "%s", path);
	assert_int_equal(sbm_sample_value(&m, &v, why, sizeof(why)), -EFBIG);
	assert_non_null(strstr(why, "larger than 1 MiB"));
	unlink(path);
}

static void test_slices(void **state)
{
	unsigned n, wo;
	double s;

	(void)state;
	sb_slices_for(30, 15, &n, &wo, &s);
	assert_int_equal(n, 16);
	assert_int_equal(wo, 8);
	assert_true(fabs(s - 1.875) < 1e-9);
	sb_slices_for(5, 2, &n, &wo, &s);
	assert_int_equal(n, 5);
	assert_int_equal(wo, 2);
	sb_slices_for(3, 1, &n, &wo, &s);	/* slices of >= 1 s: none with 2 counted */
	assert_int_equal(n, 0);
}

/* ---- windows to the analysis ---- */

static void windows_fill(const struct sb_design *d, struct sbrun_window *w, unsigned n, double gain)
{
	for (unsigned i = 0; i < n; i++) {
		struct sb_window sw;

		assert_int_equal(sb_window_at(d, i, &sw), 0);
		memset(&w[i], 0, sizeof(w[i]));
		w[i].index = i;
		w[i].block = sw.block;
		w[i].pos = sw.pos;
		w[i].arm = sw.arm;
		w[i].start_s = sw.start_s;
		w[i].count_start_s = sw.count_start_s;
		w[i].end_s = sw.end_s;
		w[i].switch_s = sw.switched ? sw.start_s : NAN;
		w[i].failed_at_s = NAN;
		w[i].outcome = SB_WIN_OK;
		/* a trend the blocks cancel, and the candidate's gain */
		w[i].value = 1000.0 * (1.0 + 0.01 * i) * (sw.arm == 1 ? 1.0 + gain : 1.0);
		for (int f = 0; f < SBK_COUNT; f++)
			w[i].kern[f] = f == SBK_PSI_SOME ? 20.0 : f == SBK_PSI_FULL ? 8.0 : 100.0;
		for (unsigned q = 0; q < SB_SLICES_MAX; q++)
			w[i].slice[q] = NAN;
	}
}

static void test_input_build(void **state)
{
	struct sb_plan p;
	struct sb_design d;
	struct sbrun_window *w = calloc(SBRUN_WINDOWS_MAX, sizeof(*w));
	struct sb_input *in = calloc(1, sizeof(*in));
	struct sbm_spec m;
	unsigned blocks;

	(void)state;
	sb_plan_init(&p);
	p.n_blocks = 6;
	p.n_looks = 1;
	p.looks[0] = 6;
	assert_int_equal(sb_design_init(&d, &p, NULL), 0);
	sbm_spec_init(&m, SBM_CMD);
	m.higher_better = true;
	windows_fill(&d, w, 12, 0.1);
	w[3].outcome = SB_WIN_FAILED;
	sb_input_build(&(const struct sb_windows){ .d = &d, .m = &m, .w = w, .n = 11 }, in, &blocks);
	assert_int_equal(blocks, 5);		/* window 11 missing: block 6 is not complete */
	assert_int_equal(in->n_blocks, 5);
	assert_int_equal(in->outcome[1][1], SB_WIN_FAILED);
	assert_true(isnan(in->value[1][1]));
	assert_int_equal(in->n_costs, 2);	/* PSI some and full */
	assert_true(in->cost[0][0][0] == 20.0);
	m.source = SBM_KERNEL;
	m.kernel = SBK_PSI_FULL;
	sb_input_build(&(const struct sb_windows){ .d = &d, .m = &m, .w = w, .n = 12 }, in, &blocks);
	assert_int_equal(in->n_costs, 1);	/* the primary is not its own guardrail */
	assert_int_equal(in->metric.kind, SB_LEVEL);
	free(w);
	free(in);
}

/* ---- through the store and back ---- */

struct fx {
	char dir[PATH_MAX], tree[PATH_MAX], db[PATH_MAX];
	struct store st;
	struct host h;
};

static int setup(void **state)
{
	struct fx *f = calloc(1, sizeof(*f));
	struct st_err e = {0};

	fx_scratch(f->dir);
	fx_copy("vm-v1", f->tree);
	snprintf(f->db, sizeof(f->db), "%s/db", f->dir);
	assert_int_equal(store_open(&f->st, f->db, &e), 0);
	assert_int_equal(host_open(&f->h, f->tree, &e), 0);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fx *f = *state;

	store_close(&f->st);
	host_close(&f->h);
	fx_remove(f->dir);
	fx_remove(f->tree);
	free(f);
	return 0;
}

/* A config and design as the command makes them: pc3 (baseline) and pc0, 6 blocks. */
static void config(struct sbrun_config *c, struct sbrun_plan *p)
{
	sbrun_config_init(c);
	c->narms = 2;
	assert_int_equal(probe_arm_builtin("pc3", &c->arms[0]), 0);
	assert_int_equal(probe_arm_builtin("pc0", &c->arms[1]), 0);
	c->plan.n_arms = 2;
	c->plan.n_blocks = 6;
	c->plan.window_s = 10;
	c->plan.washout_s = 5;
	c->plan.n_looks = 1;
	c->plan.looks[0] = 6;
	c->plan.seed = 42;
	sbm_spec_init(&c->metric, SBM_CMD);
	snprintf(c->metric.cmd, sizeof(c->metric.cmd), "echo 1");
	c->metric.higher_better = true;
	memset(p, 0, sizeof(*p));
	assert_int_equal(sb_design_init(&p->design, &c->plan, NULL), 0);
	snprintf(p->psi_scope, sizeof(p->psi_scope), "host");
}

static int64_t store_run(struct fx *f, const struct sbrun_config *c, const struct sbrun_plan *p,
			 const struct sbrun_window *w, unsigned n)
{
	cJSON *pj = sbrun_params_json(c, p);
	char *params = cJSON_PrintUnformatted(pj);
	int64_t run = 0, arm_ids[2];
	struct st_err e = {0};

	assert_int_equal(store_run_begin(&f->st, SBRUN_KIND, params, &run, &e), 0);
	for (int a = 0; a < 2; a++) {
		struct store_probe_arm row = { 0 };

		snprintf(row.name, sizeof(row.name), "%s", c->arms[a].name);
		snprintf(row.settings, sizeof(row.settings), "{\"page-cluster\":\"%s\"}", a ? "0" : "3");
		assert_int_equal(store_probe_arm_add(&f->st, run, &row, &arm_ids[a], &e), 0);
	}
	for (unsigned i = 0; i < n; i++) {
		struct store_sb_window row = { 0 };

		row.idx = w[i].index;
		row.block = w[i].block;
		row.pos = w[i].pos;
		row.arm_id = arm_ids[w[i].arm];
		snprintf(row.started_at, sizeof(row.started_at), "2026-12-01T00:00:%02uZ", i);
		row.start_s = w[i].start_s;
		row.switch_s = w[i].switch_s;
		row.count_start_s = w[i].count_start_s;
		row.end_s = w[i].end_s;
		snprintf(row.outcome, sizeof(row.outcome), "%s", w[i].outcome == SB_WIN_OK ? "ok" : "failed");
		row.have_value = w[i].outcome == SB_WIN_OK;
		row.value = w[i].value;
		row.failed_at_s = w[i].failed_at_s;
		snprintf(row.failure, sizeof(row.failure), "%s", w[i].failure);
		for (int k = 0; k < SBK_COUNT; k++) {
			snprintf(row.metrics[k].key, sizeof(row.metrics[k].key), "%s", sbm_kernel_defs[k].key);
			row.metrics[k].value = w[i].kern[k];
		}
		row.n_metrics = SBK_COUNT;
		assert_int_equal(store_sb_window_add(&f->st, run, &row, &e), 0);
	}
	assert_int_equal(store_run_end(&f->st, run, "ok", "{\"status\":\"ok\",\"stop_reason\":\"\"}", &e), 0);
	cJSON_free(params);
	cJSON_Delete(pj);
	return run;
}

static void test_store_round_trip(void **state)
{
	struct fx *f = *state;
	struct sbrun_config c;
	struct sbrun_plan *p = calloc(1, sizeof(*p));
	struct sbrun_window *w = calloc(SBRUN_WINDOWS_MAX, sizeof(*w));
	struct sbrun_stored *s = calloc(1, sizeof(*s));
	struct st_err e = {0};
	int64_t run, latest = 0;
	unsigned fw;

	config(&c, p);
	windows_fill(&p->design, w, 12, 0.10);
	/* a baseline window of block 3 failed: an outcome, imputed, never dropped */
	fw = w[4].arm == 0 ? 4 : 5;
	w[fw].outcome = SB_WIN_FAILED;
	snprintf(w[fw].failure, sizeof(w[fw].failure), "the metric command exited 1");
	run = store_run(f, &c, p, w, 12);
	assert_int_equal(sbrun_load(&f->st, &f->h, run, s, &e), 0);
	assert_int_equal(s->n_windows, 12);
	assert_int_equal(s->blocks_done, 6);
	assert_true(s->judged);
	assert_string_equal(s->arms[0].name, "pc3");
	assert_string_equal(s->arms[1].set[0].value, "0");
	assert_int_equal(s->w[fw].outcome, SB_WIN_FAILED);
	assert_string_equal(s->w[fw].failure, "the metric command exited 1");
	assert_true(s->w[2].kern[SBK_PSI_FULL] == 8.0);
	/* +10 % on every block (the failed baseline window as bad as it gets): p 1/64 < 0.02 changes */
	assert_int_equal(s->res.decision, SB_CHANGE);
	assert_string_equal(sbrun_decision_name(s), "change");
	assert_string_equal(s->res.arms[1].name, "pc0");
	assert_non_null(strstr(s->res.reasons[0], "change to pc0"));
	assert_int_equal(sbrun_latest(&f->st, &latest, &e), 0);
	assert_int_equal(latest, run);
	sbrun_stored_free(s);
	free(s);
	free(w);
	free(p);
}

/* The verdict of stored run as text and as JSON (both owned by the caller). */
static void verdict_texts(struct fx *f, int64_t run, char **text, char **json)
{
	struct sbrun_stored *s = calloc(1, sizeof(*s));
	struct st_err e = {0};
	size_t len = 0;
	FILE *m;
	cJSON *doc;

	assert_int_equal(sbrun_load(&f->st, &f->h, run, s, &e), 0);
	m = open_memstream(text, &len);
	assert_non_null(m);
	sbrun_verdict_print(m, s);
	fclose(m);
	doc = sbrun_verdict_json(s);
	*json = cJSON_PrintUnformatted(doc);
	cJSON_Delete(doc);
	sbrun_stored_free(s);
	free(s);
}

/*
 * The verdict's words where numbers fail: a metric that never varied (PSI 0
 * in every window, a calm host) has no effect, interval or trend to
 * estimate; 4 blocks cannot reject any shift (p >= 1/16), so no interval.
 * Neither prints nan or inf, in text or JSON; a PSI effect is in points.
 */
static void test_verdict_words(void **state)
{
	static const struct {
		bool psi_flat;
		unsigned blocks;
		const char *text[3], *json[2], *absent;
	} cases[] = {
		{ true, 6, { "pc0          no effect to estimate: the metric did not vary, 0 failed windows",
			     "all 12 measured windows read 0, so it cannot tell the arms apart",
			     "minimum effect 2 points\n" },
		  { "\"effect_unit\":\"points\"", "the metric did not vary: all 12 measured windows read 0" },
		  "[" },
		{ false, 6, { "pc0          +10.70 % [+8.97, +11.10], p 0.0156", "minimum effect 2 %\n", "" },
		  { "\"effect_unit\":\"%\"", "\"ci_low\":" }, "did not vary" },
		{ false, 4, { " %, no interval yet (too few blocks to bound it), p ", "", "" },
		  { "\"ci_low\":null", "\"ci_high\":null" }, "did not vary" },
	};
	struct fx *f = *state;
	struct sbrun_config c;
	struct sbrun_plan *p = calloc(1, sizeof(*p));
	struct sbrun_window *w = calloc(SBRUN_WINDOWS_MAX, sizeof(*w));

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		unsigned n = 2 * cases[i].blocks;
		char *text, *json;

		config(&c, p);
		c.plan.n_blocks = c.plan.looks[0] = cases[i].blocks;
		assert_int_equal(sb_design_init(&p->design, &c.plan, NULL), 0);
		windows_fill(&p->design, w, n, cases[i].psi_flat ? 0.0 : 0.10);
		if (cases[i].psi_flat) {
			sbm_spec_init(&c.metric, SBM_KERNEL);
			c.metric.kernel = SBK_PSI_SOME;
			for (unsigned k = 0; k < n; k++)
				w[k].value = 0.0;
		}
		verdict_texts(f, store_run(f, &c, p, w, n), &text, &json);
		for (int k = 0; k < 3; k++)
			assert_non_null(strstr(text, cases[i].text[k]));
		for (int k = 0; k < 2; k++)
			assert_non_null(strstr(json, cases[i].json[k]));
		assert_null(strstr(text, cases[i].absent));
		assert_null(strstr(text, "nan"));
		assert_null(strstr(text, "inf"));
		assert_null(strstr(json, "nan"));
		assert_null(strstr(json, "inf"));
		free(text);
		cJSON_free(json);
	}
	free(w);
	free(p);
}

/* The line of text that starts with "Verdict:", without its newline ("" if none). */
static void verdict_line_of(const char *text, char *line, size_t len)
{
	const char *p = strstr(text, "\nVerdict:");

	p = !strncmp(text, "Verdict:", 8) ? text : p ? p + 1 : NULL;
	snprintf(line, len, "%.*s", p ? (int)strcspn(p, "\n") : 0, p ? p : "");
}

/* A probe run's text as recommend prints it, judged kind (chosen arm pc0, baseline pc3). */
static char *probe_text(enum verdict_kind kind)
{
	struct advice_run *r = calloc(1, sizeof(*r));
	struct verdict_result *v = calloc(1, sizeof(*v));
	struct judgement *j = calloc(1, sizeof(*j));
	char *text = NULL;
	size_t len = 0;
	FILE *m;

	assert_non_null(r);
	assert_non_null(v);
	assert_non_null(j);
	r->run_id = 7;
	r->n_arms = 2;
	snprintf(r->arms[0].name, sizeof(r->arms[0].name), "pc3");
	snprintf(r->arms[1].name, sizeof(r->arms[1].name), "pc0");
	snprintf(r->status, sizeof(r->status), "ok");
	v->kind = kind;
	v->baseline = 0;
	v->chosen = kind == VERDICT_CHANGE ? 1 : kind == VERDICT_KEEP ? 0 : -1;
	m = open_memstream(&text, &len);
	assert_non_null(m);
	advice_verdict_print(m, r, j, v);
	fclose(m);
	free(r);
	free(v);
	free(j);
	return text;
}

/*
 * One verdict line for both kinds of run (issue 34, finding 9): a stored
 * switchback run's text (recommend, switchback's ending, verify, the report,
 * the TUI) says "Verdict: CHANGE to pc0", "Verdict: KEEP pc3" or "Verdict:
 * INCONCLUSIVE", the very line a probe run's text has for the same
 * verdict; the run's id and design stay on the line above it.
 */
static void test_verdict_line_shared(void **state)
{
	static const struct {
		unsigned blocks, filled;
		double gain;
		enum verdict_kind kind;
		const char *line;
	} cases[] = {
		{ 6, 6, 0.10, VERDICT_CHANGE, "Verdict: CHANGE to pc0" },
		{ 6, 6, -0.10, VERDICT_KEEP, "Verdict: KEEP pc3" },
		{ 6, 1, 0.10, VERDICT_INCONCLUSIVE, "Verdict: INCONCLUSIVE" },
	};
	struct fx *f = *state;
	struct sbrun_config c;
	struct sbrun_plan *p = calloc(1, sizeof(*p));
	struct sbrun_window *w = calloc(SBRUN_WINDOWS_MAX, sizeof(*w));

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *text, *json, *probe = probe_text(cases[i].kind), line[128], want[128], head[64];
		int64_t run;

		config(&c, p);
		c.plan.n_blocks = c.plan.looks[0] = cases[i].blocks;
		assert_int_equal(sb_design_init(&p->design, &c.plan, NULL), 0);
		windows_fill(&p->design, w, 2 * cases[i].filled, cases[i].gain);
		run = store_run(f, &c, p, w, 2 * cases[i].filled);
		verdict_texts(f, run, &text, &json);
		verdict_line_of(probe, want, sizeof(want));
		assert_string_equal(want, cases[i].line);
		verdict_line_of(text, line, sizeof(line));
		assert_string_equal(line, want);
		snprintf(head, sizeof(head), "Switchback run %lld: %u of %u blocks", (long long)run,
			 cases[i].filled, cases[i].blocks);
		assert_int_equal(strncmp(text, head, strlen(head)), 0);
		/* the JSON says the same in its own words */
		assert_non_null(strstr(json, cases[i].kind == VERDICT_CHANGE ? "\"decision\":\"change\"" :
				       cases[i].kind == VERDICT_KEEP ? "\"decision\":\"keep\"" :
				       "\"decision\":\"inconclusive\""));
		free(text);
		free(probe);
		cJSON_free(json);
	}
	free(w);
	free(p);
}

/* Read back as any input: a schedule its seed does not make, or a setting out of range, is refused. */
static void test_store_refuses(void **state)
{
	struct fx *f = *state;
	struct sbrun_config c;
	struct sbrun_plan *p = calloc(1, sizeof(*p));
	struct sbrun_window *w = calloc(SBRUN_WINDOWS_MAX, sizeof(*w));
	struct sbrun_stored *s = calloc(1, sizeof(*s));
	struct st_err e = {0};
	sqlite3_stmt *stmt;
	int64_t run;

	config(&c, p);
	windows_fill(&p->design, w, 12, 0.0);
	run = store_run(f, &c, p, w, 12);
	assert_int_equal(store_prepare(&f->st, "UPDATE runs SET params = json_set(params, '$.plan.seed', 43)"
				       " WHERE id = ?1", &stmt, NULL), 0);
	sqlite3_bind_int64(stmt, 1, run);
	assert_int_equal(sqlite3_step(stmt), SQLITE_DONE);
	sqlite3_finalize(stmt);
	assert_int_equal(sbrun_load(&f->st, &f->h, run, s, &e), -EBADMSG);
	assert_non_null(strstr(e.msg, "not the one its seed makes"));
	sbrun_stored_free(s);

	run = store_run(f, &c, p, w, 12);
	assert_int_equal(store_prepare(&f->st, "UPDATE arms SET settings = '{\"page-cluster\":\"99\"}'"
				       " WHERE run_id = ?1 AND name = 'pc0'", &stmt, NULL), 0);
	sqlite3_bind_int64(stmt, 1, run);
	assert_int_equal(sqlite3_step(stmt), SQLITE_DONE);
	sqlite3_finalize(stmt);
	err_reset(&e);
	assert_int_equal(sbrun_load(&f->st, &f->h, run, s, &e), -EBADMSG);
	assert_non_null(strstr(e.msg, "would not write"));
	sbrun_stored_free(s);

	/* a probe run is not a switchback */
	assert_int_equal(store_run_begin(&f->st, "probe", "{}", &run, &e), 0);
	err_reset(&e);
	assert_int_equal(sbrun_load(&f->st, &f->h, run, s, &e), -EINVAL);
	sbrun_stored_free(s);
	free(s);
	free(w);
	free(p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_split_argv),
		cmocka_unit_test(test_parse_number),
		cmocka_unit_test(test_prom),
		cmocka_unit_test(test_mean_finite),
		cmocka_unit_test(test_url),
		cmocka_unit_test(test_prom_not_loopback),
		cmocka_unit_test(test_http),
		cmocka_unit_test(test_http_resolved),
		cmocka_unit_test(test_cmd_value),
		cmocka_unit_test(test_cmd_deadline),
		cmocka_unit_test(test_cmd_environment),
		cmocka_unit_test(test_file_too_large),
		cmocka_unit_test(test_slices),
		cmocka_unit_test(test_input_build),
		cmocka_unit_test_setup_teardown(test_store_round_trip, setup, teardown),
		cmocka_unit_test_setup_teardown(test_store_refuses, setup, teardown),
		cmocka_unit_test_setup_teardown(test_verdict_words, setup, teardown),
		cmocka_unit_test_setup_teardown(test_verdict_line_shared, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
