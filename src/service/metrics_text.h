#pragma once
// Prometheus' text exposition format (version 0.0.4), written family by
// family: HELP and TYPE once per family, then its samples. Names follow
// Prometheus' conventions, which `promtool check metrics` enforces: base
// units (seconds, bytes) as a suffix, `_total` on counters and only there.
// Label values are escaped (backslash, double quote, newline); values are
// written in the shortest form that reads back exactly.
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/string_view.h"

namespace synergy::service {

using MetricLabels = std::vector<std::pair<std::string, std::string>>;

// Observations counted into fixed buckets (upper bounds, ascending; +Inf is
// implied), with their sum and count. A plain value: its owner guards it.
class Histogram {
 public:
  explicit Histogram(std::vector<double> upper_bounds);
  // Non-finite or negative observations are not counted (a clock that went
  // back, a missing timestamp): they would corrupt the sum.
  void Observe(double value);

  const std::vector<double>& upper_bounds() const { return bounds_; }
  // Per bucket (not cumulative), the last one +Inf.
  const std::vector<uint64_t>& counts() const { return counts_; }
  double sum() const { return sum_; }
  uint64_t count() const { return count_; }

 private:
  std::vector<double> bounds_;
  std::vector<uint64_t> counts_;
  double sum_ = 0;
  uint64_t count_ = 0;
};

// Bounds for durations in seconds from `from` up, each `factor` times the
// last, `n` of them.
std::vector<double> ExponentialBounds(double from, double factor, int n);

class MetricsText {
 public:
  // A family of one sample without labels.
  void Gauge(absl::string_view name, absl::string_view help, double value);
  void Counter(absl::string_view name, absl::string_view help, double value);
  // A family of labelled samples: Family once, then Sample per label set.
  // `type` is "gauge" or "counter".
  void Family(absl::string_view name, absl::string_view type, absl::string_view help);
  void Sample(absl::string_view name, const MetricLabels& labels, double value);
  void HistogramFamily(absl::string_view name, absl::string_view help, const Histogram& histogram);

  const std::string& text() const { return out_; }
  std::string Take() { return std::move(out_); }

 private:
  std::string out_;
};

// The shortest text that reads back as `value`; NaN and the infinities as
// Prometheus spells them.
std::string MetricValue(double value);
std::string EscapeLabelValue(absl::string_view value);

}  // namespace synergy::service
