#include "service/escape.h"

namespace synergy::service {

std::string QuoteForMessage(absl::string_view value) { return QuoteValue(value); }

}  // namespace synergy::service
