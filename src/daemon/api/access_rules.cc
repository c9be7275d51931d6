#include "daemon/api/access_rules.h"

#include <map>

namespace synergy::daemon {

std::optional<Access> AccessRule(const std::string& full_method) {
  static const std::map<std::string, Access> kRules = {
      {"/synergy.v1.SchedulerService/SubmitJob", Access::kUserOrAdmin},
      {"/synergy.v1.SchedulerService/CancelJob", Access::kUserOrAdmin},
      {"/synergy.v1.SchedulerService/GetJob", Access::kUserOrAdmin},
      {"/synergy.v1.SchedulerService/ListJobs", Access::kUserOrAdmin},
      {"/synergy.v1.SchedulerService/ListNodes", Access::kUserOrAdmin},
      {"/synergy.v1.SchedulerService/GetClusterState", Access::kUserOrAdmin},
      {"/synergy.v1.SchedulerService/DrainNode", Access::kAdmin},
      {"/synergy.v1.SchedulerService/UndrainNode", Access::kAdmin},
      {"/synergy.v1.SchedulerService/HoldJob", Access::kUserOrAdmin},
      {"/synergy.v1.SchedulerService/ReleaseJob", Access::kUserOrAdmin},
      {"/synergy.v1.SchedulerService/RequeueJob", Access::kUserOrAdmin},
      {"/synergy.v1.SchedulerService/UpdateJob", Access::kUserOrAdmin},
      {"/synergy.v1.SchedulerService/GetJobLogs", Access::kUserOrAdmin},
      {"/synergy.v1.NodeService/RegisterNode", Access::kNode},
      {"/synergy.v1.NodeService/Heartbeat", Access::kNode},
      {"/synergy.v1.NodeService/ReturnLogs", Access::kNode},
      {"/synergy.v1.AgentService/RegisterAgent", Access::kLeaseAgent},
      {"/synergy.v1.AgentService/ReportProgress", Access::kLeaseAgent},
      {"/synergy.v1.AgentService/ConfirmCheckpoint", Access::kLeaseAgent},
      {"/synergy.v1.AgentService/SubmitProfile", Access::kLeaseAgent},
  };
  auto it = kRules.find(full_method);
  if (it == kRules.end()) return std::nullopt;
  return it->second;
}

bool Permits(Access access, Role role) {
  if (role == Role::kAnyone) return access != Access::kLeaseAgent;
  switch (access) {
    case Access::kUserOrAdmin: return role == Role::kUser || role == Role::kAdmin;
    case Access::kAdmin: return role == Role::kAdmin;
    case Access::kNode: return role == Role::kNode || role == Role::kNodeJoin;
    case Access::kLeaseAgent: return false;  // only a lease credential, checked per request
  }
  return false;
}

}  // namespace synergy::daemon
