/*
 * complete.c - completion scripts for bash, zsh and fish, made from the
 * command table and its option tables (`swaptune --completion SHELL`), and
 * the id lister they call for run and recording ids (`--list-ids KIND`;
 * "measured": probe and switchback runs, what recommend and apply judge).
 *
 * What a script offers after an option comes from the row's completion
 * kind: its choices, files, directories, users, or ids from the store named
 * by --db on the line (else SWAPTUNE_DB, else the default store). A value
 * that is free text gets nothing offered, never option names.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "swaptune/cmd.h"
#include "swaptune/sbrun.h"
#include "swaptune/settings.h"

#define IDS_MAX 50		/* ids offered: the newest, a bounded query */

/* The kind argument of --list-ids for a completion kind, NULL if none. */
static const char *ids_kind(enum opt_complete k)
{
	switch (k) {
	case OPT_COMPLETE_RUN: return "run";
	case OPT_COMPLETE_PROBE_RUN: return "probe";
	case OPT_COMPLETE_APPLY_RUN: return "apply";
	case OPT_COMPLETE_RECORDING: return "recording";
	case OPT_COMPLETE_MEASURED_RUN: return "measured";
	case OPT_COMPLETE_SNAPSHOT: return "snapshot";
	default: return NULL;
	}
}

/* Table i of c's own options (of swaptune itself when c is NULL), NULL past them. */
static const struct opt_spec *own_table(const struct cmd_entry *c, size_t i)
{
	if (!c)
		return i == 0 ? cmd_global_opts : NULL;
	return i < OPT_TABLES_MAX ? c->opts[i] : NULL;
}

/* Each row o of c's own tables that is not hidden. */
#define FOR_OWN_ROWS(c, o) \
	for (size_t t_ = 0; own_table(c, t_); t_++) \
		for (const struct opt_spec *o = own_table(c, t_); o->name; o++) \
			if (!(o->flags & OPT_HIDDEN))
/* Each row o of the common options. */
#define FOR_COMMON_ROWS(o) \
	for (const struct opt_spec *o = cmd_common_opts; o->name; o++) \
		if (!(o->flags & OPT_HIDDEN))

/* "a b c": the choices a row offers */
static void put_choices(FILE *f, const struct opt_spec *o)
{
	const char *ch;

	for (size_t i = 0; (ch = opt_choice(o, i)); i++)
		fprintf(f, "%s%s", i ? " " : "", ch);
}

/*
 * How each shell spells what it offers for an option's value: one row per
 * shell.
 */
struct shell_actions {
	const char *ids[2];		/* before and after the --list-ids kind */
	const char *choices[2];		/* before and after the choice words */
	const char *list[2];		/* the same for a comma-separated list */
	const char *file, *dir, *user, *none;
};

static const struct shell_actions bash_actions = {
	.ids = { "COMPREPLY=($(compgen -W \"$(_swaptune_ids ", ")\" -- \"$cur\"))" },
	.choices = { "COMPREPLY=($(compgen -W \"", "\" -- \"$cur\"))" },
	.list = { "_swaptune_list \"", "\"" },
	.file = "compopt -o filenames 2>/dev/null; COMPREPLY=($(compgen -f -- \"$cur\"))",
	.dir = "compopt -o filenames 2>/dev/null; COMPREPLY=($(compgen -d -- \"$cur\"))",
	.user = "COMPREPLY=($(compgen -u -- \"$cur\"))",
	.none = "COMPREPLY=()",		/* free text: nothing, never option names */
};

static const struct shell_actions zsh_actions = {
	.ids = { "_swaptune_ids ", "" },
	.choices = { "(", ")" },
	.list = { "_sequence compadd - ", "" },
	.file = "_files", .dir = "_files -/", .user = "_users",
	.none = " ",			/* free text: nothing offered */
};

static const struct shell_actions fish_actions = {
	.ids = { " -x -a '(__swaptune_ids ", ")'" },
	.choices = { " -x -a '", "'" },
	.list = { " -x -a '", "'" },
	.file = " -r -F", .dir = " -x -a '(__fish_complete_directories)'",
	.user = " -x -a '(__fish_complete_users)'", .none = " -x",
};

/* What shell sh offers for o's value. */
static void put_action(FILE *f, const struct shell_actions *sh, const struct opt_spec *o)
{
	const char *ids = ids_kind(o->complete);

	if (ids) {
		fprintf(f, "%s%s%s", sh->ids[0], ids, sh->ids[1]);
	} else if (o->complete == OPT_COMPLETE_CHOICES) {
		const char *const *around = o->flags & OPT_LIST ? sh->list : sh->choices;

		fputs(around[0], f);
		put_choices(f, o);
		fputs(around[1], f);
	} else {
		fputs(o->complete == OPT_COMPLETE_FILE ? sh->file : o->complete == OPT_COMPLETE_DIR ?
		      sh->dir : o->complete == OPT_COMPLETE_USER ? sh->user : sh->none, f);
	}
}

/* ---- bash ---- */

/* One "case $cmd:$prev" arm for an option's value. */
static void bash_value(FILE *f, const char *cmd, const struct opt_spec *o)
{
	fprintf(f, "\t%s:--%s", cmd, o->name);
	if (o->short_name)
		fprintf(f, "|%s:-%c", cmd, o->short_name);
	fputs(")\n\t\t", f);
	put_action(f, &bash_actions, o);
	fputs("; return ;;\n", f);
}

/* "0 1 2": the values completion offers for setting d */
static void put_setting_values(FILE *f, const struct setting_def *d)
{
	char buf[SETTING_VALUE_MAX];
	const char *v;

	for (size_t i = 0; (v = settings_value_at(d, i, buf, sizeof(buf))); i++)
		fprintf(f, "%s%s", i ? " " : "", v);
}

/* apply NAME=VALUE: bash splits it into NAME, = and VALUE; the setting's values after the = */
static void bash_setting_values(FILE *f)
{
	char buf[SETTING_VALUE_MAX];

	fputs("\t# NAME=VALUE of a command taking settings: the setting's values\n"
	      "\tif [ \"${COMP_WORDS[COMP_CWORD-1]}\" = = ] || [ \"${COMP_WORDS[COMP_CWORD]}\" = = ]; then\n"
	      "\t\tcase $cmd:$prev in\n", f);
	for (size_t k = 0; k < cmd_count(); k++) {
		const struct cmd_entry *c = cmd_at(k);

		if (c->args_complete != OPT_COMPLETE_SETTING)
			continue;
		for (size_t i = 0; i < settings_count(); i++) {
			/* a number of a wide range: nothing to offer, and not the names again */
			if (!settings_value_at(settings_at(i), 0, buf, sizeof(buf))) {
				fprintf(f, "\t\t%s:%s)\n\t\t\tCOMPREPLY=(); return ;;\n", c->name,
					settings_at(i)->name);
				continue;
			}
			fprintf(f, "\t\t%s:%s)\n\t\t\tCOMPREPLY=($(compgen -W \"", c->name, settings_at(i)->name);
			put_setting_values(f, settings_at(i));
			fputs("\" -- \"$cur\")); return ;;\n", f);
		}
	}
	fputs("\t\tesac\n\tfi\n", f);
}

static void bash_positional(FILE *f, const struct cmd_entry *c)
{
	switch (c->args_complete) {
	case OPT_COMPLETE_FILE:
		fputs("compopt -o filenames 2>/dev/null; COMPREPLY=($(compgen -f -- \"$cur\"))", f);
		break;
	case OPT_COMPLETE_SETTING:
		fputs("compopt -o nospace 2>/dev/null; COMPREPLY=($(compgen -W \"", f);
		for (size_t i = 0; i < settings_count(); i++)
			fprintf(f, "%s%s=", i ? " " : "", settings_at(i)->name);
		fputs("\" -- \"$cur\"))", f);
		break;
	default:
		fputs("COMPREPLY=($(compgen -W \"$opts\" -- \"$cur\"))", f);
	}
}

/* _swaptune_takes_value CMD WORD, and the "case $cmd:$prev" arms of the values. */
static void bash_value_options(FILE *f, bool arms)
{
	if (!arms)
		fputs("# _swaptune_takes_value CMD WORD: whether WORD is an option of CMD taking a value\n"
		      "_swaptune_takes_value()\n{\n\tcase $1:$2 in\n", f);
	else
		fputs("\tcase $cmd:$prev in\n", f);
	FOR_OWN_ROWS(NULL, o)
		if (o->arg)
			arms ? bash_value(f, "*", o) : (void)fprintf(f, "\t*:--%s) return 0 ;;\n", o->name);
	FOR_COMMON_ROWS(o)
		if (o->arg)
			arms ? bash_value(f, "*", o) : (void)fprintf(f, "\t*:--%s) return 0 ;;\n", o->name);
	for (size_t k = 0; k < cmd_count(); k++) {
		const char *name = cmd_at(k)->name;

		FOR_OWN_ROWS(cmd_at(k), o) {
			if (!o->arg)
				continue;
			if (arms) {
				bash_value(f, name, o);
				continue;
			}
			fprintf(f, "\t%s:--%s", name, o->name);
			if (o->short_name)
				fprintf(f, "|%s:-%c", name, o->short_name);
			fputs(") return 0 ;;\n", f);
		}
	}
	fputs(arms ? "\tesac\n" : "\tesac\n\treturn 1\n}\n", f);
}

static void bash_commands(FILE *f)
{
	fputs("\tcase $cmd in\n\t'')\n\t\tCOMPREPLY=($(compgen -W \"", f);
	for (size_t k = 0; k < cmd_count(); k++)
		fprintf(f, "%s ", cmd_at(k)->name);
	fputs("help", f);
	FOR_OWN_ROWS(NULL, o)
		fprintf(f, " --%s", o->name);
	FOR_COMMON_ROWS(o)
		fprintf(f, " --%s", o->name);
	fputs("\" -- \"$cur\")) ;;\n\thelp)\n\t\tCOMPREPLY=($(compgen -W \"", f);
	for (size_t k = 0; k < cmd_count(); k++)
		fprintf(f, "%s%s", k ? " " : "", cmd_at(k)->name);
	fputs("\" -- \"$cur\")) ;;\n", f);
	for (size_t k = 0; k < cmd_count(); k++) {
		fprintf(f, "\t%s)\n\t\topts=\"", cmd_at(k)->name);
		FOR_OWN_ROWS(cmd_at(k), o)
			fprintf(f, "--%s ", o->name);
		FOR_COMMON_ROWS(o)
			fprintf(f, "--%s ", o->name);
		fputs("\"\n\t\tcase $cur in\n\t\t-*) COMPREPLY=($(compgen -W \"$opts\" -- \"$cur\")) ;;\n\t\t*) ", f);
		bash_positional(f, cmd_at(k));
		fputs(" ;;\n\t\tesac ;;\n", f);
	}
	fputs("\tesac\n", f);
}

static void bash_script(FILE *f)
{
	fputs("# bash completion for swaptune - generated by `swaptune --completion bash`\n"
	      "# from the command tables; do not edit.\n"
	      "# _swaptune_ids KIND: run or recording ids of the store on the line\n"
	      "_swaptune_ids()\n{\n"
	      "\t\"$_swaptune_bin\" ${_swaptune_db:+--db \"$_swaptune_db\"} --list-ids \"$1\" 2>/dev/null\n"
	      "}\n"
	      "# _swaptune_list CHOICES: one more item of a comma-separated list\n"
	      "_swaptune_list()\n{\n"
	      "\tcase $cur in\n"
	      "\t*,*) COMPREPLY=($(compgen -P \"${cur%,*},\" -W \"$1\" -- \"${cur##*,}\")) ;;\n"
	      "\t*) COMPREPLY=($(compgen -W \"$1\" -- \"$cur\")) ;;\n"
	      "\tesac\n}\n", f);
	bash_value_options(f, false);
	fputs("_swaptune()\n{\n"
	      "\tlocal cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]}\n"
	      "\tlocal cmd= w i _swaptune_db= _swaptune_bin=${COMP_WORDS[0]} opts\n"
	      "\tfor ((i = 1; i < COMP_CWORD; i++)); do\n"
	      "\t\tw=${COMP_WORDS[i]}\n"
	      "\t\t[ \"$w\" = -- ] && break\n"
	      "\t\tcase $w in --db=*) _swaptune_db=${w#--db=}; continue ;; esac\n"
	      "\t\tif _swaptune_takes_value \"$cmd\" \"$w\"; then\n"
	      "\t\t\t[ \"${COMP_WORDS[i+1]}\" = = ] && ((i++))\n"
	      "\t\t\t[ \"$w\" = --db ] && _swaptune_db=${COMP_WORDS[i+1]}\n"
	      "\t\t\t((i++)); continue\n"
	      "\t\tfi\n"
	      "\t\tcase $w in -*|=) ;; *) [ -z \"$cmd\" ] && cmd=$w ;; esac\n"
	      "\tdone\n"
	      "\t# --opt=value: bash splits it into --opt, = and value\n"
	      "\tif [ \"$prev\" = = ] && [ \"$COMP_CWORD\" -ge 2 ]; then prev=${COMP_WORDS[COMP_CWORD-2]}; fi\n"
	      "\t[ \"$cur\" = = ] && cur=\n", f);
	bash_setting_values(f);
	bash_value_options(f, true);
	bash_commands(f);
	fputs("}\ncomplete -F _swaptune swaptune\n", f);
}

/* ---- zsh ---- */

/* A description: the help up to its first "(" or ";", escaped for an _arguments spec. */
static void zsh_desc(FILE *f, const char *help)
{
	size_t n = strcspn(help, "(;");

	while (n > 0 && help[n - 1] == ' ')
		n--;
	if (n > 70)
		n = 70;
	for (size_t i = 0; i < n; i++) {
		if (help[i] == '\'')
			fputs("'\\''", f);
		else if (strchr("[]:\\", help[i]))
			fprintf(f, "\\%c", help[i]);
		else
			fputc(help[i], f);
	}
}

/* ":ARG:ACTION" of an option's value */
static void zsh_action(FILE *f, const struct opt_spec *o)
{
	fputc(':', f);
	zsh_desc(f, o->arg);
	fputc(':', f);
	put_action(f, &zsh_actions, o);
}

/* One _arguments spec per row: '(-y --yes)'{-y,--yes}'[do not ask]' */
static void zsh_spec(FILE *f, const struct opt_spec *o, const char *end)
{
	fputs("\t\t", f);
	if (o->short_name)
		fprintf(f, "'(-%c --%s)'{-%c,--%s}'", o->short_name, o->name, o->short_name, o->name);
	else
		fprintf(f, "'--%s", o->name);
	fputc('[', f);
	zsh_desc(f, o->help);
	fputc(']', f);
	if (o->arg)
		zsh_action(f, o);
	fprintf(f, "'%s\n", end);
}

static void zsh_commands(FILE *f)
{
	for (size_t k = 0; k < cmd_count(); k++) {
		const struct cmd_entry *c = cmd_at(k);

		fprintf(f, "\t\t%s) _arguments $common \\\n", c->name);
		FOR_OWN_ROWS(c, o)
			zsh_spec(f, o, " \\");
		fputs(c->args_complete == OPT_COMPLETE_FILE ? "\t\t\t'*:file:_files'" :
		      c->args_complete == OPT_COMPLETE_SETTING ? "\t\t\t'*:setting:_swaptune_settings'" :
		      c->args ? "\t\t\t'*:argument: '" : "\t\t\t", f);
		fputs(" && ret=0 ;;\n", f);
	}
}

static void zsh_script(FILE *f)
{
	fputs("#compdef swaptune\n"
	      "# zsh completion for swaptune - generated by `swaptune --completion zsh`\n"
	      "# from the command tables; do not edit.\n"
	      "# _swaptune_ids [COMPADD-OPTIONS] KIND: run or recording ids of the store on the line\n"
	      "_swaptune_ids() {\n"
	      "\tlocal i=${swaptune_words[(I)--db]} db= kind=${@[-1]}\n"
	      "\t(( i )) && db=${swaptune_words[i+1]}\n"
	      "\tlocal -a ids\n"
	      "\tids=(${(f)\"$(${swaptune_words[1]} ${db:+--db} ${db:+$db} --list-ids $kind 2>/dev/null)\"})\n"
	      "\tcompadd \"${@[1,-2]}\" -a ids\n"
	      "}\n"
	      "# _swaptune_settings: NAME= of the settings registry, then NAME's values\n"
	      "_swaptune_settings() {\n", f);
	for (size_t i = 0; i < settings_count(); i++) {
		char buf[SETTING_VALUE_MAX];

		if (!settings_value_at(settings_at(i), 0, buf, sizeof(buf)))
			continue;
		fprintf(f, "\tif compset -P '%s='; then compadd -- ", settings_at(i)->name);
		put_setting_values(f, settings_at(i));
		fputs("; return; fi\n", f);
	}
	fputs("\tcompset -P '*=' && return 1\n\tcompadd -S '' --", f);
	for (size_t i = 0; i < settings_count(); i++)
		fprintf(f, " %s=", settings_at(i)->name);
	fputs("\n}\n"
	      "_swaptune() {\n"
	      "\tlocal -a swaptune_words\n"
	      "\tswaptune_words=(\"${words[@]}\")\n"
	      "\tlocal curcontext=$curcontext state line ret=1\n"
	      "\tlocal -a common cmds\n"
	      "\tcommon=(\n", f);
	FOR_COMMON_ROWS(o)
		zsh_spec(f, o, "");
	fputs("\t)\n\tcmds=(\n", f);
	for (size_t k = 0; k < cmd_count(); k++) {
		fprintf(f, "\t\t'%s:", cmd_at(k)->name);
		zsh_desc(f, cmd_at(k)->summary);
		fputs("'\n", f);
	}
	fputs("\t)\n\t_arguments -C $common \\\n", f);
	FOR_OWN_ROWS(NULL, o)
		zsh_spec(f, o, " \\");
	fputs("\t\t'1:command:->command' '*::arg:->args' && ret=0\n"
	      "\tcase $state in\n"
	      "\tcommand) _describe -t commands 'swaptune command' cmds && ret=0 ;;\n"
	      "\targs)\n\t\tcase $words[1] in\n", f);
	zsh_commands(f);
	fputs("\t\tesac ;;\n\tesac\n\treturn ret\n}\n_swaptune \"$@\"\n", f);
}

/* ---- fish ---- */

static void fish_quote(FILE *f, const char *s, size_t max)
{
	size_t n = strcspn(s, "(;");

	while (n > 0 && s[n - 1] == ' ')
		n--;
	if (n < 12)	/* "auto (a live line...": the first words say too little */
		n = strlen(s);
	if (n > max)
		n = max;
	fputc('\'', f);
	for (size_t i = 0; i < n; i++) {
		if (s[i] == '\'' || s[i] == '\\')
			fputc('\\', f);
		fputc(s[i], f);
	}
	fputc('\'', f);
}

static void fish_row(FILE *f, const char *cond, const struct opt_spec *o)
{
	fputs("complete -c swaptune", f);
	if (cond)
		fprintf(f, " -n '%s'", cond);
	fprintf(f, " -l %s", o->name);
	if (o->short_name)
		fprintf(f, " -s %c", o->short_name);
	if (o->arg)
		put_action(f, &fish_actions, o);
	fputs(" -d ", f);
	fish_quote(f, o->help, 60);
	fputc('\n', f);
}

static void fish_script(FILE *f)
{
	fputs("# fish completion for swaptune - generated by `swaptune --completion fish`\n"
	      "# from the command tables; do not edit.\n"
	      "# __swaptune_ids KIND: run or recording ids of the store on the line\n"
	      "function __swaptune_ids\n"
	      "\tset -l words (commandline -opc)\n"
	      "\tset -l i (contains -i -- --db $words)\n"
	      "\tif test -n \"$i\"\n"
	      "\t\t$words[1] --db $words[(math $i + 1)] --list-ids $argv[1] 2>/dev/null\n"
	      "\telse\n"
	      "\t\t$words[1] --list-ids $argv[1] 2>/dev/null\n"
	      "\tend\n"
	      "end\n"
	      "complete -c swaptune -f\n", f);
	FOR_COMMON_ROWS(o)
		fish_row(f, NULL, o);
	FOR_OWN_ROWS(NULL, o)
		fish_row(f, "__fish_use_subcommand", o);
	for (size_t k = 0; k < cmd_count(); k++) {
		fprintf(f, "complete -c swaptune -n __fish_use_subcommand -a %s -d ", cmd_at(k)->name);
		fish_quote(f, cmd_at(k)->summary, 60);
		fputc('\n', f);
	}
	for (size_t k = 0; k < cmd_count(); k++) {
		const struct cmd_entry *c = cmd_at(k);
		char cond[64];

		snprintf(cond, sizeof(cond), "__fish_seen_subcommand_from %s", c->name);
		FOR_OWN_ROWS(c, o)
			fish_row(f, cond, o);
		if (c->args_complete == OPT_COMPLETE_FILE)
			fprintf(f, "complete -c swaptune -n '%s' -F\n", cond);
		else if (c->args_complete == OPT_COMPLETE_SETTING)
			for (size_t i = 0; i < settings_count(); i++) {
				char buf[SETTING_VALUE_MAX];
				const char *v;

				fprintf(f, "complete -c swaptune -n '%s' -a %s=\n", cond, settings_at(i)->name);
				/* NAME=VALUE, each: fish offers those that start with the word typed */
				for (size_t j = 0; (v = settings_value_at(settings_at(i), j, buf, sizeof(buf))); j++)
					fprintf(f, "complete -c swaptune -n '%s' -a %s=%s\n", cond,
						settings_at(i)->name, v);
			}
	}
}

void cmd_print_completion(FILE *f, int shell)
{
	if (shell == 1)
		zsh_script(f);
	else if (shell == 2)
		fish_script(f);
	else
		bash_script(f);
}

/* ---- ids for the scripts ---- */

/* The newest IDS_MAX probe and switchback runs, newest first. */
static int list_measured(FILE *f, struct store *st, struct st_err *e)
{
	static const struct store_runs_which measured = {
		.kind1 = "probe", .kind2 = SBRUN_KIND, .limit = IDS_MAX
	};
	struct store_run *rows;
	int n = 0, r = store_runs_list(st, &measured, &rows, &n, e);

	for (int i = 0; r == 0 && i < n; i++)
		fprintf(f, "%lld\n", (long long)rows[i].id);
	store_runs_free(rows, n);
	return r;
}

int cmd_list_ids(FILE *f, const char *kind, const char *db_path, struct st_err *e)
{
	struct store st;
	struct stat sb;
	int n = 0, r;

	/* a completion never makes a store: none there, no ids */
	if (stat(db_path, &sb) < 0 || !S_ISREG(sb.st_mode))
		return 0;
	if ((r = store_open_readonly(&st, db_path, e)) < 0)
		return r;
	if (!strcmp(kind, "recording")) {
		struct store_sample_run *rows = calloc(IDS_MAX, sizeof(*rows));

		r = rows ? store_sample_runs(&st, true, rows, IDS_MAX, &n, e) : -ENOMEM;
		for (int i = 0; r == 0 && i < n; i++)
			fprintf(f, "%lld\n", (long long)rows[i].run_id);
		free(rows);
	} else if (!strcmp(kind, "snapshot")) {
		int64_t ids[IDS_MAX];

		r = store_snapshot_ids(&st, ids, IDS_MAX, &n, e);
		for (int i = 0; r == 0 && i < n; i++)
			fprintf(f, "%lld\n", (long long)ids[i]);
	} else if (!strcmp(kind, "measured")) {
		r = list_measured(f, &st, e);
	} else {
		struct store_runs_which which = {
			.kind1 = strcmp(kind, "run") ? kind : NULL, .limit = IDS_MAX
		};
		struct store_run *rows;

		r = store_runs_list(&st, &which, &rows, &n, e);
		for (int i = 0; r == 0 && i < n; i++)
			fprintf(f, "%lld\n", (long long)rows[i].id);
		store_runs_free(rows, n);
	}
	store_close(&st);
	return r;
}
