#pragma once
// Text inside a JSON string, for everything that writes JSON by hand (JSON
// log lines, synergyctl history, synergy-sim's summary.json): quotes,
// backslashes and control characters escaped, and bytes that are not UTF-8
// as U+FFFD, so that the result always parses. The one JSON escaper.
#include <string>

namespace synergy {

// The inside of the string, without the quotes.
std::string JsonEscape(const std::string& text);
// The string, quoted.
std::string JsonQuote(const std::string& text);

}  // namespace synergy
