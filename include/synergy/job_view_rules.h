#pragma once
// The rules both drivers (synergy-sim and synergyd) follow when they build
// a JobView from their own records, so that the same job looks the same to
// the core in either: one place for what a model brings to a view, and one
// for the speedup a job carries from one round into the next.
#include <deque>
#include <string>
#include <vector>

#include "synergy/cluster.h"
#include "synergy/job.h"
#include "synergy/model_zoo.h"

namespace synergy {

// Sets what follows from the job's model on this cluster: ideal demand and
// speedup (IdealDemandFor), iteration time, placement penalty and profile
// (`model` must outlive the view). `model` null: the job is known only by
// its GPUs; it asks for the proportional share at speedup 1, and its
// iteration time is left as the driver set it. `view.gpus` must be set.
void SetModelFields(JobView& view, const ModelSpec* model, const Cluster& cluster);

// On a cluster of several GPU types: the fields SetModelFields sets, copied
// from the job's view on one type (its reference type: the zoo's base type
// where the cluster has it) into the view the policy orders, so that
// policies compare every job in that type's units (typed_round.h).
void CopyModelFields(JobView& to, const JobView& from);

// The speedup a job carries into the next round (JobView::last_round_speedup,
// which SRTF and FTF order on): its ideal speedup when it held its ideal
// demand, even where the round booked it at 1 (a reverted peer whose ideal
// is not above proportional, as the reference does); else the speedup of
// what it held. A job that held nothing carries its ideal speedup (pass
// held_ideal = true).
double CarriedSpeedup(double ideal_speedup, double held_speedup, bool held_ideal);

// A cluster of several GPU types as the builder below reads it: its servers
// of each type, and which of them is the zoo's base type.
struct GpuTypeParts {
  std::vector<ServersOfType> parts;  // one per cluster.gpu_types()
  int base = -1;                     // index of the base type; -1: no server of it
};
// A type stated as "" counts as `base_type` (WithBaseGpuType).
GpuTypeParts PartsByGpuType(const Cluster& cluster, const std::string& base_type);

// A job's model on each type (gpu_types() order; null: it has none there)
// and, for a cluster with no server of the base type, on that type.
struct ModelsOnTypes {
  std::vector<const ModelSpec*> on_type;
  const ModelSpec* on_base = nullptr;
};

struct TypedJobViews {
  std::vector<const JobView*> on_type;  // one per type
  const JobView* reference = nullptr;   // its view on the base type
};

// The one builder of a job's views on a cluster of several GPU types, for
// both drivers. `view` is the job's view as its driver built it (identity,
// service, iterations; its model fields are replaced here). Appends to
// `store` its view on each type: SetModelFields on that type's servers, or
// on the whole `cluster` for a type with too few GPUs for it (never chosen
// for it), carrying the ideal speedup of a job that held nothing. Its view
// on the base type is the reference: that type's view where `types` has
// it, else one on `base_nodes` at `models.on_base`; `view` takes the
// reference's model fields (CopyModelFields) so that policies compare every
// job in the base type's units. Where a model is missing on some type (its
// profile reads nothing at a type's share), it is scheduled at the share on
// every type, so that its views stay in one unit. `view`'s carried speedup
// is left to the driver (it depends on the lease it holds).
TypedJobViews BuildTypedViews(JobView& view, const ModelsOnTypes& models, const Cluster& cluster,
                              const GpuTypeParts& types, const Cluster& base_nodes, std::deque<JobView>& store);

}  // namespace synergy
