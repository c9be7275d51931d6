#pragma once
// A Policy only orders jobs: who goes first. It never looks at servers.
//
// Contract: a policy is its Key. Order() is a stable sort of `queue` by Key
// (jobs with equal keys keep the order they came in, which is the previous
// round's order), and Key reads nothing but the JobView and the context.
#include <array>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "synergy/job.h"

namespace synergy {

struct PolicyContext {
  double now_s = 0;
  // Remaining time is divided by the job's speedup unless the mechanism is
  // PROPORTIONAL (the reference's `fair` flag).
  bool mechanism_uses_speedup = false;
  bool reference_compatible = false;
};

// How the runnable set is taken from the ordered queue.
enum class Selection {
  // Walk the whole ordered queue; every job whose GPUs fit the GPUs still
  // free is offered to the mechanism (a job the mechanism skips leaves its
  // GPUs to later jobs). FIFO, SRTF, FTF.
  kWalkQueue,
  // First pick, by GPU count alone, the jobs in order whose GPUs fit; then
  // offer only those (LAS). Under a mechanism that asks for it (TUNE), the
  // picked set is offered largest GPU count first.
  kCountFitFirst,
};

// A job's place in a policy's order: smaller keys go first, compared
// element by element.
using OrderKey = std::array<double, 3>;

class Policy {
 public:
  virtual ~Policy() = default;
  virtual std::string_view name() const = 0;
  virtual Selection selection() const = 0;
  virtual OrderKey Key(const JobView& job, const PolicyContext& context) const = 0;
  // Whether Key moves with context.now_s alone (FTF's does). When it does
  // not, a job's key changes only when its view does, and a caller may keep
  // the order standing between rounds (synergy/standing_queue.h).
  virtual bool key_moves_with_time() const = 0;

  // Sorts `queue` by Key, stable.
  void Order(std::vector<const JobView*>& queue, const PolicyContext& context) const;
};

// Registry: "fifo", "srtf", "las", "ftf". An unknown name is an error value.
absl::StatusOr<std::unique_ptr<Policy>> MakePolicy(std::string_view name);
std::vector<std::string> PolicyNames();

}  // namespace synergy
