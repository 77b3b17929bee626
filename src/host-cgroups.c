/*
 * host-cgroups.c - the memory cgroups of the host and their figures (see
 * host-cgroups.h): a breadth-first walk of the memory controller's tree,
 * each directory opened beneath the sysroot, memory.stat read by the
 * vocabulary's keys, v2's memory.swap.current and memory.pressure beside it.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "swaptune/host-cgroups.h"
#include "swaptune/vocab.h"

/* the vocabulary row of each field read from memory.stat (-1: not from memory.stat) */
static const int field_row[HCG_COUNT] = {
	[HCG_ANON] = V_CG_ANON, [HCG_FILE] = V_CG_FILE, [HCG_SWAP] = V_CG_SWAP,
	[HCG_ZSWAP] = V_CG_ZSWAP, [HCG_ZSWAPPED] = V_CG_ZSWAPPED, [HCG_ZSWPIN] = V_CG_ZSWPIN,
	[HCG_ZSWPOUT] = V_CG_ZSWPOUT, [HCG_REFAULT_ANON] = V_CG_REFAULT_ANON,
	[HCG_REFAULT_FILE] = -1, [HCG_PGMAJFAULT] = V_CG_PGMAJFAULT,
};

static const char *const field_names[HCG_COUNT] = {
	"anon", "file", "swap", "zswap", "zswapped", "zswpin", "zswpout", "refault_anon",
	"refault_file", "pgmajfault",
};

const char *host_cgroup_field_name(enum host_cgroup_field f)
{
	return f < HCG_COUNT ? field_names[f] : "?";
}

bool host_cgroup_field_counter(enum host_cgroup_field f)
{
	return f >= HCG_ZSWPIN;
}

static bool kv_lookup(const void *arg, const char *key, uint64_t *v)
{
	return kv_get(arg, key, v);
}

/*
 * One group's figures from the files in rel. False when its memory.stat
 * cannot be read (gone meanwhile, or not a memory cgroup).
 */
static bool read_group(const struct host *h, const char *rel, int version, struct host_cgroup_stat *o)
{
	struct st_kvtab t;
	struct st_err e = { 0 };
	char file[PATH_MAX + 32], buf[64];
	bool v1 = version == 1;
	uint64_t v;

	kv_init(&t);
	snprintf(file, sizeof(file), "%s/memory.stat", rel);
	if (host_read_kv(h, file, &t, false, &e) < 0) {
		kv_free(&t);
		return false;
	}
	for (int f = 0; f < HCG_COUNT; f++)
		if (field_row[f] >= 0)
			o->have[f] = vocab_value(&vocab_rows[field_row[f]], v1, kv_lookup, &t, &o->val[f]);
	/* file refaults: no counter of the vocabulary counts them (the probe does not) */
	o->have[HCG_REFAULT_FILE] = kv_get(&t, v1 ? "total_workingset_refault_file" : "workingset_refault_file",
					   &o->val[HCG_REFAULT_FILE]);
	kv_free(&t);
	if (!v1) {
		snprintf(file, sizeof(file), "%s/memory.swap.current", rel);
		if (host_file_get(h, file, buf, sizeof(buf), &e) > 0 && sscanf(buf, "%lu", &v) == 1) {
			o->have[HCG_SWAP] = true;
			o->val[HCG_SWAP] = v;
		}
	}
	snprintf(file, sizeof(file), "%s/memory.pressure", rel);
	o->have_psi = host_read_psi(h, file, &o->psi, &e) == 0;
	return true;
}

struct walk {
	const struct host *h;
	int version;
	size_t max, n;
	bool truncated;
	struct host_cgroup_stat *rows;
};

/* The subdirectories of row i's group, appended as rows (breadth first). */
static void children(struct walk *w, const char *root, size_t i, int max_depth)
{
	char rel[PATH_MAX + HOST_CGROUP_PATH_MAX];
	struct dirent *d;
	DIR *dir;

	if (w->rows[i].depth >= max_depth)
		return;
	snprintf(rel, sizeof(rel), "%s%s", root, strcmp(w->rows[i].path, "/") ? w->rows[i].path : "");
	if (!(dir = host_file_opendir(w->h, rel)))
		return;
	while ((d = readdir(dir))) {
		struct host_cgroup_stat *o;
		struct stat st;
		char sub[PATH_MAX + HOST_CGROUP_PATH_MAX + NAME_MAX];

		if (d->d_name[0] == '.')
			continue;
		if (d->d_type != DT_DIR && (d->d_type != DT_UNKNOWN ||
		    fstatat(dirfd(dir), d->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0 || !S_ISDIR(st.st_mode)))
			continue;
		if (w->n >= w->max) {
			w->truncated = true;
			break;
		}
		o = &w->rows[w->n];
		memset(o, 0, sizeof(*o));
		if ((size_t)snprintf(o->path, sizeof(o->path), "%s/%s", strcmp(w->rows[i].path, "/") ?
				     w->rows[i].path : "", d->d_name) >= sizeof(o->path))
			continue;	/* a path too long to show whole is not shown cut */
		o->depth = w->rows[i].depth + 1;
		snprintf(sub, sizeof(sub), "%s%s", root, o->path);
		if (read_group(w->h, sub, w->version, o))
			w->n++;
	}
	closedir(dir);
}

int host_cgroups_scan(const struct host *h, int max_depth, size_t max, struct host_cgroups *out,
		      struct st_err *e)
{
	struct st_cgroup_info ci;
	struct walk w = { .h = h };
	int r;

	*out = (struct host_cgroups){ 0 };
	if ((r = host_cgroup_info(h, &ci, e)) < 0)
		return r;
	if (!ci.memory_v1 && !ci.memory_v2)
		return err_set(e, -EOPNOTSUPP, "no memory cgroup controller is mounted on this host");
	w.version = ci.memory_v1 ? 1 : 2;
	w.max = max && max < HOST_CGROUPS_MAX ? max : HOST_CGROUPS_MAX;
	if (!(w.rows = calloc(w.max, sizeof(*w.rows))))
		return err_set(e, -ENOMEM, "out of memory");
	snprintf(w.rows[0].path, sizeof(w.rows[0].path), "/");
	/* the root stays a row without figures where it has no memory.stat (v2 before 5.x kernels) */
	read_group(h, ci.memory_root, w.version, &w.rows[0]);
	w.n = 1;
	for (size_t i = 0; i < w.n; i++)
		children(&w, ci.memory_root, i, max_depth);
	*out = (struct host_cgroups){
		.rows = w.rows, .n = w.n, .version = w.version, .truncated = w.truncated
	};
	return 0;
}
