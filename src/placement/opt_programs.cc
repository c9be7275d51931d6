#include "opt_programs.h"

#include <glpk.h>

#include <algorithm>
#include <climits>
#include <cmath>
#include <memory>

namespace synergy::mechanisms {
namespace {

// A GLPK problem with its sparse matrix under construction (1-based).
class Program {
 public:
  Program() : p_(glp_create_prob()) {
    glp_term_out(GLP_OFF);
    ia_.push_back(0);
    ja_.push_back(0);
    ar_.push_back(0);
  }
  ~Program() { glp_delete_prob(p_); }
  Program(const Program&) = delete;
  Program& operator=(const Program&) = delete;

  glp_prob* get() { return p_; }
  int AddRows(int n) { return n > 0 ? glp_add_rows(p_, n) : 0; }
  int AddCols(int n) { return n > 0 ? glp_add_cols(p_, n) : 0; }
  void Set(int row, int col, double value) {
    ia_.push_back(row);
    ja_.push_back(col);
    ar_.push_back(value);
  }
  void Load() { glp_load_matrix(p_, static_cast<int>(ia_.size()) - 1, ia_.data(), ja_.data(), ar_.data()); }

  // LP relaxation, then branch and bound. Returns true with an integral
  // solution (optimal, or the best found when the budget ran out).
  // `good_enough`: stop branching as soon as an integral solution reaches
  // this objective (a known bound); `gap`: accept a solution within this
  // relative distance of the best bound.
  // `incumbent` (1-based column values, may be empty): a known integral
  // solution handed to branch and bound at its first heuristic call.
  bool Solve(const SolveBudget& budget, bool& hit_budget, double* lp_value,
             double good_enough = NAN, double gap = 0, std::vector<double> incumbent = {}) {
    const int wall_clock = budget.time_limit_ms > 0 ? budget.time_limit_ms : INT_MAX;
    glp_smcp lp;
    glp_init_smcp(&lp);
    lp.msg_lev = GLP_MSG_OFF;
    lp.it_lim = budget.simplex_iterations;
    lp.tm_lim = wall_clock;
    if (glp_simplex(p_, &lp) != 0 || glp_get_status(p_) != GLP_OPT) {
      hit_budget = glp_get_status(p_) != GLP_NOFEAS && glp_get_status(p_) != GLP_OPT;
      return false;
    }
    if (lp_value != nullptr) *lp_value = glp_get_obj_val(p_);
    glp_iocp mip;
    glp_init_iocp(&mip);
    mip.msg_lev = GLP_MSG_OFF;
    mip.tm_lim = wall_clock;
    mip.mip_gap = gap;
    good_enough_ = good_enough;
    incumbent_ = std::move(incumbent);
    branch_nodes_left_ = budget.branch_nodes;
    out_of_nodes_ = false;
    mip.cb_func = &Program::OnEvent;
    mip.cb_info = this;
    const int ret = glp_intopt(p_, &mip);
    hit_budget = ret == GLP_ETMLIM || out_of_nodes_;
    const int status = glp_mip_status(p_);
    return (ret == 0 || ret == GLP_ETMLIM || ret == GLP_ESTOP) && (status == GLP_OPT || status == GLP_FEAS);
  }

 private:
  static void OnEvent(glp_tree* tree, void* info) {
    auto* self = static_cast<Program*>(info);
    // The work budget: each subproblem selected counts one node.
    if (glp_ios_reason(tree) == GLP_ISELECT && --self->branch_nodes_left_ < 0) {
      self->out_of_nodes_ = true;
      glp_ios_terminate(tree);
      return;
    }
    if (glp_ios_reason(tree) == GLP_IHEUR && !self->incumbent_.empty()) {
      glp_ios_heur_sol(tree, self->incumbent_.data());
      self->incumbent_.clear();
      return;
    }
    if (glp_ios_reason(tree) != GLP_IBINGO || std::isnan(self->good_enough_)) return;
    const double best = glp_mip_obj_val(glp_ios_get_prob(tree));
    const bool minimise = glp_get_obj_dir(self->p_) == GLP_MIN;
    if (minimise ? best <= self->good_enough_ + 1e-9 : best >= self->good_enough_ - 1e-9) {
      glp_ios_terminate(tree);
    }
  }

  glp_prob* p_;
  double good_enough_ = NAN;
  std::vector<double> incumbent_;
  int branch_nodes_left_ = 0;
  bool out_of_nodes_ = false;
  std::vector<int> ia_, ja_;
  std::vector<double> ar_;
};

// Interchangeable jobs, grouped: one integer variable per (group, option)
// counts how many of the group take it. This keeps a program small (models
// x GPU counts x options) however long the queue, and removes the symmetry
// that stalls branch and bound. `same(a, b)`: jobs a and b are alike.
struct Groups {
  std::vector<int> of;       // per job
  std::vector<size_t> rep;   // first job of each group
  std::vector<int> size;     // jobs in each group
};
template <typename Same>
Groups GroupAlike(size_t jobs, Same same) {
  Groups groups;
  groups.of.resize(jobs);
  for (size_t j = 0; j < jobs; ++j) {
    int g = -1;
    for (size_t k = 0; k < groups.rep.size() && g < 0; ++k) {
      if (same(groups.rep[k], j)) g = static_cast<int>(k);
    }
    if (g < 0) {
      g = static_cast<int>(groups.rep.size());
      groups.rep.push_back(j);
      groups.size.push_back(0);
    }
    groups.of[j] = g;
    ++groups.size[g];
  }
  return groups;
}

bool SameOptions(const std::vector<Option>& a, const std::vector<Option>& b) {
  if (a.size() != b.size()) return false;
  for (size_t o = 0; o < a.size(); ++o) {
    if (!(a[o].per_gpu == b[o].per_gpu) || a[o].speedup != b[o].speedup) return false;
  }
  return true;
}

// Program 2 stops within 10% of its bound on split jobs: proving the last
// split optimal over many identical servers is where branch and bound
// spends its time.
constexpr double kPackingGap = 0.10;

// A column of the typed program: a group's option on a type.
struct TypedColumn {
  int group, type, option;
};

// Every (group, type, option) column, group by group, type by type.
std::vector<TypedColumn> TypedColumns(const std::vector<TypedPooledJob>& jobs, const std::vector<size_t>& group_rep,
                                      size_t types) {
  std::vector<TypedColumn> cols;
  for (int g = 0; g < static_cast<int>(group_rep.size()); ++g) {
    const TypedPooledJob& job = jobs[group_rep[g]];
    for (size_t t = 0; t < types; ++t) {
      for (size_t o = 0; o < job.options[t].size(); ++o) cols.push_back({g, static_cast<int>(t), static_cast<int>(o)});
    }
  }
  return cols;
}

// Two jobs the typed program may count as one: the same GPUs, weights and
// options on every type.
bool SameOnEveryType(const TypedPooledJob& a, const TypedPooledJob& b) {
  if (a.gpus != b.gpus || a.weight != b.weight || a.options.size() != b.options.size()) return false;
  for (size_t t = 0; t < a.options.size(); ++t) {
    if (!SameOptions(a.options[t], b.options[t])) return false;
  }
  return true;
}

// Each group's option counts handed out to its jobs (`group_of`, in queue
// order), best option first: each job's option, -1 where its group's
// counts ran out.
std::vector<int> HandOut(std::vector<std::vector<int>> counts, const std::vector<int>& group_of) {
  std::vector<int> choice(group_of.size(), -1);
  for (size_t j = 0; j < group_of.size(); ++j) {
    std::vector<int>& left = counts[group_of[j]];
    for (size_t k = 0; k < left.size(); ++k) {
      if (left[k] > 0) {
        --left[k];
        choice[j] = static_cast<int>(k);
        break;
      }
    }
  }
  return choice;
}

}  // namespace

PooledSolution SolvePooled(const std::vector<PooledJob>& jobs, const Resources& capacity,
                           const SolveBudget& budget, bool group_jobs) {
  PooledSolution out;
  const auto [group_of, group_rep, group_size] = GroupAlike(jobs.size(), [&](size_t a, size_t b) {
    return group_jobs && jobs[a].gpus == jobs[b].gpus && SameOptions(jobs[a].options, jobs[b].options);
  });

  Program prog;
  glp_prob* p = prog.get();
  glp_set_obj_dir(p, GLP_MAX);
  const int groups = static_cast<int>(group_rep.size());
  const int first_row = prog.AddRows(groups + 2);
  const int cpu_row = first_row + groups;
  const int mem_row = cpu_row + 1;
  for (int g = 0; g < groups; ++g) {
    glp_set_row_bnds(p, first_row + g, GLP_FX, group_size[g], group_size[g]);
  }
  glp_set_row_bnds(p, cpu_row, GLP_UP, 0, capacity.cpus);
  glp_set_row_bnds(p, mem_row, GLP_UP, 0, capacity.mem_gb);
  std::vector<std::pair<int, int>> col_of;  // (group, option)
  int total_cols = 0;
  for (int g = 0; g < groups; ++g) total_cols += static_cast<int>(jobs[group_rep[g]].options.size());
  const int first_col = prog.AddCols(total_cols);
  int col = first_col;
  for (int g = 0; g < groups; ++g) {
    const PooledJob& job = jobs[group_rep[g]];
    for (size_t k = 0; k < job.options.size(); ++k, ++col) {
      const Option& o = job.options[k];
      glp_set_col_kind(p, col, GLP_IV);
      glp_set_col_bnds(p, col, GLP_DB, 0, group_size[g]);
      glp_set_obj_coef(p, col, o.speedup);
      prog.Set(first_row + g, col, 1);
      prog.Set(cpu_row, col, o.per_gpu.cpus * job.gpus);
      prog.Set(mem_row, col, o.per_gpu.mem_gb * job.gpus);
      col_of.emplace_back(g, static_cast<int>(k));
    }
  }
  prog.Load();
  if (!prog.Solve(budget, out.hit_budget, &out.lp_bound)) return out;
  out.optimum = glp_mip_obj_val(p);
  std::vector<std::vector<int>> counts(groups);
  for (int g = 0; g < groups; ++g) counts[g].assign(jobs[group_rep[g]].options.size(), 0);
  for (int c = 0; c < total_cols; ++c) {
    counts[col_of[c].first][col_of[c].second] =
        static_cast<int>(std::lround(glp_mip_col_val(p, first_col + c)));
  }
  out.choice = HandOut(std::move(counts), group_of);
  out.ok = std::find(out.choice.begin(), out.choice.end(), -1) == out.choice.end();
  return out;
}

TypedPooledSolution SolvePooledByType(const std::vector<TypedPooledJob>& jobs, const std::vector<Resources>& capacity,
                                      const SolveBudget& budget) {
  TypedPooledSolution out;
  const size_t types = capacity.size();
  const auto [group_of, group_rep, group_size] =
      GroupAlike(jobs.size(), [&](size_t a, size_t b) { return SameOnEveryType(jobs[a], jobs[b]); });

  Program prog;
  glp_prob* p = prog.get();
  glp_set_obj_dir(p, GLP_MAX);
  const int groups = static_cast<int>(group_rep.size());
  const int first_row = prog.AddRows(groups + 3 * static_cast<int>(types));
  const int type_rows = first_row + groups;  // per type: GPUs, CPUs, memory
  for (int g = 0; g < groups; ++g) glp_set_row_bnds(p, first_row + g, GLP_FX, group_size[g], group_size[g]);
  for (size_t t = 0; t < types; ++t) {
    glp_set_row_bnds(p, type_rows + 3 * t, GLP_UP, 0, capacity[t].gpus);
    glp_set_row_bnds(p, type_rows + 3 * t + 1, GLP_UP, 0, capacity[t].cpus);
    glp_set_row_bnds(p, type_rows + 3 * t + 2, GLP_UP, 0, capacity[t].mem_gb);
  }
  const std::vector<TypedColumn> cols = TypedColumns(jobs, group_rep, types);
  out.ok = jobs.empty();  // nothing to place: value 0
  if (jobs.empty() || cols.empty()) return out;
  const int first_col = prog.AddCols(static_cast<int>(cols.size()));
  for (size_t c = 0; c < cols.size(); ++c) {
    const int col = first_col + static_cast<int>(c);
    const TypedPooledJob& job = jobs[group_rep[cols[c].group]];
    const Option& o = job.options[cols[c].type][cols[c].option];
    glp_set_col_kind(p, col, GLP_IV);
    glp_set_col_bnds(p, col, GLP_DB, 0, group_size[cols[c].group]);
    glp_set_obj_coef(p, col, o.speedup * job.weight[cols[c].type]);
    prog.Set(first_row + cols[c].group, col, 1);
    prog.Set(type_rows + 3 * cols[c].type, col, job.gpus);
    prog.Set(type_rows + 3 * cols[c].type + 1, col, o.per_gpu.cpus * job.gpus);
    prog.Set(type_rows + 3 * cols[c].type + 2, col, o.per_gpu.mem_gb * job.gpus);
  }
  prog.Load();
  if (!prog.Solve(budget, out.hit_budget, &out.lp_bound)) return out;
  out.optimum = glp_mip_obj_val(p);
  // Each group's counts to its jobs in queue order, in column order.
  std::vector<std::vector<int>> counts(groups);
  std::vector<std::vector<size_t>> columns_of(groups);
  for (size_t c = 0; c < cols.size(); ++c) {
    columns_of[cols[c].group].push_back(c);
    counts[cols[c].group].push_back(static_cast<int>(std::lround(glp_mip_col_val(p, first_col + static_cast<int>(c)))));
  }
  const std::vector<int> slot = HandOut(std::move(counts), group_of);
  out.type.assign(jobs.size(), -1);
  out.option.assign(jobs.size(), -1);
  for (size_t j = 0; j < jobs.size(); ++j) {
    if (slot[j] < 0) continue;
    const TypedColumn& c = cols[columns_of[group_of[j]][slot[j]]];
    out.type[j] = c.type;
    out.option[j] = c.option;
  }
  out.ok = true;
  return out;
}

namespace {

// The solved packing: each job's (server, GPUs) pairs, read from the
// columns y0.. (job by job, server by server); false where a job's GPUs do
// not add up to what it asks.
bool ReadPacking(glp_prob* p, const std::vector<PackedJob>& jobs, const std::vector<FreeServer>& servers, int y0,
                 std::vector<std::vector<std::pair<int, int>>>& gpus_on) {
  const int m = static_cast<int>(servers.size());
  gpus_on.resize(jobs.size());
  for (int j = 0; j < static_cast<int>(jobs.size()); ++j) {
    int total = 0;
    for (int s = 0; s < m; ++s) {
      const int g = static_cast<int>(std::lround(glp_mip_col_val(p, y0 + j * m + s)));
      if (g > 0) {
        gpus_on[j].emplace_back(servers[s].server, g);
        total += g;
      }
    }
    if (total != jobs[j].gpus) return false;
  }
  return true;
}

// Every job needs at least ceil(gpus / largest free server) servers: a
// packing with that many (job, server) pairs is optimal.
double FewestPackingPairs(const std::vector<PackedJob>& jobs, const std::vector<FreeServer>& servers) {
  int largest = 0;
  for (const FreeServer& s : servers) largest = std::max(largest, s.free.gpus);
  double fewest_pairs = 0;
  for (const PackedJob& j : jobs) fewest_pairs += (j.gpus + largest - 1) / std::max(1, largest);
  return fewest_pairs;
}

// The incumbent packing (per job, its (server, GPUs) pairs) as the
// program's starting point over columns y0.. (GPUs) and z0.. (uses), job
// by job and server by server; empty (no start) where it names a server
// not among `servers` or does not cover the `n` jobs.
std::vector<double> PackingStart(const std::vector<std::vector<std::pair<int, int>>>& incumbent,
                                 const std::vector<FreeServer>& servers, int n, int y0, int z0) {
  const int m = static_cast<int>(servers.size());
  if (static_cast<int>(incumbent.size()) != n) return {};
  std::vector<double> start(1 + 2 * n * m, 0.0);
  std::vector<int> position(0);
  for (int s = 0; s < m; ++s) {
    if (servers[s].server >= static_cast<int>(position.size())) position.resize(servers[s].server + 1, -1);
    position[servers[s].server] = s;
  }
  for (int j = 0; j < n; ++j) {
    for (const auto& [server, gpus] : incumbent[j]) {
      const int s = server < static_cast<int>(position.size()) ? position[server] : -1;
      if (s < 0) return {};
      start[y0 + j * m + s] = gpus;
      start[z0 + j * m + s] = 1;
    }
  }
  return start;
}

}  // namespace

Packing SolvePacking(const std::vector<PackedJob>& jobs, const std::vector<FreeServer>& servers,
                     const std::vector<std::vector<std::pair<int, int>>>& incumbent,
                     const SolveBudget& budget) {
  Packing out;
  Program prog;
  glp_prob* p = prog.get();
  glp_set_obj_dir(p, GLP_MIN);
  const int n = static_cast<int>(jobs.size());
  const int m = static_cast<int>(servers.size());
  // Rows: one per job (its GPUs), four per server, one link per (job, server).
  const int job_rows = prog.AddRows(n);
  const int server_rows = prog.AddRows(4 * m);
  const int link_rows = prog.AddRows(n * m);
  for (int j = 0; j < n; ++j) glp_set_row_bnds(p, job_rows + j, GLP_FX, jobs[j].gpus, jobs[j].gpus);
  for (int s = 0; s < m; ++s) {
    const Resources& f = servers[s].free;
    glp_set_row_bnds(p, server_rows + 4 * s + 0, GLP_UP, 0, f.gpus);
    glp_set_row_bnds(p, server_rows + 4 * s + 1, GLP_UP, 0, f.cpus);
    glp_set_row_bnds(p, server_rows + 4 * s + 2, GLP_UP, 0, f.mem_gb);
    glp_set_row_bnds(p, server_rows + 4 * s + 3, GLP_UP, 0, f.storage_mbps);
  }
  for (int k = 0; k < n * m; ++k) glp_set_row_bnds(p, link_rows + k, GLP_UP, 0, 0);
  // Columns: y (GPUs of job j on server s) then z (j uses s).
  const int y0 = prog.AddCols(n * m);
  const int z0 = prog.AddCols(n * m);
  for (int j = 0; j < n; ++j) {
    for (int s = 0; s < m; ++s) {
      const int k = j * m + s;
      const int y = y0 + k;
      const int z = z0 + k;
      const int cap = std::min(jobs[j].gpus, servers[s].free.gpus);
      glp_set_col_kind(p, y, GLP_IV);
      if (cap > 0) {
        glp_set_col_bnds(p, y, GLP_DB, 0, cap);
      } else {
        glp_set_col_bnds(p, y, GLP_FX, 0, 0);
      }
      glp_set_col_kind(p, z, GLP_BV);
      glp_set_obj_coef(p, z, 1);
      prog.Set(job_rows + j, y, 1);
      prog.Set(server_rows + 4 * s + 0, y, 1);
      prog.Set(server_rows + 4 * s + 1, y, jobs[j].per_gpu.cpus);
      prog.Set(server_rows + 4 * s + 2, y, jobs[j].per_gpu.mem_gb);
      prog.Set(server_rows + 4 * s + 3, y, jobs[j].per_gpu.storage_mbps);
      prog.Set(link_rows + k, y, 1);
      prog.Set(link_rows + k, z, -jobs[j].gpus);
    }
  }
  prog.Load();
  if (!prog.Solve(budget, out.hit_budget, nullptr, FewestPackingPairs(jobs, servers), kPackingGap,
                  PackingStart(incumbent, servers, n, y0, z0))) {
    return out;
  }
  out.ok = ReadPacking(p, jobs, servers, y0, out.gpus_on);
  return out;
}

}  // namespace synergy::mechanisms
