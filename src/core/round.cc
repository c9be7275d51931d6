#include "synergy/round.h"

#include <algorithm>

#include "synergy/placement_state.h"

namespace synergy {
namespace {

bool Starved(const JobView& job, double now_s) {
  const double since = job.last_execution_end_s < 0 ? now_s - job.arrival_s
                                                    : now_s - job.last_execution_end_s;
  return since > kStarvationLimitS;
}

// The jobs offered to the mechanism, in the order it sees them.
std::vector<const JobView*> SelectRunnable(const std::vector<const JobView*>& ordered,
                                           Selection selection, const Mechanism& mechanism,
                                           int free_gpus) {
  if (selection == Selection::kWalkQueue) return ordered;
  std::vector<const JobView*> picked;
  for (const JobView* job : ordered) {
    if (free_gpus == 0) break;  // every job asks for a GPU or more: none would be picked
    if (job->gpus <= free_gpus) {
      picked.push_back(job);
      free_gpus -= job->gpus;
    }
  }
  if (mechanism.prefers_large_jobs_first()) OfferLargestFirst(picked);
  return picked;
}

}  // namespace

void OfferLargestFirst(std::vector<const JobView*>& runnable) {
  // Larger first, within a priority class: a higher class still gets the
  // first pick of the servers.
  std::stable_sort(runnable.begin(), runnable.end(), [](const JobView* a, const JobView* b) {
    if (a->priority_class != b->priority_class) return a->priority_class > b->priority_class;
    if (a->runs_without_checkpoint != b->runs_without_checkpoint) return a->runs_without_checkpoint;
    return a->gpus > b->gpus;
  });
}

RoundSelection SelectForRound(const RoundInput& input, const Policy& policy, const Mechanism& mechanism,
                              int free_gpus) {
  RoundSelection out;
  std::vector<const JobView*> queue = input.queue;

  PolicyContext context;
  context.now_s = input.now_s;
  context.mechanism_uses_speedup = mechanism.uses_speedup();
  context.reference_compatible = input.reference_compatible;
  // One pass over the queue as it came in finds the starved jobs, and
  // checks that it is already in the policy's order and in class order
  // (FIFO's queue after its first round, in one class: the simulator's
  // always). Only a queue out of order is sorted and passed again. Each
  // pass over 131,072 waiting jobs reads a cache line or two of each, and
  // a sort's check and the starved jobs' search were two passes (issue 20).
  // Higher classes first; within one, running jobs that cannot checkpoint
  // (JobView::runs_without_checkpoint) before the rest.
  const auto by_class = [](const JobView* a, const JobView* b) {
    if (a->priority_class != b->priority_class) return a->priority_class > b->priority_class;
    return a->runs_without_checkpoint && !b->runs_without_checkpoint;
  };
  struct Checked {
    bool keys_in_order = true;
    bool classes_in_order = true;
  };
  const auto find_starved = [&](bool check_keys) {
    Checked checked;
    out.bumped.clear();
    OrderKey previous{};
    for (size_t i = 0; i < queue.size(); ++i) {
      const JobView* job = queue[i];
      if (check_keys) {
        const OrderKey key = policy.Key(*job, context);
        if (i > 0 && key < previous) {
          checked.keys_in_order = false;
          return checked;  // sorted and passed again
        }
        previous = key;
      }
      if (i > 0 && by_class(job, queue[i - 1])) checked.classes_in_order = false;
      if (job->priority != 1 && Starved(*job, input.now_s)) out.bumped.push_back(job);
    }
    return checked;
  };
  Checked checked = find_starved(/*check_keys=*/true);
  if (!checked.keys_in_order) {
    policy.Order(queue, context);
    checked = find_starved(/*check_keys=*/false);
  }
  if (!checked.classes_in_order) {
    std::stable_sort(queue.begin(), queue.end(), by_class);
    find_starved(/*check_keys=*/false);
  }
  // The standing order stays the policy's; quotas decide what is offered.
  const bool quotas = input.tenants != nullptr && input.tenants->Active();
  out.runnable = SelectRunnable(quotas ? OfferWithinQuotas(queue, *input.tenants) : queue, policy.selection(),
                                mechanism, free_gpus);
  out.order = std::move(queue);
  return out;
}

RoundResult ScheduleRound(const RoundInput& input, const Policy& policy,
                          const Mechanism& mechanism) {
  PlacementState state(*input.cluster, input.gpu_placement);
  RoundSelection selected = SelectForRound(input, policy, mechanism, state.free_gpus());
  mechanism.Place(selected.runnable, state);
  RoundResult result;
  result.plan = state.TakePlan();
  result.order = std::move(selected.order);
  result.bumped = std::move(selected.bumped);
  return result;
}

}  // namespace synergy
