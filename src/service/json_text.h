#pragma once
// Text inside a JSON string, for what writes JSON by hand (JSON log lines,
// synergyctl history): quotes, backslashes and control characters escaped,
// and bytes that are not UTF-8 as U+FFFD, so that the result always parses.
#include <string>

namespace synergy::service {

// The inside of the string, without the quotes.
std::string JsonEscape(const std::string& text);
// The string, quoted.
std::string JsonQuote(const std::string& text);

}  // namespace synergy::service
