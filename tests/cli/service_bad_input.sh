#!/usr/bin/env bash
# Bad configs and flags for synergyd, synergy-node and synergyctl: exit
# status 2 and a message naming the file, line and field (or the flag).
# usage: service_bad_input.sh BUILD_DIR
set -uo pipefail
bin=$1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failed=0
expect() {  # NAME FRAGMENT COMMAND...
  local name=$1 fragment=$2
  shift 2
  local out rc
  out=$("$@" 2>&1)
  rc=$?
  if [[ $rc -ne 2 ]]; then
    echo "FAIL $name: exit $rc ($out)"; failed=1
  elif [[ $out != *"$fragment"* ]]; then
    echo "FAIL $name: '$out' lacks '$fragment'"; failed=1
  else
    echo "ok   $name: $(echo "$out" | head -1)"
  fi
}
printf 'round_s: 0\n' >"$work/round.yaml"
printf 'listen: 127.0.0.1:0\npolicy: lifo\n' >"$work/policy.yaml"
printf 'rounds: 3\n' >"$work/unknown.yaml"
printf 'type_choice: fastest\n' >"$work/type_choice.yaml"
printf 'gpus: 1\nuses_agent: true\niterations: 5\ncommand: [x]\nprofile_points: [{cpus: 1, mem_gb: 1, throughput: 1}]\nprofile_gpu_type: V100\n' >"$work/profile_type.yaml"
printf 'gpus: 1\nuses_agent: true\niterations: 5\ncommand: [x]\nprofile_gpu_type: v100\n' >"$work/profile_type_alone.yaml"
printf 'round_s: 60\ntokens: [shared-secret-0123456789]\n' >"$work/tokens.yaml"
printf 'auth:\n  users: [{name: alice, token: tiny-secret}]\n' >"$work/short_token.yaml"
printf 'gpus: [0, 1\n' >"$work/node.yaml"
printf 'gpus: 1\ncpu: [0]\n' >"$work/node_unknown.yaml"
printf 'gpus: 1000000000\n' >"$work/node_gpus.yaml"
printf 'name: n9\ntoken: "abc\\rdef-secret-0123"\n' >"$work/node_token.yaml"
printf '? [a, b]\n: 1\n' >"$work/list_key.yaml"
printf 'profile_wait_s: -5\n' >"$work/wait.yaml"
printf 'executor: kubernetes\n' >"$work/executor.yaml"
printf 'executor: slurm\n' >"$work/executor_partition.yaml"
printf 'executor: slurm\nslurm: {partition: "gpu;rm"}\n' >"$work/slurm_partition.yaml"
printf 'executor: slurm\nslurm: {partition: gpu, log_dir: logs}\n' >"$work/slurm_log_dir.yaml"
printf 'slurm: {partition: gpu, accounts: {alice: "-root"}}\n' >"$work/slurm_accounts.yaml"
printf 'slurm: {partition: gpu, command_timeout_s: 0}\n' >"$work/slurm_timeout.yaml"
printf 'gpus: 1\npriority: 5000\ncommand: [x]\n' >"$work/priority.yaml"
expect daemon_round "round.yaml:1: round_s: '0': must be between 0.05 and" "$bin/synergyd" --config "$work/round.yaml"
expect daemon_policy "policy.yaml:2: policy: 'lifo': is not one of" "$bin/synergyd" --config "$work/policy.yaml"
expect daemon_type_choice "type_choice.yaml:1: type_choice: 'fastest': is not one of first-fit, gpu-throughput," \
  "$bin/synergyd" --config "$work/type_choice.yaml"
expect daemon_unknown "unknown.yaml:1: rounds: unknown field (fields: listen," "$bin/synergyd" --config "$work/unknown.yaml"
expect daemon_tokens "tokens.yaml:2: tokens: one shared token is no longer accepted" "$bin/synergyd" --config "$work/tokens.yaml"
expect daemon_short_token "short_token.yaml:2: auth.users[0].token: is shorter than 16 characters" \
  "$bin/synergyd" --config "$work/short_token.yaml"
expect daemon_list_key "list_key.yaml:1: document: (a list): is not a field name" "$bin/synergyd" --config "$work/list_key.yaml"
expect daemon_profile_wait "wait.yaml:1: profile_wait_s: '-5': must be between 0 and" "$bin/synergyd" --config "$work/wait.yaml"
expect daemon_executor "executor.yaml:1: executor: 'kubernetes': is not node or slurm" \
  "$bin/synergyd" --config "$work/executor.yaml"
expect daemon_executor_partition "executor_partition.yaml:1: executor: 'slurm': needs slurm.partition" \
  "$bin/synergyd" --config "$work/executor_partition.yaml"
expect daemon_slurm_partition "slurm_partition.yaml:2: slurm.partition: 'gpu;rm': is not a Slurm partition name" \
  "$bin/synergyd" --config "$work/slurm_partition.yaml"
expect daemon_slurm_log_dir "slurm_log_dir.yaml:2: slurm.log_dir: 'logs': is not an absolute path" \
  "$bin/synergyd" --config "$work/slurm_log_dir.yaml"
expect daemon_slurm_accounts "slurm_accounts.yaml:1: slurm.accounts.alice: '-root': is not a local account name" \
  "$bin/synergyd" --config "$work/slurm_accounts.yaml"
expect daemon_slurm_timeout "slurm_timeout.yaml:1: slurm.command_timeout_s: '0': must be > 0" \
  "$bin/synergyd" --config "$work/slurm_timeout.yaml"
expect daemon_missing "nope.yaml: cannot open" "$bin/synergyd" --config "$work/nope.yaml"
expect daemon_flag "unknown flag '--bogus'" "$bin/synergyd" --bogus
expect node_yaml "node.yaml:2: document: malformed YAML" "$bin/synergy-node" --config "$work/node.yaml"
expect node_unknown "node_unknown.yaml:2: cpu: unknown field (fields: name," "$bin/synergy-node" --config "$work/node_unknown.yaml"
expect node_gpus "node_gpus.yaml:1: gpus: '1000000000': must be between 0 and 1024" \
  "$bin/synergy-node" --config "$work/node_gpus.yaml"
expect node_token "node_token.yaml:2: token: character 4 (byte 0x0d) is not printable ASCII" \
  "$bin/synergy-node" --config "$work/node_token.yaml"
expect node_list_key "list_key.yaml:1: document: (a list): is not a field name" "$bin/synergy-node" --config "$work/list_key.yaml"
expect node_flag "unknown flag '--gpus'" "$bin/synergy-node" --gpus 2
expect ctl_command "unknown command 'launch'" "$bin/synergyctl" launch
expect ctl_output "-o: 'xml' is not wide, json, yaml, name, csv or trace" "$bin/synergyctl" get jobs -o xml
expect ctl_output_trace "-o trace is for history only" "$bin/synergyctl" get jobs -o trace
expect ctl_update "update needs what to change: --priority N" "$bin/synergyctl" update j-000001
expect ctl_priority_flag "--priority needs a priority class from 0 to 1000" "$bin/synergyctl" update j-000001 --priority 99999999999
expect ctl_reason_elsewhere "--reason is for drain only" "$bin/synergyctl" undrain n1 --reason x
expect ctl_file "nope.yaml: cannot open" "$bin/synergyctl" submit -f "$work/nope.yaml"
expect ctl_priority "priority.yaml: spec.priority: 5000 is not a priority class (0 to 1000)" \
  "$bin/synergyctl" submit -f "$work/priority.yaml"
expect ctl_profile_type "profile_type.yaml: spec.profile_gpu_type: 'V100' a GPU type is 1 to 64 lower-case" \
  "$bin/synergyctl" submit -f "$work/profile_type.yaml"
expect ctl_profile_type_alone "profile_type_alone.yaml: spec.profile_gpu_type: 'v100' names the type profile_points" \
  "$bin/synergyctl" submit -f "$work/profile_type_alone.yaml"
# A refused credential is named, never echoed.
for f in tokens short_token node_token; do
  prog=synergyd
  [[ $f == node_* ]] && prog=synergy-node
  if "$bin/$prog" --config "$work/$f.yaml" 2>&1 | grep -q secret; then
    echo "FAIL ${f}_not_echoed: $prog repeats the credential"; failed=1
  else
    echo "ok   ${f}_not_echoed"
  fi
done
exit $failed
