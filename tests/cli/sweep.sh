#!/usr/bin/env bash
# synergy-sim sweep and figure: a small grid over two seeds writes one row
# per load x mechanism x seed, a run directory each with a summary.json of
# typed settings, the per-load means and spreads, the CDFs, the gnuplot
# script and (with gnuplot installed) every plot as SVG and PNG; figure
# sensitivity writes every zoo model's curves and draws them.
# usage: sweep.sh SYNERGY_SIM
set -euo pipefail
sim=$1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
"$sim" sweep --policy las --loads 4,2 --mechanisms tune,proportional --seeds 7,8 --multi-gpu \
  --measure 50,150 --no-progress --out "$work/s" >"$work/table.txt"
rows=$(($(wc -l <"$work/s/sweep.csv") - 1))
[[ $rows -eq 8 ]] || fail "sweep.csv has $rows rows, expected 8"
for d in proportional-load2-seed7 proportional-load4-seed8 tune-load2-seed8 tune-load4-seed7; do
  [[ -f $work/s/$d/summary.json ]] || fail "no $d/summary.json"
done
grep -q "^las,tune,4,8,100," "$work/s/sweep.csv" || fail "no las,tune,4,seed 8 row of 100 jobs"
python3 - "$work/s" <<'PY' || fail "summary.json settings or load tables are wrong"
import csv, json, sys
d = sys.argv[1]
s = json.load(open(f"{d}/tune-load4-seed7/summary.json"))
assert s["load_jobs_per_hour"] == 4 and s["seed"] == 7 and s["reference_compatible"] is False, s
assert s["mechanism"] == "tune" and isinstance(s["round_s"], (int, float)), s
rows = list(csv.DictReader(open(f"{d}/load-tune.csv")))
assert [float(r["load"]) for r in rows] == [2.0, 4.0], rows          # ascending, for lines
runs = [r for r in csv.DictReader(open(f"{d}/sweep.csv")) if r["mechanism"] == "tune" and r["load"] == "4"]
means = [float(r["mean_jct_h"]) for r in runs]
assert abs(float(rows[1]["mean_jct_h"]) - sum(means) / 2) < 1e-5, (rows[1], means)
assert float(rows[1]["mean_jct_h_sd"]) > 0, "two seeds, two workloads: a spread"
PY
for f in cdf-tune-load4-all.csv cdf-tune-load4-single.csv cdf-tune-load4-multi.csv load-proportional.csv plots.gp; do
  [[ -f $work/s/$f ]] || fail "no $f"
done
grep -q "yerrorlines" "$work/s/plots.gp" || fail "no error bars in mean_jct_vs_load"
"$sim" figure sensitivity --out "$work/f" >"$work/figure.txt" || fail "figure sensitivity"
[[ $(ls "$work/f"/sensitivity-*.csv | wc -l) -eq 10 ]] || fail "not one sensitivity CSV per zoo model"
head -2 "$work/f/sensitivity-res18.csv" | tail -1 | grep -q "^1," || fail "sensitivity-res18.csv does not start at 1 CPU"
out=$("$sim" figure fig99 --out "$work/f" 2>&1) && fail "figure fig99 was accepted"
grep -q "'fig99' is not a figure" <<<"$out" || fail "figure fig99: $out"
if command -v gnuplot >/dev/null; then
  for p in mean_jct_vs_load jct_cdf-load2 jct_cdf-load4 utilisation-load2 utilisation-load4; do
    grep -q "<svg" "$work/s/$p.svg" || fail "$p.svg not drawn"
    [[ $(head -c 4 "$work/s/$p.png" | tail -c 3) == PNG ]] || fail "$p.png not drawn"
  done
  grep -q "<svg" "$work/f/sensitivity.svg" || fail "sensitivity.svg not drawn"
  [[ $(head -c 4 "$work/f/sensitivity.png" | tail -c 3) == PNG ]] || fail "sensitivity.png not drawn"
fi
cat "$work/table.txt"
