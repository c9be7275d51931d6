#include "sim/python_random.h"

#include <vector>

namespace synergy::sim {
namespace {
constexpr int kN = 624;
constexpr int kM = 397;
constexpr uint32_t kMatrixA = 0x9908b0dfU;
constexpr uint32_t kUpperMask = 0x80000000U;
constexpr uint32_t kLowerMask = 0x7fffffffU;
}  // namespace

void PythonRandom::InitGenrand(uint32_t s) {
  state_[0] = s;
  for (int i = 1; i < kN; ++i) {
    state_[i] = 1812433253U * (state_[i - 1] ^ (state_[i - 1] >> 30)) + static_cast<uint32_t>(i);
  }
  index_ = kN;
}

PythonRandom::PythonRandom(uint64_t seed) {
  std::vector<uint32_t> key;
  do {
    key.push_back(static_cast<uint32_t>(seed & 0xffffffffU));
    seed >>= 32;
  } while (seed != 0);

  InitGenrand(19650218U);
  int i = 1;
  int j = 0;
  const int key_length = static_cast<int>(key.size());
  for (int k = kN > key_length ? kN : key_length; k > 0; --k) {
    state_[i] = (state_[i] ^ ((state_[i - 1] ^ (state_[i - 1] >> 30)) * 1664525U)) + key[j] +
                static_cast<uint32_t>(j);
    ++i;
    ++j;
    if (i >= kN) {
      state_[0] = state_[kN - 1];
      i = 1;
    }
    if (j >= key_length) j = 0;
  }
  for (int k = kN - 1; k > 0; --k) {
    state_[i] = (state_[i] ^ ((state_[i - 1] ^ (state_[i - 1] >> 30)) * 1566083941U)) -
                static_cast<uint32_t>(i);
    ++i;
    if (i >= kN) {
      state_[0] = state_[kN - 1];
      i = 1;
    }
  }
  state_[0] = 0x80000000U;  // MSB is 1, assuring a non-zero initial array
  index_ = kN;
}

uint32_t PythonRandom::NextUint32() {
  if (index_ >= kN) {
    int k = 0;
    for (; k < kN - kM; ++k) {
      uint32_t y = (state_[k] & kUpperMask) | (state_[k + 1] & kLowerMask);
      state_[k] = state_[k + kM] ^ (y >> 1) ^ ((y & 1U) ? kMatrixA : 0U);
    }
    for (; k < kN - 1; ++k) {
      uint32_t y = (state_[k] & kUpperMask) | (state_[k + 1] & kLowerMask);
      state_[k] = state_[k + (kM - kN)] ^ (y >> 1) ^ ((y & 1U) ? kMatrixA : 0U);
    }
    uint32_t y = (state_[kN - 1] & kUpperMask) | (state_[0] & kLowerMask);
    state_[kN - 1] = state_[kM - 1] ^ (y >> 1) ^ ((y & 1U) ? kMatrixA : 0U);
    index_ = 0;
  }
  uint32_t y = state_[index_++];
  y ^= (y >> 11);
  y ^= (y << 7) & 0x9d2c5680U;
  y ^= (y << 15) & 0xefc60000U;
  y ^= (y >> 18);
  return y;
}

double PythonRandom::Random() {
  const uint32_t a = NextUint32() >> 5;
  const uint32_t b = NextUint32() >> 6;
  return (a * 67108864.0 + b) * (1.0 / 9007199254740992.0);
}

uint32_t PythonRandom::GetRandBits(int k) { return NextUint32() >> (32 - k); }

int64_t PythonRandom::RandInt(int64_t a, int64_t b) {
  const uint64_t n = static_cast<uint64_t>(b - a + 1);
  int bits = 0;
  while ((n >> bits) != 0) ++bits;  // n.bit_length()
  // _randbelow_with_getrandbits; the draws above 32 bits are never needed
  // by the simulator (n <= 10).
  uint32_t r = GetRandBits(bits);
  while (r >= n) r = GetRandBits(bits);
  return a + static_cast<int64_t>(r);
}

}  // namespace synergy::sim
