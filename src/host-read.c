/*
 * host-read.c - the host layer's parsers of the kernel's text formats
 * ("key value" files such as vmstat, meminfo and memory.stat; PSI; the
 * zswap debugfs counters) and the two ways to read them: once, into a
 * table (status, doctor, probe), or from a file kept open and re-read with
 * pread() at offset 0 without allocating (the sampler). See host.h.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "swaptune/host.h"

#define RETRY_NS 1000000000ULL	/* look for a missing file again after 1 s */

static const char *relname(const char *rel)
{
	while (*rel == '/')
		rel++;
	return rel;
}

/* ---- one "key value" line, shared by the table and the kept-open reader ---- */

static bool is_blank(char c)
{
	return c == ' ' || c == '\t';
}

/*
 * Split line [p, eol): the key runs to the first blank (or ':' with
 * kb_units, as in "SwapTotal:  123 kB"); the value is the decimal number
 * after blanks and colons; with kb_units a "kB" unit makes it bytes.
 * Returns 1, 0 when the line has no number after its key (a sign is not a
 * number: counters are never negative), -ERANGE when the number (or its
 * bytes) does not fit 64 bits: a kernel never prints one, so such a file is
 * corrupt rather than saturated.
 */
static int kv_split(const char *p, const char *eol, bool kb_units, size_t *keylen,
		    uint64_t *val)
{
	const char *q = p;
	uint64_t x = 0;

	while (q < eol && !is_blank(*q) && !(kb_units && *q == ':'))
		q++;
	*keylen = (size_t)(q - p);
	while (q < eol && (is_blank(*q) || *q == ':'))
		q++;
	if (q == eol || *q < '0' || *q > '9')
		return 0;
	for (; q < eol && *q >= '0' && *q <= '9'; q++) {
		unsigned d = (unsigned)(*q - '0');

		if (x > (UINT64_MAX - d) / 10)
			return -ERANGE;
		x = x * 10 + d;
	}
	while (q < eol && is_blank(*q))
		q++;
	if (kb_units && eol - q >= 2 && !memcmp(q, "kB", 2)) {
		if (x > UINT64_MAX / 1024)
			return -ERANGE;
		x *= 1024;
	}
	*val = x;
	return 1;
}

/* ---- key/value tables ---- */

void kv_init(struct st_kvtab *t)
{
	memset(t, 0, sizeof(*t));
}

void kv_free(struct st_kvtab *t)
{
	free(t->items);
	kv_init(t);
}

void kv_clear(struct st_kvtab *t)
{
	t->n = 0;
}

int kv_put(struct st_kvtab *t, const char *key, uint64_t val)
{
	for (size_t i = 0; i < t->n; i++)
		if (!strcmp(t->items[i].key, key)) {
			t->items[i].val = val;
			return 0;
		}
	if (t->n == t->cap) {
		size_t cap = t->cap ? t->cap * 2 : 64;
		struct st_kv *p = realloc(t->items, cap * sizeof(*p));

		if (!p)
			return -ENOMEM;
		t->items = p;
		t->cap = cap;
	}
	snprintf(t->items[t->n].key, sizeof(t->items[t->n].key), "%s", key);
	t->items[t->n].val = val;
	t->n++;
	return 0;
}

bool kv_get(const struct st_kvtab *t, const char *key, uint64_t *out)
{
	for (size_t i = 0; i < t->n; i++)
		if (!strcmp(t->items[i].key, key)) {
			if (out)
				*out = t->items[i].val;
			return true;
		}
	return false;
}

int kv_parse(struct st_kvtab *t, const char *text, const char *name,
	     bool kb_units, struct st_err *e)
{
	const char *p = text;
	int line = 0;

	kv_clear(t);
	while (*p) {
		const char *nl = strchr(p, '\n');
		const char *eol = nl ? nl : p + strlen(p);
		char key[sizeof(t->items[0].key)];
		size_t kl;
		uint64_t v;

		line++;
		if (eol - p >= 256)
			return err_set(e, -EBADMSG, "%s: line %d: too long", name, line);
		if (eol == p) {
			p = nl ? nl + 1 : eol;
			continue;
		}
		int got = kv_split(p, eol, kb_units, &kl, &v);

		if (got < 0)
			return err_set(e, -EBADMSG, "%s: line %d: value out of range in \"%.*s\"",
				       name, line, (int)(eol - p < 60 ? eol - p : 60), p);
		if (!got || kl == 0)
			return err_set(e, -EBADMSG, "%s: line %d: expected \"key value\", found \"%.*s\"",
				       name, line, (int)(eol - p < 60 ? eol - p : 60), p);
		snprintf(key, sizeof(key), "%.*s", (int)kl, p);
		if (kv_put(t, key, v) < 0)
			return err_set(e, -ENOMEM, "out of memory");
		p = nl ? nl + 1 : eol;
	}
	if (line == 0)
		return err_set(e, -EBADMSG, "%s: empty", name);
	return 0;
}

/* Large enough for /proc/vmstat (about 8 KiB) and memory.stat. */
#define KV_BUF 65536

int host_read_kv(const struct host *h, const char *rel, struct st_kvtab *t,
		 bool kb_units, struct st_err *e)
{
	char *buf = malloc(KV_BUF), name[2 * PATH_MAX];
	ssize_t r;

	if (!buf)
		return err_set(e, -ENOMEM, "out of memory");
	r = host_read(h, rel, buf, KV_BUF, e);
	if (r >= 0) {
		snprintf(name, sizeof(name), "%s/%s", h->root, relname(rel));
		r = kv_parse(t, buf, name, kb_units, e);
	}
	free(buf);
	return (int)r;
}

int host_read_vmstat(const struct host *h, struct st_kvtab *t, struct st_err *e)
{
	int r = host_read_kv(h, HOST_VMSTAT, t, false, e);

	/* a truncated vmstat still parses; insist on the counters every kernel has */
	if (r == 0 && !kv_get(t, "pgpgin", NULL))
		return err_set(e, -EBADMSG, "%s/%s: truncated (no pgpgin line)", h->root, HOST_VMSTAT);
	return r;
}

int host_read_meminfo(const struct host *h, struct st_kvtab *t, struct st_err *e)
{
	int r = host_read_kv(h, HOST_MEMINFO, t, true, e);

	if (r == 0 && !kv_get(t, "MemTotal", NULL))
		return err_set(e, -EBADMSG, "%s/%s: truncated (no MemTotal line)", h->root, HOST_MEMINFO);
	return r;
}

/* ---- zswap debugfs ---- */

int host_read_zswap_counter(const struct host *h, const char *name, uint64_t *v,
			    struct st_err *e)
{
	char rel[PATH_MAX];

	snprintf(rel, sizeof(rel), "%s/%s", HOST_ZSWAP_DEBUGFS, name);
	return host_read_u64(h, rel, v, e);
}

int host_zswap_value(const struct host *h, const char *name, uint64_t *v)
{
	static const char dir[] = HOST_ZSWAP_DEBUGFS "/";
	char rel[PATH_MAX], buf[64];
	size_t nl = strlen(name), off = 0;
	uint64_t x = 0;
	ssize_t r;
	int fd, digits = 0;
	const char *p;

	if (nl + sizeof(dir) > sizeof(rel))
		return -ENAMETOOLONG;
	memcpy(rel, dir, sizeof(dir) - 1);
	memcpy(rel + sizeof(dir) - 1, name, nl + 1);
	fd = host_openat(h, rel, O_RDONLY);
	if (fd < 0)
		return fd == -ENOTDIR ? -ENOENT : fd;
	while (off + 1 < sizeof(buf) && (r = read(fd, buf + off, sizeof(buf) - 1 - off)) != 0) {
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			r = -errno;
			close(fd);
			return (int)r;
		}
		off += (size_t)r;
	}
	close(fd);
	if (off + 1 >= sizeof(buf))
		return -EFBIG;
	buf[off] = '\0';
	for (p = buf; *p == ' ' || *p == '\t'; p++)
		;
	for (; *p >= '0' && *p <= '9'; p++, digits++) {
		if (x > (UINT64_MAX - (uint64_t)(*p - '0')) / 10)
			return -EBADMSG;
		x = x * 10 + (uint64_t)(*p - '0');
	}
	while (*p == ' ' || *p == '\t' || *p == '\n')
		p++;
	if (!digits || *p)
		return -EBADMSG;
	*v = x;
	return 0;
}

int host_read_zswap_stats(const struct host *h, struct st_kvtab *t,
			  struct st_err *e)
{
	char names[4096], *save = NULL, *tok;
	int r;

	kv_clear(t);
	r = host_list_dir(h, HOST_ZSWAP_DEBUGFS, names, sizeof(names), e);
	if (r < 0)
		return r;
	for (tok = strtok_r(names, " ", &save); tok; tok = strtok_r(NULL, " ", &save)) {
		uint64_t v;

		r = host_read_zswap_counter(h, tok, &v, e);
		if (r == -EISDIR || r == -EINVAL) {	/* not a counter file */
			err_reset(e);
			continue;
		}
		if (r < 0)
			return r;
		if (kv_put(t, tok, v) < 0)
			return err_set(e, -ENOMEM, "out of memory");
	}
	return 0;
}

/* ---- PSI ---- */

/* scanf takes "-5" and 1e999 as numbers: no PSI average or total is either */
static bool psi_sane(const char *l, const struct st_psi_line *pl)
{
	const char *eol = strchr(l, '\n'), *t = strstr(l, "total=");
	const char *q;
	uint64_t x = 0;

	if (!eol)
		eol = l + strlen(l);
	if (memchr(l, '-', (size_t)(eol - l)))
		return false;
	if (!(pl->avg10 <= 100.0 && pl->avg60 <= 100.0 && pl->avg300 <= 100.0))
		return false;
	if (!t || t > eol)
		return false;
	for (q = t + 6; q < eol && *q >= '0' && *q <= '9'; q++) {
		if (x > (UINT64_MAX - (unsigned)(*q - '0')) / 10)
			return false;
		x = x * 10 + (unsigned)(*q - '0');
	}
	return true;
}

/* "NAME=" then digits[.digits] as the kernel prints them; *p advances; false otherwise */
static bool psi_field(const char **p, const char *name, bool fraction, double *d, uint64_t *u)
{
	size_t nl = strlen(name);
	uint64_t x = 0, div = 1;
	int digits = 0, fdigits = 0;
	const char *q = *p;

	if (strncmp(q, name, nl) || q[nl] != '=')
		return false;
	for (q += nl + 1; *q >= '0' && *q <= '9' && digits < 19; q++, digits++)
		x = x * 10 + (uint64_t)(*q - '0');
	if (!digits || (*q >= '0' && *q <= '9'))
		return false;
	if (fraction) {
		if (*q != '.' || digits > 3)
			return false;
		for (q++; *q >= '0' && *q <= '9' && fdigits < 6; q++, fdigits++) {
			x = x * 10 + (uint64_t)(*q - '0');
			div *= 10;
		}
		if (!fdigits || (*q >= '0' && *q <= '9'))
			return false;
		/* both exact in a double: the quotient is strtod()'s correctly rounded value */
		*d = (double)x / (double)div;
		if (*d > 100.0)
			return false;
	} else {
		*u = x;
	}
	*p = q;
	return true;
}

/*
 * The kernel's own PSI text ("some avg10=0.00 avg60=0.00 avg300=0.00
 * total=0", then a "full" line) parsed without scanf (a sampler reads it
 * every tick); 0, or -1 when the text is not exactly that: then the
 * scanf parser below decides, with its messages.
 */
static int psi_parse_kernel(struct st_psi *p, const char *text)
{
	const char *q = text;

	memset(p, 0, sizeof(*p));
	while (*q) {
		struct st_psi_line pl = { .present = true };
		struct st_psi_line *dst = !strncmp(q, "some ", 5) ? &p->some :
					  !strncmp(q, "full ", 5) ? &p->full : NULL;

		if (!dst || dst->present)
			return -1;
		q += 5;
		if (!psi_field(&q, "avg10", true, &pl.avg10, NULL) || *q++ != ' ' ||
		    !psi_field(&q, "avg60", true, &pl.avg60, NULL) || *q++ != ' ' ||
		    !psi_field(&q, "avg300", true, &pl.avg300, NULL) || *q++ != ' ' ||
		    !psi_field(&q, "total", false, NULL, &pl.total_us) || (*q != '\n' && *q))
			return -1;
		*dst = pl;
		if (*q)
			q++;
	}
	return p->some.present ? 0 : -1;
}

int psi_parse(struct st_psi *p, const char *text, const char *name,
	      struct st_err *e)
{
	const char *l = text;
	int line = 0;

	if (psi_parse_kernel(p, text) == 0)
		return 0;
	memset(p, 0, sizeof(*p));
	while (*l) {
		struct st_psi_line pl = { .present = true };
		char kind[8];
		unsigned long long total;

		line++;
		if (sscanf(l, "%7s avg10=%lf avg60=%lf avg300=%lf total=%llu", kind,
			   &pl.avg10, &pl.avg60, &pl.avg300, &total) != 5)
			return err_set(e, -EBADMSG, "%s: line %d: unexpected format", name, line);
		if (!psi_sane(l, &pl))
			return err_set(e, -EBADMSG, "%s: line %d: value negative or out of range",
				       name, line);
		pl.total_us = total;
		if (!strcmp(kind, "some"))
			p->some = pl;
		else if (!strcmp(kind, "full"))
			p->full = pl;
		l = strchr(l, '\n');
		if (!l)
			break;
		l++;
	}
	if (!p->some.present)
		return err_set(e, -EBADMSG, "%s: no \"some\" line", name);
	return 0;
}

int host_read_psi(const struct host *h, const char *rel, struct st_psi *p,
		  struct st_err *e)
{
	char buf[512], name[2 * PATH_MAX];
	ssize_t r = host_read(h, rel, buf, sizeof(buf), e);

	if (r < 0)
		return (int)r;
	snprintf(name, sizeof(name), "%s/%s", h->root, relname(rel));
	return psi_parse(p, buf, name, e);
}

/* ---- kept-open files ---- */

void host_file_init(struct host_file *f, const char *rel)
{
	memset(f, 0, sizeof(*f));
	snprintf(f->rel, sizeof(f->rel), "%s", relname(rel));
	f->fd = -1;
}

void host_file_close(struct host_file *f)
{
	if (f->fd >= 0)
		close(f->fd);
	f->fd = -1;
}

/* Open f unless it is open, or a missing file was looked for < 1 s ago. */
static int file_ensure_open(const struct host *h, struct host_file *f, uint64_t now_ns)
{
	if (f->fd >= 0)
		return 0;
	if (now_ns < f->retry_ns)
		return -EAGAIN;
	f->fd = host_openat(h, f->rel, O_RDONLY);
	if (f->fd < 0) {
		int r = f->fd == -ENOTDIR ? -ENOENT : f->fd;

		f->fd = -1;

		snprintf(f->why, sizeof(f->why), "/%s: %s", f->rel,
			 r == -ENOENT ? "not available" : strerror(-r));
		f->retry_ns = now_ns + RETRY_NS;
		return r;
	}
	return 0;
}

ssize_t host_file_read(const struct host *h, struct host_file *f, uint64_t now_ns,
		       char *buf, size_t len)
{
	size_t off = 0;
	ssize_t n = 0;
	int r = file_ensure_open(h, f, now_ns);

	if (r < 0)
		return r;
	while (off + 1 < len) {
		n = pread(f->fd, buf + off, len - 1 - off, (off_t)off);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		off += (size_t)n;
	}
	if (n < 0 || off == 0) {
		/* a removed cgroup's files answer ENODEV */
		r = n < 0 ? -errno : -ENODATA;
		snprintf(f->why, sizeof(f->why), "/%s: %s", f->rel,
			 r == -ENODEV ? "removed" : r == -ENODATA ? "empty" : strerror(-r));
		host_file_close(f);
		f->retry_ns = now_ns + RETRY_NS;
		return r;
	}
	buf[off] = '\0';
	f->why[0] = '\0';
	/*
	 * A captured tree is not a kernel: tests and scripts replace and delete
	 * its files, which an open fd would not notice. Re-open them each time.
	 */
	if (!h->live)
		host_file_close(f);
	return (ssize_t)off;
}

/* ---- kept-open "key value" files ---- */

void host_kvfile_close(struct host_kvfile *f)
{
	host_file_close(&f->file);
}

void host_kvfile_init(struct host_kvfile *f, const char *rel, bool kb_units,
		      const char *const *keys, int nkeys)
{
	memset(f, 0, sizeof(*f));
	host_file_init(&f->file, rel);
	f->kb_units = kb_units;
	f->nkeys = nkeys < HOST_KVFILE_KEYS ? nkeys : HOST_KVFILE_KEYS;
	for (int k = 0; k < f->nkeys; k++) {
		f->keys[k] = keys[k];
		f->keylen[k] = keys[k] ? strlen(keys[k]) : 0;
	}
}

/* The wanted key whose name is [p, p + kl), or -1. */
static int kvfile_key(const struct host_kvfile *f, const char *p, size_t kl)
{
	if (kl == 0)
		return -1;
	for (int k = 0; k < f->nkeys; k++)
		if (f->keys[k] && kl == f->keylen[k] && !memcmp(p, f->keys[k], kl))
			return k;
	return -1;
}

static void kvfile_learn(struct host_kvfile *f, const char *text, size_t n)
{
	const char *p = text, *end = text + n;

	for (int i = 0; i < HOST_KVFILE_LINES; i++)
		f->key_at[i] = -1;
	f->nhinted = 0;
	for (int line = 0; p < end; line++) {
		const char *eol = memchr(p, '\n', (size_t)(end - p));
		size_t kl;
		uint64_t v;
		bool got;
		int k;

		if (!eol)
			eol = end;
		got = kv_split(p, eol, f->kb_units, &kl, &v) > 0;
		k = kvfile_key(f, p, kl);
		if (k >= 0) {
			if (line < HOST_KVFILE_LINES) {
				f->key_at[line] = (int16_t)k;
				f->nhinted++;
			}
			f->val[k] = v;
			f->have[k] = got;
		}
		p = eol + 1;
	}
	f->learned = true;
}

/*
 * The kernel prints such a file in a fixed order, so once each wanted key's
 * line is known a read looks at those lines only, and learns again when the
 * layout moved.
 */
void host_kvfile_parse(struct host_kvfile *f, const char *text, size_t n)
{
	const char *p = text, *end = text + n;
	int found = 0;

	memset(f->have, 0, sizeof(f->have));
	if (f->learned) {
		for (int line = 0; p < end && line < HOST_KVFILE_LINES; line++) {
			const char *eol = memchr(p, '\n', (size_t)(end - p));
			int k = f->key_at[line];
			size_t kl;
			uint64_t v;
			bool got;

			if (!eol)
				eol = end;
			if (k >= 0) {
				got = kv_split(p, eol, f->kb_units, &kl, &v) > 0;
				if (kl != f->keylen[k] || memcmp(p, f->keys[k], kl))
					goto relearn;
				f->val[k] = v;
				f->have[k] = got;
				found++;
			}
			p = eol + 1;
		}
		if (found == f->nhinted)
			return;
	}
relearn:
	memset(f->have, 0, sizeof(f->have));
	kvfile_learn(f, text, n);
}

int host_kvfile_read(const struct host *h, struct host_kvfile *f, uint64_t now_ns,
		     char *buf, size_t len)
{
	ssize_t n;

	f->ok = false;
	memset(f->have, 0, sizeof(f->have));
	n = host_file_read(h, &f->file, now_ns, buf, len);
	if (n < 0) {
		if (n != -EAGAIN)
			f->learned = false;
		return (int)n;
	}
	host_kvfile_parse(f, buf, (size_t)n);
	f->ok = true;
	return 0;
}

bool host_kvfile_get(const struct host_kvfile *f, int k, uint64_t *v)
{
	if (!f->ok || k < 0 || k >= f->nkeys || !f->keys[k] || !f->have[k])
		return false;
	*v = f->val[k];
	return true;
}

/* ---- kept-open PSI files ---- */

int host_psifile_read(const struct host *h, struct host_file *f, uint64_t now_ns,
		      char *buf, size_t len, struct st_psi *p)
{
	struct st_err e = {0};
	char name[sizeof(f->rel) + 1];
	ssize_t n;
	int r;

	memset(p, 0, sizeof(*p));
	n = host_file_read(h, f, now_ns, buf, len);
	if (n < 0)
		return (int)n;
	snprintf(name, sizeof(name), "/%s", f->rel);
	r = psi_parse(p, buf, name, &e);
	if (r < 0) {
		memset(p, 0, sizeof(*p));
		snprintf(f->why, sizeof(f->why), "%s", e.msg);
	}
	return r;
}
