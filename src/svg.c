/*
 * svg.c - the report charts' SVG kit (see svg.h): scales, nice ticks with
 * units, axes, legends, escaped text. Numbers are printed with %.1f so the
 * output is stable across runs.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "swaptune/svg.h"

void svg_escape(FILE *f, const char *s)
{
	for (; s && *s; s++) {
		switch (*s) {
		case '&': fputs("&amp;", f); break;
		case '<': fputs("&lt;", f); break;
		case '>': fputs("&gt;", f); break;
		case '"': fputs("&quot;", f); break;
		case '\'': fputs("&#39;", f); break;
		default:
			/* control characters are not allowed in XML 1.0 */
			if ((unsigned char)*s < 0x20 && *s != '\n' && *s != '\t')
				fputc('?', f);
			else
				fputc(*s, f);
		}
	}
}

void svg_open(FILE *f, int width, int height, const char *title)
{
	fprintf(f, "<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 %d %d\" "
		"width=\"%d\" height=\"%d\" role=\"img\" class=\"chart\"><title>", width, height,
		width, height);
	svg_escape(f, title);
	fputs("</title>\n", f);
}

void svg_close(FILE *f)
{
	fputs("</svg>\n", f);
}

double svg_nice_range(double *lo, double *hi, int ticks)
{
	double range, raw, mag, step;

	if (!isfinite(*lo) || !isfinite(*hi)) {
		*lo = 0;
		*hi = 1;
	}
	if (*hi - *lo <= 0) {
		double pad = fabs(*hi) > 0 ? fabs(*hi) * 0.1 : 1;

		*lo -= *lo == 0 ? 0 : pad;
		*hi += pad;
	}
	range = *hi - *lo;
	raw = range / (ticks > 1 ? ticks : 1);
	mag = pow(10, floor(log10(raw)));
	step = raw / mag < 1.5 ? mag : raw / mag < 3 ? 2 * mag : raw / mag < 7 ? 5 * mag : 10 * mag;
	*lo = floor(*lo / step + 1e-9) * step;
	*hi = ceil(*hi / step - 1e-9) * step;
	return step;
}

const char *svg_tick_label(double v, char *buf, size_t len)
{
	static const struct { double div; const char *suf; } si[] = {
		{ 1e12, "T" }, { 1e9, "G" }, { 1e6, "M" }, { 1e3, "k" },
	};
	double a = fabs(v);

	if (fabs(v) < 1e-12)
		v = 0;
	for (size_t i = 0; i < sizeof(si) / sizeof(si[0]); i++)
		if (a >= si[i].div) {
			snprintf(buf, len, "%g%s", round(v / si[i].div * 100) / 100, si[i].suf);
			return buf;
		}
	snprintf(buf, len, "%g", round(v * 1000) / 1000);
	return buf;
}

double svg_x(const struct svg_plot *p, double x)
{
	double span = p->xmax - p->xmin;

	return p->x0 + (span > 0 ? (x - p->xmin) / span : 0.5) * p->w;
}

double svg_y(const struct svg_plot *p, double y)
{
	double span = p->ymax - p->ymin;

	return p->y0 + p->h - (span > 0 ? (y - p->ymin) / span : 0.5) * p->h;
}

void svg_text(FILE *f, double x, double y, const char *anchor, const char *cls,
	      const char *text)
{
	fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"%s\" class=\"%s\">", x, y, anchor,
		cls ? cls : "lbl");
	svg_escape(f, text);
	fputs("</text>\n", f);
}

void svg_axes(FILE *f, const struct svg_plot *p, double x_step, double y_step,
	      const char *x_unit, const char *y_unit)
{
	char b[48];

	fputs("<g class=\"axes\">\n", f);
	if (y_step > 0)
		for (double v = p->ymin; v <= p->ymax + y_step * 1e-6; v += y_step) {
			double y = svg_y(p, v);

			fprintf(f, "<line class=\"grid\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>\n",
				p->x0, y, p->x0 + p->w, y);
			svg_text(f, p->x0 - 6, y + 4, "end", "tick", svg_tick_label(v, b, sizeof(b)));
		}
	if (x_step > 0)
		for (double v = p->xmin; v <= p->xmax + x_step * 1e-6; v += x_step) {
			double x = svg_x(p, v);

			fprintf(f, "<line class=\"axis\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>\n",
				x, p->y0 + p->h, x, p->y0 + p->h + 4);
			svg_text(f, x, p->y0 + p->h + 17, "middle", "tick", svg_tick_label(v, b, sizeof(b)));
		}
	fprintf(f, "<line class=\"axis\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>\n",
		p->x0, p->y0, p->x0, p->y0 + p->h);
	fprintf(f, "<line class=\"axis\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>\n",
		p->x0, p->y0 + p->h, p->x0 + p->w, p->y0 + p->h);
	if (y_unit && *y_unit)
		svg_text(f, p->x0 - 6, p->y0 - 10, "end", "unit", y_unit);
	if (x_unit && *x_unit)
		svg_text(f, p->x0 + p->w, p->y0 + p->h + 32, "end", "unit", x_unit);
	fputs("</g>\n", f);
}

void svg_legend(FILE *f, double x, double y, const char *const *names,
		const char *const *colours, size_t n)
{
	fputs("<g class=\"legend\">\n", f);
	for (size_t i = 0; i < n; i++) {
		fprintf(f, "<rect x=\"%.1f\" y=\"%.1f\" width=\"12\" height=\"12\" fill=\"%s\"/>\n", x,
			y - 10, colours[i]);
		svg_text(f, x + 16, y, "start", "lbl", names[i]);
		x += 28 + 7.5 * (double)strlen(names[i]);
	}
	fputs("</g>\n", f);
}
