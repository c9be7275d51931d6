#include "synergy/sticky_servers.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <tuple>
#include <vector>

namespace synergy {
namespace {

// Interchangeable servers: the same capacity and the same GPU type (a job
// planned on one type must stay on it).
bool Interchangeable(const Cluster& cluster, int a, int b) {
  const Resources& x = cluster.servers()[a].capacity;
  const Resources& y = cluster.servers()[b].capacity;
  return x.gpus == y.gpus && std::abs(x.cpus - y.cpus) < 1e-9 && std::abs(x.mem_gb - y.mem_gb) < 1e-9 &&
         cluster.gpu_type_of(a) == cluster.gpu_type_of(b);
}

}  // namespace

int StickToCurrentServers(Plan& plan, const Cluster& cluster,
                          const std::function<bool(JobId job, int server, const Slice& slice)>& holds) {
  const int n = cluster.num_servers();
  // weight[s][t]: slices planned on server s that their job holds on server t.
  std::map<std::pair<int, int>, int> weight;
  for (const Assignment& a : plan.assignments) {
    for (const Slice& s : a.slices) {
      for (int t = 0; t < n; ++t) {
        if (Interchangeable(cluster, s.server, t) &&
            holds(a.job, t, s)) {
          ++weight[{s.server, t}];
        }
      }
    }
  }
  if (weight.empty()) return 0;
  // Greedy by weight (then indices, for determinism): good enough, since a
  // slice is held on one server only.
  std::vector<std::tuple<int, int, int>> pairs;  // -weight, s, t
  for (const auto& [st, w] : weight) pairs.emplace_back(-w, st.first, st.second);
  std::sort(pairs.begin(), pairs.end());
  std::vector<int> to(n, -1), from(n, -1);
  for (const auto& [w, s, t] : pairs) {
    if (to[s] < 0 && from[t] < 0) {
      to[s] = t;
      from[t] = s;
    }
  }
  // The rest stay where they are when they can, else take the first free
  // server of their capacity.
  for (int s = 0; s < n; ++s) {
    if (to[s] < 0 && from[s] < 0) {
      to[s] = s;
      from[s] = s;
    }
  }
  for (int s = 0; s < n; ++s) {
    if (to[s] >= 0) continue;
    for (int t = 0; t < n; ++t) {
      if (from[t] < 0 && Interchangeable(cluster, s, t)) {
        to[s] = t;
        from[t] = s;
        break;
      }
    }
  }
  int moved = 0;
  for (int s = 0; s < n; ++s) moved += to[s] != s;
  if (moved == 0) return 0;
  for (Assignment& a : plan.assignments) {
    for (Slice& s : a.slices) s.server = to[s.server];
    std::sort(a.slices.begin(), a.slices.end(), [](const Slice& x, const Slice& y) { return x.server < y.server; });
  }
  return moved;
}

}  // namespace synergy
