"""swaptune_gate: the light per-host gate of the swaptune rollout.

Judges the "metrics" section of `swaptune report --change ID --format json`
(the recordings before and after a change, compared metric by metric with
Welch's t-test on batch means) by one stated rule:

  fails         some gate metric is worse (higher) after the change, with
                p < alpha (two-sided, so one-sided alpha/2 in the worse
                direction), and for every metric but "PSI memory full" by
                more than tolerance_pct of its value before (a rise from 0
                always counts); "PSI memory full" counts at any rise;
  inconclusive  nothing fails, but a gate metric could not be judged: its
                row is missing, it was not measured before or after, or the
                recordings hold too few ticks for the test;
  holds         otherwise: no gate metric is worse beyond noise.

The result is a dict: verdict (holds / fails / inconclusive), reasons (one
line per metric that decided it) and rows (what each gate metric showed).
"""

import math


class _Row:
    def __init__(self, row, columns):
        self.cells = dict(zip(columns, row))

    def get(self, name):
        return self.cells.get(name)


def _num(v):
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        return None
    return v if math.isfinite(v) else None


def swaptune_gate(report, metrics, alpha=0.01, tolerance_pct=10.0):
    """Judge one host's change report; see the module docstring."""
    if isinstance(report, str):
        import json
        report = json.loads(report)
    section = None
    for s in report.get("sections", []):
        if s.get("id") == "metrics":
            section = s
    if section is None:
        return {"verdict": "inconclusive",
                "reasons": ["the report compares no recordings (none before or after the change)"],
                "rows": {}}
    columns = section.get("columns", [])
    rows = {}
    for r in section.get("rows", []):
        row = _Row(r, columns)
        rows[row.get("metric")] = row
    pcol = next((c for c in columns if c.startswith("p ")), None)
    fails, unknown, shown = [], [], {}
    for m in metrics:
        row = rows.get(m)
        if row is None:
            unknown.append("%s: not in the report" % m)
            continue
        before, after = _num(row.get("before")), _num(row.get("after"))
        change, p = _num(row.get("change")), _num(row.get(pcol)) if pcol else None
        noise = row.get("beyond noise") or ""
        shown[m] = {"before": before, "after": after, "change": change, "p": p,
                    "beyond_noise": noise}
        if noise.startswith("no (identical)"):
            continue
        if noise.startswith("not measured") or noise == "too few ticks" or before is None \
                or after is None or change is None:
            unknown.append("%s: %s" % (m, noise or "no value"))
            continue
        if change <= 0:
            continue
        constant = noise.startswith("yes (constant")
        if not constant and (p is None or p >= alpha):
            continue
        rel = change / abs(before) * 100 if before else math.inf
        if m != "PSI memory full" and rel <= tolerance_pct:
            continue
        fails.append("%s rose from %g to %g%s (%s)" % (
            m, before, after, "" if math.isinf(rel) else " (+%.1f %%)" % rel,
            "constant, differ" if constant else "p = %.2g < %g" % (p, alpha)))
    if fails:
        return {"verdict": "fails", "reasons": fails, "rows": shown}
    if unknown:
        return {"verdict": "inconclusive", "reasons": unknown, "rows": shown}
    return {"verdict": "holds",
            "reasons": ["no gate metric (%s) is worse beyond noise" % ", ".join(metrics)],
            "rows": shown}


class FilterModule:
    def filters(self):
        return {"swaptune_gate": swaptune_gate}
