#!/usr/bin/env bash
# synergyd's Slurm executor on a Slurm shared with other work, as a site runs
# it (issue 39): two nodes of 8 GPUs and 8 CPUs in synergyd's partition and
# in a second partition, "other", that other users submit to. Checks that
#   - another user's job on sn1 (partition other) is planned around: synergyd
#     shows it with the node, places no lease on its GPUs, and gives them
#     out once it has ended; no lease job ever waits in Slurm's queue;
#   - lease jobs run as their owner's account and its primary group
#     (nobody:nogroup here), charged to the Slurm account the config maps
#     the owner to, their output in a folder of the account's own, 0700;
#   - 200 short jobs under LAS with 2 s rounds (the site's F6 run): every job
#     succeeds, and none runs again after it completed (each job's runs are
#     its Slurm jobs: one completed, the others stopped by a round);
#     the run's wall time and Slurm commands are printed for docs/slurm.md.
# Skipped (77) without root or without the packages.
# usage: slurm_site.sh BUILD_DIR
BIN=$1
TEST=slurm_site
if [[ $(id -u) != 0 ]]; then echo "skip slurm_site: slurmd runs jobs as their owner, which needs root"; exit 77; fi
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/slurm_lib.sh"
trap 'slurm_cleanup; cleanup' EXIT
slurm_available || { echo "skip slurm_site: Slurm and munge are not installed and could not be"; exit 77; }
SLURM_SHARED=1 SLURM_NODE_CPUS=8 SLURM_NODE_GPUS=8 SLURM_NODE_MEM_MB=8000 start_slurm_cluster sn1 sn2
sinfo

nobody_uid=$(id -u nobody)
nobody_gid=$(id -g nobody)
logs=$work/slurm-logs
# Jobs run as nobody: they reach the work folder and write nothing there.
chmod o+x "$work"
export HEARTBEAT_TIMEOUT_S=8
export HEARTBEAT_MS=500
METRICS_PORT=$(free_port)
export METRICS_PORT
daemon_lines=(
  "executor: slurm"
  "slurm: {partition: synergy, log_dir: $logs, work_dir: /tmp, tls_ca: $pki/ca.crt, slurm_conf: $SLURM_CONF, accounts: {alice: nobody, bob: nobody, admin: nobody}, account_of_user: {alice: physics}, read_interval_s: 2}"
)
ROUND_S=2 POLICY=las MECHANISM=tune start_daemon "${daemon_lines[@]}"
wait_for_nodes 2

# A plain job of GPUS GPUs running COMMAND (sh -c), as alice.
submit_plain() {
  local name=$1 gpus=$2 command=$3
  printf 'name: %s\ngpus: %s\ncommand: ["sh", "-c", "%s"]\n' "$name" "$gpus" "$command" >"$work/$name.yaml"
  SYNERGY_TOKEN=$ALICE_TOKEN ctl submit -f "$work/$name.yaml" || fail "submit $name refused"
}
# Lease jobs Slurm holds in its queue for want of resources (PENDING,
# Reason=Resources), by name. A job just submitted is PENDING with no
# reason until slurmctld's scheduler has looked at it, which on a loaded
# machine (the sanitized run) takes seconds.
pending_lease_jobs() {
  timeout 10 squeue --json | python3 -c "
import json, sys
for j in json.load(sys.stdin)['jobs']:
    if j['name'].startswith('synergy-') and j['job_state'] == 'PENDING' and j.get('state_reason') == 'Resources':
        print(j['name'])
"
}

# ---- another user's job on sn1 takes 6 of its GPUs and 4 CPUs
foreign=$(runuser -u nobody -- env SLURM_CONF="$SLURM_CONF" sbatch --parsable -p other -w sn1 --gres=gpu:6 \
  --cpus-per-task=4 --mem=1000 -o /dev/null --chdir=/tmp --wrap 'sleep 600') || fail "the other user's sbatch was refused"
deadline=$((SECONDS + 20))
until ctl describe node sn1 | grep -q "Other work.*6 GPUs, 4 CPUs"; do
  ((SECONDS < deadline)) || { ctl describe node sn1; fail "sn1 does not show the other user's job"; }
  sleep 0.3
done
echo "ok   sn1 shows the other user's job: $(ctl describe node sn1 | grep 'Other work')"
# Two 6-GPU jobs: one fits sn2; sn1 has 2 GPUs left, so the other waits
# in synergyd, not in Slurm's queue (a plain process holding a lease is not
# time-sliced by LAS: the first runs on).
big1=$(submit_plain big1 6 "echo uid \$(id -u) gid \$(id -g); sleep 600")
big2=$(submit_plain big2 6 "sleep 600")
deadline=$((SECONDS + 30))
until [[ $(state_of "$big1") == running || $(state_of "$big2") == running ]]; do
  ((SECONDS < deadline)) || fail "neither 6-GPU job started"
  sleep 0.3
done
# Four rounds: neither is placed on sn1's foreign GPUs meanwhile, and no
# lease job waits in Slurm's queue for resources (seen so twice, 2 s
# apart).
before=""
for _ in 1 2 3 4; do
  now=$(pending_lease_jobs)
  waiting=$(comm -12 <(echo "$before" | sort) <(echo "$now" | sort) | grep . || true)
  [[ -z $waiting ]] || fail "a lease job waits in Slurm's queue: $waiting"
  before=$now
  sleep 2
done
! grep -E "lease [0-9]+ granted: sn1" "$work/synergyd.log" || fail "a lease was placed on sn1's foreign GPUs"
grep -qE "lease [0-9]+ granted: sn2" "$work/synergyd.log" || fail "no lease on sn2"
echo "ok   a 6-GPU job runs on sn2 (plain processes are not time-sliced); none is placed on the foreign job's GPUs of sn1"
scancel "$foreign"
deadline=$((SECONDS + 30))
until [[ $(state_of "$big1") == running && $(state_of "$big2") == running ]]; do
  ((SECONDS < deadline)) || { ctl get jobs; fail "the other user's GPUs were not given out after its job ended"; }
  sleep 0.3
done
echo "ok   once the other job ended, both 6-GPU jobs run"

# ---- identity: nobody:nogroup, account physics, a folder of its own
out=$(ls "$logs"/nobody/*/"$big1".*.out | head -1)
node_of_big1=$(basename "$(dirname "$out")")
deadline=$((SECONDS + 10))
until grep -q "^uid" "$out" 2>/dev/null; do ((SECONDS < deadline)) || fail "$out says nothing"; sleep 0.2; done
[[ $(cat "$out") == *"uid $nobody_uid gid $nobody_gid"* ]] || fail "the job ran as $(cat "$out"), not $nobody_uid:$nobody_gid"
for d in "$logs/nobody" "$logs/nobody/$node_of_big1"; do
  [[ $(stat -c %a:%u:%g "$d") == "700:$nobody_uid:$nobody_gid" ]] || fail "$d is $(stat -c %a:%u:%g "$d")"
done
account=$(timeout 10 squeue --json | python3 -c "
import json, sys
print([j['account'] for j in json.load(sys.stdin)['jobs'] if j['name'].startswith('synergy-$big1-')][0])")
[[ $account == physics ]] || fail "the lease job is charged to '$account', not physics"
echo "ok   lease jobs run as nobody:nogroup ($nobody_uid:$nobody_gid), charged to physics, output in a 0700 folder of nobody's"
for id in "$big1" "$big2"; do SYNERGY_TOKEN=$ALICE_TOKEN ctl cancel "$id" >/dev/null || fail "cancel $id refused"; done
deadline=$((SECONDS + 30))
until [[ -z $(timeout 10 squeue -h -t running,pending -p synergy -o %i) ]]; do
  ((SECONDS < deadline)) || fail "the 6-GPU jobs' Slurm jobs did not end"
  sleep 0.3
done

# ---- 200 short jobs (the site's F6 run, on 16 GPUs)
before() { metric "synergy_slurm_commands_total{command=\"$1\"}"; }
sbatch0=$(before sbatch) squeue0=$(before squeue) sinfo0=$(before sinfo) scancel0=$(before scancel)
start=$SECONDS
ids=()
for i in $(seq 200); do
  ids+=("$(submit_plain "short$i" 1 "echo run; sleep 1; echo completed")")
done
# One listing a pass (state_of would ask 200 times).
unfinished() {
  ctl get jobs -o json | python3 -c "
import json, sys
ids = set(sys.argv[1:])
print(sum(1 for j in json.load(sys.stdin)['jobs'] if j['id'] in ids and
          j['state'] not in ('JOB_STATE_SUCCEEDED', 'JOB_STATE_FAILED', 'JOB_STATE_CANCELLED')))
" "$@"
}
deadline=$((SECONDS + 600))
until [[ $(unfinished "${ids[@]}") == 0 ]]; do
  ((SECONDS < deadline)) || { ctl get jobs | tail -20; fail "200 short jobs not done in 600 s"; }
  sleep 1
done
wall=$((SECONDS - start))
scancel_failed=$(metric 'synergy_slurm_command_failures_total{command="scancel"}')
sbatch=$(($(before sbatch) - sbatch0)) squeue_n=$(($(before squeue) - squeue0))
sinfo_n=$(($(before sinfo) - sinfo0)) scancel=$(($(before scancel) - scancel0))
python3 - "$logs/nobody" "${ids[@]}" <<'PY' || fail "a job ran again after it completed"
import glob, os, sys
logs, ids = sys.argv[1], sys.argv[2:]
runs = reruns = stopped = 0
for job in ids:
    outs = sorted(glob.glob(f"{logs}/*/{job}.*.out"), key=lambda p: int(p.rsplit(".", 2)[1]))
    done = [p for p in outs if "completed" in open(p).read()]
    runs += len(outs)
    stopped += len(outs) - len(done)
    if len(done) != 1 or done[0] != outs[-1]:
        reruns += 1
        print(f"{job}: runs {[os.path.basename(p) for p in outs]}, completed in {[os.path.basename(p) for p in done]}")
print(f"200 jobs: {runs} runs, {stopped} stopped by a round and run again, {reruns} run again after completing")
sys.exit(1 if reruns else 0)
PY
failed=$(ctl get jobs -o json | python3 -c "
import json, sys
ids = set(sys.argv[1:])
print(' '.join(j['id'] + ':' + j['state'] for j in json.load(sys.stdin)['jobs'] if j['id'] in ids and j['state'] != 'JOB_STATE_SUCCEEDED'))
" "${ids[@]}")
[[ -z $failed ]] || fail "not every short job succeeded: $failed"
echo "ok   200 short jobs: wall ${wall} s, sbatch $sbatch, squeue $squeue_n, sinfo $sinfo_n, scancel $scancel ($scancel_failed failed) (rounds of 2 s, read_interval_s 2)"
echo "PASS"
