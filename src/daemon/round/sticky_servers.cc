#include "daemon/round/sticky_servers.h"

#include "daemon/round/lease_keeping.h"
#include "daemon/round/round_input.h"
#include "synergy/sticky_servers.h"

namespace synergy::daemon {
namespace {

// A planned slice the lease already holds on `node`: the same GPUs, CPUs
// and memory; for a lease that follows resizes the same GPUs (the rest is
// a resize in place there, a restart anywhere else).
bool Holds(const v1::Lease& lease, const std::string& node, const Slice& s) {
  const bool resizable = Resizable(lease);
  for (const v1::LeaseSlice& held : lease.slices()) {
    if (resizable ? held.node() == node && held.gpu_ids_size() == s.resources.gpus : SliceHolds(held, node, s)) {
      return true;
    }
  }
  return false;
}

}  // namespace

int StickToCurrentNodes(Plan& plan, const Cluster& cluster, const std::vector<std::string>& node_names,
                        const std::map<std::string, const v1::Lease*>& current) {
  if (current.empty()) return 0;
  return StickToCurrentServers(plan, cluster, [&](JobId job, int server, const Slice& s) {
    auto it = current.find(JobIdString(job));
    return it != current.end() && it->second != nullptr && Holds(*it->second, node_names[server], s);
  });
}

}  // namespace synergy::daemon
