#!/usr/bin/env bash
# The deployment checked against the simulator (scripts/deploy-vs-sim): 12
# generated jobs of the zoo through synergyd and two synergy-node processes
# (4 GPUs, 12 CPU slots, 250 GB each) as emulated jobs in time dilated 100
# times (rounds of 3 s), and through synergy-sim with the same cluster,
# rounds and restart cost, under FIFO and TUNE. On a quiet machine they
# agree within 1% on the mean and 3.2% on the worst job (docs/simulator.md);
# here the bounds are 10% on the mean and 50% on a job, because this test
# runs beside others on 2 cores: a job that ends (or arrives) within tens
# of milliseconds of a round can miss it under load (a 300 s round on a
# 1300 s job: +25%, seen once in CI). They still catch a schedule that
# parts from the simulator's (30-66% on several jobs before the fixes of
# 691e593-9f6fb56). About 90 s. Under a sanitizer, 15% and 60%.
# usage: deploy_vs_sim.sh BUILD_DIR
set -uo pipefail
BIN=$(cd "$1" && pwd)
root=$(cd "$(dirname "$0")/../.." && pwd)
mean=0.10 job=0.50
if grep -q '^CMAKE_CXX_FLAGS:.*-fsanitize' "$BIN/CMakeCache.txt" 2>/dev/null; then mean=0.15 job=0.60; fi
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
