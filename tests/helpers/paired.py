#!/usr/bin/env python3
"""paired.py - an independent reference for the verdict's numbers (v4,
advisor/randtest.c and advisor/verdict-seq.c), standard library only, for
the command tests. Reads "arm round status value" lines (measured trials;
value "-" when the trial has none) on stdin; argv: baseline arm, "higher"
or "lower". For every other arm it prints

    name effect_pct estimate_log p_one pairs

the way advisor.h and randtest.h define them: only rounds where the arm and
the baseline both completed ("ok") are compared (failures are their own
endpoint, never a speed); d = direction-signed log ratio
candidate/baseline; the scale s = min(median |d| / 0.6745,
median ||d| - median |d|| / 0.40) (median |d| / 0.6745 alone when the
second is 0; the smallest nonzero |d| when both are 0); the Huber scores
sign(d) min(|d| / s, 1.345); the estimate is the shift at which the scores
of d - shift (scale recomputed) sum to 0, effect = exp(estimate) - 1 in
percent (positive is better); p_one the exact one-sided p of "no gain" by
enumerating all 2^n sign patterns of the scores (the fixed-sample test
swaptune enumerates up to 12 pairs).
"""
import math
import sys

K = 1.345


def median(v):
    v = sorted(v)
    n = len(v)
    return v[n // 2] if n % 2 else 0.5 * (v[n // 2 - 1] + v[n // 2])


def scores(x):
    a = [abs(v) for v in x]
    med = median(a)
    mad = median([abs(v - med) for v in a])
    s = med / 0.6745
    if mad > 0 and mad / 0.40 < s:
        s = mad / 0.40
    if not s > 0:
        nz = [v for v in a if v > 0]
        s = min(nz) if nz else 1.0
    return [0.0 if v == 0 else math.copysign(min(abs(v) / s, K), v) for v in x]


def estimate(d):
    lo, hi = min(d), max(d)
    if lo == hi:
        return lo
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        s = sum(scores([v - mid for v in d]))
        if s > 0:
            lo = mid
        elif s < 0:
            hi = mid
        else:
            return mid
    return 0.5 * (lo + hi)


def p_one(d):
    a = scores(d)
    obs = sum(a)
    tol = 1e-10 * (sum(abs(v) for v in a) + 1e-300)
    n = len(a)
    ge = 0
    for m in range(1 << n):
        s = sum(-v if m >> i & 1 else v for i, v in enumerate(a))
        ge += s >= obs - tol
    return ge / (1 << n)


def main():
    base, direction = sys.argv[1], sys.argv[2]
    sign = 1.0 if direction == "higher" else -1.0
    logs = {}
    for line in sys.stdin:
        arm, rnd, status, value = line.split()
        logs.setdefault(arm, {})
        if status == "ok":
            logs[arm][int(rnd)] = sign * math.log(float(value))
    rounds = sorted({r for t in logs.values() for r in t})
    for arm in sorted(logs):
        if arm == base:
            continue
        d = [logs[arm][r] - logs[base][r] for r in rounds if r in logs[arm] and r in logs[base]]
        if len(d) < 2:
            continue
        m = estimate(d)
        p = p_one(d) if len(d) <= 12 else float("nan")
        print(arm, repr(100 * math.expm1(m)), repr(m), repr(p), len(d))


if __name__ == "__main__":
    main()
