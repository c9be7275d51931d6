#!/usr/bin/env bash
# Bad input to synergy-sim: each case must exit 2, print a message naming
# the file, line and field (or the flag), and leave no output directory.
# usage: bad_input.sh SYNERGY_SIM SOURCE_DIR
set -uo pipefail
sim=$1
src=$2
SRC_CLUSTERS=$src/configs/clusters
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failed=0

printf '0,alexnet,409,8176,1\n1,gnmt,861\n' >"$work/truncated.csv"
printf '0,alexnet,409,8176,1\n1,vgg16,861,10,1\n' >"$work/unknown_model.csv"
printf '0,alexnet,409,8176,0\n' >"$work/zero_gpus.csv"
printf '0,alexnet,409,8176,-4\n' >"$work/negative_gpus.csv"
printf '0,alexnet,409,8176,256\n' >"$work/too_large.csv"
printf 'servers:\n  - {gpus: 8, cpus: [24\n' >"$work/malformed.yaml"
printf 'servers:\n  - name: a\n    gpus: -1\n    cpus: 24\n    memory_gb: 500\n' >"$work/neg_cluster.yaml"
printf '0,alexnet,409,8176,1\n' >"$work/good.csv"
# Each of these used to abort synergy-sim (an uncaught yaml-cpp exception)
# or size its vectors by a typing mistake.
printf '? [a, b]\n: 1\n' >"$work/list_key.yaml"
printf 'servers:\n  - {name: {a: 1}, gpus: 8, cpus: 24, memory_gb: 500}\n' >"$work/map_name.yaml"
printf 'servers:\n  - {gpus: 8, cpus: 1e308, memory_gb: 500}\n' >"$work/huge_cpus.yaml"
printf 'servers:\n  - {gpus: 1000000000, cpus: 24, memory_gb: 500}\n' >"$work/huge_gpus.yaml"
printf '0,alexnet,1e308,8176,1\n' >"$work/huge_arrival.csv"
printf 'servers:\n  - {gpus: 8, cpus: 24, memory_gb: 500, gpu_type: a100}\n  - {gpus: 8, cpus: 24, memory_gb: 500}\n' \
  >"$work/unknown_type.yaml"
printf 'servers:\n  - {gpus: 8, cpus: 24, memory_gb: 500, gpu_type: "V 100"}\n' >"$work/bad_type.yaml"
printf '0,alexnet,0,100,48\n' >"$work/big.csv"

# expect NAME "expected message fragment" ARGS...
expect() {
  local name=$1 fragment=$2
  shift 2
  local out=$work/out-$name
  local err
  err=$("$sim" run "$@" --out "$out" 2>&1 >/dev/null)
  local rc=$?
  if [[ $rc -ne 2 ]]; then
    echo "FAIL $name: exit status $rc, expected 2 ($err)"
    failed=1
  elif [[ $err != *"$fragment"* ]]; then
    echo "FAIL $name: message '$err' lacks '$fragment'"
    failed=1
  elif [[ -e $out ]]; then
    echo "FAIL $name: left $out behind"
    failed=1
  else
    echo "ok   $name: $err" | head -1
  fi
}

run=(--policy fifo --mechanism tune)
expect truncated "truncated.csv:2: iterations" --trace "$work/truncated.csv" "${run[@]}"
expect unknown_model "unknown_model.csv:2: model: 'vgg16': unknown model" --trace "$work/unknown_model.csv" "${run[@]}"
expect zero_gpus "zero_gpus.csv:1: gpus: '0'" --trace "$work/zero_gpus.csv" "${run[@]}"
expect negative_gpus "negative_gpus.csv:1: gpus: '-4'" --trace "$work/negative_gpus.csv" "${run[@]}"
expect too_large "too_large.csv:1: gpus: '256': is more than the cluster's 128 GPUs" --trace "$work/too_large.csv" "${run[@]}"
expect malformed_yaml "malformed.yaml:" --cluster "$work/malformed.yaml" --trace "$work/good.csv" "${run[@]}"
expect negative_cluster "neg_cluster.yaml:3: servers[0].gpus" --cluster "$work/neg_cluster.yaml" --trace "$work/good.csv" "${run[@]}"
expect list_key "list_key.yaml:1: document: (a list): is not a field name" --cluster "$work/list_key.yaml" --trace "$work/good.csv" "${run[@]}"
expect map_name "map_name.yaml:2: servers[0].name: (a map): is not a string" --cluster "$work/map_name.yaml" --trace "$work/good.csv" "${run[@]}"
expect huge_cpus "huge_cpus.yaml:2: servers[0].cpus: '1e308': must be > 0 and at most 4096" --cluster "$work/huge_cpus.yaml" --trace "$work/good.csv" "${run[@]}"
expect huge_gpus "huge_gpus.yaml:2: servers[0].gpus: '1000000000': must be between 1 and 1024" --cluster "$work/huge_gpus.yaml" --trace "$work/good.csv" "${run[@]}"
expect list_key_zoo "list_key.yaml:1: document: (a list): is not a field name" --models "$work/list_key.yaml" --trace "$work/good.csv" "${run[@]}"
expect huge_arrival "huge_arrival.csv:1: arrival_s: '1e308': is not a number between 0 and 1e+09" --trace "$work/huge_arrival.csv" "${run[@]}"
expect missing_trace "$work/nope.csv: cannot open" --trace "$work/nope.csv" "${run[@]}"
expect unknown_flag "unknown flag '--bogus'" --trace "$work/good.csv" --bogus 1 "${run[@]}"
expect bad_policy "--policy: 'lifo'" --trace "$work/good.csv" --policy lifo --mechanism tune
expect bad_mechanism "--mechanism: 'opt2'" --trace "$work/good.csv" --policy fifo --mechanism opt2
expect bad_load "--load: 'nine'" --load nine "${run[@]}"
expect bad_split "--split: '20,70'" --load 9 --split 20,70 "${run[@]}"
expect bad_measure "--measure: '5,5'" --load 9 --measure 5,5 "${run[@]}"
expect bad_opt_nodes "--opt-branch-nodes: '0'" --trace "$work/good.csv" --policy fifo --mechanism opt --opt-branch-nodes 0
expect wall_clock_gone "unknown flag '--opt-time-limit-ms'" --trace "$work/good.csv" --policy fifo --mechanism opt --opt-time-limit-ms 100
expect both_workloads "exactly one of --trace" --trace "$work/good.csv" --load 9 "${run[@]}"
expect negative_restart_cost "--restart-cost: '-5'" --trace "$work/good.csv" --restart-cost -5 "${run[@]}"
expect nan_restart_cost "--restart-cost: 'nan'" --trace "$work/good.csv" --restart-cost nan "${run[@]}"
expect reference_restart_cost "--restart-cost: '30' is not charged with --reference-compatible" \
  --trace "$work/good.csv" --restart-cost 30 --reference-compatible "${run[@]}"
expect reference_resize "--resize-in-place and --keep-leases: not with --reference-compatible" \
  --trace "$work/good.csv" --resize-in-place --reference-compatible "${run[@]}"
expect unknown_type_choice "--type-choice: 'best' is not one of" --trace "$work/good.csv" --type-choice best "${run[@]}"
expect type_without_speed "unknown_type.yaml: gpu_type 'a100': model 'alexnet' has no gpu_speed" \
  --cluster "$work/unknown_type.yaml" --trace "$work/good.csv" "${run[@]}"
expect bad_type_name "bad_type.yaml:2: servers[0].gpu_type: 'V 100'" --cluster "$work/bad_type.yaml" \
  --trace "$work/good.csv" "${run[@]}"
expect job_above_every_type "big.csv:1: gpus: '48': is more than any one GPU type's 40 GPUs" \
  --cluster "$SRC_CLUSTERS/hetero-120.yaml" --trace "$work/big.csv" "${run[@]}"
expect reference_types "several GPU types, not with --reference-compatible" \
  --cluster "$SRC_CLUSTERS/hetero-120.yaml" --trace "$work/good.csv" --reference-compatible "${run[@]}"

# A good run still works and writes a complete report, with the restart
# model's settings and counts.
if "$sim" run --trace "$work/good.csv" "${run[@]}" --restart-cost 30 --resize-in-place --out "$work/good" >/dev/null &&
   [[ -f $work/good/summary.json && -f $work/good/jobs.csv ]] &&
   grep -q '"restart_cost_s": 30' "$work/good/summary.json" && grep -q '"resizes": 0' "$work/good/summary.json" &&
   [[ $(head -1 "$work/good/jobs.csv") == *,jct_s,restarts,resizes ]]; then
  echo "ok   good run"
else
  echo "FAIL good run"
  failed=1
fi
exit $failed
