#pragma once
// The rules both drivers (synergy-sim and synergyd) follow when they build
// a JobView from their own records, so that the same job looks the same to
// the core in either: one place for what a model brings to a view, and one
// for the speedup a job carries from one round into the next.
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

}  // namespace synergy
