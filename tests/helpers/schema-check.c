/*
 * schema-check.c - validate a JSON document against one of swaptune's JSON
 * schemas (share/schema/), for the command tests.
 *
 *   schema-check SCHEMA.json [DOC.json]     (DOC defaults to stdin)
 *
 * Supports the subset the schemas use: type (a name or an array of names,
 * "integer" = a number without fraction), required, properties, items, enum
 * (strings, numbers, booleans, null) and additionalProperties (false or a
 * schema). Other keywords ($schema, $id, title, description) are ignored.
 * Prints one line per violation, "$.PATH: problem", and exits 0 when valid, 1
 * when not, 2 when a file cannot be read or parsed.
 */
#include <cjson/cJSON.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int violations;

static char *slurp(const char *path)
{
	FILE *f = strcmp(path, "-") ? fopen(path, "r") : stdin;
	size_t len = 0, cap = 4096, n;
	char *buf;

	if (!f)
		return NULL;
	buf = malloc(cap);
	while (buf && (n = fread(buf + len, 1, cap - len - 1, f)) > 0) {
		len += n;
		if (cap - len - 1 == 0) {
			char *nb = realloc(buf, cap *= 2);

			if (!nb)
				free(buf);
			buf = nb;
		}
	}
	if (buf)
		buf[len] = '\0';
	if (f != stdin)
		fclose(f);
	return buf;
}

static void report(const char *path, const char *fmt, const char *arg)
	__attribute__((format(printf, 2, 0)));

static void report(const char *path, const char *fmt, const char *arg)
{
	printf("%s: ", path);
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
	printf(fmt, arg);
#pragma GCC diagnostic pop
	printf("\n");
	violations++;
}

static bool type_matches(const cJSON *v, const char *t)
{
	if (!strcmp(t, "null"))
		return cJSON_IsNull(v);
	if (!strcmp(t, "boolean"))
		return cJSON_IsBool(v);
	if (!strcmp(t, "string"))
		return cJSON_IsString(v);
	if (!strcmp(t, "number"))
		return cJSON_IsNumber(v);
	if (!strcmp(t, "integer"))
		return cJSON_IsNumber(v) && v->valuedouble == floor(v->valuedouble) &&
		       fabs(v->valuedouble) < 1.9e19;
	if (!strcmp(t, "object"))
		return cJSON_IsObject(v);
	if (!strcmp(t, "array"))
		return cJSON_IsArray(v);
	fprintf(stderr, "schema-check: unknown type \"%s\" in schema\n", t);
	exit(2);
}

static const char *kind_of(const cJSON *v)
{
	if (cJSON_IsNull(v)) return "null";
	if (cJSON_IsBool(v)) return "boolean";
	if (cJSON_IsString(v)) return "string";
	if (cJSON_IsNumber(v)) return v->valuedouble == floor(v->valuedouble) ? "integer" : "number";
	if (cJSON_IsObject(v)) return "object";
	if (cJSON_IsArray(v)) return "array";
	return "invalid";
}

static bool same_scalar(const cJSON *a, const cJSON *b)
{
	if (cJSON_IsString(a) && cJSON_IsString(b))
		return !strcmp(a->valuestring, b->valuestring);
	if (cJSON_IsNumber(a) && cJSON_IsNumber(b))
		return a->valuedouble == b->valuedouble;
	if (cJSON_IsBool(a) && cJSON_IsBool(b))
		return cJSON_IsTrue(a) == cJSON_IsTrue(b);
	return cJSON_IsNull(a) && cJSON_IsNull(b);
}

static void validate(const cJSON *schema, const cJSON *v, const char *path)
{
	const cJSON *t = cJSON_GetObjectItemCaseSensitive(schema, "type");
	const cJSON *s, *it;
	char sub[1024];

	if (!cJSON_IsObject(schema)) {
		fprintf(stderr, "schema-check: schema at %s is not an object\n", path);
		exit(2);
	}
	if (t) {
		bool ok = false;

		if (cJSON_IsString(t))
			ok = type_matches(v, t->valuestring);
		else
			cJSON_ArrayForEach(it, t)
				ok = ok || type_matches(v, it->valuestring);
		if (!ok) {
			char want[256] = "";

			if (cJSON_IsString(t))
				snprintf(want, sizeof(want), "%s", t->valuestring);
			else
				cJSON_ArrayForEach(it, t)
					snprintf(want + strlen(want), sizeof(want) - strlen(want),
						 "%s%s", want[0] ? " or " : "", it->valuestring);
			printf("%s: expected %s, found %s\n", path, want,
			       kind_of(v));
			violations++;
			return;
		}
	}
	if ((s = cJSON_GetObjectItemCaseSensitive(schema, "enum"))) {
		bool found = false;

		cJSON_ArrayForEach(it, s)
			found = found || same_scalar(it, v);
		if (!found) {
			char *text = cJSON_PrintUnformatted(v);

			report(path, "%s is not one of the allowed values", text ? text : "?");
			free(text);
		}
	}
	if (cJSON_IsObject(v)) {
		const cJSON *props = cJSON_GetObjectItemCaseSensitive(schema, "properties");
		const cJSON *addl = cJSON_GetObjectItemCaseSensitive(schema, "additionalProperties");

		if ((s = cJSON_GetObjectItemCaseSensitive(schema, "required")))
			cJSON_ArrayForEach(it, s)
				if (!cJSON_GetObjectItemCaseSensitive(v, it->valuestring))
					report(path, "missing required key \"%s\"", it->valuestring);
		cJSON_ArrayForEach(it, v) {
			const cJSON *ps = props ? cJSON_GetObjectItemCaseSensitive(props, it->string) : NULL;

			snprintf(sub, sizeof(sub), "%s.%s", path, it->string);
			if (ps)
				validate(ps, it, sub);
			else if (cJSON_IsFalse(addl))
				report(path, "unexpected key \"%s\"", it->string);
			else if (cJSON_IsObject(addl))
				validate(addl, it, sub);
		}
	}
	if (cJSON_IsArray(v) && (s = cJSON_GetObjectItemCaseSensitive(schema, "items"))) {
		int i = 0;

		cJSON_ArrayForEach(it, v) {
			snprintf(sub, sizeof(sub), "%s[%d]", path, i++);
			validate(s, it, sub);
		}
	}
}

int main(int argc, char **argv)
{
	char *stext = NULL, *dtext = NULL;
	cJSON *schema = NULL, *doc = NULL;
	int rc = 2;

	if (argc < 2 || argc > 3) {
		fprintf(stderr, "usage: schema-check SCHEMA.json [DOC.json]\n");
		return 2;
	}
	stext = slurp(argv[1]);
	dtext = slurp(argc == 3 ? argv[2] : "-");
	if (!stext || !dtext)
		fprintf(stderr, "schema-check: cannot read %s\n", !stext ? argv[1] : argv[2]);
	else if (!(schema = cJSON_Parse(stext)))
		fprintf(stderr, "schema-check: %s is not valid JSON\n", argv[1]);
	else if (!(doc = cJSON_Parse(dtext)))
		fprintf(stderr, "schema-check: the document is not valid JSON (near \"%.30s\")\n",
			cJSON_GetErrorPtr() ? cJSON_GetErrorPtr() : "");
	else {
		validate(schema, doc, "$");
		rc = violations ? 1 : 0;
	}
	cJSON_Delete(schema);
	cJSON_Delete(doc);
	free(stext);
	free(dtext);
	return rc;
}
