// The round's tenant phase (synergy/tenant_quotas.h): which jobs the
// mechanism is offered, in which order, under tenants' GPU quotas, and
// the order fair share puts tenants in.
#include "synergy/tenant_quotas.h"

#include <deque>

#include "gtest/gtest.h"

namespace synergy {
namespace {

class TenantQuotasTest : public ::testing::Test {
 protected:
  const JobView* Job(int tenant, int gpus, bool running_without_checkpoint = false) {
    JobView& v = views_.emplace_back();
    v.id = static_cast<JobId>(views_.size());
    v.tenant = tenant;
    v.gpus = gpus;
    v.runs_without_checkpoint = running_without_checkpoint;
    order_.push_back(&v);
    return &v;
  }
  std::vector<JobId> Offered(const TenantQuotas& t) const {
    std::vector<JobId> ids;
    for (const JobView* v : OfferWithinQuotas(order_, t)) ids.push_back(v->id);
    return ids;
  }
  std::deque<JobView> views_;
  std::vector<const JobView*> order_;
};

TEST_F(TenantQuotasTest, JobsPastAQuotaWithoutBorrowingAreNotOffered) {
  Job(0, 2);   // 1: within tenant 0's 3
  Job(0, 2);   // 2: past it
  Job(1, 4);   // 3: tenant 1 has no quota
  Job(0, 1);   // 4: fits the 1 left
  Job(-1, 8);  // 5: no tenant
  TenantQuotas t;
  t.quotas = {{3, false}, {0, false}};
  EXPECT_EQ(Offered(t), (std::vector<JobId>{1, 3, 4, 5}));
}

TEST_F(TenantQuotasTest, BorrowersComeAfterEveryJobWithinItsQuota) {
  Job(0, 2);  // 1: within
  Job(0, 2);  // 2: borrows
  Job(1, 2);  // 3: within tenant 1's
  Job(0, 1);  // 4: borrows too (tenant 0 is at its 2... of 2)
  TenantQuotas t;
  t.quotas = {{2, true}, {2, false}};
  EXPECT_EQ(Offered(t), (std::vector<JobId>{1, 3, 2, 4}));
}

TEST_F(TenantQuotasTest, PinnedGpusCountAndRunningPlainProcessesAreAlwaysOffered) {
  Job(0, 1);        // 1: tenant 0 already holds 2 of 2 outside the queue
  Job(0, 1, true);  // 2: a running plain process: never ended for a quota
  TenantQuotas t;
  t.quotas = {{2, false}};
  t.pinned_gpus = {2};
  EXPECT_EQ(Offered(t), (std::vector<JobId>{2}));
}

TEST_F(TenantQuotasTest, FairShareOrdersTenantsByUsageWithinAClassKeepingEachTenantsOrder) {
  Job(0, 1);  // 1
  Job(1, 1);  // 2
  Job(0, 1);  // 3
  Job(1, 1);  // 4
  JobView& urgent = views_[2];
  urgent.priority_class = 5;  // job 3: a higher class goes first whatever its tenant used
  TenantQuotas t;
  t.usage = {10.0, 2.0};
  EXPECT_EQ(Offered(t), (std::vector<JobId>{3, 2, 4, 1}));
  EXPECT_EQ(Offered(TenantQuotas{}), (std::vector<JobId>{1, 2, 3, 4}));
}

}  // namespace
}  // namespace synergy

namespace synergy {
namespace {

TEST_F(TenantQuotasTest, FairShareOrdersUsersWithinATenantByTheirUsage) {
  JobView& a = views_.emplace_back();
  JobView& b = views_.emplace_back();
  a.id = 1, a.tenant = 0, a.user = 0;
  b.id = 2, b.tenant = 0, b.user = 1;
  order_ = {&a, &b};
  TenantQuotas t;
  t.usage = {1.0};
  t.user_usage = {5.0, 1.0};
  EXPECT_EQ(Offered(t), (std::vector<JobId>{2, 1}));
}

TEST(DecayedUsage, HalvesEveryHalfLifeAndAddsUp) {
  DecayedUsage u(3600);
  u.Add(2, 100, 0);
  EXPECT_DOUBLE_EQ(u.At(2, 3600), 50);
  u.Add(2, 10, 7200);
  EXPECT_DOUBLE_EQ(u.At(2, 7200), 35);
  EXPECT_DOUBLE_EQ(u.At(0, 7200), 0);  // never added
  EXPECT_DOUBLE_EQ(u.At(9, 0), 0);
  DecayedUsage forever(0);  // no decay
  forever.Add(0, 5, 0);
  EXPECT_DOUBLE_EQ(forever.At(0, 1e9), 5);
}

}  // namespace
}  // namespace synergy
