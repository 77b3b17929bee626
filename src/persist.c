/*
 * persist.c - swaptune's own boot-time files (sysctl.d, boot.conf,
 * modprobe.d), the scan for values the administrator set elsewhere, and the
 * journal undo handlers that put those files back. See persist.h.
 */
#include <ctype.h>
#include <dirent.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "swaptune/journal.h"
#include "swaptune/persist.h"

static const char *const own_files[PERSIST_FILES_MAX] = {
	PERSIST_SYSCTL_FILE,
	PERSIST_BOOT_FILE,
	PERSIST_MODPROBE_FILE,
};

enum { F_SYSCTL, F_BOOT, F_MODPROBE };

/* systemd-sysctl's search path, highest priority first (same name: first wins). */
static const char *const sysctl_dirs[] = {
	"etc/sysctl.d", "run/sysctl.d", "usr/local/lib/sysctl.d", "usr/lib/sysctl.d",
	"lib/sysctl.d",
};

static const char *const modprobe_dirs[] = {
	"etc/modprobe.d", "run/modprobe.d", "usr/local/lib/modprobe.d",
	"usr/lib/modprobe.d", "lib/modprobe.d",
};

#define HEADER "# written by swaptune apply --persist: do not edit, `swaptune rollback` takes it back\n"

int persist_file_index(const char *rel)
{
	for (int i = 0; i < PERSIST_FILES_MAX; i++)
		if (!strcmp(own_files[i], rel))
			return i;
	return -1;
}

const char *persist_file_at(int i)
{
	return i >= 0 && i < PERSIST_FILES_MAX ? own_files[i] : NULL;
}

static const char *base_name(const char *path)
{
	const char *s = strrchr(path, '/');

	return s ? s + 1 : path;
}

int persist_read_file(const struct host *h, const char *rel, char *buf, size_t len,
		      struct st_err *e)
{
	ssize_t r = host_file_get(h, rel, buf, len, e);

	if (r == -EFBIG)
		return err_prefix(e, "not a file swaptune wrote");
	return (int)r;
}

static char *trim(char *s)
{
	char *end;

	while (isspace((unsigned char)*s))
		s++;
	end = s + strlen(s);
	while (end > s && isspace((unsigned char)end[-1]))
		*--end = '\0';
	return s;
}

/* Set name = value in kv[0..*n), replacing an earlier value. */
static int kv_set(struct persist_kv *kv, int *n, const char *name, const char *value)
{
	for (int i = 0; i < *n; i++)
		if (!strcmp(kv[i].name, name)) {
			snprintf(kv[i].value, sizeof(kv[i].value), "%s", value);
			return 0;
		}
	if (*n >= SETTINGS_MAX)
		return -ENOSPC;
	snprintf(kv[*n].name, sizeof(kv[*n].name), "%s", name);
	snprintf(kv[*n].value, sizeof(kv[*n].value), "%s", value);
	(*n)++;
	return 0;
}

/*
 * The line at p into buf (NUL-terminated, cut to len - 1 bytes, without its
 * newline); returns where the next line starts. Call while *p.
 */
static const char *next_line(const char *p, char *buf, size_t len)
{
	const char *nl = strchr(p, '\n');
	size_t n = nl ? (size_t)(nl - p) : strlen(p);

	if (n >= len)
		n = len - 1;
	memcpy(buf, p, n);
	buf[n] = '\0';
	return nl ? nl + 1 : p + strlen(p);
}

/*
 * Parse "key = value" / "key=value" lines, # and ; comments. Calls fn for
 * every assignment; sysctl style also drops a leading '-' (ignore errors).
 */
typedef int (*assign_fn)(const char *key, const char *value, int line, void *arg);

static int parse_assignments(const char *text, bool sysctl_style, assign_fn fn, void *arg)
{
	const char *p = text;
	int line = 0, r;

	while (*p) {
		char buf[512], *l, *eq;

		line++;
		p = next_line(p, buf, sizeof(buf));
		l = trim(buf);
		if (!*l || *l == '#' || *l == ';')
			continue;
		if (sysctl_style && *l == '-')
			l++;
		eq = strchr(l, '=');
		if (!eq) {
			if ((r = fn(l, NULL, line, arg)) < 0)
				return r;
			continue;
		}
		*eq = '\0';
		if ((r = fn(trim(l), trim(eq + 1), line, arg)) < 0)
			return r;
	}
	return 0;
}

struct boot_parse {
	struct persist_kv *out;
	int *n;
	const char *name;
	struct st_err *e;
};

static int boot_assign(const char *key, const char *value, int line, void *arg)
{
	struct boot_parse *bp = arg;
	const struct setting_def *d;

	if (!value)
		return err_set(bp->e, -EBADMSG, "%s: line %d: expected \"setting=value\", found \"%.60s\"",
			       bp->name, line, key);
	d = settings_find(key);
	if (!d)
		return err_set(bp->e, -EBADMSG, "%s: line %d: unknown setting \"%.40s\"",
			       bp->name, line, key);
	if (kv_set(bp->out, bp->n, d->name, value) < 0)
		return err_set(bp->e, -EBADMSG, "%s: line %d: too many settings", bp->name, line);
	return 0;
}

int persist_parse_boot(const char *text, const char *name, struct persist_kv *out,
		       int max, int *n, struct st_err *e)
{
	struct boot_parse bp = { out, n, name, e };

	if (max < SETTINGS_MAX)
		return err_set(e, -EINVAL, "persist_parse_boot: room for %d settings, need %d",
			       max, SETTINGS_MAX);

	*n = 0;
	return parse_assignments(text, false, boot_assign, &bp);
}

static void render_sysctl(const struct persist_plan *p, char *out, size_t len)
{
	size_t off = (size_t)snprintf(out, len, "%s", HEADER);

	for (int i = 0; i < p->n_settings && off < len; i++) {
		const struct setting_def *d = settings_find(p->settings[i].name);

		if (d && d->sysctl)
			off += (size_t)snprintf(out + off, len - off, "%s = %s\n", d->sysctl,
						p->settings[i].value);
	}
}

static void render_boot(const struct persist_plan *p, char *out, size_t len)
{
	size_t off = (size_t)snprintf(out, len, "%s# applied at boot by swaptune-boot.service"
				      " (swaptune apply --yes --from /%s)\n", HEADER,
				      PERSIST_BOOT_FILE);

	for (int i = 0; i < p->n_settings && off < len; i++) {
		const struct setting_def *d = settings_find(p->settings[i].name);

		if (d && !d->sysctl)
			off += (size_t)snprintf(out + off, len - off, "%s=%s\n", d->name,
						p->settings[i].value);
	}
}

/* The module parameter name of a zswap setting ("zswap.enabled" -> "enabled"). */
static const char *zswap_param(const struct setting_def *d)
{
	if (!d->modparam || strncmp(d->modparam, "zswap.", 6))
		return NULL;
	return d->modparam + 6;
}

static void render_modprobe(const struct persist_plan *p, char *out, size_t len)
{
	size_t off = 0;
	bool any = false;

	out[0] = '\0';
	for (int i = 0; i < p->n_settings; i++) {
		const struct setting_def *d = settings_find(p->settings[i].name);

		if (!d || !zswap_param(d))
			continue;
		if (!any)
			off = (size_t)snprintf(out, len, "%soptions zswap", HEADER);
		any = true;
		if (off < len)
			off += (size_t)snprintf(out + off, len - off, " %s=%s", zswap_param(d),
						p->settings[i].value);
	}
	if (any && off < len)
		snprintf(out + off, len - off, "\n");
}

/*
 * ---- swaptune's own files read back: parsed, validated, rendered again ----
 *
 * What the store recorded as a file's old content, and what a tree holds
 * in swaptune's own files, is never copied to the host: it is parsed into
 * settings, each value goes through the registry's parser and range as
 * user input does (settings_normalize), and the file is rendered again
 * from them. Only when that is byte for byte the text read is it taken.
 */
struct own_parse {
	const struct host *h;
	int idx;			/* F_SYSCTL or F_BOOT */
	const char *rel;
	struct persist_plan *p;
	struct st_err *e;
};

/* name = value into op->p, validated; a setting named twice is not ours. */
static int own_put(struct own_parse *op, const struct setting_def *d, const char *value,
		   int line)
{
	char norm[SETTING_VALUE_MAX];
	struct st_err e2 = {0};

	for (int i = 0; i < op->p->n_settings; i++)
		if (!strcmp(op->p->settings[i].name, d->name))
			return err_set(op->e, -EBADMSG, "/%s: line %d: %s a second time", op->rel, line,
				       d->name);
	if (strlen(value) >= SETTING_VALUE_MAX ||
	    settings_normalize(op->h, d, value, norm, sizeof(norm), &e2) < 0)
		return err_set(op->e, -EBADMSG, "/%s: line %d: %s", op->rel, line,
			       e2.msg[0] ? e2.msg : "value too long");
	if (kv_set(op->p->settings, &op->p->n_settings, d->name, norm) < 0)
		return err_set(op->e, -EBADMSG, "/%s: line %d: too many settings", op->rel, line);
	return 0;
}

static int own_assign(const char *key, const char *value, int line, void *arg)
{
	struct own_parse *op = arg;
	const struct setting_def *d = value ? settings_find(key) : NULL;
	bool fits = d && (op->idx == F_SYSCTL ? d->sysctl && !strcmp(key, d->sysctl) :
			  !d->sysctl && !strcmp(key, d->name));

	if (!fits)
		return err_set(op->e, -EBADMSG, "/%s: line %d: \"%.40s\" is not a line swaptune writes there",
			       op->rel, line, key);
	return own_put(op, d, value, line);
}

/* "options zswap name=value ..." lines (comments aside) into op->p. */
static int own_modprobe(const char *text, struct own_parse *op)
{
	const char *p = text;
	int line = 0, r;

	while (*p) {
		char buf[1024], *save = NULL, *tok;

		line++;
		p = next_line(p, buf, sizeof(buf));
		if (!buf[0] || buf[0] == '#')
			continue;
		tok = strtok_r(buf, " ", &save);
		if (!tok || strcmp(tok, "options") || !(tok = strtok_r(NULL, " ", &save)) ||
		    strcmp(tok, "zswap"))
			return err_set(op->e, -EBADMSG, "/%s: line %d: not a line swaptune writes there",
				       op->rel, line);
		while ((tok = strtok_r(NULL, " ", &save))) {
			char *eq = strchr(tok, '=');
			const struct setting_def *d = NULL;

			if (eq) {
				*eq = '\0';
				for (size_t i = 0; i < settings_count() && !d; i++) {
					const struct setting_def *c = settings_at(i);

					if (zswap_param(c) && !strcmp(zswap_param(c), tok))
						d = c;
				}
			}
			if (!d)
				return err_set(op->e, -EBADMSG, "/%s: line %d: \"%.40s\" is not a zswap option swaptune writes",
					       op->rel, line, tok);
			if ((r = own_put(op, d, eq + 1, line)) < 0)
				return r;
		}
	}
	return 0;
}

/* Parse own file idx (text) into p->settings, every value validated. */
static int own_parse_file(const struct host *h, int idx, const char *text,
			  struct persist_plan *p, struct st_err *e)
{
	struct own_parse op = { h, idx, own_files[idx], p, e };

	if (idx == F_MODPROBE)
		return own_modprobe(text, &op);
	return parse_assignments(text, idx == F_SYSCTL, own_assign, &op);
}

static bool only_comments(const char *s);

int persist_check_content(const struct host *h, const char *rel, const char *content,
			  struct st_err *e)
{
	int idx = persist_file_index(rel), r;
	struct persist_plan *p;
	char *buf;

	if (idx < 0)
		return err_set(e, -EBADMSG, "%s is not a file swaptune writes", rel);
	if (strlen(content) >= PERSIST_CONTENT_MAX)
		return err_set(e, -EBADMSG, "/%s: larger than any file swaptune writes", rel);
	p = calloc(1, sizeof(*p));
	buf = malloc(PERSIST_CONTENT_MAX);
	if (!p || !buf) {
		free(p);
		free(buf);
		return err_set(e, -ENOMEM, "out of memory");
	}
	r = own_parse_file(h, idx, content, p, e);
	if (r == 0) {
		if (idx == F_SYSCTL)
			render_sysctl(p, buf, PERSIST_CONTENT_MAX);
		else if (idx == F_BOOT)
			render_boot(p, buf, PERSIST_CONTENT_MAX);
		else
			render_modprobe(p, buf, PERSIST_CONTENT_MAX);
		if (only_comments(buf) || strcmp(buf, content))
			r = err_set(e, -EBADMSG, "/%s: not byte for byte what swaptune writes for the settings it names",
				    rel);
	}
	free(p);
	free(buf);
	return r;
}

/* True when rendered content holds nothing but comments. */
static bool only_comments(const char *s)
{
	while (*s) {
		const char *nl = strchr(s, '\n');

		if (*s != '#' && *s != '\n')
			return false;
		s = nl ? nl + 1 : s + strlen(s);
	}
	return true;
}

static void add_note(struct persist_plan *p, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void add_note(struct persist_plan *p, const char *fmt, ...)
{
	va_list ap;

	if (p->n_notes >= PERSIST_NOTES_MAX)
		return;
	va_start(ap, fmt);
	vsnprintf(p->notes[p->n_notes++], PERSIST_NOTE_LEN, fmt, ap);
	va_end(ap);
}

/* Where a setting is written outside swaptune's files, as written there. */
struct written_at {
	const char *where;	/* "/etc/sysctl.d/99-local.conf" (host view), "kernel command line" */
	int line;		/* 0 for the command line */
	const char *key;	/* as written there: "vm.page-cluster", "zswap.enabled" */
	const char *value;
};

static int add_conflict(struct persist_plan *p, const char *setting, const struct written_at *at,
			bool wins, bool ineffective)
{
	struct persist_conflict *c;
	const char *where = at->where, *key = at->key, *value = at->value;
	int line = at->line;

	if (p->n_conflicts >= PERSIST_CONFLICTS_MAX)
		return 0;
	c = &p->conflicts[p->n_conflicts++];
	snprintf(c->setting, sizeof(c->setting), "%s", setting);
	snprintf(c->where, sizeof(c->where), "%s", where);
	c->line = line;
	snprintf(c->key, sizeof(c->key), "%s", key);
	snprintf(c->value, sizeof(c->value), "%s", value);
	c->wins = wins;
	c->ineffective = ineffective;
	return 0;
}

/* The files of dir ending in .conf, into names (sorted later by the caller). */
struct conf_file {
	char base[256];
	char rel[PATH_MAX];
	dev_t dev;
	ino_t ino;
};

static int list_conf(const struct host *h, const char *dir, struct conf_file **v,
		     int *n, int *cap)
{
	struct dirent *de;
	DIR *d;

	d = host_file_opendir(h, dir);
	if (!d)
		return 0;	/* an absent directory holds nothing (nor one outside the tree) */
	while ((de = readdir(d))) {
		size_t l = strlen(de->d_name);
		struct conf_file *f;
		struct stat st;
		bool seen = false;

		if (l < 6 || strcmp(de->d_name + l - 5, ".conf"))
			continue;
		for (int i = 0; i < *n; i++)
			if (!strcmp((*v)[i].base, de->d_name))
				seen = true;	/* a higher-priority directory has it */
		if (seen)
			continue;
		if (*n == *cap) {
			struct conf_file *nv = realloc(*v, (size_t)(*cap = *cap ? *cap * 2 : 16) * sizeof(**v));

			if (!nv) {
				closedir(d);
				return -ENOMEM;
			}
			*v = nv;
		}
		f = &(*v)[(*n)++];
		snprintf(f->base, sizeof(f->base), "%s", de->d_name);
		snprintf(f->rel, sizeof(f->rel), "%s/%s", dir, de->d_name);
		if (host_file_stat(h, f->rel, &st) == 0) {
			f->dev = st.st_dev;
			f->ino = st.st_ino;
		} else {
			f->dev = 0;
			f->ino = 0;
		}
	}
	closedir(d);
	return 0;
}

static int cmp_conf(const void *a, const void *b)
{
	return strcmp(((const struct conf_file *)a)->base, ((const struct conf_file *)b)->base);
}

/* Normalise a sysctl key: "vm/page-cluster" -> "vm.page-cluster". */
static void sysctl_norm(const char *in, char *out, size_t len)
{
	const char *slash = strchr(in, '/'), *dot = strchr(in, '.');

	snprintf(out, len, "%s", in);
	if (!slash || (dot && dot < slash))
		return;
	for (char *c = out; *c; c++) {
		if (*c == '/')
			*c = '.';
		else if (*c == '.')
			*c = '/';
	}
}

struct sysctl_scan {
	const struct host *h;
	struct persist_plan *p;
	const char *setting, *key, *rel;
	bool wins;
};

static int sysctl_assign(const char *key, const char *value, int line, void *arg)
{
	struct sysctl_scan *s = arg;
	char norm[256], where[PATH_MAX];

	if (!value)
		return 0;
	sysctl_norm(key, norm, sizeof(norm));
	if (strcmp(norm, s->key) && fnmatch(norm, s->key, 0) != 0)
		return 0;
	snprintf(where, sizeof(where), "/%s", s->rel);
	return add_conflict(s->p, s->setting,
			    &(struct written_at){ .where = where, .line = line, .key = key, .value = value },
			    s->wins, false);
}

static int scan_file(const struct host *h, const char *rel, bool sysctl_style,
		     assign_fn fn, void *arg, struct st_err *e)
{
	char *buf = malloc(65536);
	int r;

	if (!buf)
		return err_set(e, -ENOMEM, "out of memory");
	r = persist_read_file(h, rel, buf, 65536, NULL);
	if (r >= 0)
		r = parse_assignments(buf, sysctl_style, fn, arg);
	else
		r = 0;	/* unreadable or huge: not ours to judge */
	free(buf);
	return r;
}

int persist_scan_sysctl(const struct host *h, const char *setting, const char *key,
			struct persist_plan *p, struct st_err *e)
{
	struct conf_file *v = NULL;
	int n = 0, cap = 0, r = 0;
	const char *ours = base_name(PERSIST_SYSCTL_FILE);
	struct sysctl_scan s = { h, p, setting, key, NULL, false };
	struct stat st;
	bool conf_seen = false;

	for (size_t i = 0; i < sizeof(sysctl_dirs) / sizeof(sysctl_dirs[0]); i++)
		if ((r = list_conf(h, sysctl_dirs[i], &v, &n, &cap)) < 0)
			goto out;
	if (n > 1)
		qsort(v, (size_t)n, sizeof(*v), cmp_conf);
	if (host_file_stat(h, "etc/sysctl.conf", &st) < 0)
		st.st_ino = 0;
	for (int i = 0; i < n; i++) {
		if (!strcmp(v[i].base, ours))
			continue;	/* ours, or masked by ours */
		if (st.st_ino && v[i].ino == st.st_ino && v[i].dev == st.st_dev)
			conf_seen = true;	/* Debian's 99-sysctl.conf -> ../sysctl.conf */
		s.rel = v[i].rel;
		s.wins = strcmp(v[i].base, ours) > 0;
		if ((r = scan_file(h, v[i].rel, true, sysctl_assign, &s, e)) < 0)
			goto out;
	}
	if (st.st_ino && !conf_seen) {
		/* procps `sysctl --system` reads it after every sysctl.d file */
		s.rel = "etc/sysctl.conf";
		s.wins = true;
		r = scan_file(h, s.rel, true, sysctl_assign, &s, e);
	}
out:
	free(v);
	if (r == -ENOMEM)
		return err_set(e, r, "out of memory");
	return r;
}

struct modprobe_scan {
	struct persist_plan *p;
	const char *setting, *param, *rel;
	bool wins, ineffective;
};

static void param_norm(char *s)
{
	for (; *s; s++)
		if (*s == '-')
			*s = '_';
}

/* modprobe.d lines are not key=value: parse "options zswap a=b c=d" here. */
static int scan_modprobe_text(const char *text, struct modprobe_scan *s)
{
	const char *p = text;
	int line = 0;

	while (*p) {
		char buf[1024], *save = NULL, *tok;

		line++;
		p = next_line(p, buf, sizeof(buf));
		tok = strtok_r(buf, " \t", &save);
		if (!tok || strcmp(tok, "options"))
			continue;
		tok = strtok_r(NULL, " \t", &save);
		if (!tok || strcmp(tok, "zswap"))
			continue;
		while ((tok = strtok_r(NULL, " \t", &save))) {
			char *eq = strchr(tok, '='), where[PATH_MAX], key[64];

			if (!eq || *tok == '#')
				break;
			*eq = '\0';
			param_norm(tok);
			if (strcmp(tok, s->param))
				continue;
			snprintf(where, sizeof(where), "/%s", s->rel);
			snprintf(key, sizeof(key), "zswap.%s", tok);
			add_conflict(s->p, s->setting,
				     &(struct written_at){ .where = where, .line = line, .key = key,
							   .value = eq + 1 },
				     s->wins, s->ineffective);
		}
	}
	return 0;
}

int persist_scan_zswap(const struct host *h, const char *setting, const char *param,
		       struct persist_plan *p, struct st_err *e)
{
	struct conf_file *v = NULL;
	int n = 0, cap = 0, r = 0;
	const char *ours = base_name(PERSIST_MODPROBE_FILE);
	struct modprobe_scan s = { p, setting, param, NULL, false, p->zswap_builtin };
	char *buf = malloc(65536);

	if (!buf)
		return err_set(e, -ENOMEM, "out of memory");
	for (size_t i = 0; i < sizeof(modprobe_dirs) / sizeof(modprobe_dirs[0]); i++)
		if ((r = list_conf(h, modprobe_dirs[i], &v, &n, &cap)) < 0)
			goto out;
	if (n > 1)
		qsort(v, (size_t)n, sizeof(*v), cmp_conf);
	for (int i = 0; i < n; i++) {
		if (!strcmp(v[i].base, ours))
			continue;
		if (persist_read_file(h, v[i].rel, buf, 65536, NULL) < 0)
			continue;
		s.rel = v[i].rel;
		/* with a module, the file read last sets the option */
		s.wins = !p->zswap_builtin && strcmp(v[i].base, ours) > 0;
		scan_modprobe_text(buf, &s);
	}
	/* the kernel command line sets the boot value; swaptune-boot.service runs later */
	if (host_read(h, HOST_CMDLINE, buf, 65536, NULL) >= 0) {
		char *save = NULL;

		for (char *tok = strtok_r(buf, " \t\n", &save); tok;
		     tok = strtok_r(NULL, " \t\n", &save)) {
			char *eq = strchr(tok, '=');

			if (!strcmp(tok, "--"))
				break;	/* the rest is init's */
			if (!eq || strncmp(tok, "zswap.", 6))
				continue;
			*eq = '\0';
			param_norm(tok + 6);
			if (strcmp(tok + 6, param))
				continue;
			add_conflict(p, setting,
				     &(struct written_at){ .where = "kernel command line", .key = tok,
							   .value = eq + 1 },
				     false, false);
		}
	}
out:
	free(buf);
	free(v);
	if (r == -ENOMEM)
		return err_set(e, r, "out of memory");
	return r;
}

static int plan_files(const struct host *h, struct persist_plan *p,
		      const char *const want[PERSIST_FILES_MAX], struct st_err *e)
{
	char old[PERSIST_CONTENT_MAX];

	p->n_files = PERSIST_FILES_MAX;
	for (int i = 0; i < PERSIST_FILES_MAX; i++) {
		struct persist_file *f = &p->files[i];
		int r = persist_read_file(h, own_files[i], old, sizeof(old), e);

		f->rel = own_files[i];
		if (r < 0 && r != -ENOENT)
			return r;
		f->exists = r >= 0;
		if (!want[i]) {
			f->remove = true;
			f->content[0] = '\0';
			f->changed = f->exists;
			continue;
		}
		snprintf(f->content, sizeof(f->content), "%s", want[i]);
		f->changed = !f->exists || strcmp(old, f->content);
	}
	return 0;
}

int persist_plan_contents(const struct host *h, const char *const want[PERSIST_FILES_MAX],
			  struct persist_plan *p, struct st_err *e)
{
	memset(p, 0, sizeof(*p));
	p->zswap_builtin = host_exists(h, HOST_ZSWAP_PARAMS) &&
			   !host_exists(h, HOST_ZSWAP_INITSTATE);
	return plan_files(h, p, want, e);
}

int persist_plan(const struct host *h, const struct persist_kv *set, int n,
		 struct persist_plan *p, struct st_err *e)
{
	char (*text)[PERSIST_CONTENT_MAX];
	const char *want[PERSIST_FILES_MAX];
	char buf[PERSIST_CONTENT_MAX], hint[256] = "";
	struct st_err e2 = {0};
	bool zswap_any = false;
	int r;

	memset(p, 0, sizeof(*p));
	p->zswap_builtin = host_exists(h, HOST_ZSWAP_PARAMS) &&
			   !host_exists(h, HOST_ZSWAP_INITSTATE);

	/*
	 * what swaptune's files hold already stays, unless set[] overrides it;
	 * taken only when each is byte for byte what swaptune writes
	 */
	for (int f = 0; f < PERSIST_FILES_MAX; f++) {
		if ((r = persist_read_file(h, own_files[f], buf, sizeof(buf), e)) == -ENOENT)
			continue;
		if (r < 0)
			return r;
		/* the module options follow from boot.conf's zswap settings: checked, not merged */
		if ((r = persist_check_content(h, own_files[f], buf, &e2)) < 0 ||
		    (f != F_MODPROBE && (r = own_parse_file(h, f, buf, p, &e2)) < 0))
			return err_set_exit(e, r, ST_EXIT_USAGE,
					    "swaptune's own file is not as swaptune wrote it: %s; remove it or put it back",
					    e2.msg);
	}
	for (int i = 0; i < n; i++) {
		const struct setting_def *d = settings_find(set[i].name);

		if (!d)
			return err_set(e, -EINVAL, "unknown setting \"%s\"", set[i].name);
		kv_set(p->settings, &p->n_settings, d->name, set[i].value);
	}

	text = calloc(PERSIST_FILES_MAX, sizeof(*text));
	if (!text)
		return err_set(e, -ENOMEM, "out of memory");
	render_sysctl(p, text[F_SYSCTL], sizeof(text[F_SYSCTL]));
	render_boot(p, text[F_BOOT], sizeof(text[F_BOOT]));
	render_modprobe(p, text[F_MODPROBE], sizeof(text[F_MODPROBE]));
	for (int i = 0; i < PERSIST_FILES_MAX; i++)
		want[i] = only_comments(text[i]) ? NULL : text[i];
	/* built in: module options never apply, and an old file of ours stays as it is */
	if (p->zswap_builtin || !host_exists(h, HOST_ZSWAP_PARAMS))
		want[F_MODPROBE] = NULL;
	r = plan_files(h, p, want, e);
	free(text);
	if (r < 0)
		return r;
	if (p->zswap_builtin && !p->files[F_MODPROBE].exists)
		p->files[F_MODPROBE].changed = false;

	for (int i = 0; i < p->n_settings; i++) {
		const struct setting_def *d = settings_find(p->settings[i].name);
		const char *param = zswap_param(d);

		if (d->sysctl && (r = persist_scan_sysctl(h, d->name, d->sysctl, p, e)) < 0)
			return r;
		if (!param)
			continue;
		if ((r = persist_scan_zswap(h, d->name, param, p, e)) < 0)
			return r;
		zswap_any = true;
		{
			size_t off = strlen(hint);
			const char *v = p->settings[i].value;

			if (d->type == SETTING_BOOL_YN)
				v = !strcmp(v, "Y") ? "1" : "0";
			snprintf(hint + off, sizeof(hint) - off, "%s%s=%s", off ? " " : "",
				 d->modparam, v);
		}
	}
	if (want[F_BOOT])
		add_note(p, "settings without a sysctl are applied at boot by swaptune-boot.service:"
			 " install share/systemd/swaptune-boot.service in /etc/systemd/system and"
			 " run systemctl enable swaptune-boot.service");
	if (zswap_any) {
		snprintf(p->cmdline_hint, sizeof(p->cmdline_hint), "%s", hint);
		if (p->zswap_builtin)
			add_note(p, "zswap is built into this kernel, so modprobe.d options do not apply"
				 " (no /%s); for the value from the first moment of boot add to the"
				 " kernel command line: %s", HOST_ZSWAP_INITSTATE, hint);
		else
			add_note(p, "zswap is a module: /%s sets its options when it loads;"
				 " the kernel command line equivalent is: %s",
				 PERSIST_MODPROBE_FILE, hint);
	}
	return 0;
}

/*
 * The directories above rel inside the sysroot are real directories (or
 * missing), not symlinks that would lead out of it.
 */
static bool parents_plain(const struct host *h, const char *rel)
{
	char dir[PATH_MAX];
	struct stat sb;

	snprintf(dir, sizeof(dir), "%s", rel);
	for (char *p = strchr(dir, '/'); p; p = strchr(p + 1, '/')) {
		*p = '\0';
		if (fstatat(h->rootfd, dir, &sb, AT_SYMLINK_NOFOLLOW) < 0)
			return errno == ENOENT;
		if (!S_ISDIR(sb.st_mode))
			return false;
		*p = '/';
	}
	return true;
}

/* A journal row names one of swaptune's own files, or a directory above one. */
static bool own_path(const char *rel, bool dir)
{
	size_t n = strlen(rel);

	for (int i = 0; i < PERSIST_FILES_MAX; i++) {
		if (!own_files[i])
			continue;
		if (!dir && !strcmp(own_files[i], rel))
			return true;
		if (dir && n && !strncmp(own_files[i], rel, n) && own_files[i][n] == '/')
			return true;
	}
	return false;
}

/* Remove what a killed swaptune left beside rel: its temporary files. */
static void sweep_tmp(const struct host *h, const char *rel)
{
	char dir[PATH_MAX], prefix[NAME_MAX + 1];
	const char *slash = strrchr(rel, '/');

	if (!slash)
		return;
	snprintf(dir, sizeof(dir), "%.*s", (int)(slash - rel), rel);
	snprintf(prefix, sizeof(prefix), "%s" HOST_FILE_TMP_SUFFIX, slash + 1);
	host_tmp_sweep(h, dir, prefix);
}

/*
 * Repair may put back or remove ident only while it holds what swaptune
 * left there: nothing, the recorded old content, or byte for byte what
 * swaptune writes. Anything else is an edit made since (an administrator
 * after the crash): it is kept and the undo refused, saying so. A value
 * changed in place in swaptune's own format cannot be told apart.
 */
static int unchanged_since(const struct host *h, const char *ident, const char *detail,
			   struct st_err *e)
{
	struct st_err e2 = {0};
	char *now = malloc(PERSIST_CONTENT_MAX);
	ssize_t n;
	int r = 0;

	if (!now)
		return err_set(e, -ENOMEM, "out of memory");
	n = host_file_get(h, ident, now, PERSIST_CONTENT_MAX, &e2);
	if (n == -ENOENT)
		r = 0;
	else if (n < 0)
		r = err_set(e, JOURNAL_UNDO_REFUSED, "/%s cannot be read to compare (%s): left as it is",
			    ident, e2.msg);
	else if (!(detail && !strcmp(now, detail)) && persist_check_content(h, ident, now, &e2) < 0)
		r = err_set(e, JOURNAL_UNDO_REFUSED,
			    "/%s was changed since swaptune wrote it (an edit after the crash?): "
			    "left as it is; check it by hand", ident);
	free(now);
	return r;
}

int persist_undo_file(const struct host *h, const char *ident, const char *detail,
		      struct st_err *e)
{
	struct st_err e2 = {0};
	int r;

	if (!own_path(ident, false))
		return err_set(e, JOURNAL_UNDO_REFUSED, "%s is not a file swaptune writes", ident);
	if (!parents_plain(h, ident))
		return err_set(e, JOURNAL_UNDO_REFUSED, "a directory above %s/%s is a symlink",
			       h->root, ident);
	/* the recorded content is put back only when swaptune itself would write it */
	if (detail && persist_check_content(h, ident, detail, &e2) < 0)
		return err_set(e, JOURNAL_UNDO_REFUSED, "its recorded old content is not a file swaptune writes (%s)",
			       e2.msg);
	if ((r = unchanged_since(h, ident, detail, e)) < 0)
		return r;
	sweep_tmp(h, ident);
	if (detail)
		return host_file_replace(h, ident, detail, 0644, e);
	r = host_file_remove(h, ident, false, e);
	return r == -ENOENT ? 0 : r;
}

/* A journaled directory of swaptune's own, under plain parents: else the undo is refused. */
static int own_dir_check(const struct host *h, const char *ident, struct st_err *e)
{
	if (!own_path(ident, true))
		return err_set(e, JOURNAL_UNDO_REFUSED, "%s is not a directory swaptune makes", ident);
	if (!parents_plain(h, ident))
		return err_set(e, JOURNAL_UNDO_REFUSED, "a directory above %s/%s is a symlink",
			       h->root, ident);
	return 0;
}

int persist_redo_dir(const struct host *h, const char *ident, const char *detail,
		     struct st_err *e)
{
	int r = own_dir_check(h, ident, e);

	(void)detail;
	return r < 0 ? r : host_file_mkdir(h, ident, 0755, e);
}

int persist_undo_dir(const struct host *h, const char *ident, const char *detail,
		     struct st_err *e)
{
	int r;

	(void)detail;
	if ((r = own_dir_check(h, ident, e)) < 0)
		return r;
	/* someone else put a file in it since: then it stays */
	r = host_file_remove(h, ident, true, e);
	if (r == -ENOTEMPTY || r == -EEXIST || r == -ENOTDIR) {
		err_reset(e);
		r = 0;
	}
	return r == -ENOENT ? 0 : r;
}

/* Create the missing directories above rel, each journaled first. */
static int make_parents(const struct host *h, const struct change_log *log, const char *rel,
			struct st_err *e)
{
	char dir[PATH_MAX];

	snprintf(dir, sizeof(dir), "%s", rel);
	for (char *p = strchr(dir, '/'); p; p = strchr(p + 1, '/')) {
		int r;

		*p = '\0';
		r = host_openat(h, dir, O_RDONLY | O_DIRECTORY);
		if (r >= 0) {
			close(r);
			*p = '/';
			continue;
		}
		if (r != -ENOENT)
			return host_open_error(h, dir, r, true, e);
		r = change_log_note(log, PERSIST_KIND_DIR, dir, NULL, e);
		if (r < 0)
			return err_prefix(e, "not creating %s/%s: cannot journal it", h->root, dir);
		if ((r = host_file_mkdir(h, dir, 0755, e)) < 0)
			return r;
		*p = '/';
	}
	return 0;
}

int persist_write(const struct host *h, const struct change_log *log,
		  const struct persist_plan *p, int *written, struct st_err *e)
{
	char old[PERSIST_CONTENT_MAX];

	if (written)
		*written = 0;
	for (int i = 0; i < p->n_files; i++) {
		const struct persist_file *f = &p->files[i];
		int r;

		if (!f->changed)
			continue;
		r = persist_read_file(h, f->rel, old, sizeof(old), e);
		if (r < 0 && r != -ENOENT)
			return r;
		if (f->remove && r == -ENOENT)
			continue;
		if (r == -ENOENT && (r = make_parents(h, log, f->rel, e)) < 0)
			return r;
		r = change_log_note(log, PERSIST_KIND_FILE, f->rel,
					  persist_read_file(h, f->rel, old, sizeof(old), NULL) >= 0 ?
					  old : NULL, e);
		if (r < 0)
			return err_prefix(e, "not writing %s/%s: cannot journal it", h->root, f->rel);
		if (f->remove) {
			if ((r = host_file_remove(h, f->rel, false, e)) < 0 && r != -ENOENT)
				return r;
		} else if ((r = host_file_replace(h, f->rel, f->content, 0644, e)) < 0) {
			return r;
		}
		if (written)
			(*written)++;
	}
	return 0;
}
