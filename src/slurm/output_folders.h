#pragma once
// The folders Slurm writes a lease's output into: <log_dir>/<account>/
// <node>, each made by synergyd (root or SlurmUser), owned by the job's
// account and 0700, so that slurmd, writing as that account, can create the
// files and no other user can read them. Nothing is followed through a
// link (a user who could write log_dir could plant one to a folder of
// root's), and a folder that exists but belongs to another account is
// refused, never taken over.
#include <string>

#include "absl/status/status.h"
#include "slurm/slurm_launch.h"

namespace synergy::slurm {

// Makes (or checks) <log_dir>/<who.folder> and <log_dir>/<who.folder>/<node>
// as above. log_dir must exist. Errors name the folder and the reason.
absl::Status MakeOutputFolders(const std::string& log_dir, const JobIdentity& who, const std::string& node);

}  // namespace synergy::slurm
