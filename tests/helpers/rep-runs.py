#!/usr/bin/env python3
"""rep-runs.py DB: inserts probe runs of a few recipes into a swaptune store the
way the probe engine writes them (runs, arms, trials), for the replication
test (t0311). Deterministic: the noise is a fixed pseudo-random sequence.

  runs 1-3  recipe A (anon-runs 256M in 128M, pc3 vs pc0): runs 1 and 2
            show no difference, run 3 alone shows pc0 +6 %
  run 4     recipe B (the same but 512M): pc0 +6 %, alone
  runs 5-7  recipe C (anon-runs 64M in 32M): pc0 +10 % in every run
  run 8     recipe A again with other seeds: like run 3 with +8 % (the 4th of A: alone a change, pooled not)
  run 9     recipe A stopped after 2 rounds, before its first look: no
            verdict, but a replication (aborted: it takes a share)
  run 10    recipe A, as run 3: the 6th of A
Each run has 10 rounds and a plan with one look at 10.
"""
import math, random, sqlite3, sys, json

db = sqlite3.connect(sys.argv[1])
rng = random.Random(20261201)

def params(ws, limit, seed):
    return json.dumps({
        "workload": {"name": "anon-runs", "working_set_bytes": ws, "ops": 1000 + seed,
                     "seed": seed, "run_pages": 4},
        "memcg": {"version": 1, "limit_bytes": limit, "limit_mode": "limit_in_bytes"},
        "method": {"reps": 10, "warmup": True, "adaptive": False, "seed": seed,
                   "duration_cap_s": 0, "min_trial_s": 2, "max_time_s": 180},
        "arm_names": ["pc3", "pc0"], "baseline": "pc3",
        "plan": {"sequential": True, "looks": [10], "alpha": 0.025, "min_effect_pct": 2,
                 "baseline": "pc3", "order": "random"}})

summary = json.dumps({"primary_metric": {"key": "throughput_ops", "name": "throughput",
                                         "higher_is_better": True}})
arm_id = [0]

def run(rid, ws, limit, effect, sd=0.01, rounds=10):
    db.execute("INSERT INTO runs (id, kind, status, params, summary) VALUES (?, 'probe', 'ok', ?, ?)",
               (rid, params(ws, limit, rid * 7), summary))
    ids = []
    for name, pc in (("pc3", "3"), ("pc0", "0")):
        arm_id[0] += 1
        ids.append(arm_id[0])
        db.execute("INSERT INTO arms (id, run_id, name, settings) VALUES (?, ?, ?, ?)",
                   (arm_id[0], rid, name, json.dumps({"page-cluster": pc})))
    seq = 0
    for r in range(1, rounds + 1):
        base = 1000 * math.exp(rng.gauss(0, 0.02))
        order = list(enumerate(ids))
        rng.shuffle(order)	# a fresh order every round, as the probe draws it
        for k, aid in order:
            seq += 1
            v = base * (1 + effect if k == 1 else 1) * math.exp(rng.gauss(0, sd))
            db.execute("INSERT INTO trials (run_id, arm_id, round, seq, warmup, status, primary_value)"
                       " VALUES (?, ?, ?, ?, 0, 'ok', ?)", (rid, aid, r, seq, v))

M = 1 << 20
run(1, 256 * M, 128 * M, 0.0)
run(2, 256 * M, 128 * M, -0.005)
run(3, 256 * M, 128 * M, 0.06)
run(4, 512 * M, 128 * M, 0.06)
run(5, 64 * M, 32 * M, 0.10)
run(6, 64 * M, 32 * M, 0.10)
run(7, 64 * M, 32 * M, 0.10)
run(8, 256 * M, 128 * M, 0.08)
run(9, 256 * M, 128 * M, 0.06, rounds=2)
run(10, 256 * M, 128 * M, 0.06)
db.commit()
