#!/usr/bin/env python3
"""Pairs from a pool of cpuwork captures (cpu-seeded.sh): A/A and seeded +25 % compares.

For each of --pairs pairs (random.Random(34), so a pool gives the same pairs every time) it
draws 2R distinct A captures: R form the baseline, R the A/A candidate; the seeded candidate is
R B captures. It runs `perfpipe compare --per run --fail-on regression A.. -- B..` and counts
A/A judged "no change" (exit 0) and seeded judged "regressed" (exit 1) with WorkA named in
verdict.decided_by. It does the same with one capture per side (the first of each) for contrast,
and prints, per capture, what the sampler saw against the workload's truth."""
import argparse, json, math, os, random, statistics, subprocess

ap = argparse.ArgumentParser()
ap.add_argument("--perfpipe", required=True)
ap.add_argument("--dir", required=True)
ap.add_argument("--captures", type=int, default=20)
ap.add_argument("--reps", type=int, default=2)
ap.add_argument("--pairs", type=int, default=20)
a = ap.parse_args()


def load(name):
    r = json.load(open(os.path.join(a.dir, name + ".json")))
    t = json.load(open(os.path.join(a.dir, name + ".truth.json")))
    st = r["stages"][0]
    run = next(x for x in st["tables"] if x["name"] == "running")
    cols = [c["name"] for c in run["columns"]]
    rows = {row[0]: dict(zip(cols, row)) for row in run["rows"]}
    samples = lambda m: sum(v["samples"] for k, v in rows.items() if k.endswith("." + m))
    sw = {m["short"]: m["wall_ms"] for m in t["methods"]}
    return dict(a=samples("WorkA"), b=samples("WorkB"), run=st["totals"]["running_samples"]["value"],
                swa=sw["WorkA"], swb=sw["WorkB"], cpu=t["process_cpu_ms"], wall=t["wall_ms"])


caps = {}
for side in "ab":
    for i in range(1, a.captures + 1):
        if os.path.exists(os.path.join(a.dir, "%s%d.json" % (side, i))):
            caps["%s%d" % (side, i)] = load("%s%d" % (side, i))
A = sorted((k for k in caps if k[0] == "a"), key=lambda k: int(k[1:]))
B = sorted((k for k in caps if k[0] == "b"), key=lambda k: int(k[1:]))
print("capture  WorkA WorkB running | Stopwatch ms A    B  | process cpu ms  wall ms  wall/cpu")
for k in A + B:
    c = caps[k]
    print("%-7s %6d %5d %7d | %12.0f %6.0f | %14.0f %8.0f %8.2f" % (
        k, c["a"], c["b"], c["run"], c["swa"], c["swb"], c["cpu"], c["wall"], c["wall"] / c["cpu"]))


def cv(xs):
    return statistics.stdev(xs) / statistics.mean(xs) if len(xs) > 1 else float("nan")


for side, ks in (("A", A), ("B", B)):
    get = lambda f: [caps[k][f] for k in ks]
    print("%s (%d): CV of WorkA samples %.0f %% (Poisson alone %.0f %%), WorkA Stopwatch %.0f %%, "
          "process cpu %.1f %%; mean WorkA samples %.0f, process cpu %.0f ms" % (
              side, len(ks), 100 * cv(get("a")), 100 / math.sqrt(statistics.mean(get("a"))),
              100 * cv(get("swa")), 100 * cv(get("cpu")), statistics.mean(get("a")),
              statistics.mean(get("cpu"))))


def compare(base, cand):
    out = os.path.join(a.dir, "cmp.json")
    args = [a.perfpipe, "compare", "--per", "run", "--fail-on", "regression", "--format", "json",
            "-o", out] + [os.path.join(a.dir, k + ".json") for k in base]
    if len(base) > 1 or len(cand) > 1:
        args.append("--")
    args += [os.path.join(a.dir, k + ".json") for k in cand]
    rc = subprocess.run(args, stderr=subprocess.DEVNULL).returncode
    v = json.load(open(out))["verdict"]
    named = any("WorkA" in d and "regressed" in d for d in v["decided_by"])
    return rc, named, v["line"]


rng = random.Random(34)
need = 2 * a.reps
if len(A) < need or len(B) < a.reps:
    raise SystemExit("cpu-pairs.py: %d A and %d B captures: too few for %d replicates a side" % (
        len(A), len(B), a.reps))
res = {"aa": 0, "seed": 0, "aa1": 0, "seed1": 0}
for p in range(1, a.pairs + 1):
    draw = rng.sample(A, need)
    base, aa, seed = draw[:a.reps], draw[a.reps:], rng.sample(B, a.reps)
    rc_aa, _, line_aa = compare(base, aa)
    if rc_aa != 0:
        print("  A/A decided by: " + "; ".join(json.load(open(os.path.join(a.dir, "cmp.json")))["verdict"]["decided_by"][:3]))
    rc_s, named, line_s = compare(base, seed)
    rc_aa1, _, _ = compare(base[:1], aa[:1])
    rc_s1, named1, _ = compare(base[:1], seed[:1])
    res["aa"] += rc_aa == 0
    res["seed"] += rc_s == 1 and named
    res["aa1"] += rc_aa1 == 0
    res["seed1"] += rc_s1 == 1 and named1
    print("pair %2d %s vs %s / %s: A/A exit %d; +25%% exit %d, WorkA named %d | one a side: A/A %d, "
          "+25%% %d" % (p, ",".join(base), ",".join(aa), ",".join(seed), rc_aa, rc_s, named, rc_aa1,
                        rc_s1))
    if p == 1:
        print("  A/A:    " + line_aa[:300])
        print("  seeded: " + line_s[:300])
print("replicates %d vs %d: A/A no change %d/%d; seeded +25%% found (WorkA) %d/%d" % (
    a.reps, a.reps, res["aa"], a.pairs, res["seed"], a.pairs))
print("one capture a side: A/A no change %d/%d; seeded +25%% found (WorkA) %d/%d" % (
    res["aa1"], a.pairs, res["seed1"], a.pairs))
