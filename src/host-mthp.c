/*
 * host-mthp.c - large-folio (mTHP) swap-in and zswap: which anonymous
 * mTHP sizes the kernel may swap in whole, and whether zswap has been
 * enabled since boot, because a kernel that has ever enabled it swaps in
 * single pages only, until the next reboot (mm/memory.c alloc_swap_folio()
 * and mm/shmem.c fall back to order 0 unless zswap_never_enabled(); large
 * folios are swapped in from synchronous devices such as zram, 6.12 on).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "swaptune/host.h"

/* The bracketed word of a sysfs choice file ("always [madvise] never"), "" if none. */
static void chosen(const struct host *h, const char *rel, char *out, size_t len)
{
	char line[256], *a, *b;

	out[0] = '\0';
	if (host_read_line(h, rel, line, sizeof(line), NULL) < 0)
		return;
	if ((a = strchr(line, '[')) && (b = strchr(a, ']'))) {
		*b = '\0';
		snprintf(out, len, "%s", a + 1);
	}
}

static bool allows(const char *mode)
{
	return !strcmp(mode, "always") || !strcmp(mode, "madvise");
}

/* "6.12.3-foo" -> 6, 12; 0, 0 when unreadable. */
static void kernel_version(const struct host *h, int *major, int *minor)
{
	char rel[128];

	*major = *minor = 0;
	if (host_kernel_release(h, rel, sizeof(rel), NULL) < 0 || sscanf(rel, "%d.%d", major, minor) != 2)
		*major = *minor = 0;
}

static void zswap_ever(const struct host *h, struct host_mthp *m)
{
	char en[16] = "";
	struct st_kvtab vm;
	uint64_t out = 0, in = 0;

	m->zswap_ever = HOST_ZSWAP_EVER_UNKNOWN;
	if (host_read_line(h, HOST_ZSWAP_PARAMS "/enabled", en, sizeof(en), NULL) < 0)
		return;
	if (en[0] == 'Y' || en[0] == '1') {
		m->zswap_ever = HOST_ZSWAP_EVER_YES;
		snprintf(m->zswap_ever_why, sizeof(m->zswap_ever_why), "zswap is enabled now");
		return;
	}
	kv_init(&vm);
	if (host_read_vmstat(h, &vm, NULL) < 0) {
		kv_free(&vm);
		return;
	}
	kv_get(&vm, "zswpout", &out);
	kv_get(&vm, "zswpin", &in);
	kv_free(&vm);
	if (out > 0 || in > 0) {
		m->zswap_ever = HOST_ZSWAP_EVER_YES;
		snprintf(m->zswap_ever_why, sizeof(m->zswap_ever_why),
			 "zswap stored %llu pages since boot (vmstat zswpout)", (unsigned long long)out);
		return;
	}
	/* enabled and never used leaves no trace: "not seen", not "never" */
	m->zswap_ever = HOST_ZSWAP_EVER_NOT_SEEN;
	snprintf(m->zswap_ever_why, sizeof(m->zswap_ever_why),
		 "zswap is off and has stored nothing since boot (vmstat zswpout 0)");
}

int host_read_mthp(const struct host *h, struct host_mthp *m)
{
	char top[32], list[1024], *save = NULL, *name;
	size_t used = 0;

	memset(m, 0, sizeof(*m));
	kernel_version(h, &m->kernel_major, &m->kernel_minor);
	m->kernel_falls_back = m->kernel_major > 6 || (m->kernel_major == 6 && m->kernel_minor >= 12);
	zswap_ever(h, m);
	chosen(h, HOST_THP "/enabled", top, sizeof(top));
	if (host_list_dir(h, HOST_THP, list, sizeof(list), NULL) < 0)
		return 0;
	m->known = true;
	for (name = strtok_r(list, " ", &save); name; name = strtok_r(NULL, " ", &save)) {
		char rel[160], mode[32];

		if (strncmp(name, "hugepages-", 10))
			continue;
		snprintf(rel, sizeof(rel), "%s/%s/enabled", HOST_THP, name);
		chosen(h, rel, mode, sizeof(mode));
		if (!allows(mode) && !(!strcmp(mode, "inherit") && allows(top)))
			continue;
		m->any_enabled = true;
		if (used < sizeof(m->sizes))
			used += (size_t)snprintf(m->sizes + used, sizeof(m->sizes) - used, "%s%s %s",
						 used ? ", " : "", name + 10, mode);
	}
	return 0;
}
