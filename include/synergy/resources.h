#pragma once
// One resource vector for the whole scheduler.
//
// Rules:
//  - A Resources value is an amount of GPUs, CPU cores, memory (GB) and
//    storage bandwidth (MB/s): a demand, an allocation, a capacity or what is
//    free. A missing dimension is zero, never "unlimited".
//  - GPUs are whole devices. CPU cores are whole in every allocation the
//    mechanisms make, but are held as double because per-GPU shares and
//    reference-compatible comparisons are made in floating point.
//  - Every quantity the shipped clusters and profiles produce (3 cores,
//    62.5 GB, 187.5 GB, ...) is a dyadic rational, so sums and differences in
//    double are exact and independent of order; this is why double, and not
//    fixed point, can reproduce the reference's floating-point comparisons.
#include <string>

namespace synergy {

struct Resources {
  int gpus = 0;
  double cpus = 0;
  double mem_gb = 0;
  double storage_mbps = 0;

  // True when this amount fits inside `available` in every dimension.
  bool FitsIn(const Resources& available) const {
    return gpus <= available.gpus && cpus <= available.cpus &&
           mem_gb <= available.mem_gb && storage_mbps <= available.storage_mbps;
  }
  // True when every dimension is >= 0.
  bool NonNegative() const {
    return gpus >= 0 && cpus >= 0 && mem_gb >= 0 && storage_mbps >= 0;
  }

  Resources& operator+=(const Resources& o) {
    gpus += o.gpus;
    cpus += o.cpus;
    mem_gb += o.mem_gb;
    storage_mbps += o.storage_mbps;
    return *this;
  }
  Resources& operator-=(const Resources& o) {
    gpus -= o.gpus;
    cpus -= o.cpus;
    mem_gb -= o.mem_gb;
    storage_mbps -= o.storage_mbps;
    return *this;
  }
  friend Resources operator+(Resources a, const Resources& b) { return a += b; }
  friend Resources operator-(Resources a, const Resources& b) { return a -= b; }
  friend bool operator==(const Resources&, const Resources&) = default;

  std::string ToString() const;
};

}  // namespace synergy
