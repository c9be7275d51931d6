#include "daemon/state/node_table.h"

namespace synergy::daemon {
namespace {

// What a node shows of its drain (drained_ owns it).
void ShowDrain(v1::Node& info, const NodeDrain* drain) {
  const bool drained = drain != nullptr && drain->drained;
  info.set_drained(drained);
  info.set_drain_reason(drained ? drain->reason : "");
  info.set_drained_unix_ms(drained ? drain->since_ms : 0);
}

}  // namespace

bool NodeTable::TakesPart(const std::string& name) const {
  auto it = nodes_.find(name);
  if (it == nodes_.end()) return false;
  const v1::Node& info = it->second.info;
  return info.alive() && !info.drained() && !info.leaving();
}

int NodeTable::TotalGpus() const {
  int gpus = 0;
  for (const auto& [name, n] : nodes_.all()) gpus += n.info.capacity().gpu_ids_size();
  return gpus;
}

std::map<std::string, int> NodeTable::GpusByType(const std::string& base) const {
  std::map<std::string, int> gpus;
  for (const auto& [name, n] : nodes_.all()) {
    const std::string& type = n.info.capacity().gpu_type();
    gpus[type.empty() ? base : type] += n.info.capacity().gpu_ids_size();
  }
  return gpus;
}

std::vector<std::string> NodeTable::Silent(int64_t now_ms, int64_t timeout_ms) const {
  std::vector<std::string> silent;
  for (const auto& [name, n] : nodes_.all()) {
    if (n.info.alive() && now_ms - n.info.last_heartbeat_unix_ms() > timeout_ms) silent.push_back(name);
  }
  return silent;
}

NodeTable::NodeRecord& NodeTable::Register(const v1::RegisterNodeRequest& request, int64_t now_ms, bool& known) {
  NodeRecord& n = nodes_.EditOrAdd(request.name());
  known = n.info.name() == request.name();
  n.info.set_name(request.name());
  n.info.set_address(request.address());
  *n.info.mutable_capacity() = request.resources();
  *n.info.mutable_foreign() = request.foreign();
  n.info.set_alive(true);
  n.info.set_leaving(false);
  auto drained = drained_.find(request.name());
  ShowDrain(n.info, drained == drained_.end() ? nullptr : &drained->second);
  n.info.set_last_heartbeat_unix_ms(now_ms);
  n.info.set_cgroups(request.cgroups());
  n.processes.clear();
  n.unknown_processes = false;
  n.incarnation = request.incarnation();
  n.sequence = request.sequence();
  return n;
}

void NodeTable::NoteHeard(const std::string& name, int64_t now_ms) {
  auto it = nodes_.find(name);
  if (it == nodes_.end() || !it->second.info.alive() || it->second.info.last_heartbeat_unix_ms() >= now_ms) return;
  nodes_.Edit(name).info.set_last_heartbeat_unix_ms(now_ms);
}

bool NodeTable::Stale(const NodeRecord& n, uint64_t incarnation, uint64_t sequence) {
  return incarnation != 0 && incarnation == n.incarnation && sequence != 0 && sequence <= n.sequence;
}

void NodeTable::SetDrained(const std::string& name, NodeDrain drain) {
  NodeDrain& stored = drained_[name] = std::move(drain);
  if (nodes_.count(name)) ShowDrain(nodes_.Edit(name).info, &stored);
}

}  // namespace synergy::daemon
