#include "sim/import/trace_format.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "synergy/quote.h"

namespace synergy::sim {

absl::StatusOr<ImportedNode> TraceFormat::ReadNode(const std::vector<absl::string_view>&) const {
  return absl::InvalidArgumentError(absl::StrCat(name(), " has no machine list"));
}

absl::StatusOr<ImportedRow> TraceFormat::ReadRecord(const YamlValue&) const {
  return absl::InvalidArgumentError(absl::StrCat(name(), "'s job table is not JSON"));
}

std::vector<std::string> TraceFormatNames() { return {"openb", "pai2020", "helios", "philly"}; }

absl::StatusOr<std::unique_ptr<TraceFormat>> MakeTraceFormat(std::string_view name) {
  if (name == "openb") return MakeOpenbFormat();
  if (name == "pai2020") return MakePai2020Format();
  if (name == "helios") return MakeHeliosFormat();
  if (name == "philly") return MakePhillyFormat();
  return absl::InvalidArgumentError(absl::StrCat("format: ", QuoteValue(absl::string_view(name.data(), name.size())),
                                                 ": is not one of ", absl::StrJoin(TraceFormatNames(), ", ")));
}

}  // namespace synergy::sim
