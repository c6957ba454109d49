#!/bin/bash
# perfpipe's speedscope files against speedscope's own published schema
# (file-format-schema.json, shipped in the speedscope npm package): the
# goldens, and the cpu analyzer's per-thread output on real captures (one
# profile for all threads, then one per thread, in milliseconds, each
# profile's endValue the sum of its weights, all threads equal to the
# running_stacks time of the JSON document, the default). SKIP (77) without the schema (npm
# fetches it once into ~/.cache/perfpipe-tools) or Python's jsonschema
# (Debian package python3-jsonschema).
set -u
PERFPIPE=${PERFPIPE:?}
DATA=${PP_TESTDATA:?}
SRC=${PP_SRCDIR:-$(dirname "$0")/../..}
VERSION=1.25.0
cache=${PP_TOOLS_CACHE:-$HOME/.cache/perfpipe-tools}/speedscope-$VERSION
schema=${PP_SPEEDSCOPE_SCHEMA:-$cache/package/dist/release/file-format-schema.json}
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT

if [ ! -r "$schema" ] && command -v npm >/dev/null 2>&1; then
  mkdir -p "$cache" && (cd "$cache" && timeout 120 npm pack --silent "speedscope@$VERSION" >/dev/null 2>&1 &&
    tar xzf "speedscope-$VERSION.tgz" package/dist/release/file-format-schema.json) || true
fi
[ -r "$schema" ] || { echo "SKIP: no speedscope schema (npm pack speedscope@$VERSION, or PP_SPEEDSCOPE_SCHEMA=FILE)"; exit 77; }
py=
for p in python3 /usr/bin/python3; do
  if command -v "$p" >/dev/null 2>&1 && "$p" -c 'import jsonschema' 2>/dev/null; then py=$p; break; fi
done
[ -n "$py" ] || { echo "SKIP: Python's jsonschema is needed (apt-get install python3-jsonschema)"; exit 77; }

for f in cpu-sampled.nettrace web-sampled-db.nettrace.zst; do
  t=${f%%.*}
  "$PERFPIPE" cpu "$DATA/$f" --format speedscope -o "$tmp/$t.speedscope.json" &&
  "$PERFPIPE" cpu "$DATA/$f" --format json -o "$tmp/$t.json" || { echo "FAIL: cpu on $t"; exit 1; }
done
"$PERFPIPE" alloc "$DATA/alloc-gcverbose.nettrace" --format speedscope -o "$tmp/alloc.speedscope.json" ||
  { echo "FAIL: alloc speedscope"; exit 1; }
"$PERFPIPE" gcdump "$DATA/leak-after.gcdump" --format speedscope -o "$tmp/heap.speedscope.json" ||
  { echo "FAIL: gcdump speedscope"; exit 1; }

"$py" - "$schema" "$tmp" "$SRC/tests/golden" <<'PY'
import glob, json, os, sys
import jsonschema
schema = json.load(open(sys.argv[1]))
tmp, golden = sys.argv[2], sys.argv[3]
v = jsonschema.Draft7Validator(schema)
fails = 0
def check(path):
    global fails
    doc = json.load(open(path))
    errs = sorted(v.iter_errors(doc), key=lambda e: list(e.path))
    if errs:
        fails += 1
        print("FAIL: %s does not validate: %s at %s" % (os.path.basename(path), errs[0].message[:200], list(errs[0].path)))
        return None
    print("PASS: %s validates against speedscope's schema" % os.path.basename(path))
    return doc
for p in sorted(glob.glob(os.path.join(golden, "*.speedscope.json"))) + [os.path.join(tmp, "alloc.speedscope.json"), os.path.join(tmp, "heap.speedscope.json")]:
    check(p)
for t in ("cpu-sampled", "web-sampled-db"):
    ss = check(os.path.join(tmp, t + ".speedscope.json"))
    if ss is None:
        continue
    res = json.load(open(os.path.join(tmp, t + ".json")))
    st = res["stages"][0]
    tables = {x["name"]: x for x in st["tables"]}
    # the default is running time (issue #40): running_stacks, per thread
    threads = {r[3] for r in tables["running_stacks"]["rows"]}
    profs = ss["profiles"]
    ok = len(profs) == len(threads) + 1 and profs[0]["name"].endswith("all threads")
    ok = ok and all(p["unit"] == "milliseconds" for p in profs)
    ok = ok and all(abs(sum(p["weights"]) - p["endValue"]) < 1e-6 for p in profs)
    ok = ok and {p["name"].split("thread ")[-1] for p in profs[1:]} == threads
    ms = sum(r[2] for r in tables["running_stacks"]["rows"])
    # whole microseconds per (thread, stack) row: at most 0.5 us each off
    slack = 0.0005 * len(tables["running_stacks"]["rows"]) + 1e-6
    ok = ok and abs(profs[0]["endValue"] - ms) <= slack
    ok = ok and abs(sum(p["endValue"] for p in profs[1:]) - profs[0]["endValue"]) < 1e-6
    if ok:
        print("PASS: %s: %d thread profiles + all threads, ms, all threads = running_stacks %.3f ms" % (t, len(threads), ms))
    else:
        fails += 1
        print("FAIL: %s: per-thread profiles: %d profiles for %d threads, all %.3f ms vs running_stacks %.3f ms"
              % (t, len(profs), len(threads), profs[0]["endValue"], ms))
sys.exit(1 if fails else 0)
PY
