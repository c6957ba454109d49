#!/bin/bash
# No lost block goes unflagged: each StackBlock and each EventBlock of a
# real V4 capture (alloc-exact) and a real V5 one (webdb-one-c1, metadata
# tags) is removed in turn. Every copy is read with damage recorded (the
# input's damage object non-zero, every stage "partial" with
# input.damaged), compare against the original says "cannot judge" (exit 6
# with --fail-on regression), and alloc never blames the capture profile
# (alloc.no_stacks) for stacks the damage took (alloc.stacks_lost instead).
# The same for cpu on a real sampled capture (cpu-sampled): a StackBlock
# removed (every 4th in turn), cpu adds no finding but the damage's (input.damaged,
# and cpu.stacks_lost whenever samples lost their stacks: on f1f164a those
# samples were "[no stack]" with nothing saying why), and compare with the
# original cannot judge.
set -u
PERFPIPE=${PERFPIPE:?}
DATA=${PP_TESTDATA:?}
SRC=${PP_SRCDIR:?}
command -v python3 >/dev/null || { echo "SKIP: python3 is needed to damage the fixtures"; exit 77; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
pass=0; fail=0
ok() { pass=$((pass + 1)); echo "PASS: $1"; }
ko() { fail=$((fail + 1)); echo "FAIL: $1"; }
mutate() { python3 "$SRC/tests/faults/mutate-nettrace.py" "$@"; }

cat >"$tmp/three.yaml" <<YAML
version: 1
name: three
inputs:
  trace: { kind: nettrace, path: "\${TRACE}" }
stages:
  - { id: alloc, analyzer: alloc, input: trace }
  - { id: cpu, analyzer: cpu, input: trace }
  - { id: db, analyzer: db, input: trace }
outputs:
  - { format: json }
YAML
run3() { "$PERFPIPE" run "$tmp/three.yaml" --set "TRACE=$1" >"$2" 2>"$2.err"; }
# verdict DOC: "damage stages no_stacks stacks_lost" of a result document
verdict() {
  python3 - "$1" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
dmg = sum(v for k, v in d["inputs"][0]["damage"].items() if k != "truncated_at" and v)
st = ",".join(s["status"] for s in d["stages"])
dam = sum(1 for s in d["stages"] for f in s["findings"] if f["code"] == "input.damaged")
codes = [f["code"] for s in d["stages"] for f in s["findings"]]
print(dmg > 0, st, dam, codes.count("alloc.no_stacks"), codes.count("alloc.stacks_lost"))
PY
}

for name in alloc-exact webdb-one-c1; do
  t=$DATA/$name.nettrace
  run3 "$t" "$tmp/orig.json" || { ko "$name: the clean capture runs"; continue; }
  v=$(verdict "$tmp/orig.json")
  [ "$v" = "False ok,ok,ok 0 0 0" ] && ok "$name: clean, no damage" || ko "$name: clean: $v"
  read -r nev nst < <(mutate "$t" /dev/null count)
  [ "$nev" -gt 0 ] && [ "$nst" -gt 0 ] || ko "$name: no blocks to remove"
  for op in drop drop-stack; do
    n=$nev; [ "$op" = drop-stack ] && n=$nst
    flagged=0 judged=0 blamed=0
    for ((i = 0; i < n; i++)); do
      mutate "$t" "$tmp/m.nettrace" "$op" "$i"
      run3 "$tmp/m.nettrace" "$tmp/m.json"; rc=$?
      read -r dmg st dam nost lost < <(verdict "$tmp/m.json")
      if [ "$rc" = 0 ] && [ "$dmg" = True ] && [ "$st" = partial,partial,partial ] && [ "$dam" = 3 ]; then
        flagged=$((flagged + 1))
      else
        echo "  $name $op $i: exit $rc, damage $dmg, stages $st, input.damaged x$dam"
      fi
      "$PERFPIPE" compare --fail-on regression "$tmp/orig.json" "$tmp/m.json" >/dev/null 2>&1
      crc=$?
      if [ "$crc" = 6 ]; then judged=$((judged + 1)); else echo "  $name $op $i: compare exit $crc"; fi
      if [ "$nost" != 0 ]; then blamed=$((blamed + 1)); echo "  $name $op $i: alloc.no_stacks"; fi
    done
    what=EventBlock; [ "$op" = drop-stack ] && what=StackBlock
    [ "$flagged" = "$n" ] && ok "$name: each of $n ${what}s removed is flagged" ||
      ko "$name: $flagged of $n ${what}s removed flagged"
    [ "$judged" = "$n" ] && ok "$name: compare with each such copy cannot judge (exit 6)" ||
      ko "$name: compare exit 6 on $judged of $n"
    [ "$blamed" = 0 ] && ok "$name: alloc never blames the profile for ${what}s lost" ||
      ko "$name: alloc.no_stacks on $blamed of $n"
  done
done

# The lost stacks are named: ticks that name a removed block's stacks are
# alloc.stacks_lost, and the warning names the block and the ids.
mutate "$DATA/alloc-exact.nettrace" "$tmp/s2.nettrace" drop-stack 2
run3 "$tmp/s2.nettrace" "$tmp/s2.json"
read -r dmg st dam nost lost < <(verdict "$tmp/s2.json")
[ "$lost" = 1 ] && ok "alloc says the stacks were lost (alloc.stacks_lost)" || ko "no alloc.stacks_lost ($lost)"
grep -q "a stack block is missing (events naming ids [0-9]*-[0-9]* have no stack)" "$tmp/s2.json.err" &&
  ok "stderr names the hole in the stack ids" || { ko "no stack-id hole on stderr"; cat "$tmp/s2.json.err"; }
[ "$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['inputs'][0]['damage']['missing_blocks'])" "$tmp/s2.json")" = 1 ] &&
  ok "one missing block counted" || ko "missing_blocks is not 1"

# cpu on a real sampled capture: every 4th StackBlock (first and last
# among them) removed in turn, to keep the suite short.
t=$DATA/cpu-sampled.nettrace
"$PERFPIPE" cpu "$t" --format json -o "$tmp/cpu-orig.json" 2>/dev/null || ko "cpu-sampled: the clean capture runs"
read -r nev nst < <(mutate "$t" /dev/null count)
said=0 blamed=0 judged=0 flagged=0 nostack=0 tried=0
for ((i = 0; i < nst; i += 4)); do
  tried=$((tried + 1))
  mutate "$t" "$tmp/c.nettrace" drop-stack "$i"
  "$PERFPIPE" cpu "$tmp/c.nettrace" --format json -o "$tmp/c.json" 2>/dev/null; rc=$?
  # "FLAGGED NOSTACK LOST EXTRA": the stage partial with input.damaged and
  # damage recorded; "[no stack]" rows the original has not; cpu.stacks_lost;
  # the findings the original has not, beside those two.
  read -r fl ns lost extra < <(python3 - "$tmp/cpu-orig.json" "$tmp/c.json" <<'PY'
import json, sys
o, d = (json.load(open(p)) for p in sys.argv[1:3])
codes = lambda doc: {f["code"] for s in doc["stages"] for f in s["findings"]}
nost = lambda doc: sum('"[no stack]"' in json.dumps(t["rows"]) for s in doc["stages"] for t in s["tables"])
dmg = sum(v for k, v in d["inputs"][0]["damage"].items() if k != "truncated_at" and v)
st = d["stages"][0]["status"]
extra = codes(d) - codes(o) - {"input.damaged", "cpu.stacks_lost"}
print(dmg > 0 and st == "partial" and "input.damaged" in codes(d), nost(d) > nost(o),
      "cpu.stacks_lost" in codes(d), ",".join(sorted(extra)) or "-")
PY
)
  [ "$rc" = 0 ] && [ "$fl" = True ] && flagged=$((flagged + 1)) || echo "  cpu-sampled drop-stack $i: exit $rc, flagged $fl"
  if [ "$extra" != - ]; then blamed=$((blamed + 1)); echo "  cpu-sampled drop-stack $i: new findings $extra"; fi
  if [ "$ns" = True ]; then
    nostack=$((nostack + 1))
    [ "$lost" = True ] && said=$((said + 1)) || echo "  cpu-sampled drop-stack $i: [no stack] samples, no cpu.stacks_lost"
  fi
  "$PERFPIPE" compare --fail-on regression "$tmp/cpu-orig.json" "$tmp/c.json" >/dev/null 2>&1; crc=$?
  if [ "$crc" = 6 ]; then judged=$((judged + 1)); else echo "  cpu-sampled drop-stack $i: compare exit $crc"; fi
done
[ "$tried" -gt 0 ] && [ "$flagged" = "$tried" ] && ok "cpu-sampled: each of $tried StackBlocks removed (of $nst) is flagged" ||
  ko "cpu-sampled: $flagged of $tried StackBlocks removed flagged"
[ "$blamed" = 0 ] && ok "cpu-sampled: cpu adds no finding but the damage's (never blames the profile)" ||
  ko "cpu-sampled: other findings on $blamed of $tried"
[ "$nostack" -gt 0 ] && [ "$said" = "$nostack" ] &&
  ok "cpu-sampled: cpu.stacks_lost on each of the $nostack copies whose samples lost stacks" ||
  ko "cpu-sampled: cpu.stacks_lost on $said of $nostack copies whose samples lost stacks"
[ "$judged" = "$tried" ] && ok "cpu-sampled: compare with each such copy cannot judge (exit 6)" ||
  ko "cpu-sampled: compare exit 6 on $judged of $tried"

echo "passed $pass, failed $fail"
[ "$fail" = 0 ]
