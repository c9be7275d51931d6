# Sourced by scripts/demo and scripts/demo-examples: the security settings
# of a one-machine cluster, made fresh in DIR. TLS from a throwaway CA
# (scripts/make-dev-pki), one admin (this shell: SYNERGY_TOKEN), one node
# credential, and jobs run as the node's own account. A real cluster is set
# up as docs/security.md says.
# local_security DIR NODE_NAME: sets daemon_security and node_security (YAML
# lines to append to synergyd.yaml and the node's yaml) and exports
# SYNERGY_CA and SYNERGY_TOKEN for synergyctl.
local_security() {
  local dir=$1 node=$2
  "$(dirname "${BASH_SOURCE[0]}")/../make-dev-pki" "$dir/pki"
  local admin node_token
  admin=$(openssl rand -hex 24)
  node_token=$(openssl rand -hex 24)
  daemon_security="tls: {cert: $dir/pki/synergyd.crt, key: $dir/pki/synergyd.key}
auth:
  admins: [{name: demo, token: $admin}]
  nodes: [{name: $node, token: $node_token}]"
  local root_jobs=false
  [[ $(id -u) == 0 ]] && root_jobs=true
  node_security="token: $node_token
tls_ca: $dir/pki/ca.crt
run_jobs_as_node_user: true
allow_root_jobs: $root_jobs"
  export SYNERGY_CA=$dir/pki/ca.crt
  export SYNERGY_TOKEN=$admin
}
