#pragma once
// The cluster a scheduler places jobs on: a list of servers, each with a
// capacity. Servers are identified by their index in the list (0-based);
// placement first-fit walks them in that order.
#include <string>
#include <vector>

#include "synergy/resources.h"

namespace synergy {

// What a job's GPU-proportional share is measured against.
enum class ShareRule {
  // Each server's own CPUs, memory and storage per GPU: a job's share on
  // server i is C_i / G_i x g (the paper's definition). It does not change
  // when other servers join, drain or leave.
  kPerServer,
  // The cluster's totals per GPU, wherever the job lands (the reference's
  // per_server_size_fair, which assumes identical servers). Kept for
  // reference-compatible mode; the same as kPerServer on a cluster whose
  // servers all have the same resources per GPU.
  kClusterWide,
};

struct ServerSpec {
  std::string name;
  Resources capacity;  // gpus >= 1, cpus > 0, mem_gb > 0
  // The share of one GPU here, when `capacity` is what is left of a larger
  // server (a replan around kept leases, ids that ending leases still
  // hold): that server's share, so that a job given its share on the
  // remainder gets what it would get on the whole server, never the
  // remainder's CPUs per GPU (which can be less). gpus == 0 (the default):
  // capacity per GPU.
  Resources share_per_gpu;
  // The servers' GPU type (configs/models/zoo.yaml gpu_speed names them);
  // "" is the zoo's base type. A job runs on servers of one type.
  std::string gpu_type;
};

class Cluster {
 public:
  Cluster() = default;
  explicit Cluster(std::vector<ServerSpec> servers, ShareRule rule = ShareRule::kPerServer);

  const std::vector<ServerSpec>& servers() const { return servers_; }
  int num_servers() const { return static_cast<int>(servers_.size()); }
  const Resources& total() const { return total_; }

  // The GPU-proportional share of one GPU: the cluster's CPUs, memory and
  // storage divided by its GPUs (3 cores, 62.5 GB, 62.5 MB/s on the default
  // cluster). Every baseline scheduler hands out g times this.
  const Resources& share_per_gpu() const { return share_per_gpu_; }
  Resources ProportionalShare(int gpus) const;

  // The share of one GPU on `server` under the cluster's ShareRule; equal
  // to share_per_gpu(), bit for bit, when share_is_uniform().
  const Resources& share_per_gpu_on(int server) const { return share_on_[server]; }
  // g times share_per_gpu_on(server), dimension by dimension.
  Resources ShareOn(int server, int gpus) const;
  // Every server gives a GPU the same share (identical servers, or the
  // cluster-wide rule): a share is then one demand wherever it lands.
  bool share_is_uniform() const { return share_is_uniform_; }
  // The least any server gives a GPU, dimension by dimension: a demand
  // above it shrinks somewhere by falling back to the share.
  const Resources& smallest_share_per_gpu() const { return smallest_share_; }
  ShareRule share_rule() const { return rule_; }

  // The largest amount a single server can give (caps a job's ideal demand).
  const Resources& largest_server() const { return largest_server_; }

  // The servers' GPU types, in the order the servers first name them ("" is
  // the zoo's base type), and the index there of a server's type.
  const std::vector<std::string>& gpu_types() const { return gpu_types_; }
  int gpu_type_of(int server) const { return type_of_[server]; }
  bool heterogeneous() const { return gpu_types_.size() > 1; }

 private:
  std::vector<ServerSpec> servers_;
  Resources total_;
  Resources share_per_gpu_;
  Resources largest_server_;
  ShareRule rule_ = ShareRule::kPerServer;
  std::vector<Resources> share_on_;
  std::vector<std::string> gpu_types_;
  std::vector<int> type_of_;
  bool share_is_uniform_ = true;
  Resources smallest_share_;
};

// The servers of one GPU type as a cluster of their own (each keeping its
// share per GPU, and the rule), and which server of `whole` each one is.
struct ServersOfType {
  Cluster cluster;
  std::vector<int> servers_of;  // index in `cluster` -> index in `whole`
};
ServersOfType ServersOfGpuType(const Cluster& whole, int type);
// The GPUs of each type, in gpu_types() order; and of the type that has
// most (all the cluster's on one type).
std::vector<int> GpusOfEachType(const Cluster& cluster);
int LargestGpuType(const Cluster& cluster);
// `cluster` with the servers of no stated type given `base` (the zoo's
// base type): a server that states it and one that does not are alike.
Cluster WithBaseGpuType(const Cluster& cluster, const std::string& base);
// Whether jobs on `cluster` run on GPU types other than `base` (the zoo's
// base type): it has several types, or one other than `base` (no stated
// type is the base type). Such a cluster is planned type by type
// (typed_round.h).
bool HasOtherGpuTypes(const Cluster& cluster, const std::string& base);

}  // namespace synergy
