#!/usr/bin/env bash
# Launches between rounds through a real synergyd and node (issue 41):
# rounds of 60 s, one node of two GPUs, three one-GPU plain jobs submitted
# just after a round. The submissions are events: the first two start
# within seconds, not at the next round; the third waits, and starts
# within 2 s of the first one's end, on the GPU it freed. With
# launch_between_rounds: false, all three wait for the round.
# usage: launches_between_rounds.sh BUILD_DIR
BIN=$1
TEST=launches_between_rounds
source "$(dirname "$0")/lib.sh"

ROUND_S=60
POLICY=fifo
# field ID KEY: a top-level field of the job as -o json shows it (0 if unset)
field() { ctl get job "$1" -o json | python3 -c "import json, sys; print(json.load(sys.stdin)['jobs'][0].get('$2', 0))"; }
plain() {  # NAME SECONDS: a one-GPU plain process that sleeps; prints its id
  printf 'name: %s\ngpus: 1\ncommand: ["sleep", "%s"]\n' "$1" "$2" >"$work/$1.yaml"
  ctl submit -f "$work/$1.yaml" || fail "submit $1 refused"
}
wait_state() {  # ID STATE SECONDS
  local deadline=$((SECONDS + $3))
  until [[ $(state_of "$1") == "$2" ]]; do
    ((SECONDS < deadline)) || fail "$1 is $(state_of "$1") after $3 s, not $2"
    sleep 0.1
  done
}

run_three() {  # prints the ids of the three jobs
  start_node n1 2
  wait_for_nodes 1
  first=$(plain first 3)
  second=$(plain second 300)
  third=$(plain third 300)
}

# ---- on (the default)
start_daemon
run_three
# The round at start saw no job; the next is a minute away.
wait_state "$first" running 10
wait_state "$second" running 10
[[ $(state_of "$third") == queued ]] || fail "the third job is $(state_of "$third"), not queued"
ctl describe job "$third" | grep -q "^Next round: .*(in [0-9]*s; jobs ahead 0)" ||
  fail "describe does not show the next round: $(ctl describe job "$third")"
wait_state "$first" succeeded 20
wait_state "$third" running 10
ended=$(field "$first" finished_unix_ms)
# Running: it holds a lease; launched once the node's report shows it.
for _ in $(seq 50); do
  started=$(field "$third" first_launch_unix_ms)
  ((started > 0)) && break
  sleep 0.1
done
gap=$((started - ended))
echo "first ended at $ended, third launched at $started: ${gap} ms later (next round was ~60 s away)"
((gap >= 0 && gap <= 2000)) || fail "the third job started ${gap} ms after the first ended, not within 2 s"
ctl describe job "$third" | grep -q "granted: n1 .*, between rounds" || fail "the third job's lease does not say it came between rounds"
gpu_of() { ctl describe job "$1" | sed -n 's/^  rank 0: *n1 gpus \([0-9]*\) .*/\1/p'; }
[[ $(gpu_of "$third") != "$(gpu_of "$second")" ]] || fail "the third job shares a GPU with the second"
ctl cancel "$second" >/dev/null
ctl cancel "$third" >/dev/null
kill -9 -- "-$daemon_pid" 2>/dev/null
kill -9 -- "-$node_pid_n1" 2>/dev/null
pkill -9 -f "sleep 300" 2>/dev/null
sleep 0.3
rm -rf "$work/state.db"* "$work/state-n1"
port=$(free_port)
server=127.0.0.1:$port
export SYNERGY_SERVER=$server

# ---- off: only rounds launch
start_daemon "launch_between_rounds: false"
run_three
sleep 5
for id in "$first" "$second" "$third"; do
  [[ $(state_of "$id") == pending ]] || fail "with launches off $id is $(state_of "$id") before the round"
done
echo ok
