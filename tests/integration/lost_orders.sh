#!/usr/bin/env bash
# The node protocol under lost messages (issue 38): a TCP proxy between
# synergy-node and synergyd (tests/integration/fault_proxy.py) loses one
# message at a time, and each time the job still starts, stops or ends
# exactly once, within a few heartbeats:
#  a. the reply carrying a launch order is lost (the connection breaks);
#  b. the reply carrying a stop order is lost;
#  c. the request carrying an exit is lost;
#  d. the reply to the request carrying an exit is lost (synergyd applied it);
#  e. the reply carrying a launch comes later than the node waits for it.
# Plain text on loopback, so that the proxy can tell the messages apart.
# usage: lost_orders.sh BUILD_DIR
BIN=$1
TEST=lost_orders
source "$(dirname "$0")/lib.sh"
PLAINTEXT=1 POLICY=fifo start_daemon

proxy_port=$(free_port)
python3 "$(dirname "$0")/fault_proxy.py" "$proxy_port" "$server" "$work/proxy.rule" "$work/proxy.log" &
pids+=("$!")
for _ in $(seq 100); do grep -q "^listening" "$work/proxy.log" 2>/dev/null && break; sleep 0.05; done
grep -q "^listening" "$work/proxy.log" || fail "the proxy did not start"
PLAINTEXT=1 NODE_SCHEDULER=127.0.0.1:$proxy_port start_node n1 2
wait_for_nodes 1

# arm RULE: the proxy's next fault (fault_proxy.py), fired once.
arm() {
  printf '%s\n' "$1" >"$work/proxy.rule.tmp"
  mv "$work/proxy.rule.tmp" "$work/proxy.rule"
}
# fired WHAT: until the armed fault has fired (20 s).
fired() {
  for _ in $(seq 200); do [[ -e $work/proxy.rule ]] || return 0; sleep 0.1; done
  fail "the proxy never saw $1"
}
# plain NAME ARG...: submits a job that runs ARG... (no agent); prints its id.
plain() {
  local name=$1 args=""
  shift
  for a in "$@"; do args+="${args:+, }\"$a\""; done
  printf 'name: %s\ngpus: 1\ncommand: [%s]\n' "$name" "$args" >"$work/$name.yaml"
  ctl submit -f "$work/$name.yaml" || fail "submit $name refused"
}
launches_of() { grep -c "launched $1 lease" "$work/node-n1.log"; }
exits_of() { ctl describe job "$1" | grep -c "process on n1 exited"; }
started() { (($(launches_of "$1") > 0)) && ctl describe job "$1" | grep -q "launched on n1"; }
# ends_once ID: it succeeded, launched once, its exit applied once.
ends_once() {
  local id=$1
  wait_until_done 30 "$id"
  [[ $(state_of "$id") == succeeded ]] || fail "$id is $(state_of "$id")"
  (($(launches_of "$id") == 1)) || fail "$id was launched $(launches_of "$id") times on the node"
  (($(exits_of "$id") == 1)) || fail "$id's exit was applied $(exits_of "$id") times"
}
# The job id of a message, as its protocol buffer encodes it: field 1, 8 bytes.
id_bytes() { printf '\\\\x0a\\\\x08%s' "$1"; }

# ---- a. the reply carrying a launch is lost
arm '{"action": "cut", "dir": "s2c", "pattern": "SYNERGY_JOB_ID"}'
a=$(plain lost-launch sleep 1.5)
fired "the launch of $a"
ends_once "$a"
grep -q "$a lease [0-9]*: launch order sent again to n1" "$work/synergyd.log" ||
  fail "synergyd did not say it sent $a's launch again"
ctl describe job "$a" | grep -q "launched on n1 (attempt 1)" || fail "$a: not launched at its first attempt"
echo "ok   a. a lost launch order is sent again: $a ran once"

# ---- b. the reply carrying a stop is lost (HeartbeatResponse.stop is field 2)
b=$(plain lost-stop sleep 600.25)
wait_for 20 "$b started" started "$b"
arm "{\"action\": \"cut\", \"dir\": \"s2c\", \"pattern\": \"\\\\x12.$(id_bytes "$b")\"}"
ctl cancel "$b" >/dev/null || fail "cancel $b refused"
fired "the stop of $b"
wait_for 15 "$b's process stopped" eval '! pgrep -f "sleep 600.25" >/dev/null'
wait_for 10 "$b cancelled, its lease over" eval '[[ $(state_of "$b") == cancelled ]] && (($(ctl describe job "$b" | grep -c "ended on n1") == 1))'
(($(grep -c "stopping $b lease" "$work/node-n1.log") == 1)) || fail "the node did not log $b's stop once"
echo "ok   b. a lost stop order is sent again: $b stopped"

# ---- c. the request carrying an exit is lost (HeartbeatRequest.exits is field 3)
c=$(plain lost-exit sleep 2.5)
wait_for 20 "$c started" started "$c"
arm "{\"action\": \"cut\", \"dir\": \"c2s\", \"pattern\": \"\\\\x1a.$(id_bytes "$c")\"}"
fired "the exit of $c"
ends_once "$c"
echo "ok   c. a lost exit is reported again: $c's exit applied once"

# ---- d. the reply to the request carrying an exit is lost
d=$(plain lost-exit-reply sleep 2.5)
wait_for 20 "$d started" started "$d"
arm "{\"action\": \"cut_reply\", \"dir\": \"c2s\", \"pattern\": \"\\\\x1a.$(id_bytes "$d")\"}"
fired "the exit of $d"
ends_once "$d"
echo "ok   d. an exit reported twice is applied once: $d"

# ---- e. the reply carrying a launch comes after the node gave up on it
arm '{"action": "delay", "dir": "s2c", "pattern": "SYNERGY_JOB_ID", "seconds": 2.5}'
e=$(plain late-launch sleep 1.5)
fired "the launch of $e"
ends_once "$e"
echo "ok   e. a late launch order is sent again: $e ran once"

# Resent exits are not taken for another node's (an attack's) reports.
grep -q "which has no rank on it" "$work/synergyd.log" && fail "a resent exit was logged as foreign"
grep "fired" "$work/proxy.log"
echo "PASS"
