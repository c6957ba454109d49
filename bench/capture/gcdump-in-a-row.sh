#!/usr/bin/env bash
# N perfpipe heap snapshots in a row of one loaded process, each equal by type (count and bytes,
# every type name) to a dotnet-gcdump snapshot taken just before or just after it.
#
#   bench/capture/gcdump-in-a-row.sh [--snapshots N] [--server|--workstation] [--sessions K]
#                                    [--heaps H] [--churn C]
#
# Defaults: 20 snapshots, Server GC with H=4 GC heaps (DOTNET_GCHeapCount: more heaps than this
# machine's 2 cores, the case where the dump's GCStart and its walk are logged by different GC
# threads), K=150000 leaked sessions (about 300 k live objects), C=500 churn objects a ms (the
# load: a thread allocating all the time). --workstation with --sessions 5000000 is the >= 1.5 GB
# Workstation GC heap (about 10 M objects; the workload needs ~2 GB of RAM then).
# Order: dg0 pp1 dg1 pp2 ... ppN dgN; ppI must equal dg(I-1) or dgI. A live process can make or
# replace a few objects between two snapshots (a timer, the diagnostics server), so one neighbour
# equal is the test. Under load the heap is not quite steady: the churn thread has at most one
# Workload.ChurnItem and its System.String label in flight (allocated, not yet in its ring) when
# the dump's GC stops it, so a snapshot whose only difference from a neighbour is one such object
# of either type counts as equal ("in flight"), and is counted apart. A lost bulk event differs by
# about 2000 objects; a lost BulkType by a whole type. Where both dotnet-gcdump neighbours are
# incomplete (fewer Workload.LeakedSession than --sessions: dotnet-gcdump on .NET 10 loses events of
# big heaps, lossy buffering) a snapshot holding exactly --sessions of them counts as complete "by
# the truth", counted apart. Anything else fails, with its differences.
# Prints one line per snapshot (objects, perfpipe's wall time and peak RSS) and a summary; exit 0
# when every snapshot completed and matched, 1 otherwise, 77 without dotnet / dotnet-gcdump.
# Env: PERFPIPE (default _build/perfpipe), PP_BUILD_DIR (the workload build).
set -uo pipefail
N=20 GC=server K=150000 HEAPS=4 CHURN=500
while [ $# -gt 0 ]; do
  case $1 in
    --snapshots) N=$2; shift 2 ;;
    --server) GC=server; shift ;;
    --workstation) GC=workstation; shift ;;
    --sessions) K=$2; shift 2 ;;
    --heaps) HEAPS=$2; shift 2 ;;
    --churn) CHURN=$2; shift 2 ;;
    -h|--help) sed -n '2,19p' "$0"; exit 0 ;;
    *) echo "unknown argument $1 (see --help)" >&2; exit 2 ;;
  esac
done
command -v dotnet >/dev/null 2>&1 || { echo "SKIP: no dotnet"; exit 77; }
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/../../tests/capture/env.sh"
PERFPIPE=${PERFPIPE:-$HERE/../../_build/perfpipe}
[ -x "$PERFPIPE" ] || { echo "PERFPIPE ($PERFPIPE) is not executable" >&2; exit 2; }
pp_install_tool dotnet-gcdump >/dev/null 2>&1 || true
[ -x "$PP_GCDUMP" ] || { echo "SKIP: no dotnet-gcdump at $PP_GCDUMP"; exit 77; }
if [ ! -f "$PP_WORKLOAD_DLL" ]; then
  flock /tmp/pp-dotnet-build.lock dotnet build "$PP_TESTS/workload/Workload.csproj" -c Release \
    -nologo -v q -m:1 >/dev/null 2>&1 || { echo "FAIL: build of the workload"; exit 1; }
fi
WORK=$(mktemp -d /tmp/pp-gcdump-row.XXXXXX)
WL=
trap '[ -n "$WL" ] && kill $WL 2>/dev/null; wait 2>/dev/null; rm -rf "$WORK"' EXIT
cd "$WORK"
mkdir sig
if [ $GC = server ]; then
  export DOTNET_gcServer=1 DOTNET_GCHeapCount=$HEAPS
else
  export DOTNET_gcServer=0
fi
dotnet "$PP_WORKLOAD_DLL" leak --initial "$K" --leak 1 --churn-per-ms "$CHURN" --signal-dir sig \
  --truth truth.json > wl.out 2>&1 &
WL=$!
unset DOTNET_gcServer DOTNET_GCHeapCount
n=0; while [ ! -e sig/snapshot1.ready ]; do
  sleep 0.2; n=$((n + 1))
  [ $n -lt 1500 ] && kill -0 $WL 2>/dev/null || { echo "FAIL: the workload did not start: $(tail -3 wl.out)"; exit 1; }
done
PID=$(cat sig/snapshot1.ready)
echo "workload pid $PID: $GC GC${DOTNET_gcServer:+}$([ $GC = server ] && echo " ($HEAPS heaps)"), $K sessions, churn $CHURN/ms; load $(cut -d' ' -f1-3 /proc/loadavg)"

dg() { "$PP_GCDUMP" collect -p "$PID" -o "dg$1.gcdump" > "dg$1.log" 2>&1 &&
       "$PERFPIPE" gcdump "dg$1.gcdump" --option top=0 --option retained=false --format json -o "dg$1.json" 2>> "dg$1.log"; }
# warm-up: the first EventPipe sessions of a process make objects of their own
"$PERFPIPE" collect --gcdump -p "$PID" -o warm.gcdump 2> warm.log
"$PP_GCDUMP" collect -p "$PID" -o warm2.gcdump > /dev/null 2>&1
dg 0 || { echo "FAIL: dotnet-gcdump: $(tail -2 dg0.log)"; exit 1; }
ok=0 bad=0 fl=0 tr=0
# timed OUT CMD...: "wall_s maxrss_kb" in OUT when /usr/bin/time is there
timed() { local out=$1; shift; if [ -x /usr/bin/time ]; then /usr/bin/time -f "%e %M" -o "$out" "$@"; else "$@"; fi; }
for i in $(seq 1 "$N"); do
  echo "0 0" > "pp$i.time"
  timed "pp$i.time" "$PERFPIPE" collect --gcdump -p "$PID" -o "pp$i.gcdump" 2> "pp$i.log"
  rc=$?
  dg "$i" || { echo "FAIL: dotnet-gcdump $i: $(tail -2 "dg$i.log")"; exit 1; }
  if [ $rc != 0 ]; then
    echo "snapshot $i: FAIL: $(tail -1 "pp$i.log")"; bad=$((bad + 1)); continue
  fi
  "$PERFPIPE" gcdump "pp$i.gcdump" --option top=0 --option retained=false --format json -o "pp$i.json" 2>> "pp$i.log"
  verdict=$(python3 - "pp$i.json" "dg$((i - 1)).json" "dg$i.json" "$K" <<'PY'
import json, sys
def by_type(p):
    d = json.load(open(p)); t = next(t for t in d["stages"][0]["tables"] if t["name"] == "by_type")
    cols = [c if isinstance(c, str) else c["name"] for c in t["columns"]]
    i, c, b = cols.index("type"), cols.index("count"), cols.index("bytes")
    return {r[i]: (r[c], r[b]) for r in t["rows"]}
pp, before, after = (by_type(p) for p in sys.argv[1:4])
k = int(sys.argv[4])
sess = lambda t: t.get("Workload.LeakedSession", (0, 0))[0]
n = sum(v[0] for v in pp.values())
def in_flight(a, b):
    keys = [k for k in set(a) | set(b) if a.get(k) != b.get(k)]
    return all(k in ("Workload.ChurnItem", "System.String") and k in a and k in b
               and abs(a[k][0] - b[k][0]) <= 1 for k in keys)
if pp == before or pp == after:
    print("equal %s %d objects %d types" % ("before" if pp == before else "after", n, len(pp)))
elif in_flight(pp, before) or in_flight(pp, after):
    print("equal but the churn in flight %d objects %d types" % (n, len(pp)))
elif sess(pp) == k and sess(before) < k and sess(after) < k:
    # dotnet-gcdump lost events (lossy buffering before .NET 11): judged by the workload's truth
    print("complete by the truth (%d of %d sessions); dotnet-gcdump's incomplete (%d, %d sessions) %d objects"
          % (sess(pp), k, sess(before), sess(after), n))
else:
    diff = ["%s pp=%s before=%s after=%s" % (k, pp.get(k), before.get(k), after.get(k))
            for k in sorted(set(pp) | set(after)) if pp.get(k) != after.get(k)]
    print("DIFFERENT %d objects; %d types differ from the one after: %s" % (n, len(diff), "; ".join(diff[:6])))
PY
)
  read -r wall rss < "pp$i.time"
  echo "snapshot $i: $verdict; perfpipe ${wall} s, peak RSS $((rss / 1024)) MB$(grep -q 'second' "pp$i.log" && echo ', second try')"
  case $verdict in
    "equal but"*) ok=$((ok + 1)) fl=$((fl + 1)) ;;
    complete*) ok=$((ok + 1)) tr=$((tr + 1)) ;;
    equal*) ok=$((ok + 1)) ;;
    *) bad=$((bad + 1)) ;;
  esac
done
echo "$ok of $N snapshots complete and equal by type to dotnet-gcdump's ($fl of them but the churn in flight; $tr judged by the workload's truth where dotnet-gcdump's were incomplete; $bad not)"
[ $bad = 0 ]
