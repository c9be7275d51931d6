# Shared by the integration tests: start synergyd and synergy-node processes
# on loopback in a scratch directory, talk to them with synergyctl, and
# clean up whatever is left, whatever happens.
# Needs: BIN (the build directory) and the test's name in TEST.
set -uo pipefail
BIN=$(cd "$BIN" && pwd)
work=$(mktemp -d "/tmp/synergy-${TEST}.XXXXXX")
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill -9 -- "-$p" 2>/dev/null; kill -9 "$p" 2>/dev/null; done
  pkill -9 -f "agent_job.*$work" 2>/dev/null
  # Jobs run in process groups of their own: whatever names this test's
  # folder (a job a failed test left) goes too.
  pkill -9 -f -- "$work" 2>/dev/null
  if [[ ${KEEP:-0} == 1 ]]; then echo "kept $work"; else rm -rf "$work"; fi
}
trap cleanup EXIT

fail() {
  echo "FAIL $TEST: $*"
  for f in "$work"/synergyd*.log; do echo "--- $f (tail)"; tail -40 "$f"; done
  for f in "$work"/node-*.log; do echo "--- $f (tail)"; tail -15 "$f"; done
  exit 1
}

# A free TCP port on loopback.
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }

port=$(free_port)
server=127.0.0.1:$port
# Every test runs the real thing: TLS from a CA made now, mutual TLS for the
# nodes (n1-n4 have certificates naming them), a credential per principal.
"$(dirname "${BASH_SOURCE[0]}")/../../scripts/make-dev-pki" "$work/pki" n1 n2 n3 n4
pki=$work/pki
credential() { openssl rand -hex 24; }
ADMIN_TOKEN=$(credential)
ALICE_TOKEN=$(credential)
BOB_TOKEN=$(credential)
JOIN_TOKEN=$(credential)
declare -A NODE_TOKEN=([n1]=$(credential) [n2]=$(credential) [n3]=$(credential) [n4]=$(credential))
export SYNERGY_SERVER=$server
export SYNERGY_CA=$pki/ca.crt
export SYNERGY_TOKEN=$ADMIN_TOKEN
ctl() { "$BIN/synergyctl" "$@"; }

# start_daemon [extra yaml lines...]
# (DAEMON_NAME: its files' name, synergyd; DAEMON_LISTEN: its address,
# $server; STORE_YAML: its store, SQLite in $work/state.db; DAEMON_WAIT=0:
# do not wait until it answers, as for a standby)
start_daemon() {
  local name=${DAEMON_NAME:-synergyd}
  {
    echo "listen: ${DAEMON_LISTEN:-$server}"
    if [[ -n ${METRICS_PORT:-} ]]; then echo "metrics_listen: 127.0.0.1:$METRICS_PORT"; else echo 'metrics_listen: ""'; fi
    echo "${STORE_YAML:-state_db: $work/state.db}"
    echo "round_s: ${ROUND_S:-1.5}"
    echo "policy: ${POLICY:-las}"
    echo "mechanism: ${MECHANISM:-tune}"
    echo "lease_grace_s: ${LEASE_GRACE_S:-2}"
    echo "heartbeat_interval_ms: ${HEARTBEAT_MS:-200}"
    echo "heartbeat_timeout_s: ${HEARTBEAT_TIMEOUT_S:-3}"
    echo "max_retries: 1"
    if [[ ${PLAINTEXT:-0} == 1 ]]; then
      # Plain text on loopback, for the tests whose proxy reads the messages.
      echo "tls: {plaintext: true}"
    else
      echo "tls: {cert: $pki/synergyd.crt, key: $pki/synergyd.key, client_ca: $pki/ca.crt, require_node_certificates: true}"
    fi
    echo "auth:"
    echo "  users: [{name: alice, tenant: vision, token: $ALICE_TOKEN}, {name: bob, tenant: nlp, token: $BOB_TOKEN}]"
    echo "  admins: [{name: admin, token: $ADMIN_TOKEN}]"
    echo "  nodes:"
    for n in "${!NODE_TOKEN[@]}"; do echo "    - {name: $n, token: ${NODE_TOKEN[$n]}}"; done
    echo "  node_join: [{token: $JOIN_TOKEN}]"
    for line in "$@"; do echo "$line"; done
  } >"$work/$name.yaml"
  [[ ${PLAINTEXT:-0} == 1 ]] && export SYNERGY_PLAINTEXT=1
  if [[ ${DAEMON_LOG_PIPE:-0} == 1 ]]; then
    # Through a pipe, which no file-size limit put on synergyd can cut.
    local fifo=$work/synergyd.fifo
    [[ -p $fifo ]] || mkfifo "$fifo"
    cat "$fifo" >>"$work/synergyd.log" &
    pids+=("$!")
    disown "$!"
    setsid "$BIN/synergyd" --config "$work/$name.yaml" >"$fifo" 2>&1 &
  elif [[ -n ${DAEMON_NOFILE:-} ]]; then
    # A descriptor limit it cannot raise (soft = hard), for the flood test.
    prlimit --nofile="$DAEMON_NOFILE:$DAEMON_NOFILE" setsid "$BIN/synergyd" --config "$work/$name.yaml" \
      >>"$work/$name.log" 2>&1 &
  else
    setsid "$BIN/synergyd" --config "$work/$name.yaml" >>"$work/$name.log" 2>&1 &
  fi
  daemon_pid=$!
  disown "$daemon_pid"
  pids+=("$daemon_pid")
  [[ ${DAEMON_WAIT:-1} == 0 ]] && return 0
  for _ in $(seq 100); do ctl cluster >/dev/null 2>&1 && return 0; sleep 0.05; done
  fail "synergyd did not start"
}

# start_node NAME GPUS (NODE_CPUS: the cpus list, NODE_EXTRA: more yaml lines,
# NODE_SCHEDULER: where it reaches synergyd, PLAINTEXT=1: without TLS).
# Jobs run as the node's own account (a test machine has no per-user
# accounts; tests/integration/security.sh checks running as the owner).
start_node() {
  local name=$1 gpus=$2
  local root_jobs=false tls
  [[ $(id -u) == 0 ]] && root_jobs=true
  tls="tls_ca: $pki/ca.crt
tls_cert: $pki/$name.crt
tls_key: $pki/$name.key"
  [[ ${PLAINTEXT:-0} == 1 ]] && tls="plaintext: true"
  cat >"$work/node-$name.yaml" <<NODE
name: $name
scheduler: ${NODE_SCHEDULER:-$server}
gpus: $gpus
cpus: [${NODE_CPUS:-0, 1, 2, 3, 4, 5}]
${NODE_EXTRA:-}
memory_gb: ${NODE_MEMORY_GB:-24}
log_dir: $work/logs-$name
work_dir: ${NODE_WORK_DIR:-$work}
state_dir: $work/state-$name
token: ${NODE_TOKEN[$name]}
$tls
run_jobs_as_node_user: ${NODE_AS_NODE_USER:-true}
allow_root_jobs: ${NODE_ROOT_JOBS:-$root_jobs}
accounts: {${NODE_ACCOUNTS:-}}
NODE
  setsid "$BIN/synergy-node" --config "$work/node-$name.yaml" >>"$work/node-$name.log" 2>&1 &
  local pid=$!
  disown "$pid"
  pids+=("$pid")
  eval "node_pid_$name=$pid"
}

# submit NAME GPUS MODEL ITERATIONS [agent_job args...]: prints the job id
submit() {
  local name=$1 gpus=$2 model=$3 iterations=$4
  shift 4
  local args=""
  for a in "$@"; do args+=", \"$a\""; done
  cat >"$work/$name.yaml" <<JOB
name: $name
model: $model
gpus: $gpus
iterations: $iterations
uses_agent: true
command: ["$BIN/tests/agent_job", "--iteration-ms", "15", "--checkpoint-dir", "$work/ckpt"$args]
JOB
  ctl submit -f "$work/$name.yaml" || fail "submit $name refused"
}

# submit_profiled [MODEL]: a 1-GPU agent job of 120 iterations that profiles
# itself first, CPU-sensitive up to 4 workers; prints the job id
submit_profiled() {
  {
    echo "name: profiled"
    [[ -n ${1:-} ]] && echo "model: $1"
    echo "gpus: 1"
    echo "iterations: 120"
    echo "uses_agent: true"
    echo "profile: true"
    echo "command: [\"$BIN/tests/agent_job\", \"--iteration-ms\", \"10\", \"--cpu-knee\", \"4\", \"--checkpoint-dir\", \"$work/ckpt\"]"
  } >"$work/profiled.yaml"
  ctl submit -f "$work/profiled.yaml" || fail "submit profiled refused"
}

# metric NAME: the value of synergyd's unlabelled sample NAME on /metrics
# (the daemon must have been started with METRICS_PORT set)
metric() {
  python3 - "${METRICS_PORT:?metric needs METRICS_PORT}" "$1" <<'PY'
import sys, urllib.request
text = urllib.request.urlopen(f"http://127.0.0.1:{sys.argv[1]}/metrics", timeout=5).read().decode()
for line in text.splitlines():
    name, _, value = line.partition(" ")
    if name == sys.argv[2]:
        print(int(float(value)))
        break
else:
    sys.exit(1)
PY
}

# wait_for_metric_rise NAME BY SECONDS WHAT: until synergyd's NAME has risen
# by BY from its value now (e.g. synergy_rounds_total by 2: two whole rounds
# ran), else the test fails saying WHAT it waited for. What a test checks
# did not happen "for two rounds" is then checked after two rounds, on a
# loaded machine as on an idle one.
wait_for_metric_rise() {
  local name=$1 by=$2 limit=$3 what=$4 from now=""
  from=$(metric "$name") || fail "no $name on /metrics"
  local deadline=$((SECONDS + limit))
  while ((SECONDS < deadline)); do
    now=$(metric "$name") && ((now >= from + by)) && return 0
    sleep 0.1
  done
  fail "not within $limit s: $what ($name $from -> ${now:-?})"
}

# wait_for SECONDS WHAT COMMAND...: until COMMAND succeeds (every 0.1 s),
# else the jobs are shown and the test fails saying WHAT it waited for.
wait_for() {
  local limit=$1 what=$2
  shift 2
  for _ in $(seq $((limit * 10))); do "$@" && return 0; sleep 0.1; done
  ctl get jobs -o wide
  fail "not within $limit s: $what"
}

# ready_nodes: how many nodes synergyctl shows as ready
ready_nodes() { ctl get nodes | awk 'NR > 1 && $2 == "ready"' | wc -l; }

# wait_for_nodes N: until N nodes are ready (10 s), else the test fails
wait_for_nodes() {
  for _ in $(seq 100); do (($(ready_nodes) == $1)) && return; sleep 0.1; done
  fail "$(ready_nodes) of $1 nodes ready after 10 s"
}

# state_of ID: the job's state as synergyctl shows it
state_of() { ctl get jobs | awk -v id="$1" '$1 == id { print $3 }'; }

# wait_until_done SECONDS ID...: until every job is succeeded/failed/cancelled
wait_until_done() {
  local limit=$1
  shift
  local deadline=$((SECONDS + limit))
  while ((SECONDS < deadline)); do
    local pending=0
    for id in "$@"; do
      case $(state_of "$id") in succeeded | failed | cancelled) ;; *) pending=1 ;; esac
    done
    ((pending == 0)) && return 0
    sleep 0.3
  done
  ctl get jobs -o wide
  fail "jobs not done within $limit s"
}

# The value an uninterrupted run of N iterations ends with (agent_job's model).
expected_state() { awk -v n="$1" 'BEGIN { s = 0; for (i = 0; i < n; i++) s += (i * 7 + 3) % 1000; print s }'; }

# loss_fell NAME OUTPUT: the example's last line "loss A -> B" has B < A
loss_fell() {
  python3 - "$2" <<'PY' || fail "$1: loss did not fall"
import re, sys
m = re.search(r"loss ([0-9.e+-]+) -> ([0-9.e+-]+)", sys.argv[1])
assert m and float(m.group(2)) < float(m.group(1)), m
PY
}

# suspend_by_drain ID NODE: drain NODE, wait (15 s) until ID is suspended,
# undrain NODE; the test fails if ID is not suspended
suspend_by_drain() {
  local id=$1 node=$2
  ctl drain "$node" >/dev/null || fail "drain $node"
  for _ in $(seq 150); do [[ $(state_of "$id") == suspended ]] && break; sleep 0.1; done
  [[ $(state_of "$id") == suspended ]] || fail "$id is $(state_of "$id") after the drain, not suspended"
  ctl undrain "$node" >/dev/null || fail "undrain $node"
}

# rank_stops ID: "A B", the iterations at which rank 0 and rank 1 of ID's
# first ended lease stopped (from the agents' logs; ? when missing)
rank_stops() {
  local id=$1 s0 s1
  s0=$(grep -h "rank 0: lease ended: checkpoint at iteration" "$work"/logs-n*/"$id".*.err | sed 's/.*iteration \([0-9]*\).*/\1/' | head -1)
  s1=$(grep -h "rank 1: lease ended: stopped at iteration" "$work"/logs-n*/"$id".*.err | sed 's/.*iteration \([0-9]*\).*/\1/' | head -1)
  echo "${s0:-?} ${s1:-?}"
}

# submit_command NAME GPUS ITERATIONS COMMAND_JSON [YAML_LINE...]: submits an
# agent job running COMMAND_JSON (a YAML list); prints its id
submit_command() {
  local name=$1 gpus=$2 iterations=$3 command=$4
  shift 4
  {
    echo "name: $name"
    echo "gpus: $gpus"
    echo "iterations: $iterations"
    echo "uses_agent: true"
    echo "command: $command"
    for line in "$@"; do echo "$line"; done
  } >"$work/$name.yaml"
  ctl submit -f "$work/$name.yaml" || fail "submit $name refused"
}

# same_as_straight NAME: $work/NAME.leased (the checksum a run under leases
# ended with) is $work/NAME.straight's, to the last digit
# straight_run NAME ITERATIONS COMMAND...: runs COMMAND --iterations
# ITERATIONS --checkpoint-dir $work/straight-NAME --result $work/NAME.straight
# standalone, from scratch, checks that its loss fell, and prints how many
# seconds it took (tests size their rounds by it: a job must outlast a
# round to take turns, on a fast machine as on a loaded one).
straight_run() {
  local name=$1 n=$2
  shift 2
  local start out
  rm -rf "$work/straight-$name"
  start=$(date +%s.%N)
  out=$("$@" --iterations "$n" --checkpoint-dir "$work/straight-$name" --result "$work/$name.straight" 2>&1) ||
    fail "$name standalone: $out" >&2
  python3 -c "import sys; print(round(float(sys.argv[2]) - float(sys.argv[1]), 2))" "$start" "$(date +%s.%N)"
  echo "$out" | tail -1 >&2
  loss_fell "$name" "$out" >&2
}

# between LOW HIGH X: X clamped to [LOW, HIGH], rounded to 0.01.
between() { python3 -c "import sys; lo, hi, x = map(float, sys.argv[1:]); print(round(min(hi, max(lo, x)), 2))" "$@"; }

same_as_straight() {
  [[ $(cat "$work/$1.leased") == "$(cat "$work/$1.straight")" ]] ||
    fail "$1: parameters after leases $(cat "$work/$1.leased") differ from straight $(cat "$work/$1.straight")"
  echo "ok   $1: checksum $(cat "$work/$1.leased") straight and across leases"
}
