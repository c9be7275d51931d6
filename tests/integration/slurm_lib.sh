# A Slurm cluster on loopback for the tests of the Slurm executor (issue
# 19): munged, one slurmctld and one slurmd per node, all in a scratch
# folder, with GPUs declared through gres.conf over placeholder files.
# Sourced after lib.sh (it uses $work, fail, free_port and pids).
#
#   slurm_available          0 where Debian's Slurm and munge are installed
#                            (installed here when missing: scripts/install-slurm)
#   start_slurm_cluster N... starts munged, slurmctld ($slurmctld_pid) and a slurmd per node
#                            name (SLURM_NODE_CPUS, SLURM_NODE_GPUS, SLURM_NODE_MEM_MB
#                            each: 2, 2, 2000 unless set); exports SLURM_CONF;
#                            waits until every node is idle. SLURM_SHARED=1 adds
#                            a partition "other" (the default) over the same
#                            nodes, for other users' jobs, as at a site
#   slurm_node_state NODE    the node's state as sinfo --json gives it
#   slurm_cleanup            kills the job steps of this cluster (slurmstepd
#                            outlives a killed slurmd); for the EXIT trap
#
# The configuration is what synergyd's executor asks of a cluster
# (docs/slurm.md): Slurm's own scheduler only starts what it is told, in
# order (sched/builtin, no backfill), on the named node (-w); cores are
# bound (task/affinity) and counted with memory (select/cons_tres,
# CR_Core_Memory); a node silent for SlurmdTimeout is marked down.

slurm_available() {
  if ! command -v slurmctld >/dev/null || ! command -v slurmd >/dev/null || ! command -v munged >/dev/null ||
    ! command -v sbatch >/dev/null; then
    "$(dirname "${BASH_SOURCE[0]}")/../../scripts/install-slurm" >&2 || return 1
  fi
  local c
  for c in slurmctld slurmd munged sbatch squeue sinfo scancel; do command -v "$c" >/dev/null || return 1; done
}

start_slurm_cluster() {
  local dir=$work/slurm
  mkdir -p "$dir/state" "$dir/dev"
  head -c 1024 /dev/urandom >"$dir/munge.key"
  chmod 400 "$dir/munge.key"
  munged -f --key-file="$dir/munge.key" --socket="$dir/munge.socket" --pid-file="$dir/munged.pid" \
    --log-file="$dir/munged.log" --seed-file="$dir/munged.seed" || fail "munged did not start"
  pids+=("$(cat "$dir/munged.pid")")
  {
    echo "ClusterName=synergytest"
    echo "SlurmctldHost=localhost"
    echo "SlurmctldPort=$(free_port)"
    echo "SlurmUser=root"
    echo "SlurmdUser=root"
    echo "AuthType=auth/munge"
    echo "AuthInfo=socket=$dir/munge.socket"
    echo "CredType=cred/munge"
    echo "StateSaveLocation=$dir/state"
    echo "SlurmdSpoolDir=$dir/spool-%n"
    echo "SlurmctldPidFile=$dir/slurmctld.pid"
    echo "SlurmdPidFile=$dir/slurmd-%n.pid"
    echo "SlurmctldLogFile=$dir/slurmctld.log"
    echo "SlurmdLogFile=$dir/slurmd-%n.log"
    echo "ProctrackType=proctrack/linuxproc"
    echo "TaskPlugin=task/affinity"
    echo "SelectType=select/cons_tres"
    echo "SelectTypeParameters=CR_Core_Memory"
    echo "GresTypes=gpu"
    echo "SchedulerType=sched/builtin"
    echo "ReturnToService=2"
    echo "SlurmdTimeout=6"
    # scancel of a job that ignores SIGTERM: SIGKILL 2 s later.
    echo "KillWait=2"
    # The node sizes below, whatever the machine has (a small CI machine).
    echo "SlurmdParameters=config_overrides"
    echo "MpiDefault=none"
    echo "JobAcctGatherType=jobacct_gather/none"
    local gpu=0 node g cpus=${SLURM_NODE_CPUS:-2} gpus=${SLURM_NODE_GPUS:-2} mem=${SLURM_NODE_MEM_MB:-2000}
    for node in "$@"; do
      mkdir -p "$dir/spool-$node"
      for ((g = gpu; g < gpu + gpus; g++)); do touch "$dir/dev/gpu$g"; done
      echo "NodeName=$node NodeHostname=localhost Port=$(free_port) CPUs=$cpus RealMemory=$mem Gres=gpu:$gpus State=UNKNOWN"
      echo "NodeName=$node Name=gpu File=$dir/dev/gpu[$gpu-$((gpu + gpus - 1))]" >>"$dir/gres.conf"
      gpu=$((gpu + gpus))
    done
    # Only synergyd (root here) submits to its partition, through the
    # job_submit.lua docs/slurm.md installs (packaging/slurm), exactly: a
    # user can submit no job named as a lease's, and synergyd's sbatch
    # --uid of a user is not held back (RootOnly=YES held it for ever).
    echo "JobSubmitPlugins=lua"
    echo "PartitionName=synergy Nodes=$(IFS=,; echo "$*") Default=NO MaxTime=INFINITE State=UP"
    if [[ ${SLURM_SHARED:-0} == 1 ]]; then
      echo "PartitionName=other Nodes=$(IFS=,; echo "$*") Default=YES MaxTime=INFINITE State=UP"
    fi
  } >"$dir/slurm.conf"
  cp "$(dirname "${BASH_SOURCE[0]}")/../../packaging/slurm/job_submit.lua" "$dir/job_submit.lua"
  export SLURM_CONF=$dir/slurm.conf
  # slurmstepd may abort when the test kills its slurmd: no core files in
  # the build tree.
  ulimit -c 0
  setsid slurmctld -D -f "$SLURM_CONF" >>"$dir/slurmctld.out" 2>&1 &
  pids+=("$!")
  slurmctld_pid=$!
  for node in "$@"; do
    setsid slurmd -D -N "$node" -f "$SLURM_CONF" >>"$dir/slurmd-$node.out" 2>&1 &
    pids+=("$!")
    eval "slurmd_pid_$node=$!"
  done
  local idle=0 deadline=$((SECONDS + 20))
  while ((SECONDS < deadline)); do
    idle=$(timeout 5 sinfo -h -N -t idle -o %N 2>/dev/null | sort -u | wc -l)
    ((idle == $#)) && return 0
    sleep 0.2
  done
  tail -n 20 "$dir"/*.log >&2
  fail "$idle of $# Slurm nodes idle after 20 s"
}

slurm_node_state() {
  timeout 10 sinfo --json | python3 -c "
import json, sys
for n in json.load(sys.stdin)['nodes']:
    if n['name'] == '$1':
        print(n['state'])
"
}

slurm_cleanup() {
  [[ -n ${SLURM_CONF:-} ]] || return 0
  local p
  for p in $(pgrep -x slurmstepd); do
    tr '\0' '\n' <"/proc/$p/environ" 2>/dev/null | grep -qx "SLURM_CONF=$SLURM_CONF" && kill -9 "$p" 2>/dev/null
  done
  pkill -9 -f "$work/slurm/spool" 2>/dev/null
  return 0
}
