#pragma once
// synergyd's side of a round on a cluster of several GPU types
// (synergy/typed_round.h): each queued job's view on each type, built by
// the rules synergy-sim follows, so that both drivers plan such a cluster
// alike (tests/unit/driver_equivalence_test.cc):
//   - a job's model on a type is its zoo model carried there by
//     gpu_type_model.h at the model's gpu_speed for the type; or, where its
//     agent measured a profile (or its spec brought one), that profile,
//     carried from the type it was measured on at the ratio of the two
//     speeds;
//   - a type with too few GPUs for the job gets a view on the whole
//     cluster (it is never chosen for it);
//   - the view the policy orders is the job's view on the zoo's base type
//     (that type's where the round has nodes of it, else on the registered
//     nodes of the type, else on the whole cluster), and carries its last
//     lease's speedup in that type's units.
// A model without a gpu_speed for a type, and a job without a zoo model,
// run there at the speed of the type their profile was measured on: no
// better guess is at hand (docs/profiling.md, "Other GPU types"). A job
// whose profile reads nothing at some type's share (nodes short of memory
// for its grid) is scheduled at the share on every type, in one unit.
#include <deque>
#include <map>
#include <string>
#include <unordered_map>
#include <vector>

#include "daemon/round/round_input.h"
#include "synergy/cluster.h"
#include "synergy/job.h"
#include "synergy/model_zoo.h"

namespace synergy::daemon {

// Service weights are kept within these (a job's own measured profile
// could otherwise make a second on one type worth 1e15 on another).
inline constexpr double kMinServiceWeight = 1e-3;
inline constexpr double kMaxServiceWeight = 1e3;

struct TypedViews {
  // Each job's views, one per type in gpu_types() order (ScheduleTypedRound's
  // input); they point into `views` and `models`.
  std::unordered_map<JobId, std::vector<const JobView*>> on_type;
  // Each job's view on the zoo's base type (one of on_type's, or its own).
  std::unordered_map<JobId, const JobView*> reference;
  std::deque<JobView> views;
  std::deque<ModelSpec> models;
};

// `jobs[i]` is the record behind `ordering[i]` (its view on the whole
// cluster, as ViewOf built it); `cluster`'s servers state their types (the
// zoo's base type where their node declared none: WithBaseGpuType);
// `lease_type`, by node name, the type index of every node a lease may be
// on; `base_nodes`, where `cluster` has no server of the zoo's base type,
// the servers the job's view on that type is taken on (synergyd: every
// registered node of the type, whole, so that its units do not move with
// the nodes that take part; else `cluster`). Builds every job's views on
// each type and rewrites each ordering view's model fields and carried
// speedup (see above).
TypedViews ViewsByGpuType(const std::vector<const RoundJob*>& jobs, std::vector<JobView>& ordering,
                          const Cluster& cluster, const std::map<std::string, int>& lease_type,
                          const Cluster& base_nodes, const ModelZoo& zoo);

// What a second held on `type` counts as in the base type's service (LAS):
// the job's rate there over its rate on the base type, each at its share
// (v1::Lease::service_weight), within [kMinServiceWeight,
// kMaxServiceWeight]. 1 for a job not in `views`.
double ServiceWeight(const TypedViews& views, JobId job, int type);

}  // namespace synergy::daemon
