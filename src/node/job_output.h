#pragma once
// The output files of a node's job leases (log_dir/JOB.EPOCH.out and .err,
// written by the processes themselves through O_APPEND descriptors): a
// piece read for synergyd (synergyctl logs), and a size cap kept by
// rotation. Plain file I/O; no state.
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "synergy/v1/synergy.pb.h"

namespace synergy::node {

// The piece `request` asks for, as the answer synergyd relays: at most
// min(max_bytes, kMaxLogChunkBytes) bytes from the offset; an offset past
// the file's size (it was rotated since) reads from 0 with `rotated` set.
// A job id that is not a name token, a missing file or a link is an
// `error`, not a crash. The file is opened without following links.
v1::LogChunk ReadJobOutput(const std::string& log_dir, const v1::LogRequest& request);

// The .out and .err files of `instances` (job id, epoch) that have grown to
// `max_bytes` or more: each is copied to FILE.1 (replacing an older copy)
// and emptied; the processes keep appending to the emptied file. Output
// written between the copy and the emptying is lost (as with logrotate's
// copytruncate). Returns the files rotated; max_bytes 0 rotates nothing.
std::vector<std::string> RotateJobOutput(const std::string& log_dir,
                                         const std::vector<std::pair<std::string, int64_t>>& instances,
                                         int64_t max_bytes);

}  // namespace synergy::node
