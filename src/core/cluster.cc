#include "synergy/cluster.h"

#include <algorithm>

#include "absl/strings/str_format.h"

namespace synergy {

std::string Resources::ToString() const {
  return absl::StrFormat("{gpus=%d cpus=%g mem_gb=%g storage_mbps=%g}", gpus, cpus,
                         mem_gb, storage_mbps);
}

Cluster::Cluster(std::vector<ServerSpec> servers) : servers_(std::move(servers)) {
  for (const ServerSpec& s : servers_) {
    total_ += s.capacity;
    largest_server_.gpus = std::max(largest_server_.gpus, s.capacity.gpus);
    largest_server_.cpus = std::max(largest_server_.cpus, s.capacity.cpus);
    largest_server_.mem_gb = std::max(largest_server_.mem_gb, s.capacity.mem_gb);
    largest_server_.storage_mbps =
        std::max(largest_server_.storage_mbps, s.capacity.storage_mbps);
  }
  if (total_.gpus > 0) {
    share_per_gpu_.gpus = 1;
    share_per_gpu_.cpus = total_.cpus / total_.gpus;
    share_per_gpu_.mem_gb = total_.mem_gb / total_.gpus;
    share_per_gpu_.storage_mbps = total_.storage_mbps / total_.gpus;
  }
}

Resources Cluster::ProportionalShare(int gpus) const {
  // share * g, dimension by dimension (the reference's
  // `[res * num_gpus for res in per_server_size_fair]`).
  return Resources{gpus, share_per_gpu_.cpus * gpus, share_per_gpu_.mem_gb * gpus,
                   share_per_gpu_.storage_mbps * gpus};
}

}  // namespace synergy
