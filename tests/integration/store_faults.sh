#!/usr/bin/env bash
# The state store fails under a running synergyd, on real processes:
#  1. one daemon per state and per port: a second synergyd on either exits
#     2 and names what is taken;
#  1b. the store refuses writes for longer than heartbeat_timeout_s while
#     two jobs run and one exits: the node stays alive on its heartbeats,
#     no job is stopped or launched again, /readyz says why it is not
#     ready, and the exit is applied once the store takes writes;
#  2. a full disk (synergyd's file-size limit cut to one byte with prlimit:
#     every write of the database fails with EFBIG, as on a full
#     filesystem): a submission and a cancel are refused with UNAVAILABLE,
#     rounds launch and stop nothing, one log line says so; once writes
#     are possible again the same daemon takes changes without a restart;
#  3. kill -9 in the middle of a second episode, then a restart: the
#     finished jobs stay finished and never run again, no epoch is
#     launched twice, and the job that waited runs once;
#  4. SIGTERM with an idle connection to /metrics: synergyd exits promptly.
# usage: store_faults.sh BUILD_DIR
BIN=$1
TEST=store_faults
source "$(dirname "$0")/lib.sh"
command -v prlimit >/dev/null || { echo "SKIP: no prlimit (util-linux)"; exit 77; }
DAEMON_LOG_PIPE=1
ROUND_S=1
POLICY=fifo  # the waiting job must not preempt the long one
METRICS_PORT=$(free_port)
start_daemon
start_node n1 2
wait_for_nodes 1

# ---- 1. one daemon per state and per port
sed -e "s/^listen: .*/listen: 127.0.0.1:$(free_port)/" -e "s/^metrics_listen: .*/metrics_listen: \"\"/" \
  "$work/synergyd.yaml" >"$work/same-state.yaml"
out=$(timeout 20 "$BIN/synergyd" --config "$work/same-state.yaml" 2>&1)
rc=$?
[[ $rc == 2 && $out == *"in use by another synergyd (pid $daemon_pid)"* ]] ||
  fail "a second synergyd on the same state: exit $rc ($out)"
sed -e "s|^state_db: .*|state_db: $work/other.db|" -e "s/^metrics_listen: .*/metrics_listen: \"\"/" \
  "$work/synergyd.yaml" >"$work/same-port.yaml"
out=$(timeout 20 "$BIN/synergyd" --config "$work/same-port.yaml" 2>&1)
rc=$?
[[ $rc == 2 && $out == *"port is taken"* ]] || fail "a second synergyd on the same port: exit $rc ($out)"
echo "ok   a second synergyd is refused on the same state and on the same port"

# plain NAME GPUS SECONDS: a job that sleeps (no agent, cannot checkpoint)
plain() {
  printf 'name: %s\ngpus: %s\ncommand: ["sleep", "%s"]\n' "$1" "$2" "$3" >"$work/$1.yaml"
  ctl submit -f "$work/$1.yaml"
}
launches_of() { grep -c "launched $1 " "$work/node-n1.log"; }

# readyz: "CODE BODY" of synergyd's /readyz
readyz() {
  python3 - "$METRICS_PORT" <<'PY'
import sys, urllib.request, urllib.error
try:
    r = urllib.request.urlopen(f"http://127.0.0.1:{sys.argv[1]}/readyz", timeout=5)
    print(r.status, r.read().decode().strip())
except urllib.error.HTTPError as e:
    print(e.code, e.read().decode().strip())
PY
}

# ---- 1b. an outage longer than heartbeat_timeout_s (3 s) while jobs run
steady=$(plain steady 1 600.5) || fail "submit steady"
brief=$(plain brief 1 2.5) || fail "submit brief"
for _ in $(seq 100); do [[ $(launches_of "$steady") == 1 && $(launches_of "$brief") == 1 ]] && break; sleep 0.1; done
[[ $(launches_of "$steady") == 1 && $(launches_of "$brief") == 1 ]] || fail "steady and brief were not launched"
[[ $(readyz) == "200 ready" ]] || fail "/readyz before the outage: $(readyz)"
prlimit --pid "$daemon_pid" --fsize=1: || fail "prlimit"
out=$(ctl submit -f "$work/steady.yaml" 2>&1) && fail "a submission during the outage was taken: $out"
[[ $(readyz) == "503 the state store refuses writes"* ]] || fail "/readyz during the outage: $(readyz)"
[[ $(metric synergy_store_refusing) == 1 ]] || fail "synergy_store_refusing is not 1 during the outage"
sleep 6  # brief exits meanwhile; twice heartbeat_timeout_s
grep -q "exited" <(grep "$brief" "$work/node-n1.log") || fail "brief did not exit during the outage"
prlimit --pid "$daemon_pid" --fsize=unlimited: || fail "prlimit"
for _ in $(seq 100); do [[ $(state_of "$brief") == succeeded ]] && break; sleep 0.1; done
[[ $(state_of "$brief") == succeeded ]] || fail "brief's exit was not applied after the outage: $(state_of "$brief")"
[[ $(state_of "$steady") == running && $(launches_of "$steady") == 1 ]] || fail "steady was relaunched or stopped"
grep -q "stopping $steady" "$work/node-n1.log" && fail "steady was stopped"
grep -q "node n1 lost" "$work/synergyd.log" && fail "n1 was taken for lost during the outage"
[[ $(readyz) == "200 ready" ]] || fail "/readyz after the outage: $(readyz)"
ctl cancel "$steady" >/dev/null || fail "cancel steady"
wait_until_done 30 "$steady"
echo "ok   an outage of 6 s (heartbeat timeout 3 s): no node lost, no job stopped, the exit applied after it"

# ---- finished jobs, a job holding both GPUs, a job waiting for one
a=$(plain a 1 0.3) || fail "submit a"
b=$(plain b 1 0.3) || fail "submit b"
wait_until_done 30 "$a" "$b"
long=$(plain long 2 600) || fail "submit long"
for _ in $(seq 100); do [[ $(launches_of "$long") == 1 ]] && break; sleep 0.1; done
[[ $(launches_of "$long") == 1 ]] || fail "long was not launched"
waiting=$(plain waiting 1 0.3) || fail "submit waiting"
wait_for_metric_rise synergy_rounds_total 2 30 "two rounds with a job waiting"

# ---- 2. the disk fills, then frees, under the same daemon
prlimit --pid "$daemon_pid" --fsize=1: || fail "prlimit"
out=$(ctl submit -f "$work/a.yaml" 2>&1)
rc=$?
[[ $rc != 0 && $out == *"store refused"* ]] || fail "a submission on a full disk: exit $rc ($out)"
wait_for_metric_rise synergy_store_failures_total 2 30 "two rounds that cannot be stored"
prlimit --pid "$daemon_pid" --fsize=unlimited: || fail "prlimit"
again=$(plain again 1 0.3) || fail "a submission once the disk has room was refused"
grep -q "the store takes writes again" "$work/synergyd.log" || fail "no log line for the store's recovery"
echo "ok   a full disk refused a submission (UNAVAILABLE); the same daemon took the next one"

# ---- 3. a second episode, kill -9 in it, a restart
prlimit --pid "$daemon_pid" --fsize=1: || fail "prlimit"
out=$(ctl cancel "$long" 2>&1)
rc=$?
[[ $rc != 0 && $out == *"store refused"* ]] || fail "a cancel on a full disk: exit $rc ($out)"
wait_for_metric_rise synergy_store_failures_total 2 30 "two rounds that cannot be stored"
grep -q "stopping $long" "$work/node-n1.log" && fail "a cancel that was never stored stopped the job"
[[ $(launches_of "$waiting") == 0 && $(launches_of "$again") == 0 ]] || fail "a round that was never stored launched a job"
episodes=$(grep -c "cannot store a change" "$work/synergyd.log")
[[ $episodes == 3 ]] || fail "$episodes store-failure lines for three episodes (one each expected)"
echo "ok   during the episode nothing was stopped or launched, and it was logged once"
kill -9 "$daemon_pid"
for _ in $(seq 100); do kill -0 "$daemon_pid" 2>/dev/null || break; sleep 0.05; done
start_daemon
wait_for_nodes 1
for id in "$a" "$b"; do [[ $(state_of "$id") == succeeded ]] || fail "$id is $(state_of "$id") after the restart"; done
ctl cancel "$long" >/dev/null || fail "cancel after the restart"
wait_until_done 30 "$waiting" "$again"
wait_for_metric_rise synergy_rounds_total 2 30 "two rounds after the last job ended"
for id in "$steady" "$brief" "$a" "$b" "$long" "$waiting" "$again"; do
  n=$(launches_of "$id")
  [[ $n == 1 ]] || fail "$id was launched $n times"
done
dup=$(grep -o "launched [^ ]* lease [0-9]*" "$work/node-n1.log" | awk '{print $4}' | sort | uniq -d)
[[ -z $dup ]] || fail "epoch(s) launched twice: $dup"
echo "ok   after kill -9 and a restart: finished jobs stayed finished, every job ran once, no epoch twice"

# ---- 4. SIGTERM is prompt whatever the clients do: an idle connection to
# /metrics that never sends a request does not hold synergyd up
kill -TERM "$daemon_pid"
for _ in $(seq 100); do kill -0 "$daemon_pid" 2>/dev/null || break; sleep 0.1; done
METRICS_PORT=$(free_port)
start_daemon
exec 3<>"/dev/tcp/127.0.0.1/$METRICS_PORT" || fail "cannot connect to /metrics"
sleep 0.3
t0=$(date +%s%N)
kill -TERM "$daemon_pid"
for _ in $(seq 100); do kill -0 "$daemon_pid" 2>/dev/null || break; sleep 0.05; done
kill -0 "$daemon_pid" 2>/dev/null && fail "synergyd still running 5 s after SIGTERM with an idle /metrics client"
ms=$(( ($(date +%s%N) - t0) / 1000000 ))
exec 3>&-
grep -q "SIGTERM\|Terminated" "$work/synergyd.log" || fail "SIGTERM was not logged"
echo "ok   SIGTERM with an idle /metrics connection: synergyd exited in $ms ms"
echo "PASS $TEST"
