#!/usr/bin/env bash
# A highly available synergyd (issue 43): two synergyd on one PostgreSQL,
# two nodes and an operator's synergyctl given both addresses, jobs running.
# - kill -9 of the leader in the middle of a flood of submissions, KILLS
#   times (3), alternating: the standby takes over, the killed one comes
#   back as the standby. Every acknowledged submission is there afterwards,
#   no epoch is led twice, no job runs twice, and the running jobs keep
#   their leases (launched once, never relaunched); the agent job reports
#   progress to whichever leads. Each takeover's time (kill -9 to the new
#   leader's first round) is printed.
#   FAILOVER_S (2) is the daemons' store.failover_s.
# - PostgreSQL stopped for PG_OUTAGE_S (20) seconds: the leader refuses
#   changes meanwhile (/readyz 503, submissions refused) and keeps its
#   nodes; once PostgreSQL is back it resumes as the leader, at the same
#   epoch, without relaunching anything.
# Skipped (77) where PostgreSQL is not installed.
BIN=$1
TEST=postgres_ha
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/postgres_lib.sh"
KILLS=${KILLS:-3}
PG_OUTAGE_S=${PG_OUTAGE_S:-20}  # 0: no outage
FAILOVER_S=${FAILOVER_S:-2}

declare -A listen metrics pid
for d in a b; do
  listen[$d]=127.0.0.1:$(free_port)
  metrics[$d]=$(free_port)
done
export SYNERGY_SERVER="${listen[a]},${listen[b]}"
# daemon NAME [WAIT]: starts synergyd NAME (a standby where the other leads).
daemon() {
  DAEMON_NAME=synergyd-$1 DAEMON_LISTEN=${listen[$1]} METRICS_PORT=${metrics[$1]} DAEMON_WAIT=${2:-1} \
    STORE_YAML="store: {kind: postgres, dsn: \"$dsn\", instance: $1, failover_s: $FAILOVER_S}" \
    POLICY=fifo ROUND_S=1 HEARTBEAT_TIMEOUT_S=20 start_daemon
  pid[$1]=$daemon_pid
}
# leader_metric NAME D: NAME on D's /metrics (empty where D does not answer)
metric_of() { METRICS_PORT=${metrics[$2]} metric "$1" 2>/dev/null; }
readyz_of() { curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:${metrics[$1]}/readyz"; }

daemon a
daemon b 0
for _ in $(seq 100); do grep -q "standby:" "$work/synergyd-b.log" && break; sleep 0.05; done
grep -q "synergyd 'a' leads" "$work/synergyd-b.log" || fail "b is not a standby naming a"
[[ $(readyz_of b) == 503 ]] || fail "the standby's /readyz is $(readyz_of b), not 503"
[[ $(readyz_of a) == 200 ]] || fail "the leader's /readyz is $(readyz_of a), not 200"
# A standby refuses calls naming the leader; synergyctl with both finds a.
said=$("$BIN/synergyctl" --server "${listen[b]}" get jobs 2>&1)
[[ $said == *"synergyd 'b' is a standby"*"synergyd 'a' leads"* ]] || fail "a call to the standby said: $said"

NODE_SCHEDULER=$SYNERGY_SERVER start_node n1 2
NODE_SCHEDULER=$SYNERGY_SERVER start_node n2 2
wait_for_nodes 2
# Four long jobs fill the four GPUs: three plain ones and an agent job.
long=()
for i in 1 2 3; do
  printf 'name: long%s\ngpus: 1\ncommand: ["/bin/sh", "-c", "sleep 900.5; : long%s of %s"]\n' "$i" "$i" "$work" \
    >"$work/long$i.yaml"
  long+=("$(ctl submit -f "$work/long$i.yaml")") || fail "submit long$i"
done
agent=$(submit agentjob 1 res18 1000000)
long+=("$agent")
launches_of() { cat "$work"/node-n*.log | grep -c "launched $1 lease"; }
for _ in $(seq 200); do
  all=1
  for id in "${long[@]}"; do (($(launches_of "$id") == 1)) || all=0; done
  ((all)) && break
  sleep 0.1
done
((all)) || fail "the four long jobs did not all start"
copies() {
  local pids
  pids=$(pgrep -f -- "$1" | paste -sd, -)
  [[ -n $pids ]] || { echo 0; return; }
  ps -o pgid=,stat= -p "$pids" | awk '$2 !~ /^Z/ { print $1 }' | sort -u | wc -l
}
touch "$work/watching"
(
  while [[ -e $work/watching ]]; do
    echo "$(copies ": long1 of $work") $(copies ": long2 of $work") $(copies ": long3 of $work")" \
      "$(copies "agent_job --iteration-ms 15 --checkpoint-dir $work/ckpt")" >>"$work/copies"
    sleep 0.1
  done
) </dev/null >/dev/null 2>&1 &
pids+=("$!")

# The flood: one submission after another; what synergyd acknowledged is
# kept. While no one leads, submissions fail (and are not acknowledged).
printf 'name: flood\ngpus: 1\ncommand: ["/bin/true"]\n' >"$work/flood.yaml"
touch "$work/flooding"
(
  while [[ -e $work/flooding ]]; do
    if id=$("$BIN/synergyctl" submit -f "$work/flood.yaml" 2>>"$work/flood.err"); then echo "$id" >>"$work/acked"; fi
  done
) </dev/null >/dev/null 2>&1 &
flood=$!
pids+=("$flood")

progress_of() {
  ctl get job "$agent" -o json | python3 -c 'import json,sys; print(int(json.load(sys.stdin)["jobs"][0].get("iterations_done", 0)))'
}
leader=a
standby=b
for k in $(seq "$KILLS"); do
  sleep 1.5
  before=$(wc -l <"$work/acked")
  iteration=$(progress_of)
  took=$(grep -c "took the state over" "$work/synergyd-$standby.log")
  kill -9 "${pid[$leader]}"
  killed_at=$(date +%s.%N)
  # The new leader's first round: its synergy_rounds_total is 1 or more.
  for _ in $(seq $((FAILOVER_S * 20 + 200))); do
    rounds=$(metric_of synergy_rounds_total "$standby") && ((rounds >= 1)) && break
    sleep 0.05
  done
  ((${rounds:-0} >= 1)) || fail "kill $k: $standby did not take over and run a round"
  echo "takeover $k: $(python3 -c "import time; print(f'{time.time() - $killed_at:.2f}')") s from kill -9 of $leader to $standby's first round"
  (($(grep -c "took the state over" "$work/synergyd-$standby.log") == took + 1)) || fail "kill $k: $standby did not say it took over"
  # The killed one comes back, as the standby (what it logs from now on).
  from=$(($(wc -l <"$work/synergyd-$leader.log") + 1))
  daemon "$leader" 0
  for _ in $(seq 100); do tail -n "+$from" "$work/synergyd-$leader.log" | grep -q "synergyd '$standby' leads" && break; sleep 0.05; done
  tail -n "+$from" "$work/synergyd-$leader.log" | grep -q "synergyd '$standby' leads" ||
    fail "kill $k: the restarted $leader is not a standby"
  # Submissions flow again, and the agent job reports to the new leader.
  for _ in $(seq 100); do (($(wc -l <"$work/acked") > before)) && break; sleep 0.1; done
  (($(wc -l <"$work/acked") > before)) || fail "kill $k: no submission acknowledged after the takeover"
  for _ in $(seq 100); do (($(progress_of) > iteration)) && break; sleep 0.1; done
  (($(progress_of) > iteration)) || fail "kill $k: the agent job's progress did not move past $iteration"
  tmp=$leader
  leader=$standby
  standby=$tmp
done
rm -f "$work/flooding"
wait "$flood" 2>/dev/null
echo "ok   $KILLS kills -9 of the leader under a flood of $(wc -l <"$work/acked") acknowledged submissions"

# Every acknowledged submission is there; no epoch was led twice.
ctl get jobs -o name | sort >"$work/present"
missing=$(sort "$work/acked" | comm -23 - "$work/present")
[[ -z $missing ]] || fail "acknowledged but lost: $missing"
epochs=$(cat "$work"/synergyd-*.log | grep -o "leads the state at epoch [0-9]*" | awk '{ print $NF }' | sort -n)
(($(echo "$epochs" | wc -l) == KILLS + 1)) || fail "epochs led: $(echo $epochs), want $((KILLS + 1))"
[[ -z $(echo "$epochs" | uniq -d) ]] || fail "an epoch was led twice: $(echo $epochs)"
# No job ran twice, and the running jobs kept their leases.
grep -qvE '^1 1 1 1$' "$work/copies" && fail "a long job had no or two copies: $(sort "$work/copies" | uniq -c | tr '\n' ';')"
for id in "${long[@]}"; do
  (($(launches_of "$id") == 1)) || fail "$id was launched $(launches_of "$id") times"
  [[ $(state_of "$id") == running ]] || fail "$id is $(state_of "$id")"
done
echo "ok   every acknowledged submission kept; epochs $(echo $epochs); each long job launched once, never two copies"

# PostgreSQL stops for PG_OUTAGE_S seconds.
((PG_OUTAGE_S > 0)) || { echo "ok $TEST (no outage)"; exit 0; }
epoch=$(metric_of synergy_leader_epoch "$leader")
[[ -n $epoch ]] || fail "no synergy_leader_epoch on the leader's /metrics"
pg_stop
sleep 3
"$BIN/synergyctl" submit -f "$work/flood.yaml" >/dev/null 2>"$work/outage.err" && fail "a submission was taken without its store"
[[ $(readyz_of "$leader") == 503 ]] || fail "the leader's /readyz is $(readyz_of "$leader") without its store"
sleep $((PG_OUTAGE_S - 3))
pg_start
for _ in $(seq 150); do "$BIN/synergyctl" submit -f "$work/flood.yaml" >/dev/null 2>&1 && break; sleep 0.1; done
"$BIN/synergyctl" submit -f "$work/flood.yaml" >/dev/null || fail "no submission taken after PostgreSQL came back"
[[ $(metric_of synergy_leader_epoch "$leader") == "$epoch" ]] ||
  fail "the leader changed over the outage: epoch $epoch -> $(metric_of synergy_leader_epoch "$leader")"
[[ $(readyz_of "$leader") == 200 ]] || fail "the leader's /readyz is $(readyz_of "$leader") after the outage"
kill -0 "${pid[$standby]}" || fail "the standby did not wait out the outage"
[[ $(readyz_of "$standby") == 503 ]] || fail "the standby's /readyz is $(readyz_of "$standby") after the outage"
sleep 2  # rounds and heartbeats on the restored store
rm -f "$work/watching"
grep -qvE '^1 1 1 1$' "$work/copies" && fail "a long job had no or two copies over the outage"
for id in "${long[@]}"; do
  (($(launches_of "$id") == 1)) || fail "$id was launched again over the outage"
  [[ $(state_of "$id") == running ]] || fail "$id is $(state_of "$id") after the outage"
done
echo "ok   PostgreSQL down ${PG_OUTAGE_S} s: changes refused, then resumed at epoch $epoch without a relaunch"
echo "ok $TEST"
