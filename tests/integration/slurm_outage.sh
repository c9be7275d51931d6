#!/usr/bin/env bash
# A slurmctld that stops answering for 45 s under synergyd's Slurm executor
# (F4 of the Slurm site review: 22.05's sinfo and squeue then exit 0 with an
# "errors" list and no nodes or jobs, which synergyd read as an empty
# cluster: its nodes were lost, leases ended, and when slurmctld came back
# every still-running job was cancelled). Checks that while Slurm cannot be
# read synergyd keeps its nodes and leases as last seen, says so once in its
# log, in /readyz and in /metrics, cancels nothing, and that afterwards the
# jobs run on under the same leases and end with the results of an
# uninterrupted run. Skipped (77) without root or the packages.
# usage: slurm_outage.sh BUILD_DIR
BIN=$1
TEST=slurm_outage
if [[ $(id -u) != 0 ]]; then echo "skip slurm_outage: slurmd runs jobs as their owner, which needs root"; exit 77; fi
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/slurm_lib.sh"
trap 'kill -CONT "${slurmctld_pid:-0}" 2>/dev/null; slurm_cleanup; cleanup' EXIT
slurm_available || { echo "skip slurm_outage: Slurm and munge are not installed and could not be"; exit 77; }
start_slurm_cluster sn1 sn2

METRICS_PORT=$(free_port)
# A step blocked on an unanswering slurmctld lasts Slurm's MessageTimeout
# (10 s): synergyd's heartbeat timeout must be longer (docs/slurm.md).
export HEARTBEAT_TIMEOUT_S=30 HEARTBEAT_MS=500
ROUND_S=4 POLICY=fifo start_daemon "executor: slurm" \
  "slurm: {partition: synergy, log_dir: $work/slurm-logs, work_dir: $work, tls_ca: $pki/ca.crt, slurm_conf: $SLURM_CONF, accounts: {admin: root}, allow_root_jobs: true}"
wait_for_nodes 2
http_get() {
  python3 - "$METRICS_PORT" "$1" <<'PY'
import sys, urllib.request, urllib.error
try:
    print(urllib.request.urlopen(f"http://127.0.0.1:{sys.argv[1]}{sys.argv[2]}", timeout=5).read().decode())
except urllib.error.HTTPError as e:
    print(e.read().decode())
PY
}
metric() { http_get /metrics | awk -v m="$1" '$1 == m { print $2 }'; }

# Two jobs of ~90 s each (6,000 iterations of 15 ms): they outlast the outage.
ids=("$(submit a 1 res18 6000)" "$(submit b 1 res18 6000)")
deadline=$((SECONDS + 60))
until [[ $(ctl get jobs | awk '$3 == "running" && $5 ~ /^[1-9][0-9]*\// { n++ } END { print n + 0 }') == 2 ]]; do
  ((SECONDS < deadline)) || fail "the jobs did not start: $(ctl get jobs)"
  sleep 0.5
done
cancels() { grep -E "slurm: .*(cancelled|cancelling)" "$work/synergyd.log" | grep -v "cannot read the cluster"; }
cancels_before=$(cancels | wc -l)

echo "slurmctld stopped for 45 s"
kill -STOP "$slurmctld_pid"
outage_end=$((SECONDS + 45))
said_unready=0
while ((SECONDS < outage_end)); do
  [[ $(http_get /readyz) == *"Slurm cannot be read"* ]] && said_unready=1
  sleep 2
done
kill -CONT "$slurmctld_pid"
echo "slurmctld answers again"
((said_unready)) || fail "/readyz never said Slurm could not be read"
[[ $(grep -c "slurm: cannot read the cluster" "$work/synergyd.log") == 1 ]] ||
  fail "the outage was not logged once: $(grep "slurm: cannot read" "$work/synergyd.log")"
grep "slurm: cannot read the cluster" "$work/synergyd.log"
(($(metric synergy_slurm_outages_total) >= 1)) || fail "synergy_slurm_outages_total is $(metric synergy_slurm_outages_total)"
grep -q "node sn[12] lost" "$work/synergyd.log" && fail "a node was lost during the outage"

wait_until_done 240 "${ids[@]}"
for id in "${ids[@]}"; do
  [[ $(state_of "$id") == succeeded ]] || fail "$id is $(state_of "$id")"
  [[ $(cat "$work/ckpt/$id.result") == "$(expected_state 6000)" ]] ||
    fail "$id ended with $(cat "$work/ckpt/$id.result"), an uninterrupted run gives $(expected_state 6000)"
  leases=$(ctl describe job "$id" | grep -c "lease .* granted")
  ((leases == 1)) || fail "$id had $leases leases: the outage ended its lease ($(ctl describe job "$id" | grep lease))"
done
[[ $(cancels | wc -l) == "$cancels_before" ]] || fail "synergyd cancelled something: $(cancels | tail -3)"
echo "ok slurm_outage"
