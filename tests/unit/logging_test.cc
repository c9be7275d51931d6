#include "service/logging.h"

#include "gtest/gtest.h"
#include "spdlog/details/log_msg.h"

namespace synergy::service {
namespace {

TEST(Logging, TimestampsAreRfc3339InUtcWithMilliseconds) {
  // 2026-12-04T21:22:23.456Z
  const std::chrono::system_clock::time_point t{std::chrono::milliseconds(1796419343456)};
  EXPECT_EQ(Rfc3339Utc(t), "2026-12-04T21:22:23.456Z");
  EXPECT_EQ(Rfc3339Utc(std::chrono::system_clock::time_point{}), "1970-01-01T00:00:00.000Z");
}

TEST(Logging, JsonLinesEscapeTheMessageAndKeepEveryLineValid) {
  auto formatter = JsonLogFormatter("synergyd");
  const std::string payload = "job \"a\\b\"\nname \x01 caf\xc3\xa9 \xff\xfe end";
  spdlog::details::log_msg msg(spdlog::source_loc{}, "", spdlog::level::warn,
                               spdlog::string_view_t(payload.data(), payload.size()));
  msg.time = std::chrono::system_clock::time_point{std::chrono::milliseconds(1796419343456)};
  spdlog::memory_buf_t out;
  formatter->format(msg, out);
  EXPECT_EQ(std::string(out.data(), out.size()),
            "{\"time\":\"2026-12-04T21:22:23.456Z\",\"level\":\"warning\",\"program\":\"synergyd\","
            "\"msg\":\"job \\\"a\\\\b\\\"\\nname \\u0001 caf\xc3\xa9 \\ufffd\\ufffd end\"}\n");
}

TEST(Logging, UnknownFormatsAndLevelsAreRefusedByName) {
  EXPECT_NE(ConfigureLogging("t", "xml", "info").message().find("'xml' is not text or json"), std::string::npos);
  EXPECT_NE(ConfigureLogging("t", "json", "loud").message().find("'loud'"), std::string::npos);
  EXPECT_TRUE(ConfigureLogging("t", "text", "info").ok());
}

}  // namespace
}  // namespace synergy::service
