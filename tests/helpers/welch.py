#!/usr/bin/env python3
"""welch.py - an independent Welch t-test for the command tests, standard
library only: reads "name value" lines (arm name, one trial's primary value)
on stdin, compares every arm with the baseline named by argv[1] and prints
one line per arm:

    name effect_pct ci_low_pct ci_high_pct p

for a metric where higher is better (argv[2] == "higher") or lower is better
("lower"); effect and interval in percent of |baseline mean|, + = better.
The t distribution comes from the regularized incomplete beta function
(Numerical Recipes' continued fraction), the quantile from bisection.
"""
import math
import statistics
import sys


def betacf(a, b, x):
    tiny = 1e-300
    c, d = 1.0, 1.0 - (a + b) * x / (a + 1.0)
    d = 1.0 / (d if abs(d) > tiny else tiny)
    h = d
    for m in range(1, 10000):
        m2 = 2 * m
        aa = m * (b - m) * x / ((a + m2 - 1) * (a + m2))
        d = 1.0 + aa * d
        d = 1.0 / (d if abs(d) > tiny else tiny)
        c = 1.0 + aa / c
        c = c if abs(c) > tiny else tiny
        h *= d * c
        aa = -(a + m) * (a + b + m) * x / ((a + m2) * (a + m2 + 1))
        d = 1.0 + aa * d
        d = 1.0 / (d if abs(d) > tiny else tiny)
        c = 1.0 + aa / c
        c = c if abs(c) > tiny else tiny
        delta = d * c
        h *= delta
        if abs(delta - 1.0) < 1e-16:
            break
    return h


def betai(a, b, x):
    if x <= 0.0:
        return 0.0
    if x >= 1.0:
        return 1.0
    lbt = math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b) + a * math.log(x) + b * math.log1p(-x)
    if x < (a + 1.0) / (a + b + 2.0):
        return math.exp(lbt) * betacf(a, b, x) / a
    return 1.0 - math.exp(lbt) * betacf(b, a, 1.0 - x) / b


def p_two_sided(t, df):
    return betai(df / 2.0, 0.5, df / (df + t * t))


def t_quantile(p, df):
    # P(T <= q) = p for p > 0.5: bisection on the upper tail
    tail = 2.0 * (1.0 - p)
    lo, hi = 0.0, 1.0
    while p_two_sided(hi, df) > tail:
        hi *= 2.0
    for _ in range(200):
        mid = (lo + hi) / 2.0
        if p_two_sided(mid, df) > tail:
            lo = mid
        else:
            hi = mid
    return (lo + hi) / 2.0


def main():
    base, direction = sys.argv[1], sys.argv[2]
    level = float(sys.argv[3]) if len(sys.argv) > 3 else 0.95
    arms = {}
    order = []
    for line in sys.stdin:
        if not line.strip():
            continue
        name, value = line.split()
        if name not in arms:
            arms[name] = []
            order.append(name)
        arms[name].append(float(value))
    b = arms[base]
    mb, vb = statistics.mean(b), statistics.variance(b)
    for name in order:
        if name == base:
            continue
        a = arms[name]
        ma, va = statistics.mean(a), statistics.variance(a)
        se2 = va / len(a) + vb / len(b)
        se = math.sqrt(se2)
        df = se2 * se2 / ((va / len(a)) ** 2 / (len(a) - 1) + (vb / len(b)) ** 2 / (len(b) - 1))
        t = (ma - mb) / se
        p = p_two_sided(abs(t), df)
        q = t_quantile(1.0 - (1.0 - level) / 2.0, df)
        lo, hi = (ma - mb) - q * se, (ma - mb) + q * se
        scale = 100.0 / abs(mb)
        eff, lo, hi = (ma - mb) * scale, lo * scale, hi * scale
        if direction == "lower":
            eff, lo, hi = -eff, -hi, -lo
        print("%s %.10g %.10g %.10g %.10g" % (name, eff, lo, hi, p))


if __name__ == "__main__":
    main()
