/*
 * host-cgcpu.c - the host layer's reader of a cgroup's CPU time, for
 * switchback's "CPU of the cgroup" per window: cgroup v2 cpu.stat
 * (usage_usec) under the unified tree, cgroup v1 cpuacct.usage (ns) under
 * the cpuacct controller's mount. See host.h.
 */
#include <stdio.h>
#include <string.h>

#include "swaptune/host.h"

int host_cgroup_cpu_locate(const struct host *h, const char *cgroup, struct host_cgcpu *c,
			   struct st_err *e)
{
	struct st_cgroup_info ci;
	int r;

	memset(c, 0, sizeof(*c));
	if (strstr(cgroup, ".."))
		return err_set(e, -EINVAL, "cgroup %s: \"..\" is not allowed", cgroup);
	while (*cgroup == '/')
		cgroup++;
	if ((r = host_cgroup_info(h, &ci, e)) < 0)
		return r;
	if (ci.unified_root[0]) {
		snprintf(c->rel, sizeof(c->rel), "%s/%s/cpu.stat", ci.unified_root, cgroup);
		if (host_exists(h, c->rel)) {
			c->v2 = true;
			return 0;
		}
	}
	if (ci.cpuacct_v1_root[0]) {
		snprintf(c->rel, sizeof(c->rel), "%s/%s/cpuacct.usage", ci.cpuacct_v1_root, cgroup);
		if (host_exists(h, c->rel))
			return 0;
	}
	c->rel[0] = '\0';
	return err_set(e, -ENOENT,
		       "cgroup %s has no CPU accounting (no cpu.stat under the unified tree, no cpuacct.usage under a cpuacct mount)",
		       cgroup);
}

int host_cgroup_cpu_ns(const struct host *h, const struct host_cgcpu *c, uint64_t *ns)
{
	struct st_kvtab t;
	uint64_t v;
	int r;

	if (!c->rel[0])
		return -ENOENT;
	if (!c->v2)
		return host_read_u64(h, c->rel, ns, NULL);
	kv_init(&t);
	r = host_read_kv(h, c->rel, &t, false, NULL);
	if (r == 0 && !kv_get(&t, "usage_usec", &v))
		r = -EBADMSG;
	if (r == 0)
		*ns = v * 1000;
	kv_free(&t);
	return r;
}
