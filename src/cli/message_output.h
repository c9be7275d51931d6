#pragma once
// synergyctl's machine-readable output of the protocol's messages: JSON
// (protobuf's mapping, field names as in the .proto) and YAML (the same
// document in block style, like `kubectl get -o yaml`). Both escape control
// characters their own way, so a job's name cannot reach the terminal raw.
#include <string>

#include "google/protobuf/message.h"

namespace synergy::cli {

std::string Json(const google::protobuf::Message& message);
std::string Yaml(const google::protobuf::Message& message);
// Whether `-o` names one of the two.
bool IsStructuredOutput(const std::string& format);
// Json for "json", Yaml for "yaml".
std::string Structured(const google::protobuf::Message& message, const std::string& format);

}  // namespace synergy::cli
