#!/usr/bin/env bash
# synergy-sim sweep: a small grid writes one row per load x mechanism, a run
# directory each, the gnuplot script, and (with gnuplot installed) the plots.
# usage: sweep.sh SYNERGY_SIM
set -euo pipefail
sim=$1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$sim" sweep --policy las --loads 2,4 --mechanisms proportional,tune --multi-gpu \
  --measure 50,150 --no-progress --out "$work/s" >"$work/table.txt"
rows=$(($(wc -l <"$work/s/sweep.csv") - 1))
[[ $rows -eq 4 ]] || { echo "FAIL: sweep.csv has $rows rows, expected 4"; exit 1; }
for d in proportional-load2 proportional-load4 tune-load2 tune-load4; do
  [[ -f $work/s/$d/summary.json ]] || { echo "FAIL: no $d/summary.json"; exit 1; }
done
grep -q "^las,tune,4,100," "$work/s/sweep.csv" || { echo "FAIL: no las,tune,4 row of 100 jobs"; exit 1; }
[[ -f $work/s/plots.gp ]] || { echo "FAIL: no plots.gp"; exit 1; }
if command -v gnuplot >/dev/null; then
  for p in jct_cdf mean_jct_vs_load utilisation; do
    grep -q "<svg" "$work/s/$p.svg" || { echo "FAIL: $p.svg not drawn"; exit 1; }
  done
fi
cat "$work/table.txt"
