#!/usr/bin/env bash
# synergy-sim import as a user runs it: a seeded sample of each format
# (scripts/trace-samples) imported, then replayed with the cluster the
# import wrote or was given; on a cluster where nothing queues, the
# `requested` mechanism replays every job for its recorded duration (to the
# second). Bad input exits 2 naming the file, line and field, and writes
# nothing.
# usage: trace_import.sh SYNERGY_SIM SOURCE_DIR
set -uo pipefail
sim=$1
src=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failed=0
fail() {
  echo "FAIL $*"
  failed=1
}

for f in openb pai2020 helios philly; do
  "$src/scripts/trace-samples" "$f" --jobs 300 --seed 3 --out "$work/$f" || fail "trace-samples $f"
done
printf 'servers:\n  - {name: h-, count: 8, gpus: 8, cpus: 64, memory_gb: 512, storage_mbps: 500}\n' >"$work/h.yaml"
# Larger than any sample's busiest moment, of no GPU type: nothing queues.
printf 'servers:\n  - {name: b-, count: 400, gpus: 8, cpus: 128, memory_gb: 1024, storage_mbps: 500}\n' >"$work/big.yaml"

# kept DIR: the jobs import.json says were kept.
kept() { python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['jobs']['kept'])" "$1/import.json"; }

# replay NAME IMPORT_ARGS... -- RUN_ARGS...: imports, replays under FIFO/TUNE
# and checks the replay finished every kept job.
replay() {
  local name=$1
  shift
  local import=() run=()
  while [[ $1 != -- ]]; do import+=("$1"); shift; done
  shift
  run=("$@")
  if ! "$sim" import "${import[@]}" --out "$work/i-$name" >/dev/null 2>"$work/err"; then
    fail "import $name: $(cat "$work/err")"
    return
  fi
  if ! "$sim" run --trace "$work/i-$name/trace.csv" "${run[@]}" --policy fifo --mechanism tune --no-progress \
    --out "$work/r-$name" >/dev/null 2>"$work/err"; then
    fail "replay $name: $(cat "$work/err")"
    return
  fi
  local n
  n=$(($(wc -l <"$work/r-$name/jobs.csv") - 1))
  if ((n != $(kept "$work/i-$name") || n == 0)); then
    fail "$name: replayed $n jobs, import.json kept $(kept "$work/i-$name")"
  else
    echo "ok   $name: $n jobs imported and replayed"
  fi
}
replay openb openb --in "$work/openb/openb_pod_list_default.csv" --nodes "$work/openb/openb_node_list_gpu_node.csv" \
  -- --cluster "$work/i-openb/cluster.yaml"
replay pai2020 pai2020 --in "$work/pai2020/pai_task_table.csv" --nodes "$work/pai2020/pai_machine_spec.csv" \
  -- --cluster "$work/i-pai2020/cluster.yaml"
replay helios helios --in "$work/helios/cluster_log.csv" --cluster "$work/h.yaml" -- --cluster "$work/h.yaml"
replay philly philly --in "$work/philly/cluster_job_log" --
# The same sample and seed import to the same bytes.
"$sim" import philly --in "$work/philly/cluster_job_log" --out "$work/i-philly-again" >/dev/null &&
  cmp -s "$work/i-philly/trace.csv" "$work/i-philly-again/trace.csv" || fail "philly: a second import differs"

# `requested` where nothing queues: each job runs from its arrival for its
# recorded duration.
"$sim" import openb --in "$work/openb/openb_pod_list_default.csv" --cluster "$work/big.yaml" --keep-failed \
  --out "$work/i-big" >/dev/null || fail "import openb on big.yaml"
"$sim" run --trace "$work/i-big/trace.csv" --cluster "$work/big.yaml" --policy fifo --mechanism requested \
  --no-progress --out "$work/r-big" >/dev/null || fail "replay under requested"
if python3 - "$work/i-big/trace.csv" "$work/r-big/jobs.csv" <<'PY'; then
import csv, sys
recorded = {r["job_id"]: float(r["duration_s"]) for r in csv.DictReader(open(sys.argv[1]))}
rows = list(csv.DictReader(open(sys.argv[2])))
bad = [r["job_id"] for r in rows
       if float(r["start_s"]) != float(r["arrival_s"])
       or round(float(r["finish_s"]) - float(r["start_s"])) != recorded[r["job_id"]]]
print(f"ok   requested: {len(rows) - len(bad)} of {len(rows)} jobs ran for their recorded durations")
sys.exit(1 if bad or len(rows) != len(recorded) else 0)
PY
  :
else
  fail "requested did not reproduce the recorded durations"
fi

# expect NAME "fragment" IMPORT_ARGS...: exit 2, the fragment, no output.
expect() {
  local name=$1 fragment=$2
  shift 2
  local out=$work/bad-$name err
  err=$("$sim" import "$@" --out "$out" 2>&1 >/dev/null)
  local rc=$?
  if [[ $rc -ne 2 ]]; then
    fail "$name: exit status $rc, expected 2 ($err)"
  elif [[ $err != *"$fragment"* ]]; then
    fail "$name: message '$err' lacks '$fragment'"
  elif [[ -e $out ]]; then
    fail "$name: left $out behind"
  else
    echo "ok   $name: $(head -1 <<<"$err")"
  fi
}
pods=$work/openb/openb_pod_list_default.csv
nodes=$work/openb/openb_node_list_gpu_node.csv
head -3 "$pods" >"$work/truncated.csv" && echo "openb-pod-9999,12000,16384" >>"$work/truncated.csv"
{ head -1 "$pods"; echo "openb-pod-9999,12000,16384,1,1000,,LS,Succeeded,-7,100,0"; } >"$work/negative.csv"
{ head -1 "$pods"; echo "openb-pod-9999,900000,16384,1,1000,,LS,Succeeded,0,100,0"; } >"$work/huge.csv"
{ head -1 "$pods"; echo "openb-pod-9999,1000,16384,1,1000,A100,LS,Succeeded,0,100,0"; } >"$work/a100.csv"
expect truncated "truncated.csv:4: 'openb-pod-9999,12000,16384': has 3 fields" openb --in "$work/truncated.csv" --nodes "$nodes"
expect header "cluster_log.csv:1: header:" openb --in "$work/helios/cluster_log.csv" --nodes "$nodes"
expect negative_time "negative.csv:2: creation_time: '-7'" openb --in "$work/negative.csv" --nodes "$nodes"
expect larger_than_any_node "huge.csv:2: cpu_milli: the job (1 GPUs, 900 cores" openb --in "$work/huge.csv" --nodes "$nodes"
expect unknown_gpu_model "a100.csv:2: GPU model 'A100' is not in the GPU model table" openb --in "$work/a100.csv" --nodes "$nodes"
expect unknown_format "format: 'alibaba': is not one of" alibaba --in "$pods"
expect missing_in "--in: '' is required" openb --nodes "$nodes"
expect nodes_and_cluster "--nodes and --cluster" openb --in "$pods" --nodes "$nodes" --cluster "$work/h.yaml"
"$sim" import --help >/dev/null || fail "import --help"
exit $failed
