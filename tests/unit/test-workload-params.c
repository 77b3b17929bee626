/*
 * test-workload-params.c - the workloads' own parameters (struct
 * workload_param, workload.h) and the built-in arms table (probe-arms.c):
 * every row is well formed, its option is in `probe`'s table and parses
 * into its field, the recipe JSON records it (defaults applied) for its
 * workload alone, the recipe reader has a field for it with the option's
 * bounds, judge_recipe() counts it in the recipe's identity, and the
 * hand-written share/schema/probe.schema.json lists exactly the keys the
 * JSON writer can write, with the type the row's parser implies. Every
 * built-in arm resolves by name and is named in the unknown-arm message.
 */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <cjson/cJSON.h>

#include "swaptune/judge.h"
#include "swaptune/probe.h"
#include "swaptune/recipe.h"
#include "swaptune/workload.h"
#include "../../src/probe-int.h"
#include "swaptune/run-params.h"

/* judge_recipe() of params text, decoded as the store decodes a row */
static int recipe_of_text(const char *params, const cJSON *arms, char out[JUDGE_RECIPE_LEN])
{
	struct run_params p;
	int r;

	run_params_decode(params, &p);
	r = judge_recipe(p.doc, arms, out);
	run_params_free(&p);
	return r;
}

/* Keys of the recipe's "workload" object that are no workload's own parameter. */
static const char *const common_keys[] = { "name", "argv", "metric_regex", "metric", "run_as_uid",
					   "working_set_bytes", "ops", "seed", NULL };

static size_t nparams(void)
{
	size_t n = 0;

	while (workload_param_at(n))
		n++;
	return n;
}

/* Each row: a key, an option of a shared numeric parser with its field inside the struct. */
static void test_rows(void **state)
{
	size_t n = nparams();

	(void)state;
	assert_true(n > 0);
	assert_true(n <= WORKLOAD_PARAMS_MAX);
	for (size_t i = 0; i < n; i++) {
		const struct workload_param *q = workload_param_at(i);
		size_t size = workload_param_is_real(q) ? sizeof(double) : sizeof(uint64_t);

		assert_non_null(q->key);
		assert_non_null(q->opt.name);
		assert_non_null(q->opt.help);
		assert_non_null(q->range);
		if (q->opt.parse != opt_parse_real && q->opt.parse != opt_parse_u64 &&
		    q->opt.parse != opt_parse_size)
			fail_msg("%s: not a parser the recipe reader knows", q->key);
		assert_true(q->opt.off + size <= sizeof(struct workload_params));
		assert_ptr_equal(workload_param_find(q->key), q);
		for (const char *const *k = common_keys; *k; k++)
			if (!strcmp(*k, q->key))
				fail_msg("%s is a key every workload has", q->key);
		/* probe's option table holds the same row, in the same order */
		assert_non_null(workload_param_opts[i].name);
		assert_string_equal(workload_param_opts[i].name, q->opt.name);
		assert_int_equal(workload_param_opts[i].off, q->opt.off);
	}
	assert_null(workload_param_opts[n].name);
	assert_null(workload_param_find("no_such_param"));
}

/* The option parses into the field; a field left 0 gives a default inside the bounds. */
static void test_parse_and_default(void **state)
{
	const struct workload_param *q;

	(void)state;
	for (size_t i = 0; (q = workload_param_at(i)); i++) {
		struct workload_params p;
		struct st_err e = { 0 };
		double v;

		workload_params_init(&p);
		p.working_set_bytes = 256ull << 20;
		v = workload_param_value(q, &p);
		if (workload_param_is_real(q) ? !(v >= q->opt.lo && v <= q->opt.hi) :
		    !(v >= (double)q->opt.min && v == floor(v)))
			fail_msg("%s: default %g outside its bounds", q->key, v);
		assert_true(workload_param_get(q, &p) == 0);
		assert_int_equal(q->opt.parse(&q->opt, workload_param_is_real(q) ? "0.5" : "3",
					      (char *)&p + q->opt.off, &e), 0);
		assert_true(workload_param_get(q, &p) == (workload_param_is_real(q) ? 0.5 : 3));
		assert_true(workload_param_value(q, &p) == workload_param_get(q, &p));
		workload_param_set(q, &p, 7);
		assert_true(workload_param_get(q, &p) == 7);
		/* below the bounds: refused, as on the command line */
		assert_int_equal(q->opt.parse(&q->opt, "0", (char *)&p + q->opt.off, &e), -EINVAL);
	}
}

/* The recipe JSON of each workload carries its own parameters, defaults applied, and no other's. */
static void test_json(void **state)
{
	struct probe_config *c = calloc(1, sizeof(*c));
	struct probe_plan *p = calloc(1, sizeof(*p));

	(void)state;
	assert_non_null(c);
	assert_non_null(p);
	for (size_t i = 0; i < workload_count(); i++) {
		const struct workload_info *w = workload_at(i);
		const struct workload_param *q;
		cJSON *root, *wo;

		if (w->pattern == WORKLOAD_PAT_NONE)
			continue;
		probe_config_init(c);
		c->workload = w;
		c->wp.working_set_bytes = 64ull << 20;
		c->narms = 1;
		assert_int_equal(probe_arm_builtin("pc3", &c->arms[0]), 0);
		p->baseline = 0;
		p->memcg_version = 2;
		root = probe_params_json(c, p);
		wo = cJSON_GetObjectItemCaseSensitive(root, "workload");
		for (size_t k = 0; (q = workload_param_at(k)); k++) {
			const cJSON *x = cJSON_GetObjectItemCaseSensitive(wo, q->key);
			bool own = false;

			for (const struct workload_param *o = w->params; o && o->key; o++)
				own |= !strcmp(o->key, q->key);
			if (own != (x != NULL))
				fail_msg("%s: %s %s in its recipe", w->name, q->key, x ? "is" : "is not");
			if (x)
				assert_true(x->valuedouble == workload_param_value(q, &c->wp));
		}
		cJSON_Delete(root);
	}
	free(c);
	free(p);
}

/* The recipe reader's field: the option, its bounds, part of the identity. */
static void test_recipe_field(void **state)
{
	const struct workload_param *q;

	(void)state;
	for (size_t i = 0; (q = workload_param_at(i)); i++) {
		int k = recipe_field_find("workload", q->key);
		const struct recipe_field *f = recipe_field_at((size_t)k);
		char opt[64], base[512], other[512], fa[JUDGE_RECIPE_LEN], fb[JUDGE_RECIPE_LEN];

		assert_true(k >= 0);
		snprintf(opt, sizeof(opt), "--%s", q->opt.name);
		assert_string_equal(f->option, opt);
		assert_true(f->identity);
		assert_true(f->min == (workload_param_is_real(q) ? q->opt.lo : (double)q->opt.min));
		/* judge_recipe() tells two values of it apart */
		snprintf(base, sizeof(base), "{\"workload\":{\"name\":\"x\",\"%s\":%.17g}}", q->key, f->min);
		snprintf(other, sizeof(other), "{\"workload\":{\"name\":\"x\",\"%s\":%.17g}}", q->key,
			 f->min + 1);
		assert_int_equal(recipe_of_text(base, NULL, fa), 0);
		assert_int_equal(recipe_of_text(other, NULL, fb), 0);
		assert_string_not_equal(fa, fb);
	}
}

static cJSON *read_schema(void)
{
	const char *top = getenv("TOP");
	static char text[262144];
	char path[PATH_MAX];
	FILE *f;
	size_t n;

	snprintf(path, sizeof(path), "%s/share/schema/probe.schema.json", top && *top ? top : ".");
	f = fopen(path, "r");
	if (!f)
		fail_msg("cannot open %s (run from the top of the tree or set TOP)", path);
	n = fread(text, 1, sizeof(text) - 1, f);
	fclose(f);
	text[n] = '\0';
	return cJSON_Parse(text);
}

/* The hand-written schema's "workload" keys: the common ones and the rows', typed as they say. */
static void test_schema_agrees(void **state)
{
	cJSON *schema = read_schema(), *props, *it;
	const struct workload_param *q;

	(void)state;
	assert_non_null(schema);
	props = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(
		cJSON_GetObjectItemCaseSensitive(schema, "properties"), "workload"), "properties");
	assert_non_null(props);
	for (size_t i = 0; (q = workload_param_at(i)); i++) {
		const cJSON *t = cJSON_GetObjectItemCaseSensitive(
			cJSON_GetObjectItemCaseSensitive(props, q->key), "type");
		const char *want = workload_param_is_real(q) ? "number" : "integer";

		if (!cJSON_IsString(t) || strcmp(t->valuestring, want))
			fail_msg("probe.schema.json: workload.%s should be {\"type\": \"%s\"}", q->key, want);
	}
	cJSON_ArrayForEach(it, props) {
		bool known = workload_param_find(it->string) != NULL;

		for (const char *const *k = common_keys; *k; k++)
			known |= !strcmp(*k, it->string);
		if (!known)
			fail_msg("probe.schema.json: workload.%s is no workload's parameter", it->string);
	}
	cJSON_Delete(schema);
}

/* Every built-in arm resolves by name and is offered where an unknown one is refused. */
static void test_builtin_arms(void **state)
{
	struct probe_arm arms[PROBE_ARMS_MAX], a;
	struct st_err e = { 0 };
	const char *name;
	int n = 0;

	(void)state;
	assert_non_null(probe_arm_builtin_at(0));
	for (size_t i = 0; (name = probe_arm_builtin_at(i)); i++) {
		assert_int_equal(probe_arm_builtin(name, &a), 0);
		assert_string_equal(a.name, name);
		assert_true(a.builtin);
		assert_true(a.nset > 0);
	}
	assert_int_equal(probe_arms_parse_list("nosuch", arms, PROBE_ARMS_MAX, &n, &e), -EINVAL);
	for (size_t i = 0; (name = probe_arm_builtin_at(i)); i++)
		if (!strstr(e.msg, name))
			fail_msg("the unknown-arm message does not name %s: %s", name, e.msg);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rows),
		cmocka_unit_test(test_parse_and_default),
		cmocka_unit_test(test_json),
		cmocka_unit_test(test_recipe_field),
		cmocka_unit_test(test_schema_agrees),
		cmocka_unit_test(test_builtin_arms),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
