#include "service/metrics_text.h"

#include <algorithm>
#include <charconv>
#include <cmath>

#include "absl/strings/str_cat.h"

namespace synergy::service {

Histogram::Histogram(std::vector<double> upper_bounds) : bounds_(std::move(upper_bounds)) {
  std::sort(bounds_.begin(), bounds_.end());
  bounds_.erase(std::unique(bounds_.begin(), bounds_.end()), bounds_.end());
  counts_.assign(bounds_.size() + 1, 0);
}

void Histogram::Observe(double value) {
  if (!std::isfinite(value) || value < 0) return;
  const size_t i = std::lower_bound(bounds_.begin(), bounds_.end(), value) - bounds_.begin();
  ++counts_[i];
  sum_ += value;
  ++count_;
}

std::vector<double> ExponentialBounds(double from, double factor, int n) {
  std::vector<double> out;
  double b = from;
  for (int i = 0; i < n; ++i, b *= factor) out.push_back(b);
  return out;
}

std::string MetricValue(double value) {
  if (std::isnan(value)) return "NaN";
  if (std::isinf(value)) return value > 0 ? "+Inf" : "-Inf";
  char buf[64];
  const auto r = std::to_chars(buf, buf + sizeof(buf), value);
  return std::string(buf, r.ptr);
}

namespace {

// Backslash and newline always; the double quote inside label values only.
std::string Escape(absl::string_view text, bool quote) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    if (c == '\\' || (quote && c == '"')) {
      out += '\\';
      out += c;
    } else if (c == '\n') {
      out += "\\n";
    } else {
      out += c;
    }
  }
  return out;
}

}  // namespace

std::string EscapeLabelValue(absl::string_view value) { return Escape(value, /*quote=*/true); }

namespace {

std::string LabelText(const MetricLabels& labels) {
  if (labels.empty()) return "";
  std::string out = "{";
  for (size_t i = 0; i < labels.size(); ++i) {
    absl::StrAppend(&out, i ? "," : "", labels[i].first, "=\"", EscapeLabelValue(labels[i].second), "\"");
  }
  return out + "}";
}

}  // namespace

void MetricsText::Family(absl::string_view name, absl::string_view type, absl::string_view help) {
  absl::StrAppend(&out_, "# HELP ", name, " ", Escape(help, /*quote=*/false), "\n# TYPE ", name, " ", type, "\n");
}

void MetricsText::Sample(absl::string_view name, const MetricLabels& labels, double value) {
  absl::StrAppend(&out_, name, LabelText(labels), " ", MetricValue(value), "\n");
}

void MetricsText::Gauge(absl::string_view name, absl::string_view help, double value) {
  Family(name, "gauge", help);
  Sample(name, {}, value);
}

void MetricsText::Counter(absl::string_view name, absl::string_view help, double value) {
  Family(name, "counter", help);
  Sample(name, {}, value);
}

void MetricsText::HistogramFamily(absl::string_view name, absl::string_view help, const Histogram& h) {
  Family(name, "histogram", help);
  const std::string bucket = absl::StrCat(name, "_bucket");
  uint64_t cumulative = 0;
  for (size_t i = 0; i < h.upper_bounds().size(); ++i) {
    cumulative += h.counts()[i];
    Sample(bucket, {{"le", MetricValue(h.upper_bounds()[i])}}, static_cast<double>(cumulative));
  }
  Sample(bucket, {{"le", "+Inf"}}, static_cast<double>(h.count()));
  Sample(absl::StrCat(name, "_sum"), {}, h.sum());
  Sample(absl::StrCat(name, "_count"), {}, static_cast<double>(h.count()));
}

}  // namespace synergy::service
