#!/bin/bash
# Issue #44 on committed fixtures (no dotnet):
#  - L1's blind spot: the N+1 capture of tests/webapp (webapp-nplus1-c1-bad, the db stage), with a
#    benchmark named for every candidate (--set benchmark=...), plans the repeated query (the
#    per-customer SUM over Purchases, the N of N+1) with L2+L3 only and says why; no candidate of
#    it names the benchmark;
#  - an allocation candidate covered by a benchmark (alloc-gcverbose, MakeStrings) keeps its L1 step;
#  - build identity from the trace alone (PERFPIPE_BUILD_CHECK=off, as in the suite): the webapp
#    capture names WebApp with a PDB GUID and age and no `file`; two captures of one build (the
#    bad route's two processes) compare with compare.same_build beside a verdict;
#  - the IdentApp fixtures (tests/data/ident): each capture's identity equals its truth (the PDB
#    id read from the .pdb); same build -> same_build warning, builds 1 -> 2 none; the verify seam.
set -u
PERFPIPE=${PERFPIPE:?}
DATA=${PP_TESTDATA:?}
. "$(dirname "$0")/../lib/checks.sh"
[ -f "$DATA/webapp/webapp.tar.xz" ] || { echo "SKIP: tests/data/webapp fixtures not present"; exit 77; }
command -v xz >/dev/null || { echo "SKIP: xz not found"; exit 77; }
export PERFPIPE_BUILD_CHECK=off
tar -xJf "$DATA/webapp/webapp.tar.xz" -C "$tmp" webapp-nplus1-c1-bad.nettrace webapp-nplus1-c1-bad2.nettrace ||
  { echo "FAIL: cannot unpack the webapp fixtures"; exit 1; }
BENCH=Shop.Benchmarks.TotalsBench.Totals

expect 0 "db on the N+1 capture, a benchmark named" -- "$PERFPIPE" run db \
  --input trace="$tmp/webapp-nplus1-c1-bad.nettrace" --set benchmark=$BENCH --format json -o "$tmp/bad.json"
expect 0 "its candidates" -- "$PERFPIPE" candidates "$tmp/bad.json" --top 10 --format json -o "$tmp/cand.json"
check "N+1: the repeated query plans L2+L3 with the blind-spot note, no L1" "$tmp/cand.json" "$BENCH" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
t = [x for x in d['stages'][0]['tables'] if x['name'] == 'candidates'][0]
cols = [c['name'] for c in t['columns']]
rows = [dict(zip(cols, r)) for r in t['rows']]
# the repeated query lands in the application frame that runs it: the command is its evidence
n1 = [r for r in rows if 'FROM "Purchases"' in r['evidence'] and '"CustomerId" = @' in r['evidence']]
assert n1, [r['target'] for r in rows]
v = n1[0]['verify']
assert 'plan L2' in v and 'L3' in v and 'no L1' in v and 'mocked I/O' in v, v
assert not any('rerun benchmark' in r['verify'] for r in rows), [r['verify'] for r in rows]
print(n1[0]['axis'], '|', v[v.index('plan L2'):][:90])
PY
if [ -f "$DATA/alloc-gcverbose.nettrace" ]; then
  expect 0 "alloc naming a benchmark covering MakeStrings" -- "$PERFPIPE" run alloc \
    --input trace="$DATA/alloc-gcverbose.nettrace" --set benchmark=Perfpipe.Benchmarks.KeyBench.FormatKeys \
    --set benchmark_covers=MakeStrings --format json -o "$tmp/alloc.json"
  expect 0 "its candidates" -- "$PERFPIPE" candidates "$tmp/alloc.json" --top 5 --format json -o "$tmp/acand.json"
  check "an allocation candidate covered by a benchmark keeps its L1 step" "$tmp/acand.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
t = [x for x in d['stages'][0]['tables'] if x['name'] == 'candidates'][0]
cols = [c['name'] for c in t['columns']]
rows = [dict(zip(cols, r)) for r in t['rows']]
r = [r for r in rows if r['target'] == 'Workload.AllocScenario.MakeStrings'][0]
assert r['axis'].startswith('allocation'), r['axis']
assert 'then L1: rerun benchmark Perfpipe.Benchmarks.KeyBench.FormatKeys' in r['verify'], r['verify']
assert 'no L1' not in r['verify']
PY
fi
check "the N+1 capture names WebApp's build, from the trace alone" "$tmp/bad.json" <<'PY'
import json, re, sys
d = json.load(open(sys.argv[1]))
mods = d['inputs'][0]['nettrace']['modules']
assert [m['name'] for m in mods] == ['WebApp'], [m['name'] for m in mods]
m = mods[0]
assert re.fullmatch(r'[0-9a-f]{8}(-[0-9a-f]{4}){3}-[0-9a-f]{12}', m['pdb_guid']) and m['pdb_age'] == 1, m
assert m['path'].endswith('/WebApp.dll') and m['build_path'].endswith('/WebApp.pdb'), m
assert 'file' not in m, m                    # PERFPIPE_BUILD_CHECK=off
print(m['pdb_guid'])
PY
expect 0 "db on the second capture of the bad route" -- "$PERFPIPE" run db \
  --input trace="$tmp/webapp-nplus1-c1-bad2.nettrace" --set benchmark=$BENCH --format json -o "$tmp/bad2.json"
expect 0 "compare bad -> bad2" -- "$PERFPIPE" compare "$tmp/bad.json" "$tmp/bad2.json" --format json -o "$tmp/cmp.json"
check "two processes of one build: compare.same_build beside the verdict" "$tmp/cmp.json" "$tmp/bad.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
g = json.load(open(sys.argv[2]))['inputs'][0]['nettrace']['modules'][0]['pdb_guid']
w = [f for s in d['stages'] for f in s.get('findings', []) if f['code'] == 'compare.same_build']
assert w and 'WebApp (%s/1)' % g in w[0]['message'], w
assert d['compared']['verdict'] != 'cannot judge'
PY

# The committed IdentApp captures (tests/capture/capture-ident.sh): two of one process of build 1,
# one of build 2; each truth holds the PDB id read from the .pdb itself.
ID="$DATA/ident"
if [ -f "$ID/ident.tar.xz" ]; then
  tar -xJf "$ID/ident.tar.xz" -C "$tmp" || { echo "FAIL: cannot unpack $ID/ident.tar.xz"; exit 1; }
  for n in ident-v1-a ident-v1-b ident-v2; do
    expect 0 "alloc on $n" -- "$PERFPIPE" run alloc --input trace="$tmp/$n.nettrace" --format json -o "$tmp/$n.json"
    check "$n: IdentApp's identity is the truth's (the .pdb's id)" "$tmp/$n.json" "$ID/$n.truth.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1])); t = json.load(open(sys.argv[2]))
mods = d['inputs'][0]['nettrace']['modules']
assert [m['name'] for m in mods] == [t['app']], mods
m = mods[0]
assert (m['path'], m['pdb_guid'], m['pdb_age']) == (t['path'], t['pdb_guid'], t['pdb_age']), (m, t)
assert d['inputs'][0]['nettrace']['process']['pid'] == t['pid']
PY
  done
  expect 0 "compare v1-a -> v1-b" -- "$PERFPIPE" compare "$tmp/ident-v1-a.json" "$tmp/ident-v1-b.json" --format json -o "$tmp/ab.json"
  expect 0 "compare v1-a -> v2" -- "$PERFPIPE" compare "$tmp/ident-v1-a.json" "$tmp/ident-v2.json" --format json -o "$tmp/ad.json"
  check "same build warns beside the verdict, another build does not" "$tmp/ab.json" "$tmp/ad.json" <<'PY'
import json, sys
ab, ad = (json.load(open(p)) for p in sys.argv[1:3])
codes = lambda d: [f['code'] for s in d['stages'] for f in s.get('findings', [])]
assert 'compare.same_build' in codes(ab) and ab['compared']['verdict'] != 'cannot judge', codes(ab)
assert 'compare.same_build' not in codes(ad) and 'same_build' not in ad['compared'], codes(ad)
PY
  if [ -x "${PP_BUILDDIR:-}/tests/unit/check_buildid" ]; then
    expect 0 "verify seam: v1-a -> v1-b cannot judge (not deployed) unless --config-only; v1-a -> v2 judged" -- \
      env IDENT_SAME_A="$tmp/ident-v1-a.json" IDENT_SAME_B="$tmp/ident-v1-b.json" IDENT_OTHER="$tmp/ident-v2.json" \
      "$PP_BUILDDIR/tests/unit/check_buildid"
  fi
fi
finish "ident-plan: "
