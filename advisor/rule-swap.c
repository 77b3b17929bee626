/*
 * rule-swap.c - advisor rules about the swap areas themselves: none at all,
 * or only zram (which makes vm.page-cluster irrelevant).
 */
#include "swaptune/advisor.h"
#include "swaptune/fmt.h"

static void check_no_swap(const struct advisor_host_facts *f,
			  struct advisor_rule_result *r)
{
	uint64_t used = 0;
	bool used_known = true;
	char size[32];

	if (!f->swaps_known) {
		advisor_rule_skip(r, "the list of active swap areas is unknown");
		return;
	}
	if (f->n_swaps == 0) {
		advisor_rule_finding(r, ADVISOR_SEV_INFO,
				  "no swap is active: vm.page-cluster and zswap have no effect on this host");
		advisor_rule_fix(r, NULL,
				 "add a swap file or device (with zswap in front) if the workload can outgrow RAM; "
				 "swaptune probe makes a scratch swap file for its own runs");
		return;
	}
	for (size_t i = 0; i < f->n_swaps; i++) {
		used_known &= f->swaps[i].used_bytes.known;
		used += f->swaps[i].used_bytes.v;
	}
	if (used_known)
		advisor_rule_ok(r, "%zu swap area%s active, %s used", f->n_swaps,
				f->n_swaps == 1 ? "" : "s", fmt_bytes(used, size, sizeof(size)));
	else
		advisor_rule_ok(r, "%zu swap area%s active", f->n_swaps,
				f->n_swaps == 1 ? "" : "s");
}

const struct advisor_rule advisor_rule_no_swap = {
	.name = "no-swap",
	.area = "swap",
	.summary = "the host has no active swap",
	.check = check_no_swap,
};

static void check_zram_only(const struct advisor_host_facts *f,
			    struct advisor_rule_result *r)
{
	size_t n_zram = 0;

	if (!advisor_rule_need_active_swaps(f, r))
		return;
	for (size_t i = 0; i < f->n_swaps; i++) {
		if (f->swaps[i].type == ADVISOR_SWAP_UNKNOWN) {
			advisor_rule_skip(r, "the type of swap area %s is unknown", f->swaps[i].name);
			return;
		}
		n_zram += f->swaps[i].type == ADVISOR_SWAP_ZRAM;
	}
	if (n_zram < f->n_swaps) {
		advisor_rule_ok(r, "%zu of %zu swap areas are not zram: vm.page-cluster matters",
				f->n_swaps - n_zram, f->n_swaps);
		return;
	}
	/* zram is SWP_SYNCHRONOUS_IO: swap-in bypasses the swap cache and
	 * readahead entirely (kernel 4.15, commit 0bcac06f27d7). */
	advisor_rule_finding(r, ADVISOR_SEV_INFO,
			  "zram is the only swap: the kernel skips readahead for it, so vm.page-cluster has no effect");
	advisor_rule_fix(r, NULL,
			 "nothing to tune: a page-cluster probe on this host would measure noise");
}

const struct advisor_rule advisor_rule_zram_only = {
	.name = "zram-only",
	.area = "swap",
	.summary = "zram is the only swap, so page-cluster does not matter",
	.check = check_zram_only,
};
