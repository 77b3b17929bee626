#!/usr/bin/env python3
"""paired.py - an independent reference for the sequential verdict's numbers
on a run judged as a fixed design (one look), standard library only, for the
command tests. Reads "arm round status value" lines (measured trials; value
"-" when the trial has none) on stdin; argv: baseline arm, "higher" or
"lower", the one-sided alpha of the design (0.025). For every other arm it
prints

    name effect_pct ci_low_pct ci_high_pct p_one

the way advisor/verdict-seq.c defines them: failed, OOM-killed and timed-out
trials count as the worst completed value of the run made 25 % worse; per
round the direction-signed log ratio candidate/baseline, a paired t when
every round has both arms (else Welch on the signed logs); the bound of a
single look is the t quantile at 1 - alpha / candidates; effect = exp(m) - 1
(higher is better) or 1 - exp(-m) (lower is better), in percent.
"""
import math
import statistics
import sys

sys.path.insert(0, __import__("os").path.dirname(__file__))
from welch import p_two_sided, t_quantile  # noqa: E402


def main():
    base, direction, alpha = sys.argv[1], sys.argv[2], float(sys.argv[3])
    hb = direction == "higher"
    trials = {}
    for line in sys.stdin:
        arm, rnd, status, value = line.split()
        trials.setdefault(arm, {})[int(rnd)] = (status, None if value == "-" else float(value))
    oks = [v for t in trials.values() for s, v in t.values() if s == "ok"]
    worst = math.log(min(oks) if hb else max(oks))
    pen = math.log(1.25)

    def slog(status, value):
        v = math.log(value) if status == "ok" else (worst - pen if hb else worst + pen)
        return v if hb else -v

    rounds = sorted({r for t in trials.values() for r in t})
    k = len(trials) - 1
    for arm in sorted(trials):
        if arm == base:
            continue
        a, b = trials[arm], trials[base]
        paired = all((r in a) == (r in b) for r in rounds)
        if paired:
            d = [slog(*a[r]) - slog(*b[r]) for r in rounds if r in a]
            m, n = statistics.mean(d), len(d)
            se = statistics.stdev(d) / math.sqrt(n)
            df = n - 1
        else:
            x = [slog(*a[r]) for r in rounds if r in a]
            y = [slog(*b[r]) for r in rounds if r in b]
            vx, vy = statistics.variance(x) / len(x), statistics.variance(y) / len(y)
            m = statistics.mean(x) - statistics.mean(y)
            se = math.sqrt(vx + vy)
            df = (vx + vy) ** 2 / (vx ** 2 / (len(x) - 1) + vy ** 2 / (len(y) - 1))
        t = m / se
        p2 = p_two_sided(t, df)
        p_one = p2 / 2 if t > 0 else 1 - p2 / 2
        tb = t_quantile(1 - alpha / k, df)

        def eff(v):
            return 100 * (math.exp(v) - 1) if hb else 100 * (1 - math.exp(-v))
        print(arm, repr(eff(m)), repr(eff(m - tb * se)), repr(eff(m + tb * se)), repr(p_one))


if __name__ == "__main__":
    main()
