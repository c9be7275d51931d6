#pragma once
// Tenants' GPU quotas in a round (issue 44, item 5; Kueue's nominal quota
// and cohort borrowing, Slurm's GrpTRES with preemption). A phase of the
// round between the policy's order and the selection of the runnable set:
// it decides in which order the mechanism is offered the queue, and which
// jobs it is not offered at all. Both drivers pass the same TenantQuotas,
// so the simulator measures what synergyd does.
//
// Contract, for a queue already in the round's order (policy, classes):
//  - A job of a tenant with a quota is "within quota" while its tenant's
//    GPUs so far (those pinned outside the queue, then those of its jobs
//    before it in the order) plus its own are at most the quota; these
//    jobs, and the jobs of tenants without a quota (index -1, or a quota
//    of 0), are offered first, in the round's order.
//  - A job past its tenant's quota is offered after all of those, in the
//    round's order, if its tenant may borrow; else it is not offered (it
//    waits). So a tenant holds more than its quota only on GPUs no job
//    within its quota was offered first, and a round takes them back as
//    soon as the lender's jobs wait for them (rounds re-plan every lease).
//  - A running job that cannot checkpoint (JobView::runs_without_checkpoint)
//    is always offered first, counted against its tenant: ending it would
//    lose its work.
//  - With fair share (usage given), the queue is first ordered by each
//    tenant's usage, lowest first, then within a tenant by each user's
//    (user_usage), stably within a priority class and starvation bump (a
//    user's jobs keep the policy's order among themselves): Slurm's
//    fair-share factor as an order, across tenants and within them.
// Pure and deterministic; an empty TenantQuotas changes nothing.
#include <vector>

#include "synergy/job.h"

namespace synergy {

struct TenantQuota {
  int gpus = 0;         // at most this many GPUs held; 0 = no quota
  bool borrow = false;  // may hold more, on GPUs no job within its quota takes
};

struct TenantQuotas {
  std::vector<TenantQuota> quotas;  // by tenant index (JobView::tenant)
  // GPUs held by each tenant's jobs that are not in the round's queue (a
  // plan around pinned leases: launches between rounds, replans).
  std::vector<int> pinned_gpus;
  // Fair share: each tenant's recent usage (decayed GPU-seconds over its
  // quota, or as the driver weighs it), and each user's (JobView::user);
  // lower goes first. Empty: off.
  std::vector<double> usage;
  std::vector<double> user_usage;
  bool Active() const { return !quotas.empty() || !usage.empty() || !user_usage.empty(); }
};

// Usage that halves every `half_life_s` (Slurm's PriorityDecayHalfLife):
// GPU-seconds added at a time count 2^(-age / half_life) of themselves
// later. Keys are the drivers' (tenant or user indices). Times must not go
// back.
class DecayedUsage {
 public:
  explicit DecayedUsage(double half_life_s) : half_life_s_(half_life_s) {}
  void Add(int key, double amount, double now_s);
  double At(int key, double now_s) const;

 private:
  struct Entry {
    double value = 0;
    double as_of_s = 0;
  };
  double Decayed(const Entry& e, double now_s) const;
  double half_life_s_;
  std::vector<Entry> entries_;  // by key
};

// The jobs of `ordered` the mechanism is offered, in the order it is
// offered them (see the contract above).
std::vector<const JobView*> OfferWithinQuotas(const std::vector<const JobView*>& ordered, const TenantQuotas& tenants);

}  // namespace synergy
