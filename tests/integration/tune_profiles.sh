#!/usr/bin/env bash
# Profiles decide the CPUs, end to end: one node with 2 GPUs offering 4 CPU
# slots over cores 0-1 (cpu_slots: each slot half a core of CPU time, a
# cpu cgroup limit where the machine has one), two agent jobs that profile
# themselves first (profile: true): one CPU-sensitive up to 3 data workers
# (--cpu-knee 3), one not. Under PROPORTIONAL both train with 2 CPUs; under
# TUNE the sensitive job trains with 3 and the other with 1, and where the
# cpu cgroup exists the sensitive job's quota is 1.5 cores. Both end with
# the value of an uninterrupted run either way.
# usage: tune_profiles.sh BUILD_DIR
BIN=$1
TEST=tune_profiles
source "$(dirname "$0")/lib.sh"

NODE_CPUS="0, 1"
NODE_EXTRA="cpu_slots: 4"
# The CPUs of a job's training leases, from its events: "lease 3 granted:
# n1 gpus 0 cpus 0-2 (3) mem ...".
training_cpus() { ctl describe job "$1" | grep -v profiling | sed -n 's/.* lease [0-9]* granted: .* cpus [^ ]* (\([0-9]*\)) mem.*/\1/p' | sort -u | tr '\n' ' '; }

check_run() {  # MECHANISM SENSITIVE_CPUS FLAT_CPUS
  local mechanism=$1 want_sensitive=$2 want_flat=$3
  MECHANISM=$mechanism start_daemon
  start_node n1 2
  wait_for_nodes 1
  for job in sensitive flat; do
    local knee=""
    [[ $job == sensitive ]] && knee='"--cpu-knee", "3", '
    cat >"$work/$job.yaml" <<JOB
name: $job
gpus: 1
iterations: 150
uses_agent: true
profile: true
command: ["$BIN/tests/agent_job", "--iteration-ms", "10", $knee"--checkpoint-dir", "$work/ckpt-$mechanism"]
JOB
  done
  local sensitive flat
  sensitive=$(ctl submit -f "$work/sensitive.yaml") || fail "submit refused"
  flat=$(ctl submit -f "$work/flat.yaml") || fail "submit refused"
  # Where the cpu cgroup works, the sensitive job's training lease is
  # limited to its slots' share of the two cores.
  local quota="" deadline=$((SECONDS + 60))
  while ((SECONDS < deadline)) && [[ $(state_of "$sensitive") != succeeded ]]; do
    for f in $(find /sys/fs/cgroup/cpu /sys/fs/cgroup/unified /sys/fs/cgroup -maxdepth 6 -path "*synergy/$sensitive.*" \
      \( -name cpu.cfs_quota_us -o -name cpu.max \) 2>/dev/null); do
      q=$(cut -d' ' -f1 "$f" 2>/dev/null)
      [[ -n $q && $q != -1 && $q != max ]] && quota=$q
    done
    sleep 0.2
  done
  wait_until_done 90 "$sensitive" "$flat"
  ctl get jobs -o wide
  for id in "$sensitive" "$flat"; do
    [[ $(state_of "$id") == succeeded ]] || fail "$mechanism: $id is $(state_of "$id")"
    ctl describe job "$id" | grep -q "^Profile: *measured: 12 points" || { ctl describe job "$id"; fail "$id: not profiled at 3 CPU x 4 memory points"; }
    [[ $(cat "$work/ckpt-$mechanism/$id.result") == "$(expected_state 150)" ]] || fail "$id: wrong result"
  done
  local got_sensitive got_flat
  got_sensitive=$(training_cpus "$sensitive")
  got_flat=$(training_cpus "$flat")
  echo "$mechanism: sensitive trained with ${got_sensitive}CPUs, flat with ${got_flat}CPUs; cpu quota seen: ${quota:-none (no cpu cgroup)}"
  [[ $got_sensitive == "$want_sensitive " ]] || fail "$mechanism: sensitive job got $got_sensitive CPUs, want $want_sensitive"
  [[ $got_flat == "$want_flat " ]] || fail "$mechanism: flat job got $got_flat CPUs, want $want_flat"
  if [[ $mechanism == tune && -n $quota ]]; then
    [[ $quota == 30000 ]] || fail "tune: the sensitive job's cpu quota is $quota us per 20 ms, want 30000 (1.5 cores)"
  fi
  # With the cpu cgroup each profile point ran under its own share of the
  # cores: k slots, k x 10000 us per 20 ms period.
  if [[ -n $quota ]]; then
    local points
    points=$(cat "$work"/logs-n1/"$sensitive".*.out | sed -n 's/^agent_job profile point \([0-9]*\) cpus: cpu limit \([0-9]*\)$/\1:\2/p' | sort -u | tr '\n' ' ')
    [[ -n $points ]] || fail "$mechanism: the profiling lease had no CPU-time limit to set"
    for p in $points; do
      [[ ${p#*:} == $((${p%:*} * 10000)) ]] || fail "$mechanism: profile point ${p%:*} CPUs ran under a limit of ${p#*:} us"
    done
    echo "$mechanism: profile points (CPUs:quota us) $points"
  fi
  kill -9 -- "-$daemon_pid" 2>/dev/null
  kill -9 -- "-$node_pid_n1" 2>/dev/null
  sleep 0.3
  rm -f "$work/state.db"*
}

check_run proportional 2 2
port=$(free_port)
server=127.0.0.1:$port
export SYNERGY_SERVER=$server
check_run tune 3 1
echo "ok tune_profiles"
