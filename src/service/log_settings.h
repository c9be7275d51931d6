#pragma once
// The log settings synergyd's and synergy-node's configs share, as
// logging.h applies them: `log_level` one of trace, debug, info, warn,
// error; `log_format` text or json.
#include <string>

#include "absl/status/status.h"
#include "synergy/yaml_reader.h"

namespace synergy::service {

// Checks what a config read into `level` and `format` where `m` states
// them; the error names the field, as YamlValue::Error does.
absl::Status CheckLogSettings(const YamlMap& m, const std::string& level, const std::string& format);

}  // namespace synergy::service
