#pragma once
// Reads of one field of a public trace's table, for every format's reader:
// each error is "FIELD: 'VALUE': why" (the value quoted, escaped and cut,
// synergy/quote.h); the importer adds the file and line.
#include <cstdint>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace synergy::sim {

// A finite decimal number in [min, max].
absl::StatusOr<double> NumberField(absl::string_view field, absl::string_view text, double min, double max);
// A whole number in [min, max].
absl::StatusOr<int64_t> IntegerField(absl::string_view field, absl::string_view text, int64_t min, int64_t max);
// "YYYY-MM-DD HH:MM:SS" (UTC, as Helios and Philly write times) as seconds
// since 1970-01-01.
absl::StatusOr<double> DateTimeField(absl::string_view field, absl::string_view text);
// A name the trace holds as it is (sim::IsPlainTraceName): a user or a
// GPU model. Empty is allowed.
absl::StatusOr<std::string> NameField(absl::string_view field, absl::string_view text);

// The seconds from `start` to `end`: "END_FIELD: 'END_TEXT': is before
// START_WHAT" where it ends before it starts; 0 for a run of no time (the
// importer drops it as zero_duration).
absl::StatusOr<double> RunSeconds(absl::string_view end_field, absl::string_view end_text, double end,
                                  absl::string_view start_what, double start);
// The GPU model a machine of `gpus` GPUs names in FIELD ("" for one
// without GPUs, not read): "FIELD: '': a MACHINE with GPUs names no GPU
// model" where it names none.
absl::StatusOr<std::string> MachineGpuModel(absl::string_view field, absl::string_view text, int gpus,
                                            absl::string_view machine);

}  // namespace synergy::sim
