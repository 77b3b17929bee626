#!/usr/bin/env python3
"""paired.py - an independent reference for the sequential verdict's numbers
(v3, advisor/verdict-seq.c), standard library only, for the command tests.
Reads "arm round status value" lines (measured trials; value "-" when the
trial has none) on stdin; argv: baseline arm, "higher" or "lower". For
every other arm it prints

    name effect_pct mean_log se_log pairs rounds

the way advisor.h defines them: only rounds where the arm and the baseline
both completed ("ok") are compared (failures are their own endpoint, never
a speed); d = direction-signed log ratio candidate/baseline; the lag-1
autocorrelation pooled over all arms from round-centred residuals,
Marriott-Pope corrected and clipped to [0, 0.9] (0 under 4 rounds); the
AR(1) variance factor f and the bias of the variance g = (n - f)/(n - 1);
se = sqrt(sd^2 / g * f / n); effect = exp(mean) - 1 in percent (positive
is better: for a lower-is-better metric, baseline / candidate - 1). The
bound is calibrated by Monte Carlo and is not recomputed here: the test
checks the interval against it.
"""
import math
import statistics
import sys


def pooled_rho(logs, rounds):
    arms = list(logs)
    n = sum(1 for r in rounds if sum(1 for a in arms if r in logs[a]) >= 2)
    num = den = 0.0
    for a in arms:
        e = {}
        for r in rounds:
            if r not in logs[a]:
                continue
            s = [logs[b][r] for b in arms if r in logs[b]]
            if len(s) >= 2:
                e[r] = logs[a][r] - sum(s) / len(s)
        if len(e) < 2:
            continue
        mu = sum(e.values()) / len(e)
        for r in e:
            den += (e[r] - mu) ** 2
            if r - 1 in e:
                num += (e[r] - mu) * (e[r - 1] - mu)
    if n < 4 or den <= 0:
        return 0.0
    return min(max((n * num / den + 1) / (n - 3), 0.0), 0.9)


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
    rho = pooled_rho(logs, rounds)
    for arm in sorted(logs):
        if arm == base:
            continue
        d = [logs[arm][r] - logs[base][r] for r in rounds if r in logs[arm] and r in logs[base]]
        n = len(d)
        if n < 2:
            continue
        m, sd = statistics.mean(d), statistics.stdev(d)
        f = 1 + 2 * sum((1 - k / n) * rho ** k for k in range(1, n))
        g = (n - f) / (n - 1)
        se = math.sqrt(sd * sd / g * f / n)
        print(arm, repr(100 * math.expm1(m)), repr(m), repr(se), n, len(rounds))


if __name__ == "__main__":
    main()
