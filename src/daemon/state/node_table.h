#pragma once
// synergyd's nodes, with one owner for each fact about them: what each
// registered node said of itself and when it was last heard from
// (NodeRecord, not stored: a node registers again after a restart), which
// nodes are drained (stored: a drain outlives the daemon and the node's
// registrations), and which joined with a join credential (stored: that
// name cannot join again).
//
// Records change only through Register and Edit, journaled while a change
// is open (Open), so that Undo puts back every node the change touched.
// Drains and joins change only once their commit is stored (SetDrained,
// NoteJoined), so they need no undo.
#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "daemon/state/journaled_map.h"
#include "daemon/state/store.h"
#include "synergy/v1/synergy.pb.h"

namespace synergy::daemon {

class NodeTable {
 public:
  struct NodeRecord {
    v1::Node info;
    std::set<std::pair<std::string, int64_t>> processes;  // (job, epoch) the node reports
    std::set<std::pair<std::string, int64_t>> queued;     // of those, the ones not started yet (RunningProcess.queued)
    bool unknown_processes = false;  // processes of leases we cannot place: launches wait
    // The synergy-node process that registered, and its latest call's
    // number (RegisterNodeRequest.incarnation, .sequence): an earlier call
    // that arrives later is stale.
    uint64_t incarnation = 0;
    uint64_t sequence = 0;
  };
  using Records = std::map<std::string, NodeRecord>;

  // ---- loading (before anything else)
  void Restore(std::map<std::string, NodeDrain> drained, std::map<std::string, int64_t> joined) {
    drained_ = std::move(drained);
    joined_ = std::move(joined);
  }

  // ---- reading
  const Records& all() const { return nodes_.all(); }
  Records::const_iterator find(const std::string& name) const { return nodes_.find(name); }
  Records::const_iterator begin() const { return nodes_.begin(); }
  Records::const_iterator end() const { return nodes_.end(); }
  const NodeRecord& at(const std::string& name) const { return nodes_.at(name); }
  size_t count(const std::string& name) const { return nodes_.count(name); }
  // Registered, alive, not drained and not leaving: it may be given leases.
  bool TakesPart(const std::string& name) const;
  // GPUs over every registered node.
  int TotalGpus() const;
  // The registered GPUs of each type (a node that declares none is of
  // `base`, the zoo's base type), by type name.
  std::map<std::string, int> GpusByType(const std::string& base) const;
  // Alive nodes not heard from for more than `timeout_ms` at `now_ms`.
  std::vector<std::string> Silent(int64_t now_ms, int64_t timeout_ms) const;
  bool Joined(const std::string& name) const { return joined_.count(name) > 0; }
  // A call of the process that registered `n` (same incarnation) numbered
  // no later than one already taken: it overtook nothing, it was overtaken.
  static bool Stale(const NodeRecord& n, uint64_t incarnation, uint64_t sequence);

  // ---- changing (journaled while a change is open)
  // The node's record as it registers now: alive, not leaving, drained as
  // stored, last heard from now, no processes yet. `known`: it had
  // registered before.
  NodeRecord& Register(const v1::RegisterNodeRequest& request, int64_t now_ms, bool& known);
  NodeRecord& Edit(const std::string& name) { return nodes_.Edit(name); }

  // Heard from `name` at `now_ms`, whether or not the call's change could
  // be stored: liveness is not a change (a store outage must not make a
  // node that heartbeats look silent). Called outside a change (not undone).
  void NoteHeard(const std::string& name, int64_t now_ms);

  // ---- after their commit is stored
  void SetDrained(const std::string& name, NodeDrain drain);
  void NoteJoined(const std::string& name, int64_t now_ms) { joined_[name] = now_ms; }

  // ---- the change protocol (DaemonState::Change)
  void Open() { nodes_.Open(); }
  void Keep() { nodes_.Keep(); }
  void Undo() { nodes_.Undo(); }

 private:
  JournaledMap<std::string, NodeRecord> nodes_;
  std::map<std::string, NodeDrain> drained_;
  std::map<std::string, int64_t> joined_;
};

}  // namespace synergy::daemon
