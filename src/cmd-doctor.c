/*
 * cmd-doctor.c - `swaptune doctor`: placeholder until the checks land.
 */
#include "swaptune/cmd.h"

static int doctor_exec(struct cmd_ctx *ctx, int argc, char **argv)
{
	return err_set_exit(&ctx->err, -ENOSYS, ST_EXIT_RUNTIME, "doctor: not implemented yet");
}

const struct cmd_entry cmd_doctor_entry = {
	.name = "doctor",
	.summary = "check every prerequisite for probing, each with a fix hint",
	.usage = "[--json]",
	.exec = doctor_exec,
};
