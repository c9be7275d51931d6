#!/usr/bin/env bash
# Anyone who reaches synergyd's port can open connections. A flood of idle
# TCP connections that exhausts its descriptors made gRPC (1.51) stop
# accepting for good ("accept4: Too many open files"): every client and
# node was shut out until a restart. synergyd now sees its listener stuck
# (connections waiting in its accept queue that it does not take) and
# rebuilds it once descriptors are free again. Here: a descriptor limit of
# 256 that synergyd cannot raise, 600 idle connections, then they close;
# synergyctl and the node must be served again without a restart.
# usage: connection_flood.sh BUILD_DIR
BIN=$1
TEST=connection_flood
source "$(dirname "$0")/lib.sh"

DAEMON_NOFILE=256 start_daemon
start_node n1 1
wait_for_nodes 1
pid_before=$daemon_pid

python3 - "$port" 600 <<'PY' || fail "the flood could not run"
import socket, sys, time
port, n = int(sys.argv[1]), int(sys.argv[2])
conns = []
for _ in range(n):
    s = socket.socket()
    s.settimeout(2)
    try:
        s.connect(("127.0.0.1", port))
    except OSError:
        s.close()
        continue
    conns.append(s)
print(f"{len(conns)} idle connections open", flush=True)
time.sleep(3)
for s in conns:
    s.close()
PY
grep -q "Too many open files" "$work/synergyd.log" || fail "the flood did not exhaust synergyd's descriptors"
# Served again, by the same process, within the watchdog's reaction time.
deadline=$((SECONDS + 40))
until ctl cluster >/dev/null 2>&1; do
  ((SECONDS < deadline)) || fail "synergyd does not accept connections 40 s after the flood ended"
  sleep 0.5
done
kill -0 "$pid_before" 2>/dev/null || fail "synergyd died"
grep -q "listener: stuck" "$work/synergyd.log" || fail "no rebuild of the listener was logged"
wait_for_nodes 1
id=$(submit after-flood 1 res18 50) || fail "submit after the flood"
wait_until_done 60 "$id"
[[ $(state_of "$id") == succeeded ]] || fail "$id is $(state_of "$id")"
echo "ok connection_flood"
