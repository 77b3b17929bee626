/*
 * sb-int.h - private to the switchback files (src/sb-*.c): what the engine
 * and the judge of a stored run share, so that a run is judged the same way
 * while it runs and when it is read back. The public API is sbrun.h.
 */
#ifndef SWAPTUNE_SB_INT_H
#define SWAPTUNE_SB_INT_H

#include "swaptune/sbrun.h"

/* The costs every switchback guards (window kern[] figures, levels in points). */
#define SB_COST_N 2
extern const enum sbm_kernel sb_cost_figures[SB_COST_N];
extern const double sb_cost_margin[SB_COST_N];

/* Window metric keys of the slices: "slice.00" ... */
void sb_slice_key(unsigned s, char *buf, size_t len);

/* A run's windows as the analysis takes them, while it runs or read back. */
struct sb_windows {
	const struct sb_design *d;
	const struct sbm_spec *m;		/* the primary metric */
	const struct sbrun_window *w;		/* w[0..n) */
	unsigned n;
	unsigned n_slices, n_washout_slices;	/* each window's slices (0: none) */
	double slice_s;
	const char (*names)[SB_NAME_MAX];	/* the arms' names, d's order (NULL: not needed) */
};

/*
 * The analysis input from the windows of ws: blocks complete in ws->w
 * (every position OK or FAILED) from the first on, the primary value, the
 * slices when n_slices > 0, and the costs. *blocks_done counts them.
 */
void sb_input_build(const struct sb_windows *ws, struct sb_input *in, unsigned *blocks_done);

/* The options of the analysis: defaults, the run's minimum effect, the cost margins. */
void sb_opts_for(double min_effect, bool want_ci, struct sb_opts *o);

/* The look a run with `blocks` complete blocks is judged at (the first whose blocks cover them). */
unsigned sb_look_for(const struct sb_design *d, unsigned blocks);

/*
 * Judge the windows of ws: 1 and *out filled (arms named from ws->names)
 * when at least 2 blocks are complete, 0 when fewer, < 0 on an error.
 * *look receives the look used.
 */
int sb_judge_windows(const struct sb_windows *ws, double min_effect, bool want_ci, unsigned *look,
		     struct sb_result *out, struct st_err *e);

/* Slices of a window of w seconds with washout wo: their number and those in the washout. */
void sb_slices_for(double window_s, double washout_s, unsigned *n, unsigned *n_wo, double *slice_s);

#endif
