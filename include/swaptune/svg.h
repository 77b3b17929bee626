/*
 * svg.h - the project's own small SVG kit for report charts: a plot box
 * mapping data to pixels, "nice" axis ranges and ticks labelled with their
 * unit (1.5k, 2M), axes, legends, and text that is always XML-escaped.
 * Output is plain SVG 1.1 text written to a FILE, meant to be inlined in
 * an HTML page: no scripts, no external references.
 */
#ifndef SWAPTUNE_SVG_H
#define SWAPTUNE_SVG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* The plotting area in pixels and the data range it shows. */
struct svg_plot {
	double x0, y0, w, h;		/* top-left corner and size of the area */
	double xmin, xmax, ymin, ymax;
};

/* Write s with & < > " ' escaped. */
void svg_escape(FILE *f, const char *s);

/* <svg> with a viewBox, a <title> (escaped) and the shared style classes. */
void svg_open(FILE *f, int width, int height, const char *title);
void svg_close(FILE *f);

/* Widen [*lo, *hi] to multiples of a 1-2-5 step giving about `ticks` ticks; returns the step. */
double svg_nice_range(double *lo, double *hi, int ticks);

/* A tick value with an SI suffix: 0, 0.25, 15, 1.5k, 2M, 3G. */
const char *svg_tick_label(double v, char *buf, size_t len);

/* Data to pixels. */
double svg_x(const struct svg_plot *p, double x);
double svg_y(const struct svg_plot *p, double y);

/*
 * Axes of p: y ticks every y_step with grid lines, labelled with y_unit on
 * top; x ticks every x_step (<= 0: no x ticks) labelled with x_unit.
 */
void svg_axes(FILE *f, const struct svg_plot *p, double x_step, double y_step,
	      const char *x_unit, const char *y_unit);

/* Text at (x, y); anchor "start" / "middle" / "end"; escaped. */
void svg_text(FILE *f, double x, double y, const char *anchor, const char *cls,
	      const char *text);

/* A legend row at (x, y): a swatch of colours[i] then names[i], left to right. */
void svg_legend(FILE *f, double x, double y, const char *const *names,
		const char *const *colours, size_t n);

#endif
