/*
 * settings.c - the registry of tunables, their validation, and snapshots.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "swaptune/settings.h"

static const struct setting_def settings[] = {
	{ .name = "page-cluster", .path = HOST_PAGE_CLUSTER, .type = SETTING_INT,
	  .min = 0, .max = 31, .sysctl = "vm.page-cluster",
	  .summary = "log2 of pages read per swap-in (0 = no readahead)", .cpu_visible = true },
	{ .name = "vma_ra_enabled", .path = HOST_VMA_RA, .type = SETTING_BOOL_WORD,
	  .summary = "VMA-based swap readahead (else cluster readahead)", .cpu_visible = true },
	{ .name = "zswap.enabled", .path = HOST_ZSWAP_PARAMS "/enabled",
	  .type = SETTING_BOOL_YN, .modparam = "zswap.enabled",
	  .summary = "compressed swap cache in RAM" },
	{ .name = "zswap.compressor", .path = HOST_ZSWAP_PARAMS "/compressor",
	  .type = SETTING_COMPRESSOR, .modparam = "zswap.compressor",
	  .summary = "zswap compression algorithm" },
	{ .name = "zswap.max_pool_percent", .path = HOST_ZSWAP_PARAMS "/max_pool_percent",
	  .type = SETTING_INT, .min = 0, .max = 100, .modparam = "zswap.max_pool_percent",
	  .summary = "zswap pool limit, % of RAM" },
	{ .name = "zswap.accept_threshold_percent",
	  .path = HOST_ZSWAP_PARAMS "/accept_threshold_percent", .type = SETTING_INT,
	  .min = 0, .max = 100, .modparam = "zswap.accept_threshold_percent",
	  .summary = "pool fill % below which zswap accepts again after the limit" },
	{ .name = "zswap.shrinker_enabled", .path = HOST_ZSWAP_PARAMS "/shrinker_enabled",
	  .type = SETTING_BOOL_YN, .modparam = "zswap.shrinker_enabled",
	  .summary = "proactive writeback of cold zswap pages" },
};

size_t settings_count(void)
{
	return sizeof(settings) / sizeof(settings[0]);
}

const struct setting_def *settings_at(size_t i)
{
	return i < settings_count() ? &settings[i] : NULL;
}

const struct setting_def *settings_find(const char *name)
{
	for (size_t i = 0; i < settings_count(); i++)
		if (!strcmp(settings[i].name, name))
			return &settings[i];
	/* accept the sysctl spelling too: vm.page-cluster */
	for (size_t i = 0; i < settings_count(); i++)
		if (settings[i].sysctl && !strcmp(settings[i].sysctl, name))
			return &settings[i];
	return NULL;
}

int settings_read(const struct host *h, const struct setting_def *d, char *val,
		  size_t len, struct st_err *e)
{
	int r = host_read_line(h, d->path, val, len, e);

	if (r < 0)
		return r;
	if (d->type == SETTING_INT) {
		char *end;
		long v = strtol(val, &end, 10);

		if (end == val || *end || v < d->min || v > d->max)
			return err_set(e, -EBADMSG,
				       "%s/%s: line 1: expected a number %ld..%ld, found \"%.40s\"",
				       h->root, d->path, d->min, d->max, val);
	} else if (d->type == SETTING_BOOL_YN) {
		/* a module's bool parameter reads back as Y or N (1/0 on old kernels) */
		if (strcmp(val, "Y") && strcmp(val, "N") && strcmp(val, "1") && strcmp(val, "0"))
			return err_set(e, -EBADMSG, "%s/%s: line 1: expected Y or N, found \"%.40s\"",
				       h->root, d->path, val);
	} else if (d->type == SETTING_BOOL_WORD) {
		if (strcmp(val, "true") && strcmp(val, "false"))
			return err_set(e, -EBADMSG, "%s/%s: line 1: expected true or false, found \"%.40s\"",
				       h->root, d->path, val);
	}
	return 0;
}

/* 1 = true, 0 = false, -1 = not a boolean word */
static int parse_bool(const char *s)
{
	static const char *yes[] = { "1", "y", "yes", "true", "on" };
	static const char *no[] = { "0", "n", "no", "false", "off" };

	for (size_t i = 0; i < sizeof(yes) / sizeof(yes[0]); i++) {
		if (!strcasecmp(s, yes[i]))
			return 1;
		if (!strcasecmp(s, no[i]))
			return 0;
	}
	return -1;
}

int settings_normalize(const struct host *h, const struct setting_def *d,
		       const char *in, char *out, size_t len, struct st_err *e)
{
	char avail[1024];
	int b;

	switch (d->type) {
	case SETTING_INT: {
		char *end;
		long v;

		errno = 0;
		v = strtol(in, &end, 10);
		if (end == in || *end || errno || v < d->min || v > d->max)
			return err_set(e, -EINVAL, "%s: \"%s\" is not a number from %ld to %ld",
				       d->name, in, d->min, d->max);
		snprintf(out, len, "%ld", v);
		return 0;
	}
	case SETTING_BOOL_YN:
	case SETTING_BOOL_WORD:
		b = parse_bool(in);
		if (b < 0)
			return err_set(e, -EINVAL, "%s: \"%s\" is not a boolean (use 1/0, Y/N, true/false, on/off)",
				       d->name, in);
		if (d->type == SETTING_BOOL_YN)
			snprintf(out, len, "%s", b ? "Y" : "N");
		else
			snprintf(out, len, "%s", b ? "true" : "false");
		return 0;
	case SETTING_COMPRESSOR:
		if (host_compressors(h, avail, sizeof(avail), e) < 0)
			return err_prefix(e, "%s: cannot list the kernel's compressors", d->name);
		for (char *save = NULL, *t = strtok_r(avail, " ", &save); t;
		     t = strtok_r(NULL, " ", &save))
			if (!strcmp(t, in)) {
				snprintf(out, len, "%s", in);
				return 0;
			}
		host_compressors(h, avail, sizeof(avail), NULL);
		return err_set(e, -EINVAL, "%s: \"%s\" is not offered by this kernel (available: %s)",
			       d->name, in, avail[0] ? avail : "none");
	}
	return err_set(e, -EINVAL, "%s: unknown setting type", d->name);
}

bool settings_equal(const struct setting_def *d, const char *a, const char *b)
{
	if (d->type == SETTING_BOOL_YN || d->type == SETTING_BOOL_WORD) {
		int x = parse_bool(a), y = parse_bool(b);

		return x >= 0 && x == y;
	}
	if (d->type == SETTING_INT) {
		char *ea, *eb;
		long x = strtol(a, &ea, 10), y = strtol(b, &eb, 10);

		return ea != a && eb != b && !*ea && !*eb && x == y;
	}
	return !strcmp(a, b);
}

int settings_write_raw(const struct host *h, const struct setting_def *d,
		       const char *val, struct st_err *e)
{
	char back[SETTING_VALUE_MAX], norm[SETTING_VALUE_MAX];
	int r;

	/* whoever calls: only a value the registry takes reaches the kernel file */
	if ((r = settings_normalize(h, d, val, norm, sizeof(norm), e)) < 0)
		return r;
	r = host_write(h, d->path, norm, e);

	if (r < 0)
		return r;
	r = host_read_line(h, d->path, back, sizeof(back), e);
	if (r < 0)
		return r;
	if (!settings_equal(d, back, norm))
		return err_set(e, -EIO, "%s: wrote \"%s\" but the kernel reports \"%s\"",
			       d->name, norm, back);
	return 0;
}

int settings_snapshot(const struct host *h, struct settings_snapshot *s,
		      struct st_err *e)
{
	memset(s, 0, sizeof(*s));
	for (size_t i = 0; i < settings_count() && s->n < SETTINGS_MAX; i++) {
		struct setting_value *v = &s->items[s->n++];
		int r;

		snprintf(v->name, sizeof(v->name), "%s", settings[i].name);
		r = settings_read(h, &settings[i], v->value, sizeof(v->value), e);
		if (r == -ENOENT) {
			err_reset(e);
			continue;
		}
		if (r < 0)
			return r;
		v->present = true;
	}
	return 0;
}

const struct setting_value *settings_snapshot_get(const struct settings_snapshot *s,
						  const char *name)
{
	for (int i = 0; i < s->n; i++)
		if (!strcmp(s->items[i].name, name))
			return &s->items[i];
	return NULL;
}

const char *settings_value_at(const struct setting_def *d, size_t i, char *buf, size_t len)
{
	static const char *const yn[] = { "Y", "N", NULL }, *const words[] = { "true", "false", NULL };
	static const char *const comp[] = { "lzo-rle", "lzo", "lz4", "lz4hc", "zstd", "deflate", "842", NULL };
	const char *const *list = d->type == SETTING_BOOL_YN ? yn : d->type == SETTING_BOOL_WORD ? words :
		d->type == SETTING_COMPRESSOR ? comp : NULL;

	if (d->type == SETTING_INT) {
		if (d->max - d->min >= 32 || (long)i > d->max - d->min)
			return NULL;
		snprintf(buf, len, "%ld", d->min + (long)i);
		return buf;
	}
	for (size_t k = 0; list && list[k]; k++)
		if (k == i)
			return snprintf(buf, len, "%s", list[k]), buf;
	return NULL;
}
