#!/bin/bash
# What stage isolation costs the shipped analyzers: each analyzer run with
# its stages in a watched child (the default) and in process (--no-isolate),
# alternating, N rounds; best wall and best user+sys of each, max RSS.
#   bench/isolation.sh PERFPIPE TRACE ANALYZER... [-- ROUNDS]
# Figures go to bench/RESULTS.md ("Stage isolation").
set -eu
perfpipe=$1 trace=$2; shift 2
analyzers=(); rounds=5
while [ $# -gt 0 ]; do
  if [ "$1" = -- ]; then rounds=$2; break; fi
  analyzers+=("$1"); shift
done
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
printf '%s\n' "| analyzer | mode | best wall s | best user+sys s | max RSS MB |" "|---|---|---:|---:|---:|"
for a in "${analyzers[@]}"; do
  for mode in isolated in-process; do : >"$tmp/$a.$mode"; done
  for _ in $(seq 1 "$rounds"); do
    for mode in isolated in-process; do
      flag=(); [ $mode = in-process ] && flag=(--no-isolate)
      /usr/bin/time -f "%e %U %S %M" -o "$tmp/t" "$perfpipe" "$a" "$trace" --format json "${flag[@]}" \
        >"$tmp/$a.$mode.json" 2>/dev/null
      cat "$tmp/t" >>"$tmp/$a.$mode"
    done
    cmp -s "$tmp/$a.isolated.json" "$tmp/$a.in-process.json" || { echo "results differ for $a" >&2; exit 1; }
  done
  for mode in isolated in-process; do
    awk -v a="$a" -v m="$mode" 'BEGIN { w = 1e9; c = 1e9 }
      { if ($1 < w) w = $1; if ($2 + $3 < c) c = $2 + $3; if ($4 > r) r = $4 }
      END { printf "| %s | %s | %.2f | %.2f | %.1f |\n", a, m, w, c, r / 1024 }' "$tmp/$a.$mode"
  done
done
