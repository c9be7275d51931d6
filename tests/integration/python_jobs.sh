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
# A grace of 10 s: two ranks learn of a lease end at their next reports (1 s
# apart) and stop a margin of 1.25 report intervals' iterations later.
ROUND_S=3 LEASE_GRACE_S=10 start_daemon
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

# Two ranks (torch.distributed over gloo) on two 1-GPU nodes: draining one
# ends the lease; both ranks must stop at the iteration rank 0 chose (else
# DistributedDataParallel's all-reduce would hang), resume there after the
# undrain, and end as one process with twice the batch would (gradients are
# averaged: equal up to rounding).
"$PY" "$examples/language_train.py" --iterations 300 --batch 32 --checkpoint-dir "$work/straight" \
  --result "$work/ranks.straight" >/dev/null 2>&1 || fail "language_train --batch 32 standalone"
start_node n2 1
wait_for_nodes 2
cat >"$work/ranks.yaml" <<JOB
name: ranks
gpus: 2
iterations: 300
uses_agent: true
env: {PYTHONPATH: "$BIN/python"}
command: ["$PY", "$examples/language_train.py", "--batch", "16", "--checkpoint-dir", "$work/ckpt", "--result", "$work/ranks.leased"]
JOB
id=$(ctl submit -f "$work/ranks.yaml")
for _ in $(seq 300); do grep -qs "iteration 50 loss" "$work"/logs-n*/"$id".*.out && break; sleep 0.1; done
ctl drain n2 >/dev/null || fail "drain n2"
for _ in $(seq 150); do [[ $(state_of "$id") == suspended ]] && break; sleep 0.1; done
[[ $(state_of "$id") == suspended ]] || fail "$id is $(state_of "$id") after the drain, not suspended"
ctl undrain n2 >/dev/null || fail "undrain n2"
wait_until_done 180 "$id"
[[ $(state_of "$id") == succeeded ]] || fail "$id is $(state_of "$id")"
stop0=$(grep -h "rank 0: lease ended: checkpoint at iteration" "$work"/logs-n*/"$id".*.err | sed 's/.*iteration \([0-9]*\).*/\1/' | head -1)
stop1=$(grep -h "rank 1: lease ended: stopped at iteration" "$work"/logs-n*/"$id".*.err | sed 's/.*iteration \([0-9]*\).*/\1/' | head -1)
echo "rank 0 stopped at ${stop0:-?}, rank 1 at ${stop1:-?}"
[[ -n $stop0 && $stop0 == "${stop1:-}" ]] || fail "the ranks did not stop at one iteration: ${stop0:-?} and ${stop1:-?}"
resumed=$(cat "$work"/logs-n*/"$id".*.out | grep -c ": iteration $stop0, ")
((resumed == 2)) || fail "$resumed ranks resumed at $stop0, want 2"
"$PY" - "$(cat "$work/ranks.leased")" "$(cat "$work/ranks.straight")" <<'PY' || fail "2 ranks across leases end far from one process with twice the batch"
import sys
a, b = float(sys.argv[1]), float(sys.argv[2])
assert abs(a - b) <= 1e-5 * abs(b), (a, b)  # measured: 1.5e-7
print(f"ok   ranks: checksum {a!r} across leases, {b!r} as one process with twice the batch")
PY
echo "ok python_jobs"
