#pragma once
// CPython's `random` module, draw for draw: the Mersenne Twister MT19937 as
// `random.seed(int)` initialises it, and the derived draws the reference
// simulator uses. Reference-compatible workloads need the generator itself,
// not just its distributions: every job attribute comes from these draws.
#include <array>
#include <cstdint>

namespace synergy::sim {

class PythonRandom {
 public:
  // random.seed(seed) for a non-negative int: init_by_array over the seed's
  // 32-bit words, least significant first.
  explicit PythonRandom(uint64_t seed);

  // random.random(): 53 bits from two 32-bit outputs, in [0, 1).
  double Random();
  // random.uniform(a, b) = a + (b - a) * random().
  double Uniform(double a, double b) { return a + (b - a) * Random(); }
  // random.getrandbits(k) for 1 <= k <= 32.
  uint32_t GetRandBits(int k);
  // random.randint(a, b): a + _randbelow(b - a + 1), by rejection sampling.
  int64_t RandInt(int64_t a, int64_t b);

 private:
  uint32_t NextUint32();
  void InitGenrand(uint32_t s);

  std::array<uint32_t, 624> state_{};
  int index_ = 625;
};

}  // namespace synergy::sim
