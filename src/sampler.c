/*
 * sampler.c - the sampling engine: reads every row of the counter
 * vocabulary (vocab.h) that has a per-tick value or a counter, from files
 * kept open through the host layer's readers (host-read.c), turns counters
 * into per-second rates, derives readahead, zswap and IPC figures, and
 * hands a tick over as numbers (struct sample_tick; its JSON line is
 * sample-json.c's, see sampler.h).
 */
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "swaptune/sampler.h"

#define SRC_BUF 65536
#define RETRY_NS 1000000000ULL	/* look for a missing file again after 1 s */
#define WHY_LEN 200
#define ZS_FILES HOST_KVFILE_KEYS	/* zswap debugfs files read per tick, at most */
#define KEYMAP_MAX 64		/* row key spellings per source */

double sample_table_scale(enum sample_metric m)
{
	return !strcmp(sample_metric_defs[m].unit, "bytes") ? 1.0 / 1048576 : 1;
}

/*
 * The kernel keys of one source's rows: the distinct keys (what the file
 * reader looks for), and every row's spelling of a key -> its index there.
 */
struct keymap {
	const char *keys[HOST_KVFILE_KEYS];
	int nkeys;
	const char *spelling[KEYMAP_MAX];
	int8_t at[KEYMAP_MAX];
	int nspell;
};

/* this tick's values of a keymap's keys */
struct keyvals {
	const struct keymap *map;
	const uint64_t *val;
	const bool *have;
};

/* a PSI file kept open, with this tick's parse */
struct psifile {
	struct host_file file;
	bool ok;
	struct st_psi psi;
};

struct sampler {
	const struct host *h;
	struct sampler_opts o;
	long page_size;

	struct keymap vm_keys, mi_keys, cg_keys, zs_keys;
	struct host_kvfile vmstat, meminfo, cgstat;
	struct psifile psi, cgpsi;

	bool zs_on;
	uint64_t zs_val[ZS_FILES];
	bool zs_have[ZS_FILES];
	int zs_sentinel;		/* stored_pages: without it there is no pool to read */
	uint64_t zs_retry_ns;

	bool cg_on, cg_v2;
	char cg_path[PATH_MAX];

	struct pmu_counters *pmu;
	int pmu_idx[SC_COUNT];		/* counter -> pmu event index, -1 */
	const char *cpu_source, *cpu_target;
	char cpu_note[512];

	int sc_of_sm[SM_COUNT];		/* a rate's counter, -1 for a level */

	uint64_t cur[SC_COUNT], prev[SC_COUNT];
	bool cur_ok[SC_COUNT], prev_ok[SC_COUNT];

	bool started;
	uint64_t seq, first_ns, prev_ns, now_ns, wall_ns;
	double val[SM_COUNT];
	bool ok[SM_COUNT];
	double sum[SM_COUNT];
	uint64_t nsum[SM_COUNT];
	char why[SG_COUNT][WHY_LEN];

	char members[1024];		/* every line's identity members (JSON, no braces) */

	char buf[SRC_BUF];
};

const struct sample_metric_def *sampler_metric(enum sample_metric m)
{
	return (unsigned)m < SM_COUNT ? &sample_metric_defs[m] : NULL;
}

const struct sample_counter_def *sampler_counter_def(enum sample_counter c)
{
	return (unsigned)c < SC_COUNT ? &sample_counter_defs[c] : NULL;
}

bool sampler_counter(const struct sampler *s, enum sample_counter c, uint64_t *v)
{
	if ((unsigned)c >= SC_COUNT || !s->cur_ok[c] ||
	    (sample_counter_defs[c].group == SG_CGROUP && !s->cg_on))
		return false;
	if (v)
		*v = s->cur[c];
	return true;
}

long sampler_page_size(const struct sampler *s)
{
	return s->page_size;
}

const char *sampler_group_name(enum sample_group g)
{
	return vocab_group_name(g);
}

/* ---- the keys of the rows, per source ---- */

static void keymap_add(struct keymap *k, const char *key)
{
	int i = 0;

	while (i < k->nkeys && strcmp(k->keys[i], key))
		i++;
	if (i == k->nkeys) {
		if (k->nkeys == HOST_KVFILE_KEYS)
			return;	/* test-sampler checks that every row is read */
		k->keys[k->nkeys++] = key;
	}
	if (k->nspell < KEYMAP_MAX) {
		k->spelling[k->nspell] = key;
		k->at[k->nspell++] = (int8_t)i;
	}
}

static void keymap_add_row(struct keymap *k, const struct vocab_row *r, bool v1)
{
	const char *const *keys = vocab_keys(r, v1);

	for (int i = 0; i < VOCAB_TERMS && keys[i]; i++)
		keymap_add(k, keys[i]);
	for (int i = 0; i < VOCAB_TERMS && r->alt[i]; i++)
		keymap_add(k, r->alt[i]);
}

/* the rows the sampler reads (a per-tick value or a counter) of a source */
static void keymap_build(struct keymap *k, enum vocab_source src, bool v1)
{
	memset(k, 0, sizeof(*k));
	for (int m = 0; m < SM_COUNT; m++)
		if (sample_metric_defs[m].row->source == src)
			keymap_add_row(k, sample_metric_defs[m].row, v1);
	for (int c = 0; c < SC_COUNT; c++)
		if (sample_counter_defs[c].row->source == src)
			keymap_add_row(k, sample_counter_defs[c].row, v1);
}

/* vocab_value()'s lookup: the rows' key strings are the map's spellings */
static bool keyvals_get(const void *arg, const char *key, uint64_t *v)
{
	const struct keyvals *kv = arg;
	const struct keymap *k = kv->map;

	for (int i = 0; i < k->nspell; i++)
		if (k->spelling[i] == key) {
			if (!kv->have[k->at[i]])
				return false;
			*v = kv->val[k->at[i]];
			return true;
		}
	return false;
}

/* ---- reading (through the host layer's kept-open readers) ---- */

static void kf_read(struct sampler *s, struct host_kvfile *f)
{
	host_kvfile_read(s->h, f, s->now_ns, s->buf, SRC_BUF);
}

static void psi_read(struct sampler *s, struct psifile *f)
{
	f->ok = host_psifile_read(s->h, &f->file, s->now_ns, s->buf, SRC_BUF, &f->psi) == 0;
}

static void zswap_read(struct sampler *s)
{
	char *why = s->why[SG_ZSWAP];
	int n = s->zs_keys.nkeys, first = s->zs_sentinel;
	int r;

	memset(s->zs_have, 0, sizeof(s->zs_have));
	if (s->now_ns < s->zs_retry_ns || first < 0)
		return;
	r = host_zswap_value(s->h, s->zs_keys.keys[first], &s->zs_val[first]);
	if (r == -ENOENT || r == -EACCES || r == -EPERM) {
		/* no stored_pages: debugfs not mounted, not readable, or no zswap */
		snprintf(why, WHY_LEN, "%s",
			 r != -ENOENT ?
			 "zswap debugfs is readable by root only (meminfo Zswap/Zswapped still sampled)" :
			 "zswap debugfs is not mounted (mount -t debugfs none /" HOST_DEBUGFS
			 "; meminfo Zswap/Zswapped still sampled)");
		s->zs_retry_ns = s->now_ns + RETRY_NS;
		return;
	}
	s->zs_have[first] = r == 0;
	for (int i = 0; i < n; i++)
		if (i != first)
			s->zs_have[i] = host_zswap_value(s->h, s->zs_keys.keys[i], &s->zs_val[i]) == 0;
	if (s->zs_have[first])
		why[0] = '\0';
}

/* ---- one tick: every row of the vocabulary the sampler reads ---- */

/* why group g is n/a this tick ("" when it is not): a + b, copied (no printf each tick) */
static void set_why2(struct sampler *s, enum sample_group g, const char *a, const char *b)
{
	size_t n = strnlen(a, WHY_LEN - 1), m = strnlen(b, WHY_LEN - 1 - n);

	memcpy(s->why[g], a, n);
	memcpy(s->why[g] + n, b, m);
	s->why[g][n + m] = '\0';
}

static void set_why(struct sampler *s, enum sample_group g, const char *text)
{
	set_why2(s, g, text, "");
}

static void set_counter(struct sampler *s, enum sample_counter c, bool ok, uint64_t v)
{
	s->cur_ok[c] = ok;
	s->cur[c] = ok ? v : 0;
}

static void set_level(struct sampler *s, enum sample_metric m, bool ok, double v)
{
	s->ok[m] = ok;
	s->val[m] = ok ? v : 0;
}

/* The counters and levels of the rows of one "key value" source. */
static void take_rows(struct sampler *s, enum vocab_source src, const struct keyvals *kv, bool v1)
{
	uint64_t v = 0;
	bool ok;

	for (int c = 0; c < SC_COUNT; c++)
		if (sample_counter_defs[c].row->source == src) {
			ok = kv && vocab_value(sample_counter_defs[c].row, v1, keyvals_get, kv, &v);
			set_counter(s, (enum sample_counter)c, ok, v);
		}
	for (int m = 0; m < SM_COUNT; m++)
		if (s->sc_of_sm[m] < 0 && sample_metric_defs[m].row->source == src) {
			ok = kv && vocab_value(sample_metric_defs[m].row, v1, keyvals_get, kv, &v);
			set_level(s, (enum sample_metric)m, ok, (double)v);
		}
}

static void take_kvfile(struct sampler *s, enum vocab_source src, struct host_kvfile *f,
			const struct keymap *k, bool v1)
{
	struct keyvals kv = { k, f->val, f->have };

	take_rows(s, src, f->ok ? &kv : NULL, v1);
}

/* PSI rows: keys = { "some" or "full", "total" or "avg10" } */
static void take_psi(struct sampler *s, enum vocab_source src, const struct psifile *f)
{
	for (int c = 0; c < SC_COUNT; c++) {
		const struct vocab_row *r = sample_counter_defs[c].row;
		const struct st_psi_line *l;

		if (r->source != src)
			continue;
		l = !strcmp(r->keys[0], "full") ? &f->psi.full : &f->psi.some;
		set_counter(s, (enum sample_counter)c, f->ok && l->present, l->total_us);
	}
	for (int m = 0; m < SM_COUNT; m++) {
		const struct vocab_row *r = sample_metric_defs[m].row;
		const struct st_psi_line *l;

		if (r->source != src || s->sc_of_sm[m] >= 0)
			continue;
		l = !strcmp(r->keys[0], "full") ? &f->psi.full : &f->psi.some;
		set_level(s, (enum sample_metric)m, f->ok && l->present,
			  !strcmp(r->keys[1], "avg60") ? l->avg60 :
			  !strcmp(r->keys[1], "avg300") ? l->avg300 : l->avg10);
	}
}

static void sample_vmstat(struct sampler *s)
{
	kf_read(s, &s->vmstat);
	set_why(s, SG_VMSTAT, s->vmstat.file.why);
	take_kvfile(s, VSRC_VMSTAT, &s->vmstat, &s->vm_keys, false);
}

static void sample_meminfo(struct sampler *s)
{
	kf_read(s, &s->meminfo);
	set_why(s, SG_MEMINFO, s->meminfo.file.why);
	take_kvfile(s, VSRC_MEMINFO, &s->meminfo, &s->mi_keys, false);
}

static void sample_psi(struct sampler *s)
{
	psi_read(s, &s->psi);
	set_why(s, SG_PSI, s->psi.ok ? "" : s->psi.file.why);
	take_psi(s, VSRC_PSI, &s->psi);
}

static void sample_zswap(struct sampler *s)
{
	struct keyvals kv = { &s->zs_keys, s->zs_val, s->zs_have };

	if (!s->zs_on) {
		set_why(s, SG_ZSWAP, "zswap pool not asked for");
		return;
	}
	zswap_read(s);
	take_rows(s, VSRC_ZSWAP, &kv, false);
}

static void sample_cgroup(struct sampler *s)
{
	struct host_kvfile *f = &s->cgstat;

	if (!s->cg_on)
		return;
	kf_read(s, f);
	take_kvfile(s, VSRC_MEMCG, f, &s->cg_keys, !s->cg_v2);
	psi_read(s, &s->cgpsi);
	take_psi(s, VSRC_MEMCG_PSI, &s->cgpsi);
	if (!f->ok)
		set_why(s, SG_CGROUP, f->file.why);
	else if (!s->cgpsi.ok)
		set_why2(s, SG_CGROUP, s->cgpsi.file.why,
			 s->cg_v2 ? "" : " (cgroup v1 has per-cgroup PSI only with psi=1 and cgroup1 pressure files)");
	else
		set_why(s, SG_CGROUP, "");
}

static void sample_cpu(struct sampler *s)
{
	struct st_err e = {0};
	bool read = s->pmu && pmu_counters_read(s->pmu, &e) == 0;

	if (!s->pmu)
		set_why(s, SG_CPU, s->cpu_note);
	else if (!read)
		set_why(s, SG_CPU, e.msg);
	else
		s->why[SG_CPU][0] = '\0';
	for (int c = 0; c < SC_COUNT; c++) {
		int k = s->pmu_idx[c];

		if (sample_counter_defs[c].row->source == VSRC_PMU)
			set_counter(s, (enum sample_counter)c, read && k >= 0,
				    read && k >= 0 ? s->pmu->ev[k].value : 0);
	}
}

static void derive(struct sampler *s)
{
	double ra = s->val[SM_SWAP_RA], hit = s->val[SM_SWAP_RA_HIT];
	bool rates = s->ok[SM_SWAP_RA] && s->ok[SM_SWAP_RA_HIT];

	/* hits can land a tick after their readahead: cap, never negative */
	set_level(s, SM_RA_HIT_PCT, rates && ra > 0, ra > 0 ? fmin(100.0, 100.0 * hit / ra) : 0);
	set_level(s, SM_RA_WASTED, rates, fmax(0.0, ra - hit));
	if (s->ok[SM_ZP_STORED_PAGES] && s->ok[SM_ZP_POOL_BYTES] && s->val[SM_ZP_POOL_BYTES] > 0)
		set_level(s, SM_ZSWAP_RATIO, true,
			  s->val[SM_ZP_STORED_PAGES] * (double)s->page_size / s->val[SM_ZP_POOL_BYTES]);
	else if (s->ok[SM_ZSWAP_BYTES] && s->ok[SM_ZSWAPPED_BYTES] && s->val[SM_ZSWAP_BYTES] > 0)
		set_level(s, SM_ZSWAP_RATIO, true, s->val[SM_ZSWAPPED_BYTES] / s->val[SM_ZSWAP_BYTES]);
	else
		set_level(s, SM_ZSWAP_RATIO, false, 0);
	set_level(s, SM_IPC, s->ok[SM_CPU_CYCLES] && s->ok[SM_CPU_INSTRUCTIONS] &&
		  s->val[SM_CPU_CYCLES] > 0,
		  s->val[SM_CPU_CYCLES] > 0 ? s->val[SM_CPU_INSTRUCTIONS] / s->val[SM_CPU_CYCLES] : 0);
}

/* every rate from its counter (x the row's scale) */
static void rates(struct sampler *s)
{
	double dt = s->seq > 0 ? (double)(s->now_ns - s->prev_ns) / 1e9 : 0;

	for (int m = 0; m < SM_COUNT; m++) {
		int c = s->sc_of_sm[m];

		if (c < 0)
			continue;
		/* a counter that went backwards was reset: n/a, new baseline */
		if (dt > 0 && s->cur_ok[c] && s->prev_ok[c] && s->cur[c] >= s->prev[c])
			set_level(s, (enum sample_metric)m, true,
				  (double)(s->cur[c] - s->prev[c]) / dt * sample_metric_defs[m].scale);
		else
			set_level(s, (enum sample_metric)m, false, 0);
	}
}

int sampler_tick(struct sampler *s, uint64_t mono_ns, uint64_t wall_ns,
		 struct st_err *e)
{
	if (s->started && mono_ns <= s->now_ns)
		return err_set(e, -EINVAL, "sampler_tick: time did not advance");
	if (s->started) {
		s->prev_ns = s->now_ns;
		memcpy(s->prev, s->cur, sizeof(s->prev));
		memcpy(s->prev_ok, s->cur_ok, sizeof(s->prev_ok));
		s->seq++;
	} else {
		s->started = true;
		s->first_ns = mono_ns;
	}
	s->now_ns = mono_ns;
	s->wall_ns = wall_ns;
	memset(s->ok, 0, sizeof(s->ok));
	memset(s->cur_ok, 0, sizeof(s->cur_ok));

	sample_vmstat(s);
	sample_meminfo(s);
	sample_psi(s);
	sample_zswap(s);
	sample_cgroup(s);
	sample_cpu(s);
	rates(s);
	derive(s);
	if (s->seq > 0)
		for (int m = 0; m < SM_COUNT; m++)
			if (s->ok[m]) {
				s->sum[m] += s->val[m];
				s->nsum[m]++;
			}
	return 0;
}

/* ---- opening ---- */

static bool path_ok(const char *p)
{
	if (!*p)
		return true;
	for (const char *q = p; *q; q++)
		if (q[0] == '.' && q[1] == '.' && (q == p || q[-1] == '/') && (q[2] == '/' || !q[2]))
			return false;
	return true;
}

static void map_pmu(struct sampler *s)
{
	for (int c = 0; c < SC_COUNT; c++) {
		const struct vocab_row *r = sample_counter_defs[c].row;

		if (r->source != VSRC_PMU)
			continue;
		for (int k = 0; k < s->pmu->nevents; k++)
			if (!strcmp(s->pmu->ev[k].name, r->keys[0]))
				s->pmu_idx[c] = k;
	}
}

/* The cgroup's perf_event directory, or why not (fallback text); -1 when none. */
static int open_perf_cgroup(struct sampler *s, const struct st_cgroup_info *ci, char *fallback,
			    size_t len)
{
	char root[PATH_MAX], rel[PATH_MAX * 2];
	int fd;

	if (ci->memory_v2) {
		snprintf(root, sizeof(root), "%s", ci->unified_root);
	} else {
		snprintf(root, sizeof(root), "%s", ci->perf_event_v1_root);
		if (!root[0]) {
			snprintf(fallback, len,
				 "the perf_event controller is not mounted (cgroup v1), so the cgroup cannot be counted alone: counting system-wide instead; ");
			return -1;
		}
	}
	if (!root[0])
		return -1;
	snprintf(rel, sizeof(rel), "%s/%s", root, s->o.cgroup);
	fd = host_openat(s->h, rel, O_RDONLY | O_DIRECTORY);
	if (fd < 0) {
		snprintf(fallback, len,
			 "/%s: %s, so the cgroup cannot be counted alone: counting system-wide instead; ",
			 rel, strerror(-fd));
		return -1;
	}
	return fd;
}

static void open_cpu(struct sampler *s, const struct st_cgroup_info *ci)
{
	char fallback[300] = "";
	enum pmu_target t = PMU_TARGET_SYSTEM;
	struct st_err e = {0};
	int id = -1, cgfd = -1;

	s->cpu_source = "none";
	s->cpu_target = "none";
	if (!s->o.cpu_counters) {
		snprintf(s->cpu_note, sizeof(s->cpu_note), "CPU counters not asked for");
		return;
	}
	if (!s->h->live) {
		snprintf(s->cpu_note, sizeof(s->cpu_note),
			 "CPU counters are counted on the live host only (--sysroot given)");
		return;
	}
	if (s->o.pid > 0) {
		t = PMU_TARGET_PID;
		id = s->o.pid;
	} else if (s->cg_on && (cgfd = open_perf_cgroup(s, ci, fallback, sizeof(fallback))) >= 0) {
		t = PMU_TARGET_CGROUP;
		id = cgfd;
	}
	s->pmu = calloc(1, sizeof(*s->pmu));
	if (!s->pmu) {
		snprintf(s->cpu_note, sizeof(s->cpu_note), "out of memory");
		goto out;
	}
	if (pmu_counters_open(s->pmu, t, id, &e) < 0 && t == PMU_TARGET_CGROUP) {
		/* e.g. a v2 cgroup the kernel will not count: fall back */
		snprintf(fallback, sizeof(fallback), "%s, counting system-wide instead; ", e.msg);
		err_reset(&e);
		t = PMU_TARGET_SYSTEM;
		pmu_counters_open(s->pmu, t, -1, &e);
	}
	if (s->pmu->nevents == 0) {
		snprintf(s->cpu_note, sizeof(s->cpu_note), "%s%s", fallback,
			 e.msg[0] ? e.msg : s->pmu->note);
		free(s->pmu);
		s->pmu = NULL;
		goto out;
	}
	s->cpu_source = s->pmu->using_hardware ? "hardware" : "software";
	s->cpu_target = t == PMU_TARGET_SYSTEM ? "system" : t == PMU_TARGET_PID ? "pid" : "cgroup";
	snprintf(s->cpu_note, sizeof(s->cpu_note), "%s%s", fallback, s->pmu->note);
	map_pmu(s);
out:
	if (cgfd >= 0)
		close(cgfd);	/* perf keeps its own reference */
}

/* --cgroup: the cgroup's files; -errno with e set when it cannot be sampled */
static int open_cgroup(struct sampler *s, struct st_cgroup_info *ci, struct st_err *e)
{
	char rel[PATH_MAX * 2], path[PATH_MAX * 2 + 16];
	const char *p = s->o.cgroup;
	int r;

	while (*p == '/')
		p++;
	if (!path_ok(p))
		return err_set_exit(e, -EINVAL, ST_EXIT_USAGE,
				    "--cgroup %s: \"..\" is not allowed (give a path under the memory controller)",
				    s->o.cgroup);
	r = host_cgroup_info(s->h, ci, e);
	if (r < 0)
		return r;
	if (!ci->memory_v1 && !ci->memory_v2)
		return err_set_exit(e, -EOPNOTSUPP, ST_EXIT_DENIED,
				    "--cgroup: no memory cgroup controller is mounted on this host");
	snprintf(s->cg_path, sizeof(s->cg_path), "%s", p);
	snprintf(rel, sizeof(rel), "%s%s%s", ci->memory_root, *p ? "/" : "", p);
	/* opened as the reads will be: beneath the sysroot, so a symlink out of it is refused here */
	r = host_openat(s->h, rel, O_RDONLY | O_DIRECTORY);
	if (r == -EXDEV)
		return err_set_exit(e, -EXDEV, ST_EXIT_USAGE,
				    "--cgroup %s: /%s leads out of the sysroot %s (a symbolic link or \"..\"); refused",
				    s->o.cgroup, rel, s->h->root);
	if (r < 0)
		return err_set_exit(e, -ENOENT, ST_EXIT_USAGE,
				    "--cgroup %s: no such cgroup under /%s (give the path relative to the memory controller, e.g. system.slice/foo.service)",
				    s->o.cgroup, ci->memory_root);
	close(r);
	s->o.cgroup = s->cg_path;
	s->cg_on = true;
	s->cg_v2 = ci->memory_v2;
	keymap_build(&s->cg_keys, VSRC_MEMCG, !s->cg_v2);
	snprintf(path, sizeof(path), "%s/memory.stat", rel);
	host_kvfile_init(&s->cgstat, path, false, s->cg_keys.keys, s->cg_keys.nkeys);
	snprintf(path, sizeof(path), "%s/memory.pressure", rel);
	host_file_init(&s->cgpsi.file, path);
	return 0;
}

int sampler_open(struct sampler **out, const struct host *h,
		 const struct sampler_opts *o, struct st_err *e)
{
	struct st_cgroup_info ci;
	struct sampler *s;
	int r;

	*out = NULL;
	s = calloc(1, sizeof(*s));
	if (!s)
		return err_set(e, -ENOMEM, "out of memory");
	s->h = h;
	s->o = *o;
	s->page_size = sysconf(_SC_PAGESIZE);
	for (int i = 0; i < SC_COUNT; i++)
		s->pmu_idx[i] = -1;
	for (int m = 0; m < SM_COUNT; m++) {
		s->sc_of_sm[m] = -1;
		for (int c = 0; c < SC_COUNT; c++)
			if (sample_counter_defs[c].row == sample_metric_defs[m].row)
				s->sc_of_sm[m] = c;
	}
	keymap_build(&s->vm_keys, VSRC_VMSTAT, false);
	keymap_build(&s->mi_keys, VSRC_MEMINFO, false);
	keymap_build(&s->zs_keys, VSRC_ZSWAP, false);
	s->zs_sentinel = -1;
	for (int i = 0; i < s->zs_keys.nkeys; i++)
		if (!strcmp(s->zs_keys.keys[i], vocab_rows[V_ZSWAP_STORED_PAGES].keys[0]))
			s->zs_sentinel = i;
	host_kvfile_init(&s->vmstat, HOST_VMSTAT, false, s->vm_keys.keys, s->vm_keys.nkeys);
	host_kvfile_init(&s->meminfo, HOST_MEMINFO, true, s->mi_keys.keys, s->mi_keys.nkeys);
	host_file_init(&s->psi.file, HOST_PSI_MEMORY);
	host_kvfile_init(&s->cgstat, "", false, NULL, 0);
	host_file_init(&s->cgpsi.file, "");
	s->zs_on = o->zswap_pool;
	sampler_set_json_members(s, NULL);

	memset(&ci, 0, sizeof(ci));
	if (o->cgroup && (r = open_cgroup(s, &ci, e)) < 0) {
		sampler_close(s);
		return r;
	}
	open_cpu(s, &ci);
	*out = s;
	return 0;
}

void sampler_close(struct sampler *s)
{
	if (!s)
		return;
	host_kvfile_close(&s->vmstat);
	host_kvfile_close(&s->meminfo);
	host_kvfile_close(&s->cgstat);
	host_file_close(&s->psi.file);
	host_file_close(&s->cgpsi.file);
	if (s->pmu) {
		pmu_counters_close(s->pmu);
		free(s->pmu);
	}
	free(s);
}

/* ---- accessors ---- */

bool sampler_value(const struct sampler *s, enum sample_metric m, double *v)
{
	if ((unsigned)m >= SM_COUNT || !s->ok[m])
		return false;
	if (v)
		*v = s->val[m];
	return true;
}

bool sampler_mean(const struct sampler *s, enum sample_metric m, double *v)
{
	if ((unsigned)m >= SM_COUNT || !s->nsum[m])
		return false;
	*v = s->sum[m] / (double)s->nsum[m];
	return true;
}

uint64_t sampler_seq(const struct sampler *s)
{
	return s->seq;
}

double sampler_interval_s(const struct sampler *s)
{
	return s->seq ? (double)(s->now_ns - s->prev_ns) / 1e9 : 0;
}

double sampler_elapsed_s(const struct sampler *s)
{
	return (double)(s->now_ns - s->first_ns) / 1e9;
}

bool sampler_has_cgroup(const struct sampler *s)
{
	return s->cg_on;
}

const char *sampler_cgroup_path(const struct sampler *s)
{
	return s->cg_on ? s->cg_path : NULL;
}

const char *sampler_cgroup_version(const struct sampler *s)
{
	return s->cg_on ? (s->cg_v2 ? "v2" : "v1") : NULL;
}

const char *sampler_cpu_source(const struct sampler *s)
{
	return s->cpu_source;
}

const char *sampler_cpu_target(const struct sampler *s)
{
	return s->cpu_target;
}

const char *sampler_cpu_note(const struct sampler *s)
{
	return s->cpu_note;
}

const char *sampler_unavailable(const struct sampler *s, enum sample_group g)
{
	if ((unsigned)g >= SG_COUNT || !s->why[g][0])
		return NULL;
	if (g == SG_CGROUP && !s->cg_on)
		return NULL;
	return s->why[g];
}

/* ---- the tick as numbers (its JSON line: sample-json.c) ---- */

void sampler_tick_get(const struct sampler *s, struct sample_tick *t)
{
	t->members = s->members;
	t->seq = s->seq;
	t->wall_ns = s->wall_ns;
	t->elapsed_ns = s->now_ns - s->first_ns;
	t->interval_ns = s->seq ? s->now_ns - s->prev_ns : 0;
	t->page_size = (uint64_t)s->page_size;
	memcpy(t->ok, s->ok, sizeof(t->ok));
	memcpy(t->val, s->val, sizeof(t->val));
	for (int c = 0; c < SC_COUNT; c++) {
		t->has[c] = sampler_counter(s, (enum sample_counter)c, NULL);
		t->counter[c] = t->has[c] ? s->cur[c] : 0;
	}
	t->cgroup = s->cg_on;
	t->cgroup_v2 = s->cg_v2;
	t->cgroup_path = s->cg_path;
	t->cpu_source = s->cpu_source;
	t->cpu_target = s->cpu_target;
	t->cpu_note = s->cpu_note;
	for (int g = 0; g < SG_COUNT; g++)
		t->unavailable[g] = sampler_unavailable(s, (enum sample_group)g);
}

int sampler_set_json_members(struct sampler *s, const char *members)
{
	if (!members)
		members = "";
	if (strlen(members) >= sizeof(s->members))
		return -ENOSPC;
	snprintf(s->members, sizeof(s->members), "%s", members);
	return 0;
}
