// An RPC message synergyd receives: bytes -> ParseFromArray -> its validator
// (service/request_validation.h). Built once per message; the build defines
// SYNERGY_FUZZ_MESSAGE (the v1 message) and SYNERGY_FUZZ_VALIDATOR.
#include <cstddef>
#include <cstdint>

#include "fuzz_checks.h"
#include "service/request_validation.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  synergy::v1::SYNERGY_FUZZ_MESSAGE message;
  if (size > static_cast<size_t>(synergy::service::kMaxGrpcMessageBytes)) return 0;
  if (!message.ParseFromArray(data, static_cast<int>(size))) return 0;
  const absl::Status status = synergy::service::SYNERGY_FUZZ_VALIDATOR(message);
  // Refusals name a field path first ("spec.env: ..."), whatever it is.
  if (!status.ok()) synergy::fuzz::CheckRefusal(status, "");
  return 0;
}
