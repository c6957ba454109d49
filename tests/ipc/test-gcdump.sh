#!/usr/bin/env bash
# Native heap snapshots against the real runtime (perfpipe collect --gcdump, capture: gcdump
# inputs), checked against dotnet-gcdump on the test bed's leak scenario:
# - a perfpipe snapshot and a dotnet-gcdump snapshot of the same settled process agree per type
#   name (count and bytes), node count, edge count and total bytes;
# - `dotnet-gcdump report` reads perfpipe's file (objects and bytes as perfpipe wrote them);
# - gcdump-diff over two live snapshots in one pipeline flags the leak with the workload's
#   ground-truth count, and the live result equals re-running the pipeline on the kept files;
# - no such process: exit 3 and no file; a symlink output: exit 5, left alone; trace options
#   with --gcdump: exit 2.
# Why snapshots are compared only once the process has settled: the first EventPipe sessions of
# a process make objects of their own in it (EventSource metadata, DynamicMethods and their
# finalizable DestroyScout objects), so snapshot k differs from snapshot k+1 while those appear
# and are finalized; from the third session on, consecutive snapshots of the quiesced leak
# scenario are equal (measured: the 4th, dotnet-gcdump, and the 5th, perfpipe, are equal in all
# 463 type names). The test warms the process up with three snapshots and then requires exact
# equality of a dotnet-gcdump snapshot and the perfpipe snapshot right after it. The process is
# still alive between the two (a timer, the diagnostics server), and once in a while it makes or
# replaces an object there (seen in CI: one System.String 128 bytes longer), so up to four such
# pairs are taken; the first equal pair passes, and when none is equal every difference of the
# last pair is printed with the type names. A reader or writer fault differs in every pair.
# - 4 snapshots in a row of a Server GC process under load (bench/capture/gcdump-in-a-row.sh).
# Exit: 0 pass, 1 fail, 77 skip (no dotnet, no python3, no dotnet-gcdump, PP_LIVE=0). ~40 s warm.
set -uo pipefail
if [ "${PP_LIVE:-1}" = 0 ]; then echo "SKIP: gcdump capture (PP_LIVE=0)"; exit 77; fi
if ! command -v dotnet >/dev/null 2>&1; then echo "SKIP: gcdump capture (no dotnet)"; exit 77; fi
if ! command -v python3 >/dev/null 2>&1; then echo "SKIP: gcdump capture (no python3)"; exit 77; fi
HERE=$(cd "$(dirname "$0")" && pwd)
# A build dir of its own: other live tests rebuild theirs while this runs.
export PP_BUILD_DIR="${PP_BUILD_DIR:-$HOME/.cache/perfpipe-build}-gcdump"
. "$HERE/../capture/env.sh"
PERFPIPE=${PERFPIPE:-$PWD/perfpipe}
[ -x "$PERFPIPE" ] || { echo "FAIL: PERFPIPE ($PERFPIPE) is not executable"; exit 1; }
pp_install_tool dotnet-gcdump >/dev/null 2>&1 || true
[ -x "$PP_GCDUMP" ] || { echo "SKIP: gcdump capture (no dotnet-gcdump at $PP_GCDUMP)"; exit 77; }
WORK=$(mktemp -d /tmp/pp-gcdump.XXXXXX)
WL=
cleanup() {
  [ -n "$WL" ] && kill "$WL" 2>/dev/null
  wait 2>/dev/null
  rm -rf "$WORK"
}
[ -n "${PP_KEEP_WORK:-}" ] || trap cleanup EXIT
passed=0 failed=0
pass() { passed=$((passed + 1)); echo "PASS $*"; }
fail() { failed=$((failed + 1)); echo "FAIL $*"; }
check() { local name=$1; shift; if "$@"; then pass "$name"; else fail "$name"; fi; }

# Only the workload is needed (not the oracle).
dotnet build "$PP_TESTS/workload/Workload.csproj" -c Release -nologo -v q -m:1 >"$WORK/build.log" 2>&1 \
  || { echo "FAIL: build of the workload: $(tail -5 "$WORK/build.log")"; exit 1; }
cd "$WORK"
mkdir sig
wait_file() { local n=0; while [ ! -e "$1" ]; do sleep 0.05; n=$((n + 1)); [ $n -lt 1200 ] || return 1; done; }

dotnet "$PP_WORKLOAD_DLL" leak --initial 1000 --leak 10000 --churn-per-ms 50 --signal-dir sig \
  --truth truth.json > wl.out 2>&1 &
WL=$!
wait_file sig/snapshot1.ready || { echo "FAIL: the leak workload did not reach its first phase: $(cat wl.out)"; exit 1; }
PID=$(cat sig/snapshot1.ready)

# ---- errors first (the process waits at its gate meanwhile)
"$PERFPIPE" collect --gcdump -p 999999999 -o none.gcdump 2> none.err; rc=$?
check "collect --gcdump on a pid that does not exist: exit 3, no file ($(cat none.err))" \
  bash -c "[ $rc = 3 ] && ! ls none.gcdump* 2>/dev/null"
ln -s /dev/null link.gcdump
"$PERFPIPE" collect --gcdump -p "$PID" -o link.gcdump 2> link.err; rc=$?
check "collect --gcdump refuses a symlink output (exit 5), left alone" \
  bash -c "[ $rc = 5 ] && [ -L link.gcdump ] && [ \"\$(readlink link.gcdump)\" = /dev/null ]"
"$PERFPIPE" collect --gcdump --profile gc-verbose -p "$PID" -o x.gcdump 2> opt.err; rc=$?
check "collect --gcdump with a trace option: exit 2 ($(cat opt.err))" bash -c "[ $rc = 2 ] && [ ! -e x.gcdump ]"
# A stopped runtime answers nothing: the failure names the step, how long it waited and the variable
# that waits longer, after asking twice (issue 35; before, "the runtime did not answer in time" after
# 30 s). About 2 s.
kill -STOP "$PID"
PERFPIPE_IPC_TIMEOUT=1 "$PERFPIPE" collect --gcdump -p "$PID" -o stopped.gcdump 2> stopped.err; rc=$?
kill -CONT "$PID"
check "collect --gcdump of a stopped process: exit 3, no file, the step named ($(cat stopped.err))" \
  bash -c "[ $rc = 3 ] && [ ! -e stopped.gcdump ] &&
    grep -q 'did not answer ProcessInfo (the first command, asked twice) within 1 s' stopped.err &&
    grep -q 'PERFPIPE_IPC_TIMEOUT=SECONDS' stopped.err"

# ---- settle the process (see the header), then the pair that must agree
snap_pp() { "$PERFPIPE" collect --gcdump -p "$PID" -o "$1" 2>> snaps.err; }
snap_dg() { "$PP_GCDUMP" collect -p "$PID" -o "$1" >> snaps.err 2>&1; }
ok=1
snap_pp warm1.gcdump && snap_dg warm2.gcdump && snap_pp warm3.gcdump || ok=0
to_json() {
  "$PERFPIPE" gcdump "$1.gcdump" --option top=0 --format json -o "$1.json" 2> "$1.read.err" \
    || echo "perfpipe gcdump failed on $1.gcdump: $(cat "$1.read.err")"
}
# Equal per type (count, bytes) and in nodes/edges/total: the pair the checks below judge.
same_heap() {
  python3 - "$1" "$2" <<'PY'
import json, sys
def key(p):
    d = json.load(open(p)); t = next(t for t in d["stages"][0]["tables"] if t["name"] == "by_type")
    cols = [c if isinstance(c, str) else c["name"] for c in t["columns"]]
    i, c, b = cols.index("type"), cols.index("count"), cols.index("bytes")
    g = d["inputs"][0]["gcdump"]
    return ({r[i]: (r[c], r[b]) for r in t["rows"]}, g["nodes"], g["edges"], g["total_size"])
try: sys.exit(0 if key(sys.argv[1]) == key(sys.argv[2]) else 1)
except Exception: sys.exit(1)
PY
}
pairs=0
for i in 1 2 3 4; do
  snap_dg dg.gcdump && snap_pp pp.gcdump || { ok=0; break; }
  pairs=$i; to_json dg; to_json pp
  same_heap dg.json pp.json && break
done
check "collect --gcdump and dotnet-gcdump collect: snapshots taken, $pairs pair(s) until equal ($(tail -1 snaps.err))" [ $ok = 1 ]
check "collect --gcdump: summary line names the file and the objects" \
  grep -q "wrote pp.gcdump from Workload (pid $PID): [0-9,]* objects" snaps.err
"$PP_GCDUMP" report pp.gcdump > report.txt 2> report.err; rrc=$?

# ---- the leak, live: two snapshots 2 s apart in one pipeline, the workload grown in between
cat > diff.yaml <<'EOF'
version: 1
name: live-heap-diff
inputs:
  baseline:
    kind: gcdump
    capture: { pid: "${PID}", keep: "base.gcdump" }
  candidate:
    kind: gcdump
    capture: { pid: "${PID}", keep: "cand.gcdump", delay: 2s }
stages:
  - { id: diff, analyzer: gcdump-diff, inputs: [baseline, candidate] }
outputs:
  - { format: json, path: "diff-live.json" }
EOF
"$PERFPIPE" run diff.yaml --set PID="$PID" 2> diff.err &
R=$!
wait_file base.gcdump && sleep 0.2
touch sig/snapshot1.go                    # the workload leaks 10000 sessions, then waits again
wait $R; drc=$?
check "live gcdump-diff pipeline: exit 0 ($(cat diff.err))" [ $drc = 0 ]
touch sig/snapshot2.go
wait "$WL"; WL=
"$PERFPIPE" run diff.yaml --set PID="$PID" --input baseline=base.gcdump --input candidate=cand.gcdump \
  --format json -o diff-kept.json 2> kept.err || echo "re-run on kept files failed: $(cat kept.err)"

python3 - "$rrc" "$PID" > py.out <<'EOF'
import json, re, sys
rrc, pid = int(sys.argv[1]), int(sys.argv[2])
passed = failed = 0
def check(name, ok, why=""):
    global passed, failed
    print(("PASS " if ok else "FAIL ") + name + ("" if ok else ": " + why))
    passed += ok; failed += not ok
def load(p):
    try: return json.load(open(p))
    except Exception as e: return None
def by_type(doc):
    t = next(t for t in doc["stages"][0]["tables"] if t["name"] == "by_type")
    cols = [c if isinstance(c, str) else c["name"] for c in t["columns"]]
    i, c, b = cols.index("type"), cols.index("count"), cols.index("bytes")
    return {r[i]: (r[c], r[b]) for r in t["rows"]}
dg, pp = load("dg.json"), load("pp.json")
if dg and pp:
    a, b = by_type(pp), by_type(dg)
    ia, ib = pp["inputs"][0]["gcdump"], dg["inputs"][0]["gcdump"]
    diff = [f"{k}: perfpipe {a.get(k)} dotnet-gcdump {b.get(k)}" for k in sorted(set(a) | set(b)) if a.get(k) != b.get(k)]
    check(f"perfpipe and dotnet-gcdump agree on all {len(b)} type names (count and bytes)", not diff,
          f"{len(diff)} differ: " + "; ".join(diff[:8]))
    check(f"same nodes/edges/total bytes ({ib['nodes']} / {ib['edges']} / {ib['total_size']})",
          (ia["nodes"], ia["edges"], ia["total_size"]) == (ib["nodes"], ib["edges"], ib["total_size"]),
          f"perfpipe {ia['nodes']}/{ia['edges']}/{ia['total_size']}")
    check("perfpipe's file says who wrote it and from which process",
          ia["creation_tool"] == "perfpipe" and ia.get("process_id") == pid and ia.get("process_name") == "Workload", str(ia))
    truth = json.load(open("truth.json"))
    check(f"the settled snapshot holds the {truth['leaked_before']} LeakedSession of the truth",
          a.get("Workload.LeakedSession", (0, 0))[0] == truth["leaked_before"], str(a.get("Workload.LeakedSession")))
    rep = open("report.txt").read()
    m1 = re.search(r"([\d,]+)\s+GC Heap bytes", rep); m2 = re.search(r"([\d,]+)\s+GC Heap objects", rep)
    num = lambda m: int(m.group(1).replace(",", "")) if m else -1
    check(f"dotnet-gcdump report reads perfpipe's file (exit {rrc}; {num(m2)} objects, {num(m1)} bytes)",
          rrc == 0 and num(m2) == ia["nodes"] and num(m1) == ia["total_size"], rep[:200])
    check("dotnet-gcdump report lists the leak type from perfpipe's file", "Workload.LeakedSession" in rep)
else:
    check("perfpipe read both snapshots", False, "missing dg.json or pp.json")
live, kept = load("diff-live.json"), load("diff-kept.json")
truth = json.load(open("truth.json"))
if live:
    st = live["stages"][0]
    t = next(t for t in st["tables"] if t["name"] == "by_type")
    cols = [c if isinstance(c, str) else c["name"] for c in t["columns"]]
    row = next((r for r in t["rows"] if r[cols.index("type")] == truth["leak_type"]), None)
    delta = row[cols.index("count_delta")] if row else None
    check(f"live gcdump-diff: {truth['leak_type']} grew by {delta}, the truth's leaked_delta {truth['leaked_delta']}",
          delta == truth["leaked_delta"])
    sus = [f for f in st["findings"] if f["code"] == "gcdump.grew"]
    check("live gcdump-diff flags the leak type as grown (and nothing else)",
          len(sus) == 1 and truth["leak_type"] in sus[0]["message"], str([f["message"][:80] for f in sus]))
    caps = [i.get("capture", {}) for i in live["inputs"]]
    check("the live inputs are the kept files, taken from the workload",
          [i["path"] for i in live["inputs"]] == ["base.gcdump", "cand.gcdump"] and all(c.get("pid") == pid for c in caps), str(caps))
    if kept:
        check("the live result equals re-running the pipeline on the kept files",
              live["stages"] == kept["stages"] and [i["hash"] for i in live["inputs"]] == [i["hash"] for i in kept["inputs"]])
    else:
        check("re-run on the kept files", False, "no diff-kept.json")
else:
    check("live gcdump-diff result", False, "no diff-live.json")
print(f"__PY {passed} {failed}")
EOF
grep -v '^__PY' py.out
read -r _ pp pf < <(grep '^__PY' py.out || echo "__PY 0 1")
passed=$((passed + pp)); failed=$((failed + pf))

# ---- Server GC under load, 4 GC heaps on this 2-core machine: the dump's GCStart and its walk are
# logged by different GC threads and the walk's first events come first in the stream (before
# c338a81 every such snapshot failed: "GCBulkNode event 99 arrived where 0 was due"). Four in a row,
# each equal by type to a dotnet-gcdump neighbour; bench/capture/gcdump-in-a-row.sh runs 20 (~75 s).
PERFPIPE="$PERFPIPE" "$HERE/../../bench/capture/gcdump-in-a-row.sh" --snapshots 4 > row.out 2>&1; rrc=$?
check "4 Server GC snapshots in a row under load, each equal by type to dotnet-gcdump's ($(tail -1 row.out))" \
  [ $rrc = 0 ]
[ $rrc = 0 ] || cat row.out

echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
