#pragma once
// Text from the wire, judged and shown safely: what a client, a node or an
// agent sends ends up on someone's terminal (synergyctl's tables, the
// daemon's log, an error message). The rules and the escaping are the core's
// (synergy/quote.h), shared with the configuration and trace readers, so a
// value reads the same in every message; these are their names in service.
#include <cstddef>
#include <string>

#include "absl/strings/string_view.h"
#include "synergy/quote.h"

namespace synergy::service {

using synergy::EscapeForDisplay;
using synergy::IsPrintableText;
using synergy::IsValidUtf8;

// For error messages that echo a client's value: synergy::QuoteValue.
inline constexpr std::size_t kQuotedValueChars = kQuotedChars;
std::string QuoteForMessage(absl::string_view value);

}  // namespace synergy::service
