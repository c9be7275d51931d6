#!/usr/bin/env bash
# The deployment checked against the simulator (scripts/deploy-vs-sim): 12
# generated jobs of the zoo through synergyd and two synergy-node processes
# (4 GPUs, 12 CPU slots, 250 GB each) as emulated jobs in time dilated 100
# times (rounds of 3 s), and through synergy-sim with the same cluster,
# rounds and restart cost, under FIFO and TUNE. Each job's JCT must agree
# within 10%, and the mean within 5% (the paper's claim for its simulator).
# About 90 s. A sanitizer slows synergyd and the nodes several times, which
# the dilated clock counts as the jobs' time: there the bounds are 10% and
# 25%, and the run still shows that every job finishes.
# usage: deploy_vs_sim.sh BUILD_DIR
set -uo pipefail
BIN=$(cd "$1" && pwd)
root=$(cd "$(dirname "$0")/../.." && pwd)
mean=0.05 job=0.10
if grep -q '^CMAKE_CXX_FLAGS:.*-fsanitize' "$BIN/CMakeCache.txt" 2>/dev/null; then mean=0.10 job=0.25; fi
out=$(mktemp -d /tmp/synergy-deploy_vs_sim.XXXXXX)
trap 'rm -rf "$out"' EXIT
if ! SYNERGY_BUILD_DIR=$BIN "$root/scripts/deploy-vs-sim" --policy fifo --mechanism tune --jobs 12 --seed 1 \
    --max-mean-error "$mean" --max-job-error "$job" --out "$out"; then
  echo "FAIL deploy_vs_sim: the deployment and the simulator differ by more than $mean (mean) or $job (a job)"
  cat "$out/summary.json" 2>/dev/null
  for f in "$out"/deploy.*/synergyd.log; do echo "--- $f (tail)"; tail -20 "$f"; done
  exit 1
fi
python3 - "$out/summary.json" <<'PY' || { echo "FAIL deploy_vs_sim: summary.json"; exit 1; }
import json, sys
s = json.load(open(sys.argv[1]))
assert s["jobs"] == 12 and s["finished"] == 12, s
assert s["sim_mean_jct_s"] > 0 and s["deploy_mean_jct_s"] > 0, s
PY
echo "ok deploy_vs_sim"
