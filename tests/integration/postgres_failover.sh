#!/usr/bin/env bash
# Two synergyd on one PostgreSQL (issue 43): the second waits as a standby.
# The leader, stopped with SIGSTOP past failover_s, loses the state to the
# standby, which serves every acknowledged submission and takes new ones;
# the old leader, woken with SIGCONT, is fenced and steps down (exit 3)
# without writing. A leader killed with kill -9 and restarted under its own
# name takes over at once. Skipped (77) where PostgreSQL is not installed.
BIN=$1
TEST=postgres_failover
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/postgres_lib.sh"

export SYNERGY_PLAINTEXT=1
unset SYNERGY_TOKEN SYNERGY_CA
# daemon NAME PORT: starts synergyd NAME on PORT, leaving its pid in $pid.
daemon() {
  cat >"$work/$1.yaml" <<YAML
listen: 127.0.0.1:$2
metrics_listen: ""
store: {kind: postgres, dsn: "$dsn", instance: $1, failover_s: 2}
round_s: 1
tls: {plaintext: true}
auth: {mode: none}
YAML
  setsid "$BIN/synergyd" --config "$work/$1.yaml" >>"$work/$1.log" 2>&1 &
  pid=$!
}
port_a=$(free_port)
port_b=$(free_port)
spec=$(dirname "$0")/../../configs/jobs/plain-process.yaml
daemon a "$port_a"
a=$pid
for _ in $(seq 100); do ctl --server "127.0.0.1:$port_a" cluster >/dev/null 2>&1 && break; sleep 0.05; done
daemon b "$port_b"
b=$pid
pids+=("$a" "$b")
for _ in $(seq 100); do grep -q "standby:" "$work/b.log" && break; sleep 0.05; done
grep -q "synergyd 'a' leads" "$work/b.log" || fail "b is not a standby naming a: $(cat "$work/b.log")"
for i in 1 2 3 4 5; do
  id=$(ctl --server "127.0.0.1:$port_a" submit -f "$spec") || fail "submit $i to a"
  [[ $id == j-00000$i ]] || fail "submission $i got $id"
done

# a stops (SIGSTOP): its lease runs out, b takes over.
kill -STOP "$a"
for _ in $(seq 100); do grep -q "took the state over" "$work/b.log" && break; sleep 0.1; done
grep -q "took the state over" "$work/b.log" || fail "b did not take over: $(tail -3 "$work/b.log")"
for _ in $(seq 100); do ctl --server "127.0.0.1:$port_b" cluster >/dev/null 2>&1 && break; sleep 0.05; done
got=$(ctl --server "127.0.0.1:$port_b" get jobs -o name | sort | tr '\n' ' ')
[[ $got == "j-000001 j-000002 j-000003 j-000004 j-000005 " ]] || fail "b serves '$got'"
[[ $(ctl --server "127.0.0.1:$port_b" submit -f "$spec") == j-000006 ]] || fail "b's first id"

# a wakes: fenced at its next write, it steps down and exits 3.
kill -CONT "$a"
wait "$a"
rc=$?
[[ $rc == 3 ]] || fail "a exited $rc, not 3 (stepped down): $(tail -3 "$work/a.log")"
grep -q "stepping down" "$work/a.log" || fail "a did not say it stepped down"
got=$(ctl --server "127.0.0.1:$port_b" get jobs -o name | sort | tr '\n' ' ')
[[ $got == "j-000001 j-000002 j-000003 j-000004 j-000005 j-000006 " ]] || fail "after a woke, b serves '$got'"

# b killed with kill -9 and restarted under its own name: it leads at once.
kill -9 "$b"
wait "$b" 2>/dev/null
daemon b "$port_b"
pids+=("$pid")
for _ in $(seq 60); do ctl --server "127.0.0.1:$port_b" cluster >/dev/null 2>&1 && break; sleep 0.05; done
[[ $(ctl --server "127.0.0.1:$port_b" submit -f "$spec") == j-000007 ]] || fail "the restarted b's first id"
grep -q "standby:" <(tail -5 "$work/b.log") && fail "the restarted b waited as a standby"
echo "ok $TEST"
