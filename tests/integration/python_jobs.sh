#!/usr/bin/env bash
# The Python example jobs (python/examples, on the synergy package), straight
# and under synergyd: one node with one GPU and two jobs under LAS with
# 3 s rounds, so they take turns, each stopped at lease ends (checkpoint
# with torch.save, then rename) and resumed (torch.load). Each must end with
# the very parameters of a straight run, and its loss must fall.
# usage: python_jobs.sh BUILD_DIR PYTHON
BIN=$1
PY=${2:-/usr/bin/python3}
TEST=python_jobs
source "$(dirname "$0")/lib.sh"
examples=$(cd "$(dirname "$0")/../../python/examples" && pwd)
export PYTHONPATH=$BIN/python

declare -A iters=([image_train]=60 [language_train]=300)
for ex in image_train language_train; do
  out=$("$PY" "$examples/$ex.py" --iterations "${iters[$ex]}" --checkpoint-dir "$work/straight" \
    --result "$work/$ex.straight" 2>&1) || fail "$ex standalone: $out"
  echo "$out" | tail -1
  "$PY" - "$out" <<'PY' || fail "$ex: loss did not fall"
import re, sys
m = re.search(r"loss ([0-9.e+-]+) -> ([0-9.e+-]+)", sys.argv[1])
assert m and float(m.group(2)) < float(m.group(1)), m
PY
done

# Rounds of 3 s: a Python job takes about 2 s to import torch and register.
ROUND_S=3 start_daemon
start_node n1 1
wait_for_nodes 1
ids=()
for ex in image_train language_train; do
  cat >"$work/$ex.yaml" <<JOB
name: $ex
gpus: 1
iterations: ${iters[$ex]}
uses_agent: true
env: {PYTHONPATH: "$BIN/python"}
command: ["$PY", "$examples/$ex.py", "--checkpoint-dir", "$work/ckpt", "--result", "$work/$ex.leased"]
JOB
  ids+=("$(ctl submit -f "$work/$ex.yaml")")
done
wait_until_done 240 "${ids[@]}"
ctl get jobs -o wide
for id in "${ids[@]}"; do
  [[ $(state_of "$id") == succeeded ]] || fail "$id is $(state_of "$id")"
done
ended=$(cat "$work"/logs-n1/*.out | grep -c "lease ended at iteration")
echo "lease ends that stopped a Python loop: $ended"
((ended > 0)) || fail "no job was ever stopped by its lease"
for ex in image_train language_train; do
  [[ $(cat "$work/$ex.leased") == "$(cat "$work/$ex.straight")" ]] ||
    fail "$ex: parameters after leases $(cat "$work/$ex.leased") differ from straight $(cat "$work/$ex.straight")"
  echo "ok   $ex: checksum $(cat "$work/$ex.leased") straight and across leases"
done
echo "ok python_jobs"
