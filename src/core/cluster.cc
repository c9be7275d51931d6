#include "synergy/cluster.h"

#include <algorithm>

#include "absl/strings/str_format.h"

namespace synergy {

std::string Resources::ToString() const {
  return absl::StrFormat("{gpus=%d cpus=%g mem_gb=%g storage_mbps=%g}", gpus, cpus,
                         mem_gb, storage_mbps);
}

Cluster::Cluster(std::vector<ServerSpec> servers, ShareRule rule)
    : servers_(std::move(servers)), rule_(rule) {
  for (const ServerSpec& s : servers_) {
    auto type = std::find(gpu_types_.begin(), gpu_types_.end(), s.gpu_type);
    type_of_.push_back(static_cast<int>(type - gpu_types_.begin()));
    if (type == gpu_types_.end()) gpu_types_.push_back(s.gpu_type);
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
  // Each server's own share per GPU; where they all agree, the cluster's
  // (the same value, and the reference's arithmetic).
  share_on_.reserve(servers_.size());
  bool remainders = false;
  for (const ServerSpec& s : servers_) {
    const double g = s.capacity.gpus;
    if (s.share_per_gpu.gpus > 0) {
      remainders = true;
      share_on_.push_back(s.share_per_gpu);
      continue;
    }
    share_on_.push_back(g > 0 ? Resources{1, s.capacity.cpus / g, s.capacity.mem_gb / g, s.capacity.storage_mbps / g}
                              : Resources{});
  }
  const bool all_equal = std::all_of(share_on_.begin(), share_on_.end(),
                                     [&](const Resources& r) { return r == share_on_.front(); });
  // Remainders of servers that share one share per GPU: that share, not
  // the remainders' totals per GPU.
  if (remainders && all_equal && !share_on_.empty()) share_per_gpu_ = share_on_.front();
  share_is_uniform_ = rule_ == ShareRule::kClusterWide || all_equal;
  if (share_is_uniform_) {
    std::fill(share_on_.begin(), share_on_.end(), share_per_gpu_);
    smallest_share_ = share_per_gpu_;
  } else {
    smallest_share_ = share_on_.front();
    for (const Resources& r : share_on_) {
      smallest_share_.cpus = std::min(smallest_share_.cpus, r.cpus);
      smallest_share_.mem_gb = std::min(smallest_share_.mem_gb, r.mem_gb);
      smallest_share_.storage_mbps = std::min(smallest_share_.storage_mbps, r.storage_mbps);
    }
  }
}

Resources Cluster::ProportionalShare(int gpus) const {
  // share * g, dimension by dimension (the reference's
  // `[res * num_gpus for res in per_server_size_fair]`).
  return Resources{gpus, share_per_gpu_.cpus * gpus, share_per_gpu_.mem_gb * gpus,
                   share_per_gpu_.storage_mbps * gpus};
}

Resources Cluster::ShareOn(int server, int gpus) const {
  const Resources& per_gpu = share_on_[server];
  return Resources{gpus, per_gpu.cpus * gpus, per_gpu.mem_gb * gpus, per_gpu.storage_mbps * gpus};
}

ServersOfType ServersOfGpuType(const Cluster& whole, int type) {
  std::vector<ServerSpec> servers;
  ServersOfType out;
  for (int i = 0; i < whole.num_servers(); ++i) {
    if (whole.gpu_type_of(i) != type) continue;
    ServerSpec spec = whole.servers()[i];
    spec.share_per_gpu = whole.share_per_gpu_on(i);
    servers.push_back(std::move(spec));
    out.servers_of.push_back(i);
  }
  out.cluster = Cluster(std::move(servers), whole.share_rule());
  return out;
}

std::vector<int> GpusOfEachType(const Cluster& cluster) {
  std::vector<int> gpus(cluster.gpu_types().size(), 0);
  for (int i = 0; i < cluster.num_servers(); ++i) gpus[cluster.gpu_type_of(i)] += cluster.servers()[i].capacity.gpus;
  return gpus;
}

int LargestGpuType(const Cluster& cluster) {
  const std::vector<int> gpus = GpusOfEachType(cluster);
  return gpus.empty() ? 0 : *std::max_element(gpus.begin(), gpus.end());
}

bool HasOtherGpuTypes(const Cluster& cluster, const std::string& base) {
  const std::vector<std::string>& types = cluster.gpu_types();
  return types.size() > 1 || (types.size() == 1 && !types[0].empty() && types[0] != base);
}

Cluster WithBaseGpuType(const Cluster& cluster, const std::string& base) {
  std::vector<ServerSpec> servers = cluster.servers();
  for (ServerSpec& s : servers) {
    if (s.gpu_type.empty()) s.gpu_type = base;
  }
  return Cluster(std::move(servers), cluster.share_rule());
}

}  // namespace synergy
