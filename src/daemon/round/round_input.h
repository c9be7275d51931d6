#pragma once
// The daemon's side of "one core, two drivers": turns synergyd's records
// (jobs as v1::Job, nodes as v1::Node) into the core's RoundInput, the same
// JobView fields synergy-sim fills from its own records. A job known by a
// zoo model gets that model's profile and ideal demand; a job without one
// (or a plain process without the agent) is scheduled at its proportional
// share.
#include <cstdint>
#include <deque>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "synergy/cluster.h"
#include "synergy/job.h"
#include "synergy/measured_model.h"
#include "synergy/model_zoo.h"
#include "synergy/round.h"
#include "synergy/v1/synergy.pb.h"

namespace synergy::daemon {

// "j-000012" -> 12; -1 when not of that form.
JobId NumericJobId(const std::string& id);
std::string JobIdString(JobId id);

// Servers of the round: alive, undrained nodes, by name, each of the GPU
// type its node declared. Storage is not tracked by the daemon (0).
struct RoundCluster {
  Cluster cluster;
  std::vector<std::string> node_names;  // index = server index
};
// `whole`, by node name where given: the node's whole resources, when
// `nodes` hold what is left of them (ServerSpec::share_per_gpu).
RoundCluster ClusterOf(const std::vector<const v1::Node*>& nodes,
                       const std::map<std::string, const v1::NodeResources*>& whole = {});

// `capacity`'s GPU and CPU ids less `gpus` and `cpus` (ids leases hold);
// its memory and GPU type as they are.
v1::NodeResources IdsLeft(const v1::NodeResources& capacity, const std::set<int>& gpus, const std::set<int>& cpus);

// `ids` less what other work holds on the node (v1::ForeignUse, counts):
// that many GPU and CPU ids, the highest first, never one of `kept_gpus`
// or `kept_cpus` (ids synergyd's leases hold: fewer are taken where those
// are all that is left), and its memory less the foreign memory (not
// below 0). Unchanged where nothing is foreign.
v1::NodeResources WithoutForeign(const v1::NodeResources& ids, const v1::ForeignUse& foreign,
                                 const std::set<int>& kept_gpus, const std::set<int>& kept_cpus);

// CPU ids for a planned slice of `cpus` cores: whole ids, at least one
// (the core plans fractional cores).
int WholeCpus(double cpus);

// Whether `held`, a lease's slice, is what `planned` asks of `node`: the
// same node, GPU count, whole CPUs and memory.
bool SliceHolds(const v1::LeaseSlice& held, const std::string& node, const Slice& planned);

// Whether `lease` already is what `planned` asks for: one held slice per
// planned slice (SliceHolds), in any order, since a lease's slice order is
// its ranks' and the plan's is by server index.
bool LeaseHolds(const v1::Lease& lease, const Assignment& planned, const std::vector<std::string>& node_names);

// What a round reads of a job, copied out of its record so that the round
// can plan without the daemon's lock.
struct RoundJob {
  std::string id;
  int gpus = 1;
  bool uses_agent = false;
  std::string model;  // the zoo model it names ("" none)
  int64_t submitted_unix_ms = 0;
  int64_t iterations = 0;
  // Whole iterations as agents report them; a double so that the
  // equivalence tests can state the simulator's fractional progress as is.
  double iterations_done = 0;
  double throughput = 0;  // iterations per second, last report
  int64_t attained_service_ms = 0;  // to the round's now
  int64_t last_lease_end_unix_ms = 0;
  int starvation_priority = 0;
  int priority_class = 0;
  int tenant = -1;  // its tenant's index in RoundWorld::tenants (-1: none known yet)
  int user = -1;    // its owner's index in RoundWorld::tenants.user_usage (-1: none known yet)
  // The lease it holds (when it holds one): the speedup carried into this
  // round comes from it.
  bool holds_lease = false;
  double lease_speedup = 0;
  bool lease_at_ideal = false;
  std::string lease_node;  // its lease's first node (all of one GPU type)
  double lease_service_weight = 0;  // v1::Lease::service_weight (0 = 1)
  bool running = false;  // its lease has (or may have) processes
  std::vector<MeasuredPoint> measured;  // what its agent measured, else its spec's profile_points
  std::string measured_gpu_type;        // the GPU type `measured` was taken on ("" the zoo's base)
};
RoundJob RoundJobOf(const v1::Job& job, int64_t attained_service_ms, bool running);

// The JobView of `job` (times in seconds on the wall clock), built with the
// core's rules (job_view_rules.h, measured_model.h): a job whose agent
// measured a profile that covers the share is scheduled on it, else on its
// zoo model, else at its proportional share. `measured` keeps the models
// built from measurements (the view points into it).
// The service a round orders by: the time held, to the nearest tenth of a
// round. It is wall time from launch to the lease's end, so two jobs that
// held the same rounds differ by their launch and exit latencies
// (milliseconds), and LAS, whose ties go to the earlier arrival, would
// order them by that noise where the paper's rounds (and the simulator's)
// tie: scripts/deploy-vs-sim found a job preempted for a peer that had
// started 20 ms later. A tenth of a round absorbs latencies up to a
// twentieth of one (15 s in rounds of 300 s).
int64_t ServiceInTenthsOfARound(int64_t service_ms, int64_t round_ms);

JobView ViewOf(const RoundJob& job, const ModelZoo& zoo, const Cluster& cluster, std::deque<ModelSpec>& measured);

}  // namespace synergy::daemon
