#!/usr/bin/env bash
# synergy-sim --mechanism opt end to end on a short generated workload: the
# report carries the solver's counters, the bound is never below what was
# realised, and OPT's mean JCT is no worse than PROPORTIONAL's.
# usage: opt_run.sh SYNERGY_SIM
set -euo pipefail
sim=$1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# Rounds only: realised is summed over solver rounds and mean_throughput
# over every round sampled, which launches between rounds add to.
common=(--load 6 --seed 3 --split 20,70,10 --multi-gpu --measure 100,200 --policy fifo --launch-between-rounds off)
"$sim" run "${common[@]}" --mechanism opt --out "$work/opt" >/dev/null
"$sim" run "${common[@]}" --mechanism proportional --out "$work/prop" >/dev/null
field() { sed -n "s/.*\"$1\": \\([-0-9.e]*\\).*/\\1/p" "$2"; }
rounds=$(field solver_rounds "$work/opt/summary.json")
bound=$(field mean_lp_bound "$work/opt/summary.json")
realised=$(field mean_realised "$work/opt/summary.json")
throughput=$(field mean_throughput "$work/opt/summary.json")
opt_jct=$(field mean_jct_h "$work/opt/summary.json")
prop_jct=$(field mean_jct_h "$work/prop/summary.json")
prop_rounds=$(field solver_rounds "$work/prop/summary.json")
echo "opt: rounds $rounds bound $bound realised $realised mean JCT $opt_jct h (proportional $prop_jct h)"
awk -v r="$rounds" -v b="$bound" -v z="$realised" -v t="$throughput" -v o="$opt_jct" -v p="$prop_jct" -v pr="$prop_rounds" 'BEGIN {
  if (r <= 0) { print "FAIL: no solver rounds"; exit 1 }
  if (pr != 0) { print "FAIL: proportional reports solver rounds"; exit 1 }
  if (b + 1e-6 < z) { print "FAIL: bound below realised"; exit 1 }
  if (z <= 0 || (z - t > 1e-6 || t - z > 1e-6)) { print "FAIL: realised differs from mean throughput"; exit 1 }
  if (o > p + 1e-9) { print "FAIL: OPT slower than proportional"; exit 1 }
}'
head -1 "$work/opt/utilisation.csv" | grep -q throughput || { echo "FAIL: utilisation.csv lacks throughput"; exit 1; }
echo ok
