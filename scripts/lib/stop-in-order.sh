# stop_in_order PID...: stops processes started with setsid (each leads its
# own process group), last started first: synergy-node before synergyd, so
# that the node stops its jobs and tells synergyd it is leaving. Each gets
# SIGTERM and 5 s, then its process group is killed; each is reaped
# quietly (no "Killed" line from the shell).
# Sourced by scripts/demo and scripts/demo-examples.
stop_in_order() {
  local p i
  for p in $(printf '%s\n' "$@" | tac); do
    kill -TERM "$p" 2>/dev/null || continue
    for i in $(seq 50); do kill -0 "$p" 2>/dev/null || break; sleep 0.1; done
    kill -9 -- "-$p" 2>/dev/null || true
    wait "$p" 2>/dev/null || true
  done
}
