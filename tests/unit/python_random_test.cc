#include "sim/python_random.h"

#include "gtest/gtest.h"

namespace synergy::sim {
namespace {

// Expected values are CPython 3's, e.g. `random.seed(42); random.random()`.
TEST(PythonRandom, RandomMatchesCPython) {
  PythonRandom r(42);
  EXPECT_EQ(r.Random(), 0.6394267984578837);
  EXPECT_EQ(r.Random(), 0.025010755222666936);
  EXPECT_EQ(r.Random(), 0.27502931836911926);
  EXPECT_EQ(PythonRandom(0).Random(), 0.8444218515250481);
  // A seed wider than 32 bits uses two key words.
  EXPECT_EQ(PythonRandom((uint64_t{1} << 40) + 7).Random(), 0.6137037779936511);
}

TEST(PythonRandom, RandIntRejectsLikeCPython) {
  PythonRandom r(42);
  const int64_t expected[] = {1, 0, 4, 3, 3, 2, 1, 8};
  for (int64_t e : expected) EXPECT_EQ(r.RandInt(0, 9), e);
}

TEST(PythonRandom, GetRandBits) {
  PythonRandom r(42);
  const uint32_t expected[] = {10, 1, 0, 11, 4};
  for (uint32_t e : expected) EXPECT_EQ(r.GetRandBits(4), e);
}

}  // namespace
}  // namespace synergy::sim
