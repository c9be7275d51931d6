// What synergyd's and synergy-node's HTTP endpoint reads from anyone who
// connects (service/http_endpoint.h): bytes -> Route. Every request gets
// one of the statuses the endpoint knows, and only GET of a registered path
// reaches a handler.
#include <cstddef>
#include <cstdint>
#include <map>
#include <string>

#include "fuzz_checks.h"
#include "service/http_endpoint.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string request(reinterpret_cast<const char*>(data), size);
  int handled = 0;
  std::map<std::string, synergy::service::HttpEndpoint::Handler> routes;
  routes["/metrics"] = [&] {
    ++handled;
    return synergy::service::HttpReply{200, "m"};
  };
  routes["/healthz"] = [&] {
    ++handled;
    return synergy::service::HttpReply{200, "ok"};
  };
  const synergy::service::HttpReply reply = synergy::service::Route(routes, request);
  if (reply.status != 200 && reply.status != 400 && reply.status != 404 && reply.status != 405) {
    synergy::fuzz::Fail("status", std::to_string(reply.status));
  }
  if ((reply.status == 200) != (handled == 1)) synergy::fuzz::Fail("handler", std::to_string(handled));
  if (handled == 1 && request.rfind("GET ", 0) != 0) synergy::fuzz::Fail("method", request.substr(0, 8));
  return 0;
}
