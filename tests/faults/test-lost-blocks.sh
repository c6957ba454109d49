#!/bin/bash
# No lost block goes unflagged: each StackBlock and each EventBlock of a
# real V4 capture (alloc-exact) and a real V5 one (webdb-one-c1, metadata
# tags) is removed in turn. Every copy is read with damage recorded (the
# input's damage object non-zero, every stage "partial" with
# input.damaged), compare against the original says "cannot judge" (exit 6
# with --fail-on regression), and alloc never blames the capture profile
# (alloc.no_stacks) for stacks the damage took (alloc.stacks_lost instead).
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

echo "passed $pass, failed $fail"
[ "$fail" = 0 ]
