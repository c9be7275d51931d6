// synergy._agent: libsynergy_agent for Python (the package's synergy/agent.py
// is the API users see; this is the binding under it). One implementation
// of the protocol: everything here calls the C++ agent.
//
// The GIL: calls that may wait (registration, a lease end's checkpoint
// confirmation inside step, finish, profiling) release it; the Python
// callbacks they run (the checkpoint's save, the profiler's measure) take
// it again (pybind11's function wrapper does).
#include <pybind11/functional.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include "synergy/agent.h"

namespace py = pybind11;
using synergy::agent::Agent;
using synergy::agent::AgentOptions;
using synergy::agent::Allocation;
using synergy::agent::CpuPoint;
using synergy::agent::CpuProfile;
using synergy::agent::LeaseInfo;
using synergy::agent::MemoryModel;
using synergy::agent::ProfilerOptions;

PYBIND11_MODULE(_agent, m) {
  m.doc() = "libsynergy_agent's binding; use synergy.Agent.";

  // The credential and the TLS settings stay in C++: a job has no use for them.
  py::class_<LeaseInfo>(m, "Lease", "The lease this process runs under.")
      .def_readonly("job_id", &LeaseInfo::job_id, "The job's id ('' when standalone).")
      .def_readonly("epoch", &LeaseInfo::epoch, "The lease's epoch.")
      .def_readonly("rank", &LeaseInfo::rank, "This process's rank (0 for a one-process job).")
      .def_readonly("world_size", &LeaseInfo::world_size, "How many ranks the job runs.")
      .def_readonly("cpus", &LeaseInfo::cpus, "CPUs granted to this rank (0 when standalone and SYNERGY_CPUS unset).")
      .def_readonly("mem_gb", &LeaseInfo::mem_gb, "Memory granted to this rank, GB.")
      .def_readonly("total_iterations", &LeaseInfo::total_iterations, "The job's iterations (0: no limit).")
      .def_readonly("profiling", &LeaseInfo::profiling, "A profiling lease: call Agent.profile.")
      .def("__repr__", [](const LeaseInfo& l) {
        return "Lease(job_id='" + l.job_id + "', epoch=" + std::to_string(l.epoch) + ", rank=" +
               std::to_string(l.rank) + ", world_size=" + std::to_string(l.world_size) + ", cpus=" +
               std::to_string(l.cpus) + ", mem_gb=" + std::to_string(l.mem_gb) + ", profiling=" +
               (l.profiling ? "True" : "False") + ")";
      });

  py::class_<CpuPoint>(m, "CpuPoint", "One measured point of the CPU axis.")
      .def_readonly("cpus", &CpuPoint::cpus)
      .def_readonly("throughput", &CpuPoint::throughput, "Iterations per second.")
      .def("__repr__", [](const CpuPoint& p) {
        return "CpuPoint(cpus=" + std::to_string(p.cpus) + ", throughput=" + std::to_string(p.throughput) + ")";
      });

  py::class_<CpuProfile>(m, "CpuProfile", "What the profiler measured on the CPU axis.")
      .def_readonly("measured", &CpuProfile::measured, "The points, in the order measured.")
      .def_readonly("knee", &CpuProfile::knee, "The fewest CPUs within the threshold of more.")
      .def_readonly("seconds", &CpuProfile::seconds, "Time spent measuring.");

  py::class_<MemoryModel>(m, "MemoryModel",
                          "The memory axis, modelled (docs/profiling.md): a cache of the data set in memory, misses "
                          "read from storage.")
      .def(py::init([](double dataset_gb, double mb_per_iteration, double storage_mbps, double baseline_gb) {
             MemoryModel mm;
             mm.dataset_gb = dataset_gb;
             mm.mb_per_iteration = mb_per_iteration;
             mm.storage_mbps = storage_mbps;
             mm.baseline_gb = baseline_gb;
             return mm;
           }),
           py::kw_only(), py::arg("dataset_gb") = 0.0, py::arg("mb_per_iteration") = 0.0,
           py::arg("storage_mbps") = 500.0, py::arg("baseline_gb") = 0.0)
      .def_readwrite("dataset_gb", &MemoryModel::dataset_gb)
      .def_readwrite("mb_per_iteration", &MemoryModel::mb_per_iteration)
      .def_readwrite("storage_mbps", &MemoryModel::storage_mbps)
      .def_readwrite("baseline_gb", &MemoryModel::baseline_gb);

  py::class_<Allocation>(m, "Allocation", "A lease's allocation after a resize in place.")
      .def_readonly("revision", &Allocation::revision, "Increases with every resize of the lease.")
      .def_readonly("cpu_ids", &Allocation::cpu_ids, "The lease's CPU ids (slot numbers on a node with CPU slots).")
      .def_readonly("cpus", &Allocation::cpus, "How many CPUs: the data workers the job may run.")
      .def_readonly("mem_gb", &Allocation::mem_gb)
      .def("__repr__", [](const Allocation& a) {
        return "Allocation(revision=" + std::to_string(a.revision) + ", cpus=" + std::to_string(a.cpus) +
               ", mem_gb=" + std::to_string(a.mem_gb) + ")";
      });

  py::class_<Agent>(m, "NativeAgent")
      .def_static(
          "from_environment",
          [](int report_interval_ms) {
            AgentOptions options;
            options.report_interval_ms = report_interval_ms;
            // Python ends the process itself (SystemExit), so that its own
            // cleanup and buffered output are not skipped by exit().
            options.exit_on_lease_end = false;
            py::gil_scoped_release released;
            return Agent::FromEnvironment(options);
          },
          py::arg("report_interval_ms") = 1000)
      .def_property_readonly("managed", &Agent::managed)
      .def_property_readonly("lease", &Agent::lease, py::return_value_policy::copy)
      .def_property_readonly("start_iteration", &Agent::start_iteration)
      .def_property_readonly("checkpoint_path", &Agent::checkpoint_path)
      .def_property_readonly("iteration", &Agent::iteration)
      .def_property_readonly("lease_ended", &Agent::lease_ended)
      .def("on_checkpoint",
           [](Agent& agent, std::function<std::string(int64_t)> save) { agent.OnCheckpoint(std::move(save)); })
      // Called from step() (GIL released); pybind11's function wrapper takes
      // the GIL back to run the Python callback.
      .def("on_resize",
           [](Agent& agent, std::function<void(const Allocation&)> apply) { agent.OnResize(std::move(apply)); })
      .def("step", &Agent::Step, py::call_guard<py::gil_scoped_release>())
      .def("finish", &Agent::Finish, py::call_guard<py::gil_scoped_release>())
      .def(
          "profile",
          [](Agent& agent, std::function<double(int, int)> measure, const MemoryModel& memory,
             std::vector<double> mem_points_gb, double threshold, int iterations_per_point, int passes) {
            ProfilerOptions options;
            options.threshold = threshold;
            options.iterations_per_point = iterations_per_point;
            options.passes = passes;
            py::gil_scoped_release released;
            return agent.Profile(measure, memory, std::move(mem_points_gb), options);
          },
          py::arg("measure"), py::arg("memory"), py::arg("mem_points_gb"), py::arg("threshold"),
          py::arg("iterations_per_point"), py::arg("passes") = 1);
}
