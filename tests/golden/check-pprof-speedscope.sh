#!/bin/bash
# speedscope's own pprof importer opens perfpipe's cpu and alloc pprof files
# (and the heap ones): the importer of the speedscope 1.25.0 release bundle
# (npm package speedscope, cached as check-speedscope-schema.sh caches it)
# runs in node. The bundle is a browser app; the test reaches its pprof
# import function (minified name `ef`, after its lazy module `tf`) by a
# textual hook valid for this pinned version only, and stops the app's
# start-up where it needs a window. The profile speedscope builds must weigh
# what the document says (its default sample type: thread time, sampled
# bytes, heap bytes, bytes growth) and its heaviest frame by self weight
# must be the document's heaviest leaf with that weight.
set -u
PERFPIPE=${PERFPIPE:?}
DATA=${PP_TESTDATA:?}
VERSION=1.25.0
cache=${PP_TOOLS_CACHE:-$HOME/.cache/perfpipe-tools}/speedscope-$VERSION
py=$(command -v python3) || { echo "SKIP: python3 reads the JSON documents"; exit 77; }
command -v node >/dev/null 2>&1 || { echo "SKIP: no node to run speedscope's importer (apt-get install nodejs)"; exit 77; }
if ! ls "$cache"/package/dist/release/speedscope-*.js >/dev/null 2>&1; then
  if [ ! -f "$cache/speedscope-$VERSION.tgz" ] && command -v npm >/dev/null 2>&1; then
    mkdir -p "$cache" && (cd "$cache" && timeout 120 npm pack --silent "speedscope@$VERSION" >/dev/null 2>&1) || true
  fi
  [ -f "$cache/speedscope-$VERSION.tgz" ] && (cd "$cache" && tar xzf "speedscope-$VERSION.tgz" package/dist/release) 2>/dev/null
fi
bundle=$(ls "$cache"/package/dist/release/speedscope-*.js 2>/dev/null | head -1)
[ -n "$bundle" ] || { echo "SKIP: no speedscope $VERSION bundle (npm pack speedscope@$VERSION into $cache)"; exit 77; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT

cat >"$tmp/ss.js" <<'EOF'
const fs = require('fs'), zlib = require('zlib');
const [bundle, file] = process.argv.slice(2);
const hook = 'function ef(t){if(t.byteLength===0)return null;';
const decode = 'e=Zu.perftools.profiles.Profile.decode(new Uint8Array(t))}catch{return null}';
let src = fs.readFileSync(bundle, 'utf8');
if (src.split(hook).length !== 2 || src.split(decode).length !== 2) { console.log('NOHOOK'); process.exit(0); }
src = src.replace(hook, 'globalThis.__ssPprof=(...a)=>(tf(),ef(...a));' + hook)
         .replace(decode, decode.replace('catch{return null}', 'catch(x){globalThis.__ssErr=x;return null}'));
try { new Function(src)(); } catch (e) { /* the app's start-up wants a window: the importer is set by then */ }
if (!globalThis.__ssPprof) { console.log('NOHOOK'); process.exit(0); }
let buf = fs.readFileSync(file);
if (buf[0] === 0x1f && buf[1] === 0x8b) buf = zlib.gunzipSync(buf);
const p = globalThis.__ssPprof(buf.buffer.slice(buf.byteOffset, buf.byteOffset + buf.byteLength));
if (!p) { console.log(JSON.stringify({ error: String(globalThis.__ssErr || 'the importer refused the file') })); process.exit(0); }
let top = null;
p.forEachFrame(f => { if (!top || f.getSelfWeight() > top.getSelfWeight()) top = f; });
console.log(JSON.stringify({ total: p.getTotalWeight(), unit: p.getWeightUnit(), top: top && top.name,
                             top_self: top && top.getSelfWeight() }));
EOF

cat >"$tmp/check.py" <<'EOF'
import json, sys
an, doc, got = sys.argv[1], json.load(open(sys.argv[2])), json.loads(open(sys.argv[3]).read())
if "error" in got: print("  speedscope: " + got["error"]); sys.exit(1)
st = doc["stages"][0]; tot = {k: v["value"] for k, v in st["totals"].items()}
tab = {t["name"]: t for t in st["tables"]}
bad = []
def leaf_max(rows, wi, split):
    f = {}
    for r in rows:
        leaf = split(r); f[leaf] = f.get(leaf, 0) + r[wi]
    return max(f.items(), key=lambda kv: kv[1])
if an == "cpu":
    want = (tot["thread_time"], "nanoseconds")
    bm = tab["by_method"]; rows = bm["rows"]
    ms = max(rows, key=lambda r: r[3])   # exclusive_ms
    top = (ms[0], round(ms[3] * 1e6))
elif an == "alloc":
    want = (tot["sampled_bytes"], "bytes")
    top = leaf_max(tab["by_stack"]["rows"], 1, lambda r: r[0].split(";")[-1])
elif an == "gcdump":
    want = (tot["bytes"], "bytes")
    top = max(((r[0], r[2]) for r in tab["by_type"]["rows"]), key=lambda kv: kv[1])
else:
    want = (tot["bytes_delta"], "bytes")
    top = max(((r[0], r[2]) for r in tab["growth"]["rows"]), key=lambda kv: kv[1])
if (got["total"], got["unit"]) != want: bad.append("total %s %s, the document says %s %s" % (got["total"], got["unit"], *want))
if (got["top"], got["top_self"]) != top: bad.append("heaviest frame %s (%s), the document's %s (%s)" % (got["top"], got["top_self"], *top))
for b in bad: print("  speedscope: " + b)
sys.exit(1 if bad else 0)
EOF

runs=(
  "cpu cpu-sampled.nettrace"
  "cpu cpu-blocking.nettrace"
  "alloc alloc-gcverbose.nettrace --option top-stacks=0"
  "gcdump leak-after.gcdump --option top=0"
  "gcdump-diff leak-before.gcdump leak-after.gcdump --option top=0"
)
pass=0 fail=0 i=0
for r in "${runs[@]}"; do
  i=$((i + 1))
  set -- $r
  a=$1; shift
  args=()
  for x in "$@"; do case $x in *.nettrace|*.gcdump) args+=("$DATA/$x") ;; *) args+=("$x") ;; esac; done
  if ! "$PERFPIPE" "$a" "${args[@]}" --format json -o "$tmp/$i.json" 2>"$tmp/err" ||
     ! "$PERFPIPE" "$a" "${args[@]}" --format pprof -o "$tmp/$i.pb.gz" 2>"$tmp/err"; then
    fail=$((fail + 1)); echo "FAIL: $a: $(head -1 "$tmp/err")"; continue
  fi
  node "$tmp/ss.js" "$bundle" "$tmp/$i.pb.gz" >"$tmp/$i.ss" 2>/dev/null
  if grep -q NOHOOK "$tmp/$i.ss"; then
    echo "SKIP: $bundle is not the speedscope $VERSION bundle this test reaches into"; exit 77
  fi
  if "$py" "$tmp/check.py" "$a" "$tmp/$i.json" "$tmp/$i.ss"; then
    pass=$((pass + 1)); echo "ok: speedscope imports $a $*: $(cat "$tmp/$i.ss")"
  else
    fail=$((fail + 1)); echo "FAIL: speedscope import of $a $*"
  fi
done
echo "speedscope pprof import: $pass passed, $fail failed"
[ $fail = 0 ]
