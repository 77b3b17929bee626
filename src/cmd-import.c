/*
 * cmd-import.c - `swaptune import FILE...`: add other hosts' exports to this
 * store as history. Each file is checked whole before anything of it is
 * written, and all the files go in one transaction: a bad or conflicting
 * file, wherever it stands in the list, is named in one line and nothing
 * of any file is kept. Importing a file twice adds nothing.
 */
#include <cjson/cJSON.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "swaptune/cmd.h"
#include "swaptune/fleet.h"

/*
 * A FIFO, a device or a socket is refused before any open that could block
 * (a FIFO's open waits for a writer): stat() first, then an O_NONBLOCK
 * open whose fstat() must still be the regular file.
 */
static int read_file(const char *path, char **text, size_t *len, struct st_err *e)
{
	struct stat sb;
	size_t off = 0;
	int fd;

	*text = NULL;
	if (stat(path, &sb) < 0)
		return err_set_exit(e, -errno, ST_EXIT_USAGE, "import: %s: %s", path, strerror(errno));
	if (!S_ISREG(sb.st_mode))
		return err_set_exit(e, -EINVAL, ST_EXIT_USAGE, "import: %s: not a regular file (%s)", path,
				    S_ISDIR(sb.st_mode) ? "a directory" : S_ISFIFO(sb.st_mode) ? "a FIFO" :
				    S_ISSOCK(sb.st_mode) ? "a socket" : "a device");
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	if (fd < 0)
		return err_set_exit(e, -errno, ST_EXIT_USAGE, "import: %s: %s", path, strerror(errno));
	if (fstat(fd, &sb) < 0 || !S_ISREG(sb.st_mode)) {
		close(fd);
		return err_set_exit(e, -EINVAL, ST_EXIT_USAGE, "import: %s: not a regular file", path);
	}
	if (sb.st_size > FLEET_FILE_MAX_BYTES) {
		close(fd);
		return err_set_exit(e, -EFBIG, ST_EXIT_USAGE, "import: %s: larger than %ld bytes",
				    path, FLEET_FILE_MAX_BYTES);
	}
	*text = malloc((size_t)sb.st_size + 1);
	if (!*text) {
		close(fd);
		return err_set(e, -ENOMEM, "out of memory");
	}
	while (off < (size_t)sb.st_size) {
		ssize_t r = read(fd, *text + off, (size_t)sb.st_size - off);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		off += (size_t)r;
	}
	close(fd);
	(*text)[off] = '\0';
	*len = off;
	return 0;
}

struct import_tally {
	int added, present;
};

/* Everything of one checked document, in the caller's transaction. */
static int import_doc(struct cmd_ctx *ctx, const cJSON *doc, const char *local_mid,
		      struct import_tally *t)
{
	const cJSON *h = cJSON_GetObjectItemCaseSensitive(doc, "host"), *run;
	struct store_fleet_host sh;
	struct store_fleet_origin from = { .local_machine_id = local_mid };
	int r;

#define HS(k) (cJSON_IsString(cJSON_GetObjectItemCaseSensitive(h, k)) ? \
	       cJSON_GetObjectItemCaseSensitive(h, k)->valuestring : NULL)
	sh = (struct store_fleet_host){ HS("machine_id"), HS("hostname"), HS("kernel"),
					HS("cpu_model"), HS("boot_id") };
#undef HS
	if ((r = store_fleet_import_host(&ctx->store, &sh, &from.host_id, &ctx->err)) < 0)
		return r;
	from.machine_id = sh.machine_id;
	cJSON_ArrayForEach(run, cJSON_GetObjectItemCaseSensitive(doc, "runs")) {
		char hash[17];

		fleet_run_hash(run, hash);
		r = store_fleet_import_run(&ctx->store, &from, run, hash, &ctx->err);
		if (r < 0)
			return r;
		if (r)
			t->added++;
		else
			t->present++;
	}
	return 0;
}

static int import_one(struct cmd_ctx *ctx, const char *path, const char *local_mid,
		      struct import_tally *t)
{
	struct st_err e = {0};
	cJSON *doc = NULL;
	char *text;
	size_t len = 0;
	int r;

	if ((r = read_file(path, &text, &len, &ctx->err)) < 0)
		return r;
	r = fleet_doc_parse(text, len, &doc, &e);
	free(text);
	if (r < 0)
		return err_set_exit(&ctx->err, r, r == -ENOMEM ? ST_EXIT_RUNTIME : ST_EXIT_USAGE,
				    "import: %s: %s", path, e.msg);
	if ((r = store_fleet_begin(&ctx->store, &e)) == 0) {
		r = import_doc(ctx, doc, local_mid, t);
		if (r == 0)
			r = store_fleet_commit(&ctx->store, &ctx->err);
		if (r < 0) {
			char msg[ST_ERR_MSG_MAX];

			store_fleet_rollback(&ctx->store);
			snprintf(msg, sizeof(msg), "%s", ctx->err.msg);
			err_reset(&ctx->err);
			err_set_exit(&ctx->err, r, r == -EEXIST ? ST_EXIT_USAGE : ST_EXIT_RUNTIME,
				     "import: %s: %s", path, msg);
		}
	} else {
		err_set(&ctx->err, r, "import: %s: %s", path, e.msg);
	}
	cJSON_Delete(doc);
	return r;
}

static int import_exec(struct cmd_ctx *ctx, int argc, char **argv)
{
	char local_mid[128] = "";
	cJSON *doc = NULL, *files = NULL;
	struct import_tally *tally;
	int r = 0, first;

	if ((first = cmd_parse(ctx, &cmd_import_entry, argc, argv, NULL, NULL)) < 0)
		return first;
	if (first >= argc)
		return cmd_usage_error(ctx, &cmd_import_entry, "no FILE to import");
	if (!(tally = calloc((size_t)(argc - first), sizeof(*tally))))
		return err_set_exit(&ctx->err, -ENOMEM, ST_EXIT_RUNTIME, "import: out of memory");
	/* this host's own runs come back as "already present" */
	fleet_host_identity(&ctx->host, NULL, local_mid, sizeof(local_mid), NULL);
	for (int i = first; i < argc && r == 0; i++)
		r = import_one(ctx, argv[i], local_mid[0] ? local_mid : NULL, &tally[i - first]);
	if (r < 0) {
		/* every file or none: the ones before this one go too */
		store_fleet_abort(&ctx->store);
		if (argc - first > 1) {
			char msg[ST_ERR_MSG_MAX];

			snprintf(msg, sizeof(msg), "%s", ctx->err.msg);
			snprintf(ctx->err.msg, sizeof(ctx->err.msg), "%s (none of the %d files imported)",
				 msg, argc - first);
		}
		free(tally);
		return r;
	}
	if ((r = store_fleet_flush(&ctx->store, &ctx->err)) < 0) {
		store_fleet_abort(&ctx->store);
		free(tally);
		return r;
	}
	if (ctx->json) {
		doc = cJSON_CreateObject();
		cJSON_AddStringToObject(doc, "schema", "swaptune.import/1");
		files = cJSON_AddArrayToObject(doc, "files");
	}
	for (int i = first; i < argc; i++) {
		const struct import_tally *t = &tally[i - first];

		if (files) {
			cJSON *f = cJSON_CreateObject();

			cJSON_AddStringToObject(f, "file", argv[i]);
			cJSON_AddNumberToObject(f, "runs_added", t->added);
			cJSON_AddNumberToObject(f, "runs_present", t->present);
			cJSON_AddItemToArray(files, f);
		} else {
			fprintf(ctx->out, "%s: %d run%s added, %d already present\n", argv[i], t->added,
				t->added == 1 ? "" : "s", t->present);
		}
	}
	free(tally);
	return doc ? cmd_print_json(ctx, doc) : 0;
}

const struct cmd_entry cmd_import_entry = {
	.name = "import",
	.summary = "add runs exported by other hosts to this store, as history",
	.usage = "FILE...",
	.group = CMD_GROUP_FLEET,
	.args = "FILE...",
	.args_help = "files written by swaptune export on other hosts",
	.args_complete = OPT_COMPLETE_FILE,
	.flags = CMD_WRAP_HUMAN,
	.exec = import_exec,
};
