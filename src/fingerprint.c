/*
 * fingerprint.c - the running kernel's fingerprint (fingerprint.h): read
 * through the host layer, compared, and written and read back as JSON.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "swaptune/fingerprint.h"
#include "swaptune/vocab.h"

/* ---- reading ---- */

enum readahead_algo fingerprint_readahead(int vma_ra, bool no_switch, const struct st_swap *swaps,
					  int nswaps, char *why, size_t len)
{
	const char *rot = NULL, *unsure = NULL;
	enum readahead_algo a;
	int zram = 0;

	for (int i = 0; swaps && i < nswaps; i++) {
		if (swaps[i].rotational == 1 && !rot)
			rot = swaps[i].path;
		if (swaps[i].rotational < 0 && !unsure)
			unsure = swaps[i].path;
		zram += swaps[i].zram;
	}
	if (no_switch) {
		snprintf(why, len, "this kernel has no vma_ra_enabled switch");
		a = RA_CLUSTER;
	} else if (vma_ra == FP_NO) {
		snprintf(why, len, "vma_ra_enabled is false");
		a = RA_CLUSTER;
	} else if (rot) {
		snprintf(why, len, "swap device %s is rotational, which switches the whole host to cluster readahead",
			 rot);
		a = RA_CLUSTER;
	} else if (vma_ra == FP_UNKNOWN || !swaps) {
		/* one unreadable input and the algorithm cannot be told */
		snprintf(why, len, "n/a: %s is unreadable",
			 vma_ra == FP_UNKNOWN ? "vma_ra_enabled" : "the list of swap devices");
		return RA_UNKNOWN;
	} else if (!nswaps) {
		snprintf(why, len, "vma_ra_enabled is true (no swap active now)");
		a = RA_VMA;
	} else {
		snprintf(why, len, "vma_ra_enabled is true and no active swap device is rotational%s%s%s",
			 unsure ? " (that of " : "", unsure ? unsure : "", unsure ? " is unknown)" : "");
		a = RA_VMA;
	}
	if (nswaps && zram == nswaps) {
		size_t n = strlen(why);

		/* SWP_SYNCHRONOUS_IO devices skip the swap cache and readahead */
		snprintf(why + n, len - n, "; but all swap is zram, for which the kernel skips readahead");
	}
	return a;
}

static int read_yn(const struct host *h, const char *rel)
{
	char v[32];

	if (host_read_line(h, rel, v, sizeof(v), NULL) < 0)
		return FP_UNKNOWN;
	if (!strcmp(v, "Y") || !strcmp(v, "1") || !strcmp(v, "true"))
		return FP_YES;
	if (!strcmp(v, "N") || !strcmp(v, "0") || !strcmp(v, "false"))
		return FP_NO;
	return FP_UNKNOWN;
}

static void read_readahead(const struct host *h, struct kernel_fingerprint *fp)
{
	struct st_swap *swaps = calloc(HOST_MAX_SWAPS, sizeof(*swaps));
	int n = 0, vma_ra = FP_UNKNOWN;
	bool no_switch = false;

	if (!swaps) {
		fp->readahead = RA_UNKNOWN;
		snprintf(fp->readahead_why, sizeof(fp->readahead_why), "n/a: out of memory");
		return;
	}
	if (host_exists(h, HOST_VMA_RA))
		vma_ra = read_yn(h, HOST_VMA_RA);
	else
		no_switch = true;
	if (host_read_swaps(h, swaps, HOST_MAX_SWAPS, &n, NULL) < 0) {
		free(swaps);
		swaps = NULL;
		n = 0;
	}
	fp->readahead = fingerprint_readahead(vma_ra, no_switch, swaps, n, fp->readahead_why,
					      sizeof(fp->readahead_why));
	free(swaps);
}

/* Whether the kernel command line sets zswap.enabled=1/Y/y. */
static bool cmdline_enables_zswap(const struct host *h)
{
	char buf[4096];
	const char *p;

	if (host_read(h, HOST_CMDLINE, buf, sizeof(buf), NULL) < 0)
		return false;
	for (p = buf; (p = strstr(p, "zswap.enabled=")); p += 14) {
		if (p != buf && p[-1] != ' ')
			continue;
		if (p[14] == '1' || p[14] == 'Y' || p[14] == 'y')
			return true;
	}
	return false;
}

static void read_zswap_ever(const struct host *h, const struct fp_hints *hints,
			    struct kernel_fingerprint *fp)
{
	static const enum vocab_id keys[] = { V_ZSWPOUT, V_ZSWPIN, V_ZSWPWB };
	char *why = fp->zswap_ever_why;
	size_t len = sizeof(fp->zswap_ever_why);
	struct st_kvtab vm;
	bool have_vm;
	int enabled;

	fp->zswap_ever = FP_YES;
	if (!host_exists(h, HOST_ZSWAP_PARAMS)) {
		fp->zswap_ever = FP_NO;
		snprintf(why, len, "zswap is not in this kernel");
		return;
	}
	enabled = read_yn(h, HOST_ZSWAP_PARAMS "/enabled");
	if (enabled == FP_YES) {
		snprintf(why, len, "zswap is enabled now");
		return;
	}
	if (cmdline_enables_zswap(h)) {
		snprintf(why, len, "the kernel command line enables zswap (zswap.enabled=1)");
		return;
	}
	kv_init(&vm);
	have_vm = host_read_vmstat(h, &vm, NULL) == 0;
	for (size_t i = 0; have_vm && i < sizeof(keys) / sizeof(keys[0]); i++) {
		uint64_t v;

		if (kv_get(&vm, vocab_key(keys[i]), &v) && v > 0) {
			snprintf(why, len, "vmstat %s is %llu since boot", vocab_key(keys[i]),
				 (unsigned long long)v);
			kv_free(&vm);
			return;
		}
	}
	kv_free(&vm);
	if (hints && hints->swaptune_enabled_zswap == FP_YES) {
		snprintf(why, len, "swaptune's journal shows it enabled zswap during this boot");
		return;
	}
	if (enabled == FP_UNKNOWN || !have_vm) {
		fp->zswap_ever = FP_UNKNOWN;
		snprintf(why, len, "n/a: %s is unreadable",
			 enabled == FP_UNKNOWN ? "zswap's enabled parameter" : "vmstat");
		return;
	}
	/*
	 * off now, nothing ever stored: an enable and disable in between with
	 * nothing swapped out would leave no trace, and a kernel built with
	 * CONFIG_ZSWAP_DEFAULT_ON counts as enabled from boot on
	 */
	fp->zswap_ever = FP_NO;
	snprintf(why, len, "no trace: off now, vmstat zswpout and zswpin are 0 since boot%s",
		 !hints || hints->swaptune_enabled_zswap == FP_UNKNOWN ? "" :
		 ", and swaptune did not enable it during this boot");
}

static bool mthp_word(const char *w)
{
	return !strcmp(w, "always") || !strcmp(w, "inherit") || !strcmp(w, "madvise") ||
	       !strcmp(w, "never");
}

/* The bracketed choice of "always [madvise] never"; "" if none. */
static void selected(const char *line, char *out, size_t len)
{
	const char *a = strchr(line, '['), *b = a ? strchr(a, ']') : NULL;

	out[0] = '\0';
	if (a && b && (size_t)(b - a - 1) < len)
		snprintf(out, len, "%.*s", (int)(b - a - 1), a + 1);
	if (!mthp_word(out))
		out[0] = '\0';
}

static int cmp_mthp(const void *a, const void *b)
{
	const struct fp_mthp *x = a, *y = b;

	return x->size_kb < y->size_kb ? -1 : x->size_kb > y->size_kb;
}

/* Kernel release's major and minor ("6.1.0-28-amd64": 6, 1); false if unparsable. */
static bool release_version(const char *rel, int *major, int *minor)
{
	return sscanf(rel, "%d.%d", major, minor) == 2;
}

static void read_mthp(const struct host *h, struct kernel_fingerprint *fp)
{
	char line[128], names[4096], rel[PATH_MAX];
	uint64_t pmd;
	bool usable = false;

	fp->mthp_anon = FP_UNKNOWN;
	if (host_read_line(h, HOST_THP "/enabled", line, sizeof(line), NULL) == 0)
		selected(line, fp->thp_enabled, sizeof(fp->thp_enabled));
	if (host_read_u64(h, HOST_THP "/hpage_pmd_size", &pmd, NULL) == 0 && pmd >= 1024 &&
	    pmd / 1024 <= 1u << 30)
		fp->pmd_kb = (unsigned)(pmd / 1024);
	if (host_list_dir(h, HOST_THP, names, sizeof(names), NULL) < 0)
		return;		/* no THP here, or not captured: unknown */
	for (char *save = NULL, *t = strtok_r(names, " ", &save); t && fp->n_mthp < FP_MTHP_MAX;
	     t = strtok_r(NULL, " ", &save)) {
		struct fp_mthp *m = &fp->mthp[fp->n_mthp];
		unsigned kb;
		char tail[4];

		if (sscanf(t, "hugepages-%ukB%3s", &kb, tail) != 1 || !kb)
			continue;
		snprintf(rel, sizeof(rel), HOST_THP "/%s/enabled", t);
		if (host_read_line(h, rel, line, sizeof(line), NULL) < 0)
			continue;
		selected(line, m->enabled, sizeof(m->enabled));
		if (!m->enabled[0])
			continue;
		m->size_kb = kb;
		fp->n_mthp++;
	}
	qsort(fp->mthp, (size_t)fp->n_mthp, sizeof(fp->mthp[0]), cmp_mthp);
	if (!fp->n_mthp) {
		/* THP without per-size directories: a kernel before mTHP (~6.8) */
		fp->mthp_anon = fp->thp_enabled[0] ? FP_NO : FP_UNKNOWN;
		return;
	}
	for (int i = 0; i < fp->n_mthp; i++) {
		const char *v = fp->mthp[i].enabled;

		if (fp->pmd_kb && fp->mthp[i].size_kb >= fp->pmd_kb)
			continue;	/* swap-in takes the orders below PMD only */
		if (!strcmp(v, "inherit"))
			v = fp->thp_enabled;
		if (!strcmp(v, "always") || !strcmp(v, "madvise"))
			usable = true;
	}
	fp->mthp_anon = usable ? FP_YES : fp->pmd_kb ? FP_NO : FP_UNKNOWN;
	if (!usable && fp->thp_enabled[0] == '\0')
		fp->mthp_anon = FP_UNKNOWN;	/* an "inherit" we cannot resolve */
}

static void decide_large_folio(struct kernel_fingerprint *fp)
{
	char *why = fp->large_folio_swapin_why;
	size_t len = sizeof(fp->large_folio_swapin_why);
	int major, minor;

	fp->large_folio_swapin = FP_NO;
	if (release_version(fp->release, &major, &minor) && (major < 6 || (major == 6 && minor < 13))) {
		snprintf(why, len, "this kernel predates large-folio swap-in (~6.13)");
	} else if (fp->mthp_anon == FP_NO) {
		snprintf(why, len, "no mTHP size below the PMD size is enabled for anonymous memory");
	} else if (fp->zswap_ever == FP_YES) {
		snprintf(why, len, "zswap was enabled since boot: swap-in falls back to order 0 until reboot");
	} else if (fp->mthp_anon == FP_UNKNOWN || fp->zswap_ever == FP_UNKNOWN ||
		   !release_version(fp->release, &major, &minor)) {
		fp->large_folio_swapin = FP_UNKNOWN;
		snprintf(why, len, "n/a: %s", fp->mthp_anon == FP_UNKNOWN ? "the mTHP settings are unreadable" :
			 fp->zswap_ever == FP_UNKNOWN ? "whether zswap was ever enabled is unknown" :
			 "the kernel release is unreadable");
	} else {
		fp->large_folio_swapin = FP_YES;
		snprintf(why, len, "an mTHP size is enabled and zswap was not enabled since boot; "
			 "taken on synchronous swap devices such as zram");
	}
}

static void read_mglru(const struct host *h, struct kernel_fingerprint *fp)
{
	char v[32], *end;
	unsigned long mask;
	int r;

	fp->mglru = FP_UNKNOWN;
	if ((r = host_read_line(h, HOST_LRU_GEN_ENABLED, v, sizeof(v), NULL)) < 0) {
		/*
		 * No lru_gen directory beside the other mm directories (swap and
		 * transparent_hugepage, which a capture copies whole when there):
		 * a kernel built without CONFIG_LRU_GEN, so MGLRU is off, not
		 * unknown. A tree with fewer of them (a hand-made fixture) may
		 * simply have left it out: unknown.
		 */
		if (r == -ENOENT && host_exists(h, HOST_MM_SWAP) && host_exists(h, HOST_THP) &&
		    !host_exists(h, HOST_LRU_GEN)) {
			fp->mglru = FP_NO;
			snprintf(fp->mglru_value, sizeof(fp->mglru_value), "not built");
		}
		return;
	}
	mask = strtoul(v, &end, 16);
	if (end == v || *end || strlen(v) >= sizeof(fp->mglru_value))
		return;
	snprintf(fp->mglru_value, sizeof(fp->mglru_value), "%s", v);
	fp->mglru = mask & 1 ? FP_YES : FP_NO;
}

/*
 * v2: whether memory.zswap.writeback (~6.8) exists. The root has none (the
 * file is not on the root), so the first child group with a memory.stat
 * answers.
 */
static void read_zswap_writeback(const struct host *h, const struct st_cgroup_info *ci,
				 struct kernel_fingerprint *fp)
{
	char names[8192], rel[PATH_MAX + 300];

	fp->zswap_writeback = FP_UNKNOWN;
	if (!ci->memory_v2 || host_list_dir(h, ci->unified_root, names, sizeof(names), NULL) < 0)
		return;
	for (char *save = NULL, *t = strtok_r(names, " ", &save); t; t = strtok_r(NULL, " ", &save)) {
		snprintf(rel, sizeof(rel), "%s/%s/memory.stat", ci->unified_root, t);
		if (!host_exists(h, rel))
			continue;
		snprintf(rel, sizeof(rel), "%s/%s/memory.zswap.writeback", ci->unified_root, t);
		fp->zswap_writeback = host_exists(h, rel) ? FP_YES : FP_NO;
		return;
	}
}

void fingerprint_unknown(struct kernel_fingerprint *fp)
{
	memset(fp, 0, sizeof(*fp));
	fp->readahead = RA_UNKNOWN;
	fp->zswap_ever = fp->mthp_anon = fp->large_folio_swapin = FP_UNKNOWN;
	fp->mglru = fp->zswap_shrinker = fp->zswap_writeback = FP_UNKNOWN;
}

void fingerprint_read(const struct host *h, const struct fp_hints *hints,
		      struct kernel_fingerprint *fp)
{
	struct st_cgroup_info ci;

	fingerprint_unknown(fp);
	if (host_kernel_release(h, fp->release, sizeof(fp->release), NULL) < 0)
		fp->release[0] = '\0';
	if (host_cgroup_info(h, &ci, NULL) == 0) {
		fp->have_cgroup = true;
		fp->cgroup = ci.mode;
		fp->memcg_version = ci.memory_v1 ? 1 : ci.memory_v2 ? 2 : 0;
	} else {
		memset(&ci, 0, sizeof(ci));
	}
	read_readahead(h, fp);
	read_zswap_ever(h, hints, fp);
	read_mthp(h, fp);
	decide_large_folio(fp);
	read_mglru(h, fp);
	fp->zswap_shrinker = host_exists(h, HOST_ZSWAP_PARAMS) ?
			     read_yn(h, HOST_ZSWAP_PARAMS "/shrinker_enabled") : FP_UNKNOWN;
	read_zswap_writeback(h, &ci, fp);
}

bool fingerprint_zswap_enable_hazard(const struct kernel_fingerprint *fp)
{
	return fp->large_folio_swapin == FP_YES;
}

/* ---- words ---- */

const char *fingerprint_readahead_name(enum readahead_algo a)
{
	return a == RA_VMA ? "vma" : a == RA_CLUSTER ? "cluster" : "unknown";
}

const char *fingerprint_tri_name(int t)
{
	return t == FP_YES ? "yes" : t == FP_NO ? "no" : "unknown";
}

static const char *ra_words(enum readahead_algo a)
{
	return a == RA_VMA ? "VMA" : a == RA_CLUSTER ? "cluster" : "unknown";
}

static const char *cgroup_words(const struct kernel_fingerprint *fp)
{
	if (!fp->have_cgroup)
		return "unknown";
	if (fp->cgroup == CGROUP_HYBRID)
		return fp->memcg_version == 2 ? "hybrid (memory on v2)" : "hybrid (memory on v1)";
	return cgroup_mode_name(fp->cgroup);
}

const char *fingerprint_summary(const struct kernel_fingerprint *fp, char *buf, size_t len)
{
	snprintf(buf, len, "%s, cgroup %s, %s readahead, zswap enabled since boot: %s, "
		 "large-folio swap-in: %s, MGLRU: %s",
		 fp->release[0] ? fp->release : "unknown kernel", cgroup_words(fp),
		 ra_words(fp->readahead), fingerprint_tri_name(fp->zswap_ever),
		 fp->large_folio_swapin == FP_YES ? "possible" : fingerprint_tri_name(fp->large_folio_swapin),
		 fp->mglru == FP_YES ? "on" : fp->mglru == FP_NO ? "off" : "unknown");
	return buf;
}

/* Append "LABEL THEN -> NOW" to the list in words. */
static void add_words(char *words, size_t len, size_t *used, const char *label, const char *a,
		      const char *b)
{
	int n;

	if (!words || *used >= len)
		return;
	n = snprintf(words + *used, len - *used, "%s", *used ? ", " : "");
	*used += (size_t)n < len - *used ? (size_t)n : len - *used;
	if (*used >= len)
		return;
	n = snprintf(words + *used, len - *used, "%s %s -> %s", label, a, b);
	*used += n > 0 && (size_t)n < len - *used ? (size_t)n : len - *used;
}

static int memcg_of(const struct kernel_fingerprint *fp)
{
	return fp->have_cgroup ? fp->memcg_version : 0;
}

unsigned fingerprint_diff(const struct kernel_fingerprint *then, const struct kernel_fingerprint *now,
			  char *words, size_t len)
{
	unsigned d = 0;
	size_t used = 0;
	char a[8], b[8];

	if (words && len)
		words[0] = '\0';
	if (then->release[0] && now->release[0] && strcmp(then->release, now->release)) {
		d |= FP_DIFF_RELEASE;
		add_words(words, len, &used, "kernel", then->release, now->release);
	}
	if (memcg_of(then) && memcg_of(now) && memcg_of(then) != memcg_of(now)) {
		d |= FP_DIFF_CGROUP;
		snprintf(a, sizeof(a), "v%d", memcg_of(then));
		snprintf(b, sizeof(b), "v%d", memcg_of(now));
		add_words(words, len, &used, "cgroup", a, b);
	}
	if (then->readahead != RA_UNKNOWN && now->readahead != RA_UNKNOWN &&
	    then->readahead != now->readahead) {
		d |= FP_DIFF_READAHEAD;
		add_words(words, len, &used, "readahead", ra_words(then->readahead),
			  ra_words(now->readahead));
	}
	if (then->large_folio_swapin != FP_UNKNOWN && now->large_folio_swapin != FP_UNKNOWN &&
	    then->large_folio_swapin != now->large_folio_swapin) {
		d |= FP_DIFF_LARGE_FOLIO;
		add_words(words, len, &used, "large-folio swap-in",
			  then->large_folio_swapin == FP_YES ? "possible" : "not possible",
			  now->large_folio_swapin == FP_YES ? "possible" : "not possible");
	}
	if (then->mglru != FP_UNKNOWN && now->mglru != FP_UNKNOWN && then->mglru != now->mglru) {
		d |= FP_DIFF_MGLRU;
		add_words(words, len, &used, "MGLRU", then->mglru == FP_YES ? "on" : "off",
			  now->mglru == FP_YES ? "on" : "off");
	}
	return d;
}

/* ---- JSON ---- */

static void add_tri(cJSON *o, const char *k, int t)
{
	if (t == FP_UNKNOWN)
		cJSON_AddNullToObject(o, k);
	else
		cJSON_AddBoolToObject(o, k, t == FP_YES);
}

static void add_str_or_null(cJSON *o, const char *k, const char *s)
{
	if (s[0])
		cJSON_AddStringToObject(o, k, s);
	else
		cJSON_AddNullToObject(o, k);
}

cJSON *fingerprint_to_json(const struct kernel_fingerprint *fp)
{
	cJSON *o = cJSON_CreateObject(), *a;

	add_str_or_null(o, "release", fp->release);
	if (fp->have_cgroup)
		cJSON_AddStringToObject(o, "cgroup", cgroup_mode_name(fp->cgroup));
	else
		cJSON_AddNullToObject(o, "cgroup");
	if (fp->have_cgroup && fp->memcg_version)
		cJSON_AddNumberToObject(o, "memory_cgroup_version", fp->memcg_version);
	else
		cJSON_AddNullToObject(o, "memory_cgroup_version");
	if (fp->readahead == RA_UNKNOWN)
		cJSON_AddNullToObject(o, "readahead");
	else
		cJSON_AddStringToObject(o, "readahead", fingerprint_readahead_name(fp->readahead));
	cJSON_AddStringToObject(o, "readahead_reason", fp->readahead_why);
	add_tri(o, "zswap_ever_enabled", fp->zswap_ever);
	cJSON_AddStringToObject(o, "zswap_ever_enabled_evidence", fp->zswap_ever_why);
	add_str_or_null(o, "thp_enabled", fp->thp_enabled);
	if (fp->pmd_kb)
		cJSON_AddNumberToObject(o, "pmd_kb", fp->pmd_kb);
	else
		cJSON_AddNullToObject(o, "pmd_kb");
	a = cJSON_AddArrayToObject(o, "mthp");
	for (int i = 0; i < fp->n_mthp; i++) {
		cJSON *m = cJSON_CreateObject();

		cJSON_AddNumberToObject(m, "size_kb", fp->mthp[i].size_kb);
		cJSON_AddStringToObject(m, "enabled", fp->mthp[i].enabled);
		cJSON_AddItemToArray(a, m);
	}
	add_tri(o, "mthp_anon", fp->mthp_anon);
	add_tri(o, "large_folio_swapin", fp->large_folio_swapin);
	cJSON_AddStringToObject(o, "large_folio_swapin_reason", fp->large_folio_swapin_why);
	add_tri(o, "mglru", fp->mglru);
	add_str_or_null(o, "mglru_value", fp->mglru_value);
	add_tri(o, "zswap_shrinker", fp->zswap_shrinker);
	add_tri(o, "zswap_writeback", fp->zswap_writeback);
	return o;
}

static int bad(struct st_err *e, const char *field, const char *why)
{
	return err_set(e, -EBADMSG, "kernel fingerprint: %s %s", field, why);
}

static bool printable(const char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s < 0x20 || *s == 0x7f)
			return false;
	return true;
}

/* A string field (null allowed when nullable: ""), at most len - 1 bytes, printable. */
static int get_str(const cJSON *o, const char *k, bool nullable, char *out, size_t len,
		   struct st_err *e)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);

	out[0] = '\0';
	if (!v)
		return bad(e, k, "is missing");
	if (cJSON_IsNull(v) && nullable)
		return 0;
	if (!cJSON_IsString(v) || !v->valuestring)
		return bad(e, k, nullable ? "is not a string or null" : "is not a string");
	if (strlen(v->valuestring) >= len)
		return bad(e, k, "is too long");
	if (!printable(v->valuestring))
		return bad(e, k, "holds control characters");
	snprintf(out, len, "%s", v->valuestring);
	return 0;
}

static int get_tri(const cJSON *o, const char *k, int *t, struct st_err *e)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);

	if (!v)
		return bad(e, k, "is missing");
	if (cJSON_IsNull(v))
		*t = FP_UNKNOWN;
	else if (cJSON_IsBool(v))
		*t = cJSON_IsTrue(v) ? FP_YES : FP_NO;
	else
		return bad(e, k, "is not true, false or null");
	return 0;
}

/* A whole number in [lo, hi], or null (0) when nullable. */
/* A whole-number key of the fingerprint and the values it takes. */
struct uint_key {
	const char *k;
	bool nullable;		/* null reads as 0 */
	double lo, hi;
};

static const struct uint_key cgroup_version_key = { "memory_cgroup_version", true, 1, 2 };
static const struct uint_key pmd_kb_key = { "pmd_kb", true, 4, 1u << 30 };
static const struct uint_key size_kb_key = { "size_kb", false, 4, 1u << 30 };

static int get_uint(const cJSON *o, const struct uint_key *key, unsigned *out, struct st_err *e)
{
	const char *k = key->k;
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);

	*out = 0;
	if (!v)
		return bad(e, k, "is missing");
	if (cJSON_IsNull(v) && key->nullable)
		return 0;
	if (!cJSON_IsNumber(v) || v->valuedouble != (double)(long long)v->valuedouble ||
	    v->valuedouble < key->lo || v->valuedouble > key->hi)
		return bad(e, k, "is not a whole number in range");
	*out = (unsigned)v->valuedouble;
	return 0;
}

static int parse_fp(const cJSON *o, struct kernel_fingerprint *fp, struct st_err *e)
{
	char w[16];
	unsigned u;
	const cJSON *a, *m;
	int r;

	if (!cJSON_IsObject(o))
		return bad(e, "object", "is not an object");
	if ((r = get_str(o, "release", true, fp->release, sizeof(fp->release), e)) < 0)
		return r;
	if ((r = get_str(o, "cgroup", true, w, sizeof(w), e)) < 0)
		return r;
	fp->have_cgroup = w[0] != '\0';
	if (!w[0] || !strcmp(w, "none"))
		fp->cgroup = CGROUP_NONE;
	else if (!strcmp(w, "v1"))
		fp->cgroup = CGROUP_V1;
	else if (!strcmp(w, "v2"))
		fp->cgroup = CGROUP_V2;
	else if (!strcmp(w, "hybrid"))
		fp->cgroup = CGROUP_HYBRID;
	else
		return bad(e, "cgroup", "is not v1, v2, hybrid, none or null");
	if ((r = get_uint(o, &cgroup_version_key, &u, e)) < 0)
		return r;
	fp->memcg_version = (int)u;
	if ((r = get_str(o, "readahead", true, w, sizeof(w), e)) < 0)
		return r;
	if (!w[0])
		fp->readahead = RA_UNKNOWN;
	else if (!strcmp(w, "vma"))
		fp->readahead = RA_VMA;
	else if (!strcmp(w, "cluster"))
		fp->readahead = RA_CLUSTER;
	else
		return bad(e, "readahead", "is not vma, cluster or null");
	if ((r = get_str(o, "readahead_reason", false, fp->readahead_why,
			 sizeof(fp->readahead_why), e)) < 0 ||
	    (r = get_tri(o, "zswap_ever_enabled", &fp->zswap_ever, e)) < 0 ||
	    (r = get_str(o, "zswap_ever_enabled_evidence", false, fp->zswap_ever_why,
			 sizeof(fp->zswap_ever_why), e)) < 0 ||
	    (r = get_str(o, "thp_enabled", true, fp->thp_enabled, sizeof(fp->thp_enabled), e)) < 0)
		return r;
	if (fp->thp_enabled[0] && (!mthp_word(fp->thp_enabled) || !strcmp(fp->thp_enabled, "inherit")))
		return bad(e, "thp_enabled", "is not always, madvise, never or null");
	if ((r = get_uint(o, &pmd_kb_key, &fp->pmd_kb, e)) < 0)
		return r;
	a = cJSON_GetObjectItemCaseSensitive(o, "mthp");
	if (!cJSON_IsArray(a))
		return bad(e, "mthp", "is not an array");
	if (cJSON_GetArraySize(a) > FP_MTHP_MAX)
		return bad(e, "mthp", "has too many sizes");
	cJSON_ArrayForEach(m, a) {
		struct fp_mthp *t = &fp->mthp[fp->n_mthp];

		if (!cJSON_IsObject(m))
			return bad(e, "mthp[]", "is not an object");
		if ((r = get_uint(m, &size_kb_key, &t->size_kb, e)) < 0 ||
		    (r = get_str(m, "enabled", false, t->enabled, sizeof(t->enabled), e)) < 0)
			return err_prefix(e, "mthp[%d]", fp->n_mthp);
		if (!mthp_word(t->enabled))
			return bad(e, "mthp[].enabled", "is not always, inherit, madvise or never");
		if (fp->n_mthp && t->size_kb <= fp->mthp[fp->n_mthp - 1].size_kb)
			return bad(e, "mthp", "is not in ascending order of size");
		fp->n_mthp++;
	}
	if ((r = get_tri(o, "mthp_anon", &fp->mthp_anon, e)) < 0 ||
	    (r = get_tri(o, "large_folio_swapin", &fp->large_folio_swapin, e)) < 0 ||
	    (r = get_str(o, "large_folio_swapin_reason", false, fp->large_folio_swapin_why,
			 sizeof(fp->large_folio_swapin_why), e)) < 0 ||
	    (r = get_tri(o, "mglru", &fp->mglru, e)) < 0 ||
	    (r = get_str(o, "mglru_value", true, fp->mglru_value, sizeof(fp->mglru_value), e)) < 0 ||
	    (r = get_tri(o, "zswap_shrinker", &fp->zswap_shrinker, e)) < 0 ||
	    (r = get_tri(o, "zswap_writeback", &fp->zswap_writeback, e)) < 0)
		return r;
	return 0;
}

int fingerprint_from_json(const cJSON *o, struct kernel_fingerprint *fp, struct st_err *e)
{
	int r;

	fingerprint_unknown(fp);
	r = parse_fp(o, fp, e);
	if (r < 0)
		fingerprint_unknown(fp);
	return r;
}
