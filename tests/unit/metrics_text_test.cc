#include "service/metrics_text.h"

#include <limits>

#include "gtest/gtest.h"
#include "service/http_endpoint.h"

namespace synergy::service {
namespace {

TEST(MetricsText, HistogramBucketsAreCumulativeWithSumAndCount) {
  Histogram h({1, 10, 100});
  for (double v : {0.5, 1.0, 5.0, 50.0, 500.0}) h.Observe(v);
  MetricsText m;
  m.HistogramFamily("x_seconds", "X.", h);
  EXPECT_EQ(m.text(),
            "# HELP x_seconds X.\n# TYPE x_seconds histogram\n"
            "x_seconds_bucket{le=\"1\"} 2\n"  // an observation on a bound falls in its bucket
            "x_seconds_bucket{le=\"10\"} 3\n"
            "x_seconds_bucket{le=\"100\"} 4\n"
            "x_seconds_bucket{le=\"+Inf\"} 5\n"
            "x_seconds_sum 556.5\n"
            "x_seconds_count 5\n");
}

TEST(MetricsText, NegativeOrNonFiniteObservationsAreNotCounted) {
  Histogram h({1});
  h.Observe(-1);
  h.Observe(std::numeric_limits<double>::quiet_NaN());
  h.Observe(std::numeric_limits<double>::infinity());
  EXPECT_EQ(h.count(), 0u);
  EXPECT_EQ(h.sum(), 0);
}

TEST(MetricsText, LabelValuesAreEscapedAndValuesReadBackExactly) {
  MetricsText m;
  m.Family("y", "gauge", "Help with a \\ and\na newline.");
  m.Sample("y", {{"node", "a\"b\\c\nd"}}, 0.1);
  m.Sample("y", {}, 1234567891234.0);
  EXPECT_EQ(m.text(),
            "# HELP y Help with a \\\\ and\\na newline.\n# TYPE y gauge\n"
            "y{node=\"a\\\"b\\\\c\\nd\"} 0.1\n"
            "y 1234567891234\n");
  EXPECT_EQ(MetricValue(std::numeric_limits<double>::infinity()), "+Inf");
  EXPECT_EQ(MetricValue(std::numeric_limits<double>::quiet_NaN()), "NaN");
}

TEST(MetricsText, ExponentialBoundsGrowByTheFactor) {
  EXPECT_EQ(ExponentialBounds(1, 4, 4), (std::vector<double>{1, 4, 16, 64}));
}

TEST(HttpRoute, ServesRegisteredPathsToGetOnly) {
  std::map<std::string, HttpEndpoint::Handler> routes;
  routes["/healthz"] = [] { return HttpReply{200, "ok\n"}; };
  routes["/readyz"] = [] { return HttpReply{503, "stopping\n"}; };
  EXPECT_EQ(Route(routes, "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n").status, 200);
  EXPECT_EQ(Route(routes, "GET /healthz?verbose=1 HTTP/1.1\r\n\r\n").body, "ok\n");
  EXPECT_EQ(Route(routes, "GET /readyz HTTP/1.0\r\n\r\n").status, 503);
  EXPECT_EQ(Route(routes, "POST /healthz HTTP/1.1\r\n\r\n").status, 405);
  const HttpReply missing = Route(routes, "GET /metrics HTTP/1.1\r\n\r\n");
  EXPECT_EQ(missing.status, 404);
  EXPECT_NE(missing.body.find("/healthz, /readyz"), std::string::npos) << missing.body;
  EXPECT_EQ(Route(routes, "").status, 400);
  EXPECT_EQ(Route(routes, "garbage").status, 400);
}

}  // namespace
}  // namespace synergy::service
