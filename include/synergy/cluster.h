#pragma once
// The cluster a scheduler places jobs on: a list of servers, each with a
// capacity. Servers are identified by their index in the list (0-based);
// placement first-fit walks them in that order.
#include <string>
#include <vector>

#include "synergy/resources.h"

namespace synergy {

struct ServerSpec {
  std::string name;
  Resources capacity;  // gpus >= 1, cpus > 0, mem_gb > 0
};

class Cluster {
 public:
  Cluster() = default;
  explicit Cluster(std::vector<ServerSpec> servers);

  const std::vector<ServerSpec>& servers() const { return servers_; }
  int num_servers() const { return static_cast<int>(servers_.size()); }
  const Resources& total() const { return total_; }

  // The GPU-proportional share of one GPU: the cluster's CPUs, memory and
  // storage divided by its GPUs (3 cores, 62.5 GB, 62.5 MB/s on the default
  // cluster). Every baseline scheduler hands out g times this.
  const Resources& share_per_gpu() const { return share_per_gpu_; }
  Resources ProportionalShare(int gpus) const;

  // The largest amount a single server can give (caps a job's ideal demand).
  const Resources& largest_server() const { return largest_server_; }

 private:
  std::vector<ServerSpec> servers_;
  Resources total_;
  Resources share_per_gpu_;
  Resources largest_server_;
};

}  // namespace synergy
