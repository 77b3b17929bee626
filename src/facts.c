/*
 * facts.c - gathers the host's swap, zswap, readahead, cgroup, PSI and PMU
 * facts through the host layer, and renders them as the status document.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "swaptune/facts.h"
#include "swaptune/fmt.h"
#include "swaptune/vocab.h"

/*
 * Record that part could not be read from rel (e1 says why) and go on. Out
 * of room, the first problems are kept: the strict form reports the first.
 */
static void problem(const struct host *h, struct host_facts *f, const char *part,
		    const char *rel, const struct st_err *e1)
{
	struct facts_problem *p;

	if (f->n_problems >= FACTS_PROBLEMS_MAX)
		return;
	p = &f->problems[f->n_problems++];
	snprintf(p->part, sizeof(p->part), "%s", part);
	if (host_path(h, rel, p->file, sizeof(p->file)) < 0)
		snprintf(p->file, sizeof(p->file), "%s", rel);
	p->err = *e1;
	if (!p->err.code)
		p->err.code = -EIO;
}

const struct facts_problem *facts_problem(const struct host_facts *f, const char *part)
{
	for (int i = 0; i < f->n_problems; i++)
		if (!strcmp(f->problems[i].part, part))
			return &f->problems[i];
	return NULL;
}

void facts_warn(FILE *err, const struct host_facts *f)
{
	for (int i = 0; i < f->n_problems; i++)
		fprintf(err, "swaptune: warning: %s; shown as n/a\n",
			fmt_printable(f->problems[i].err.msg));
}

/* Every registered setting, one by one: a malformed one is a problem of its own. */
static void collect_settings(const struct host *h, struct host_facts *f)
{
	struct settings_snapshot *s = &f->settings;

	for (size_t i = 0; i < settings_count() && s->n < SETTINGS_MAX; i++) {
		const struct setting_def *d = settings_at(i);
		struct setting_value *v = &s->items[s->n++];
		struct st_err e1 = {0};
		int r;

		snprintf(v->name, sizeof(v->name), "%s", d->name);
		r = settings_read(h, d, v->value, sizeof(v->value), &e1);
		if (r == 0)
			v->present = true;
		else if (r != -ENOENT)
			problem(h, f, d->name, d->path, &e1);
		if (!v->present)
			v->value[0] = '\0';
	}
}

static void collect_zswap(const struct host *h, struct host_facts *f)
{
	const struct setting_value *v;
	struct st_err e1 = {0};
	int r;

	v = settings_snapshot_get(&f->settings, "zswap.enabled");
	f->have_zswap_enabled = v && v->present;
	f->zswap_present = f->have_zswap_enabled || facts_problem(f, "zswap.enabled");
	if (f->have_zswap_enabled)
		f->zswap_enabled = !strcmp(v->value, "Y") || !strcmp(v->value, "1");
	v = settings_snapshot_get(&f->settings, "zswap.compressor");
	if (v && v->present)
		snprintf(f->zswap_compressor, sizeof(f->zswap_compressor), "%s", v->value);

	r = host_read_zswap_stats(h, &f->zswap_stats, &e1);
	if (r == 0) {
		f->zswap_stats_available = true;
		kv_get(&f->zswap_stats, "stored_pages", &f->zswap_stored_pages);
		kv_get(&f->zswap_stats, "pool_total_size", &f->zswap_pool_bytes);
	} else if (r == -ENOENT) {
		snprintf(f->zswap_stats_reason, sizeof(f->zswap_stats_reason), "%s",
			 !f->zswap_present ? "zswap is not in this kernel" :
			 !h->live || getuid() == 0 || host_exists(h, HOST_DEBUGFS "/zswap") ?
			 "debugfs is not mounted (mount -t debugfs none /" HOST_DEBUGFS ")" :
			 "debugfs is readable by root only");
	} else if (r == -EACCES || r == -EPERM) {
		snprintf(f->zswap_stats_reason, sizeof(f->zswap_stats_reason),
			 "debugfs is readable by root only");
	} else {
		kv_clear(&f->zswap_stats);
		snprintf(f->zswap_stats_reason, sizeof(f->zswap_stats_reason), "%s", e1.msg);
		problem(h, f, "zswap-debugfs", HOST_ZSWAP_DEBUGFS, &e1);
	}
	if (f->zswap_stats_available && f->zswap_pool_bytes)
		f->zswap_ratio = (double)f->zswap_stored_pages * (double)sysconf(_SC_PAGESIZE) /
				 (double)f->zswap_pool_bytes;
	else if (f->zswap_meminfo && f->zswap_meminfo_bytes)
		f->zswap_ratio = (double)f->zswapped_meminfo_bytes / (double)f->zswap_meminfo_bytes;
}

static void decide_readahead(struct host_facts *f)
{
	const struct facts_problem *vp = facts_problem(f, "vma_ra_enabled");
	int vma_ra = f->have_vma_ra ? (f->vma_ra_enabled ? FP_YES : FP_NO) : FP_UNKNOWN;

	f->ra_algo = fingerprint_readahead(vma_ra, !f->have_vma_ra && !vp,
					   f->have_swaps ? f->swaps : NULL, f->nswaps,
					   f->ra_reason, sizeof(f->ra_reason));
}

static void collect_memory(const struct host *h, struct host_facts *f)
{
	struct st_kvtab mi;
	struct st_err e1 = {0};

	kv_init(&mi);
	if (host_read_meminfo(h, &mi, &e1) < 0) {
		problem(h, f, "meminfo", HOST_MEMINFO, &e1);
	} else {
		f->have_meminfo = true;
		kv_get(&mi, "MemTotal", &f->mem_total_bytes);
		kv_get(&mi, "MemAvailable", &f->mem_available_bytes);
		kv_get(&mi, "SwapTotal", &f->swap_total_bytes);
		kv_get(&mi, "SwapFree", &f->swap_free_bytes);
		kv_get(&mi, "SwapCached", &f->swap_cached_bytes);
		f->zswap_meminfo = kv_get(&mi, "Zswap", &f->zswap_meminfo_bytes);
		kv_get(&mi, "Zswapped", &f->zswapped_meminfo_bytes);
	}
	kv_free(&mi);
}

static void collect_counters(const struct host *h, struct host_facts *f)
{
	struct st_err e1 = {0};
	int r;

	if (host_read_vmstat(h, &f->vmstat, &e1) < 0) {
		kv_clear(&f->vmstat);
		problem(h, f, "vmstat", HOST_VMSTAT, &e1);
	} else {
		f->have_vmstat = true;
	}
	f->have_swap_ra = kv_get(&f->vmstat, "swap_ra", &f->swap_ra) &&
			  kv_get(&f->vmstat, "swap_ra_hit", &f->swap_ra_hit);
	f->ra_hit_pct = f->have_swap_ra && f->swap_ra ?
			100.0 * (double)f->swap_ra_hit / (double)f->swap_ra : -1;

	err_reset(&e1);
	if (host_cgroup_info(h, &f->cgroup, &e1) < 0) {
		memset(&f->cgroup, 0, sizeof(f->cgroup));
		problem(h, f, "cgroups", HOST_MOUNTS, &e1);
	} else {
		f->have_cgroup = true;
	}
	err_reset(&e1);
	r = host_read_psi(h, HOST_PSI_MEMORY, &f->psi, &e1);
	if (r == 0)
		f->psi_available = true;
	else if (r != -ENOENT && r != -EOPNOTSUPP)	/* else no CONFIG_PSI, or psi=0 */
		problem(h, f, "psi", HOST_PSI_MEMORY, &e1);
}

int facts_collect_all(const struct host *h, struct host_facts *f, struct st_err *e)
{
	const struct setting_value *v;
	struct st_err e1 = {0};
	int r;

	memset(f, 0, sizeof(*f));
	kv_init(&f->zswap_stats);
	kv_init(&f->vmstat);

	/* without a kernel release this is not a host tree at all */
	if ((r = host_kernel_release(h, f->kernel, sizeof(f->kernel), e)) < 0)
		return r;
	if (host_read_line(h, HOST_HOSTNAME, f->hostname, sizeof(f->hostname), NULL) < 0)
		gethostname(f->hostname, sizeof(f->hostname));
	host_read_cpu_model(h, f->cpu_model, sizeof(f->cpu_model));

	collect_memory(h, f);
	if (host_read_swaps(h, f->swaps, HOST_MAX_SWAPS, &f->nswaps, &e1) < 0) {
		f->nswaps = 0;
		problem(h, f, "swaps", HOST_SWAPS, &e1);
	} else {
		f->have_swaps = true;
	}
	collect_settings(h, f);
	v = settings_snapshot_get(&f->settings, "page-cluster");
	if ((f->have_page_cluster = v && v->present))
		f->page_cluster = atoi(v->value);
	v = settings_snapshot_get(&f->settings, "vma_ra_enabled");
	if ((f->have_vma_ra = v && v->present))
		f->vma_ra_enabled = !strcmp(v->value, "true");
	decide_readahead(f);
	collect_zswap(h, f);
	collect_counters(h, f);
	if (host_compressors(h, f->compressors, sizeof(f->compressors), NULL) < 0)
		f->compressors[0] = '\0';
	return pmu_probe(h, &f->pmu, e);
}

int facts_collect(const struct host *h, struct host_facts *f, struct st_err *e)
{
	int r = facts_collect_all(h, f, e);

	if (r < 0 || f->n_problems == 0)
		return r;
	if (e)
		*e = f->problems[0].err;
	return f->problems[0].err.code;
}

void facts_free(struct host_facts *f)
{
	kv_free(&f->zswap_stats);
	kv_free(&f->vmstat);
}

const char *facts_page_cluster_words(const struct host_facts *f, char *buf, size_t len)
{
	int pc = f->page_cluster > 30 ? 30 : f->page_cluster;

	snprintf(buf, len, "%d (%d page%s per swap-in%s)", f->page_cluster, 1 << pc,
		 pc ? "s" : "", pc ? " at most" : ": no readahead");
	return buf;
}

static void add_u64(cJSON *o, const char *k, uint64_t v)
{
	cJSON_AddNumberToObject(o, k, (double)v);
}

/* A meminfo figure, null when meminfo could not be read. */
static void mem_u64(cJSON *o, const struct host_facts *f, const char *k, uint64_t v)
{
	if (f->have_meminfo)
		add_u64(o, k, v);
	else
		cJSON_AddNullToObject(o, k);
}

void facts_problems_json(cJSON *root, const struct host_facts *f)
{
	cJSON *a = cJSON_AddArrayToObject(root, "unreadable");

	for (int i = 0; i < f->n_problems; i++) {
		cJSON *o = cJSON_CreateObject();

		cJSON_AddStringToObject(o, "part", f->problems[i].part);
		cJSON_AddStringToObject(o, "file", f->problems[i].file);
		cJSON_AddStringToObject(o, "reason", f->problems[i].err.msg);
		cJSON_AddItemToArray(a, o);
	}
}

static void add_vmstat(cJSON *o, const struct st_kvtab *vm, const char *key)
{
	uint64_t v;

	if (kv_get(vm, key, &v))
		add_u64(o, key, v);
	else
		cJSON_AddNullToObject(o, key);
}

static void swaps_json(cJSON *root, const struct host_facts *f)
{
	cJSON *a, *s;

	if (!f->have_swaps) {
		cJSON_AddNullToObject(root, "swaps");
		return;
	}
	a = cJSON_AddArrayToObject(root, "swaps");

	for (int i = 0; i < f->nswaps; i++) {
		const struct st_swap *sw = &f->swaps[i];

		s = cJSON_CreateObject();
		cJSON_AddStringToObject(s, "path", sw->path);
		cJSON_AddStringToObject(s, "type", sw->type);
		add_u64(s, "size_bytes", sw->size_bytes);
		add_u64(s, "used_bytes", sw->used_bytes);
		cJSON_AddNumberToObject(s, "priority", sw->priority);
		if (sw->rotational < 0)
			cJSON_AddNullToObject(s, "rotational");
		else
			cJSON_AddBoolToObject(s, "rotational", sw->rotational == 1);
		if (sw->blockdev[0])
			cJSON_AddStringToObject(s, "device", sw->blockdev);
		else
			cJSON_AddNullToObject(s, "device");
		cJSON_AddBoolToObject(s, "zram", sw->zram);
		cJSON_AddItemToArray(a, s);
	}
}

static void readahead_json(cJSON *root, const struct host_facts *f)
{
	cJSON *o = cJSON_AddObjectToObject(root, "readahead");

	if (f->have_page_cluster)
		cJSON_AddNumberToObject(o, "page_cluster", f->page_cluster);
	else
		cJSON_AddNullToObject(o, "page_cluster");
	if (f->have_vma_ra)
		cJSON_AddBoolToObject(o, "vma_ra_enabled", f->vma_ra_enabled);
	else
		cJSON_AddNullToObject(o, "vma_ra_enabled");
	cJSON_AddStringToObject(o, "algorithm", f->ra_algo == RA_VMA ? "vma" :
				f->ra_algo == RA_CLUSTER ? "cluster" : "unknown");
	cJSON_AddStringToObject(o, "reason", f->ra_reason);
	if (f->have_swap_ra) {
		add_u64(o, "swap_ra", f->swap_ra);
		add_u64(o, "swap_ra_hit", f->swap_ra_hit);
	} else {
		cJSON_AddNullToObject(o, "swap_ra");
		cJSON_AddNullToObject(o, "swap_ra_hit");
	}
	if (f->ra_hit_pct >= 0)
		cJSON_AddNumberToObject(o, "hit_pct", f->ra_hit_pct);
	else
		cJSON_AddNullToObject(o, "hit_pct");
}

static void zswap_json(cJSON *root, const struct host_facts *f)
{
	cJSON *o = cJSON_AddObjectToObject(root, "zswap"), *s;

	cJSON_AddBoolToObject(o, "present", f->zswap_present);
	if (f->zswap_present && !f->have_zswap_enabled)
		cJSON_AddNullToObject(o, "enabled");
	else
		cJSON_AddBoolToObject(o, "enabled", f->zswap_enabled);
	s = cJSON_AddObjectToObject(o, "params");
	for (int i = 0; i < f->settings.n; i++) {
		const struct setting_value *v = &f->settings.items[i];

		if (strncmp(v->name, "zswap.", 6) || !v->present)
			continue;
		cJSON_AddStringToObject(s, v->name + 6, v->value);
	}
	s = cJSON_AddObjectToObject(o, "pool");
	cJSON_AddBoolToObject(s, "debugfs", f->zswap_stats_available);
	if (!f->zswap_stats_available)
		cJSON_AddStringToObject(s, "debugfs_reason", f->zswap_stats_reason);
	if (f->zswap_stats_available) {
		add_u64(s, "stored_pages", f->zswap_stored_pages);
		add_u64(s, "pool_bytes", f->zswap_pool_bytes);
		cJSON *c = cJSON_AddObjectToObject(s, "counters");
		for (size_t i = 0; i < f->zswap_stats.n; i++)
			add_u64(c, f->zswap_stats.items[i].key, f->zswap_stats.items[i].val);
	} else {
		cJSON_AddNullToObject(s, "stored_pages");
		cJSON_AddNullToObject(s, "pool_bytes");
	}
	if (f->zswap_meminfo) {
		add_u64(s, "meminfo_zswap_bytes", f->zswap_meminfo_bytes);
		add_u64(s, "meminfo_zswapped_bytes", f->zswapped_meminfo_bytes);
	}
	if (f->zswap_ratio > 0)
		cJSON_AddNumberToObject(s, "compression_ratio", f->zswap_ratio);
	else
		cJSON_AddNullToObject(s, "compression_ratio");
}

static void pressure_and_pmu_json(cJSON *root, const struct host_facts *f)
{
	cJSON *o = cJSON_AddObjectToObject(root, "psi");

	cJSON_AddBoolToObject(o, "available", f->psi_available);
	if (f->psi_available) {
		cJSON_AddNumberToObject(o, "some_avg10", f->psi.some.avg10);
		cJSON_AddNumberToObject(o, "full_avg10", f->psi.full.avg10);
		add_u64(o, "some_total_us", f->psi.some.total_us);
		add_u64(o, "full_total_us", f->psi.full.total_us);
	}
	o = cJSON_AddObjectToObject(root, "pmu");
	cJSON_AddBoolToObject(o, "hardware", f->pmu.hw_available);
	cJSON_AddBoolToObject(o, "software", f->pmu.sw_available);
	cJSON_AddStringToObject(o, "counters", f->pmu.hw_available ? "hardware" :
				f->pmu.sw_available ? "software" : "none");
	cJSON_AddBoolToObject(o, "probed_live", f->pmu.probed_live);
	if (f->pmu.hw_reason[0])
		cJSON_AddStringToObject(o, "hardware_reason", f->pmu.hw_reason);
	if (f->pmu.sw_reason[0])
		cJSON_AddStringToObject(o, "software_reason", f->pmu.sw_reason);
	if (f->pmu.paranoid != -99)
		cJSON_AddNumberToObject(o, "perf_event_paranoid", f->pmu.paranoid);
}

cJSON *facts_to_json(const struct host_facts *f)
{
	cJSON *root = cJSON_CreateObject(), *o;
	static const enum vocab_id vm_rows[] = {
		V_PSWPIN, V_PSWPOUT, V_ZSWPIN, V_ZSWPOUT, V_ZSWPWB, V_SWAP_RA, V_SWAP_RA_HIT,
		V_PGMAJFAULT,
	};

	cJSON_AddStringToObject(root, "schema", STATUS_SCHEMA);
	cJSON_AddStringToObject(root, "kernel", f->kernel);
	cJSON_AddStringToObject(root, "hostname", f->hostname);

	o = cJSON_AddObjectToObject(root, "memory");
	mem_u64(o, f, "total_bytes", f->mem_total_bytes);
	mem_u64(o, f, "available_bytes", f->mem_available_bytes);
	mem_u64(o, f, "swap_total_bytes", f->swap_total_bytes);
	mem_u64(o, f, "swap_free_bytes", f->swap_free_bytes);
	mem_u64(o, f, "swap_cached_bytes", f->swap_cached_bytes);
	swaps_json(root, f);
	readahead_json(root, f);
	zswap_json(root, f);

	o = cJSON_AddObjectToObject(root, "vmstat");
	for (size_t i = 0; i < sizeof(vm_rows) / sizeof(vm_rows[0]); i++)
		add_vmstat(o, &f->vmstat, vocab_key(vm_rows[i]));

	o = cJSON_AddObjectToObject(root, "cgroup");
	if (f->have_cgroup) {
		cJSON_AddStringToObject(o, "mode", cgroup_mode_name(f->cgroup.mode));
		cJSON_AddStringToObject(o, "memory_controller", f->cgroup.memory_v1 ? "v1" :
					f->cgroup.memory_v2 ? "v2" : "none");
	} else {
		cJSON_AddNullToObject(o, "mode");
		cJSON_AddNullToObject(o, "memory_controller");
	}
	if (f->cgroup.memory_root[0])
		cJSON_AddStringToObject(o, "memory_root", f->cgroup.memory_root);
	else
		cJSON_AddNullToObject(o, "memory_root");
	pressure_and_pmu_json(root, f);
	facts_problems_json(root, f);
	return root;
}
