#include "cli/message_output.h"

#include <set>

#include "absl/strings/ascii.h"
#include "google/protobuf/util/json_util.h"
#include "yaml-cpp/yaml.h"

namespace synergy::cli {
namespace {

// A string that YAML would read back as a number, a boolean or null if
// written plain: protobuf's JSON writes 64-bit integers as strings, and
// they stay strings.
bool ReadsAsNonString(const std::string& s) {
  static const std::set<std::string> kWords = {"true", "false", "yes", "no", "on", "off", "y", "n", "null", "~"};
  if (s.empty() || kWords.count(absl::AsciiStrToLower(s))) return true;
  size_t i = (s[0] == '-' || s[0] == '+') ? 1 : 0;
  if (i < s.size() && s[i] == '.') ++i;
  return i < s.size() && absl::ascii_isdigit(static_cast<unsigned char>(s[i]));
}

// Block style throughout; JSON strings stay strings ("!" is the tag of a
// quoted scalar in the document read).
void Emit(YAML::Emitter& out, const YAML::Node& node) {
  switch (node.Type()) {
    case YAML::NodeType::Map:
      out << YAML::BeginMap;
      for (const auto& entry : node) {
        out << YAML::Key << entry.first.Scalar() << YAML::Value;
        Emit(out, entry.second);
      }
      out << YAML::EndMap;
      break;
    case YAML::NodeType::Sequence:
      out << YAML::BeginSeq;
      for (const YAML::Node& item : node) Emit(out, item);
      out << YAML::EndSeq;
      break;
    case YAML::NodeType::Scalar:
      if (node.Tag() == "!" && ReadsAsNonString(node.Scalar())) {
        out << YAML::DoubleQuoted << node.Scalar();
      } else {
        out << node.Scalar();
      }
      break;
    default:
      out << YAML::Null;
  }
}

}  // namespace

std::string Json(const google::protobuf::Message& message) {
  std::string out;
  google::protobuf::util::JsonPrintOptions options;
  options.add_whitespace = true;
  options.preserve_proto_field_names = true;
  (void)google::protobuf::util::MessageToJsonString(message, &out, options);
  return out;
}

std::string Yaml(const google::protobuf::Message& message) {
  // JSON is YAML (flow style): read it back and write it in block style.
  const YAML::Node document = YAML::Load(Json(message));
  YAML::Emitter out;
  Emit(out, document);
  return std::string(out.c_str()) + "\n";
}

bool IsStructuredOutput(const std::string& format) { return format == "json" || format == "yaml"; }

std::string Structured(const google::protobuf::Message& message, const std::string& format) {
  return format == "yaml" ? Yaml(message) : Json(message);
}

}  // namespace synergy::cli
