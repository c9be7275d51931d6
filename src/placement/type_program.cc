#include "synergy/type_program.h"

#include "mechanisms.h"
#include "opt_programs.h"
#include "synergy/typed_round.h"

namespace synergy {

TypeProgramChoice ChooseGpuTypesByProgram(const std::vector<const JobView*>& runnable,
                                          const std::unordered_map<JobId, std::vector<const JobView*>>& on_type,
                                          const std::vector<const Cluster*>& types, int simplex_iterations,
                                          int branch_nodes) {
  std::vector<mechanisms::TypedPooledJob> jobs;
  jobs.reserve(runnable.size());
  std::vector<mechanisms::RoundOptions> options_on_type;
  options_on_type.reserve(types.size());
  for (const Cluster* type : types) options_on_type.emplace_back(*type);
  for (const JobView* job : runnable) {
    const std::vector<const JobView*>& views = on_type.at(job->id);
    mechanisms::TypedPooledJob& pooled = jobs.emplace_back();
    pooled.gpus = job->gpus;
    pooled.weight = RelativeThroughputAtShare(views);
    for (size_t t = 0; t < types.size(); ++t) {
      // A type with fewer GPUs than the job, all told, cannot hold it.
      pooled.options.push_back(job->gpus <= types[t]->total().gpus
                                   ? options_on_type[t].For(*views[t])
                                   : std::vector<mechanisms::Option>{});
    }
  }
  std::vector<Resources> capacity;
  for (const Cluster* c : types) capacity.push_back(c->total());
  const mechanisms::TypedPooledSolution s =
      mechanisms::SolvePooledByType(jobs, capacity, mechanisms::SolveBudget{simplex_iterations, branch_nodes, 0});
  TypeProgramChoice out;
  out.solved = s.ok;
  out.hit_budget = s.hit_budget;
  out.lp_bound = s.lp_bound;
  out.optimum = s.optimum;
  out.type = s.ok ? s.type : std::vector<int>(runnable.size(), -1);
  return out;
}

}  // namespace synergy
