/*
 * probe-arms.c - the probe's arms (see probe-arms.h): the built-in arms pc3, pc1,
 * pc0 and bypass, custom arms "NAME:key=value,..." parsed against the
 * settings registry, their description, and the reproducible shuffled order
 * of the arms in each round.
 */
#include <ctype.h>
#include <stdio.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

#include "swaptune/probe-arms.h"

/* ---- arms ------------------------------------------------------------ */

void probe_arm_set(struct probe_arm *a, const char *name, const char *value)
{
	for (int i = 0; i < a->nset; i++)
		if (!strcmp(a->set[i].name, name)) {
			snprintf(a->set[i].value, sizeof(a->set[i].value), "%s", value);
			return;
		}
	if (a->nset < PROBE_ARM_SET_MAX) {
		snprintf(a->set[a->nset].name, sizeof(a->set[a->nset].name), "%s", name);
		snprintf(a->set[a->nset].value, sizeof(a->set[a->nset].value), "%s", value);
		a->nset++;
	}
}

/*
 * The built-in arms: a name and the settings (of the settings registry) it
 * sets. Adding one is a row here: --arms, its help and completion, the
 * stored recipe's reader and the refusal of an unknown name read this table.
 */
static const struct builtin_arm {
	const char *name;
	bool bypass;			/* settled by bypass detection (probe-bypass.c) */
	struct { const char *name, *value; } set[2];	/* {NULL} ends it */
} builtin_arms[] = {
	{ "pc3", false, { { "page-cluster", "3" } } },
	{ "pc1", false, { { "page-cluster", "1" } } },
	{ "pc0", false, { { "page-cluster", "0" } } },
	/* until detection says otherwise: the usual emulation */
	{ "bypass", true, { { "page-cluster", "0" } } },
};

const char *probe_arm_builtin_at(size_t i)
{
	return i < sizeof(builtin_arms) / sizeof(builtin_arms[0]) ? builtin_arms[i].name : NULL;
}

int probe_arm_builtin(const char *name, struct probe_arm *a)
{
	const struct builtin_arm *b = NULL;

	memset(a, 0, sizeof(*a));
	for (size_t i = 0; !b && probe_arm_builtin_at(i); i++)
		if (!strcmp(builtin_arms[i].name, name))
			b = &builtin_arms[i];
	if (!b)
		return -ENOENT;
	snprintf(a->name, sizeof(a->name), "%s", b->name);
	for (size_t k = 0; k < sizeof(b->set) / sizeof(b->set[0]) && b->set[k].name; k++)
		probe_arm_set(a, b->set[k].name, b->set[k].value);
	a->bypass = b->bypass;
	a->builtin = true;
	return 0;
}

static bool valid_arm_name(const char *s, size_t n)
{
	if (n == 0 || n >= PROBE_ARM_NAME_MAX)
		return false;
	for (size_t i = 0; i < n; i++)
		if (!isalnum((unsigned char)s[i]) && s[i] != '-' && s[i] != '_' && s[i] != '.')
			return false;
	return true;
}

int probe_arm_parse(const struct host *h, const char *spec, struct probe_arm *a,
		    struct st_err *e)
{
	const char *colon = strchr(spec, ':');
	char list[512], *save = NULL;

	memset(a, 0, sizeof(*a));
	if (!colon || !valid_arm_name(spec, (size_t)(colon - spec)))
		return err_set_exit(e, -EINVAL, ST_EXIT_USAGE,
				    "arm \"%s\": expected NAME:key=value,... with NAME of letters, digits, '-', '_' or '.'",
				    spec);
	snprintf(a->name, sizeof(a->name), "%.*s", (int)(colon - spec), spec);
	if (strlen(colon + 1) >= sizeof(list))
		return err_set_exit(e, -EINVAL, ST_EXIT_USAGE, "arm %s: too long", a->name);
	snprintf(list, sizeof(list), "%s", colon + 1);
	for (char *t = strtok_r(list, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		char *eq = strchr(t, '='), norm[SETTING_VALUE_MAX];
		const struct setting_def *d;
		struct st_err e1 = {0};

		if (!eq || eq == t || !eq[1])
			return err_set_exit(e, -EINVAL, ST_EXIT_USAGE,
					    "arm %s: \"%s\" is not key=value", a->name, t);
		*eq = '\0';
		d = settings_find(t);
		if (!d)
			return err_set_exit(e, -EINVAL, ST_EXIT_USAGE,
					    "arm %s: unknown setting \"%s\" (known: page-cluster, vma_ra_enabled, zswap.enabled, zswap.compressor, zswap.max_pool_percent, zswap.accept_threshold_percent, zswap.shrinker_enabled)",
					    a->name, t);
		for (int i = 0; i < a->nset; i++)
			if (!strcmp(a->set[i].name, d->name))
				return err_set_exit(e, -EINVAL, ST_EXIT_USAGE,
						    "arm %s: %s is given twice", a->name, d->name);
		if (a->nset >= PROBE_ARM_SET_MAX)
			return err_set_exit(e, -EINVAL, ST_EXIT_USAGE,
					    "arm %s: more than %d settings", a->name, PROBE_ARM_SET_MAX);
		if (settings_normalize(h, d, eq + 1, norm, sizeof(norm), &e1) < 0)
			return err_set_exit(e, -EINVAL, ST_EXIT_USAGE, "arm %s: %s", a->name, e1.msg);
		probe_arm_set(a, d->name, norm);
	}
	if (a->nset == 0)
		return err_set_exit(e, -EINVAL, ST_EXIT_USAGE, "arm %s sets nothing", a->name);
	return 0;
}

int probe_arms_parse_list(const char *list, struct probe_arm *arms, int max,
			  int *n, struct st_err *e)
{
	char buf[512], names[256], *save = NULL;
	size_t used = 0;

	names[0] = '\0';
	for (size_t i = 0; probe_arm_builtin_at(i) && used < sizeof(names); i++)
		used += (size_t)snprintf(names + used, sizeof(names) - used, "%s%s", i ? ", " : "",
					 probe_arm_builtin_at(i));
	if (strlen(list) >= sizeof(buf))
		return err_set_exit(e, -EINVAL, ST_EXIT_USAGE, "arm list too long");
	snprintf(buf, sizeof(buf), "%s", list);
	for (char *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		for (int i = 0; i < *n; i++)
			if (!strcmp(arms[i].name, t))
				return err_set_exit(e, -EINVAL, ST_EXIT_USAGE, "arm %s is listed twice", t);
		if (*n >= max)
			return err_set_exit(e, -EINVAL, ST_EXIT_USAGE, "more than %d arms", max);
		if (probe_arm_builtin(t, &arms[*n]) < 0)
			return err_set_exit(e, -EINVAL, ST_EXIT_USAGE,
					    "unknown arm \"%s\" (built in: %s; "
					    "custom ones with --arm NAME:key=value,...)", t, names);
		(*n)++;
	}
	if (*n == 0)
		return err_set_exit(e, -EINVAL, ST_EXIT_USAGE, "empty arm list");
	return 0;
}

void probe_arm_describe(const struct probe_arm *a, char *buf, size_t len)
{
	size_t used = 0;

	buf[0] = '\0';
	for (int i = 0; i < a->nset && used < len; i++)
		used += (size_t)snprintf(buf + used, len - used, "%s%s=%s", i ? ", " : "",
					 a->set[i].name, a->set[i].value);
	if (a->zram && used < len)
		used += (size_t)snprintf(buf + used, len - used, "%sswap on zram", used ? ", " : "");
	if (!buf[0])
		snprintf(buf, len, "host settings");
}

/* ---- round order ----------------------------------------------------- */

static uint64_t splitmix64(uint64_t *x)
{
	uint64_t z = (*x += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* A seeded Fisher-Yates permutation of 0..n-1. */
static void shuffle(uint64_t s, int n, int *order)
{
	for (int i = 0; i < n; i++)
		order[i] = i;
	splitmix64(&s);
	for (int i = n - 1; i > 0; i--) {
		int j = (int)(splitmix64(&s) % (uint64_t)(i + 1)), t = order[i];

		order[i] = order[j];
		order[j] = t;
	}
}

void probe_round_order(uint64_t seed, unsigned round, int n, int *order)
{
	uint64_t s = seed;

	if (round == 0 || n < 2 || n > PROBE_ARMS_MAX) {
		/* the warm-up: a shuffle of its own */
		shuffle(seed ^ 0xa0761d6478bd642fULL, n, order);
		return;
	}
	/*
	 * A fresh uniform order in every round, independent of every other
	 * round's: what makes the verdict's randomisation tests exact (a
	 * fixed cycle of orders, such as a Williams design, would make the
	 * order of round r a function of round 1's). The stream of round r is
	 * the seed's r-th splitmix64 output.
	 */
	s += (uint64_t)round * 0x9e3779b97f4a7c15ULL;
	shuffle(splitmix64(&s), n, order);
}

uint64_t probe_seed_random(void)
{
	uint64_t s = 0;

	/* fall back to time and pid only if the kernel's source fails */
	if (getrandom(&s, sizeof(s), 0) != (ssize_t)sizeof(s))
		s = (uint64_t)time(NULL) * 0x9e3779b97f4a7c15ULL ^ (uint64_t)getpid();
	return s & ((1ULL << 53) - 1);	/* exact in JSON numbers */
}
