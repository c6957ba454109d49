#!/bin/bash
# perfpipe's pprof files read by the tools people use: Go's own pprof
# (`go tool pprof -raw` and `-top`, Debian golang-go) and the npm decoder
# pprof-format (pinned, installed under the tools cache, never the repo).
# For every capture of the test bed that a pprof can be made of, both
# readers' sample totals per sample type must equal the result document's
# totals, and their flat value per function (the leaf frame) the document's
# own table: cpu's by_method exclusive counts, alloc's by_stack leaves,
# gcdump's by_type, gcdump-diff's growth. cpu's running/waiting "state"
# label must split thread time as the document's running_time and
# waiting_time do, alloc's "type" label the samples as by_type does. Each reader SKIPs alone when absent; with neither, the
# test SKIPs.
set -u
PERFPIPE=${PERFPIPE:?}
DATA=${PP_TESTDATA:?}
PF_VERSION=2.3.2
cache=${PP_TOOLS_CACHE:-$HOME/.cache/perfpipe-tools}/pprof-format-$PF_VERSION
py=$(command -v python3) || { echo "SKIP: python3 reads the JSON documents"; exit 77; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT

have_go=0 have_pf=0
if command -v go >/dev/null 2>&1 && go tool pprof -h >/dev/null 2>&1; then
  have_go=1
else
  echo "SKIP (go): no go tool pprof (apt-get install golang-go)"
fi
if command -v node >/dev/null 2>&1; then
  if [ ! -d "$cache/node_modules/pprof-format" ] && command -v npm >/dev/null 2>&1; then
    mkdir -p "$cache" && timeout 120 npm install --silent --no-audit --no-fund --prefix "$cache" \
      "pprof-format@$PF_VERSION" >/dev/null 2>&1 || true
  fi
  [ -d "$cache/node_modules/pprof-format" ] && have_pf=1 ||
    echo "SKIP (pprof-format): npm could not install pprof-format@$PF_VERSION into $cache"
else
  echo "SKIP (pprof-format): no node (apt-get install nodejs npm)"
fi
[ $have_go = 1 ] || [ $have_pf = 1 ] || { echo "SKIP: neither go tool pprof nor pprof-format"; exit 77; }

# The pprof-format reader: the profile as the JSON pprof_raw.py also makes.
cat >"$tmp/pf.js" <<'EOF'
const { Profile } = require(process.argv[2] + '/node_modules/pprof-format');
const p = Profile.decode(require('zlib').gunzipSync(require('fs').readFileSync(process.argv[3])));
const s = p.stringTable.strings, fn = new Map(), loc = new Map();
for (const f of p.function) fn.set(Number(f.id), s[Number(f.name)]);
for (const l of p.location) loc.set(Number(l.id), fn.get(Number(l.line[0].functionId)));
const out = {
  types: p.sampleType.map(t => [s[Number(t.type)], s[Number(t.unit)]]),
  time_nanos: String(p.timeNanos), duration_nanos: String(p.durationNanos), period: String(p.period),
  samples: p.sample.map(x => ({
    stack: x.locationId.map(i => loc.get(Number(i))),
    // int64 on the wire; the decoder gives a negative one (a heap diff's
    // shrinking types) as its unsigned 64-bit twin
    values: x.value.map(v => String(BigInt.asIntN(64, BigInt(v)))),
    labels: Object.fromEntries(x.label.map(l => [s[Number(l.key)], s[Number(l.str)]])) })) };
process.stdout.write(JSON.stringify(out));
EOF

# go tool pprof -raw as the same JSON.
cat >"$tmp/go_raw.py" <<'EOF'
import json, re, sys
text = open(sys.argv[1]).read().split("\n")
out = {"types": [], "samples": [], "period": "0"}
locs, i = {}, 0
sec = None
samples = []
for line in text:
    if line.startswith("Samples:"): sec = "s"; continue
    if line.startswith("Locations"): sec = "l"; continue
    if line.startswith("Mappings"): sec = "m"; continue
    if line.startswith("Period:"): out["period"] = line.split()[1]
    if sec == "s":
        if not out["types"] and "/" in line:
            out["types"] = [t.replace("[dflt]", "").split("/") for t in line.split()]
            continue
        m = re.match(r"^\s+(-?\d[\d ]*?-?\d*):((?: \d+)*)\s*$", line)
        if m:
            samples.append({"values": m.group(1).split(), "ids": m.group(2).split(), "labels": {}})
            continue
        # "key:[value] key:[value]": a value may hold brackets (System.Byte[])
        for k, v in re.findall(r"(\S+?):\[(.*?)\](?=\s+\S+?:\[|\s*$)", line.strip()):
            samples[-1]["labels"][k] = v
    elif sec == "l":
        # "ID: 0xADDR [M=N ]NAME :LINE s=START[(SYSTEM NAME)]": go shows a
        # shortened name (no generic arguments, no parentheses) and then
        # the whole one in parentheses
        m = re.match(r"^\s+(\d+): 0x[0-9a-f]+ (?:M=\d+ )?(.*?) :\d+ s=\d+(?:\((.*)\))?$", line)
        if m: locs[m.group(1)] = m.group(3) if m.group(3) is not None else m.group(2)
for s in samples:
    out["samples"].append({"stack": [locs[i] for i in s["ids"]], "values": s["values"], "labels": s["labels"]})
print(json.dumps(out))
EOF

cat >"$tmp/compare.py" <<'EOF'
# compare.py ANALYZER DOC.json READER READER.json [TOP.txt SAMPLE_INDEX]
import json, sys
an, doc, reader, prof = sys.argv[1], json.load(open(sys.argv[2])), sys.argv[3], json.load(open(sys.argv[4]))
st = doc["stages"][0]
tot = {k: v["value"] for k, v in st["totals"].items()}
tab = {t["name"]: t for t in st["tables"]}
types = [t[0] for t in prof["types"]]
bad = []
def col(t, name): return [c["name"] for c in t["columns"]].index(name)
def sums(where=None):
    s = [0] * len(types)
    for x in prof["samples"]:
        if where and not where(x): continue
        for i, v in enumerate(x["values"]): s[i] += int(v)
    return s
def flat(i):
    f = {}
    for x in prof["samples"]:
        f[x["stack"][0]] = f.get(x["stack"][0], 0) + int(x["values"][i])
    return f
def expect(what, got, want):
    if got != want: bad.append("%s: %s, the document says %s" % (what, got, want))
s = sums()
if an == "cpu":
    expect("types", types, ["samples", "thread_time"])
    expect("samples total", s[0], tot["samples"]); expect("thread_time total", s[1], tot["thread_time"])
    run = sums(lambda x: x["labels"].get("state") == "running")
    wait = sums(lambda x: x["labels"].get("state") == "waiting")
    expect("running thread_time", run[1], tot["running_time"]); expect("waiting thread_time", wait[1], tot["waiting_time"])
    threads = {x["labels"].get("thread") for x in prof["samples"]}
    expect("threads", len(threads - {None}), tot["threads"])
    bm = tab["by_method"]; mi, ei = col(bm, "method"), col(bm, "exclusive")
    want = {r[mi]: r[ei] for r in bm["rows"] if r[ei] > 0}
    expect("flat samples per function", flat(0), want)
    expect("period", int(prof["period"]), tot["sample_interval"])
elif an == "alloc":
    expect("types", types, ["alloc_ticks", "alloc_space"])
    expect("ticks total", s[0], tot["ticks"]); expect("bytes total", s[1], tot["sampled_bytes"])
    bs = tab["by_stack"]; want = [{}, {}]
    for r in bs["rows"]:
        leaf = r[0].split(";")[-1]
        want[0][leaf] = want[0].get(leaf, 0) + r[2]; want[1][leaf] = want[1].get(leaf, 0) + r[1]
    expect("flat ticks per function", flat(0), want[0]); expect("flat bytes per function", flat(1), want[1])
    # the "type" label splits the samples as by_type does
    bt = tab["by_type"]; per = {}
    for x in prof["samples"]:
        t = x["labels"].get("type"); v = per.setdefault(t, [0, 0])
        v[0] += int(x["values"][0]); v[1] += int(x["values"][1])
    expect("ticks and bytes per type label", per,
           {r[col(bt, "type")]: [r[col(bt, "samples")], r[col(bt, "bytes")]] for r in bt["rows"]})
    expect("period", int(prof["period"]), 102400)
else:
    diff = an == "gcdump-diff"
    expect("types", types, ["objects_delta", "space_delta"] if diff else ["inuse_objects", "inuse_space"])
    expect("objects total", s[0], tot["objects_delta" if diff else "objects"])
    expect("bytes total", s[1], tot["bytes_delta" if diff else "bytes"])
    t = tab["growth" if diff else "by_type"]
    ti, ci, bi = col(t, "type"), col(t, "count_delta" if diff else "count"), col(t, "bytes_delta" if diff else "bytes")
    want = [{}, {}]
    for r in t["rows"]:
        want[0][r[ti]] = want[0].get(r[ti], 0) + r[ci]; want[1][r[ti]] = want[1].get(r[ti], 0) + r[bi]
    for i in (0, 1):
        got = {k: v for k, v in flat(i).items() if k != "[other types]"}
        expect("flat %s per type" % types[i], got, {k: v for k, v in want[i].items() if k in got or v})
if len(sys.argv) > 5:
    # go tool pprof -top: its first row is the function with the most flat
    # value of the sample index; it must be the document's.
    idx = types.index(sys.argv[6])
    f = flat(idx); best = max(f.items(), key=lambda kv: (kv[1], kv[0]))
    rows = [l for l in open(sys.argv[5]).read().split("\n") if "%" in l and not l.startswith("Showing")]
    first = rows[1].split(None, 5)[5] if len(rows) > 1 else "?"
    top_flat = rows[1].split()[0] if len(rows) > 1 else "?"
    if first.rstrip() != best[0].rstrip() and not best[0].startswith(first.rstrip()):
        bad.append("go -top first function %r, the document's heaviest is %r" % (first, best[0]))
    if types[idx] in ("samples", "alloc_ticks", "inuse_objects", "objects_delta") and top_flat != str(best[1]):
        bad.append("go -top first flat %s, the document says %s" % (top_flat, best[1]))
for b in bad: print("  " + reader + ": " + b)
sys.exit(1 if bad else 0)
EOF

runs=(
  "cpu cpu-sampled.nettrace --option top=0"
  "cpu cpu-blocking.nettrace --option top=0"
  "alloc alloc-gcverbose.nettrace --option top-stacks=0 --option top=0"
  "alloc alloc-exact.nettrace --option top-stacks=0 --option top=0"
  "gcdump leak-after.gcdump --option top=0"
  "gcdump leak-before.gcdump --option top=0"
  "gcdump-diff leak-before.gcdump leak-after.gcdump --option top=0"
)
pass=0 fail=0
i=0
for r in "${runs[@]}"; do
  i=$((i + 1))
  set -- $r
  a=$1; shift
  args=()
  for x in "$@"; do case $x in *.nettrace|*.gcdump) args+=("$DATA/$x") ;; *) args+=("$x") ;; esac; done
  name="$a ${r#* }"
  if ! "$PERFPIPE" "$a" "${args[@]}" --format json -o "$tmp/$i.json" 2>"$tmp/err" ||
     ! "$PERFPIPE" "$a" "${args[@]}" --format pprof -o "$tmp/$i.pb.gz" 2>"$tmp/err"; then
    fail=$((fail + 1)); echo "FAIL: $name: $(head -1 "$tmp/err")"; continue
  fi
  case $a in cpu) idx=samples ;; alloc) idx=alloc_ticks ;; gcdump) idx=inuse_objects ;; *) idx=objects_delta ;; esac
  ok=1
  if [ $have_go = 1 ]; then
    if go tool pprof -raw "$tmp/$i.pb.gz" >"$tmp/$i.raw" 2>"$tmp/err" &&
       go tool pprof -top -nodecount=5 -sample_index=$idx "$tmp/$i.pb.gz" >"$tmp/$i.top" 2>>"$tmp/err" &&
       "$py" "$tmp/go_raw.py" "$tmp/$i.raw" >"$tmp/$i.go.json"; then
      "$py" "$tmp/compare.py" "$a" "$tmp/$i.json" "go tool pprof" "$tmp/$i.go.json" "$tmp/$i.top" $idx || ok=0
    else
      ok=0; echo "  go tool pprof could not read it: $(head -1 "$tmp/err")"
    fi
  fi
  if [ $have_pf = 1 ]; then
    if node "$tmp/pf.js" "$cache" "$tmp/$i.pb.gz" >"$tmp/$i.pf.json" 2>"$tmp/err"; then
      "$py" "$tmp/compare.py" "$a" "$tmp/$i.json" "pprof-format" "$tmp/$i.pf.json" || ok=0
    else
      ok=0; echo "  pprof-format could not read it: $(head -1 "$tmp/err")"
    fi
  fi
  if [ $ok = 1 ]; then pass=$((pass + 1)); echo "ok: $name"; else fail=$((fail + 1)); echo "FAIL: $name"; fi
done
echo "pprof readers: $pass passed, $fail failed"
[ $fail = 0 ]
