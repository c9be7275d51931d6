// The figures' gnuplot scripts: one colour per mechanism whatever is drawn
// beside it, error bars and lines against load, the CDF's panels, the
// memory panel and the measurement window, SVG and PNG of each.
#include "sim/plots.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace synergy::sim {
namespace {

using ::testing::HasSubstr;

SweepPlotSpec Spec(std::vector<std::string> mechanisms) {
  SweepPlotSpec spec;
  spec.policy = "las";
  spec.mechanisms = std::move(mechanisms);
  spec.loads = {SweepLoadPlot{2, true, true, 1.5, 40}, SweepLoadPlot{4, true, false, 2, 50}};
  spec.seeds = {1, 2, 3};
  return spec;
}

TEST(Plots, AMechanismKeepsItsColourWhateverIsDrawnBesideIt) {
  EXPECT_EQ(MechanismColour("tune"), "#1f77b4");
  EXPECT_NE(MechanismColour("tune"), MechanismColour("proportional"));
  const std::string alone = SweepGnuplot(Spec({"tune"}));
  const std::string with_others = SweepGnuplot(Spec({"opt", "proportional", "tune"}));
  for (const std::string& gp : {alone, with_others}) {
    EXPECT_THAT(gp, HasSubstr("lc rgb '#1f77b4' title 'tune'"));
  }
  EXPECT_THAT(with_others, HasSubstr("lc rgb '#7f7f7f' title 'proportional'"));
}

TEST(Plots, JctAgainstLoadHasLinesErrorBarsAndBothPercentiles) {
  const std::string gp = SweepGnuplot(Spec({"tune"}));
  EXPECT_THAT(gp, HasSubstr("'load-tune.csv' using 1:2:3 skip 1 with yerrorlines"));
  EXPECT_THAT(gp, HasSubstr("'load-tune.csv' using 1:4:5 skip 1 with yerrorlines"));
  EXPECT_THAT(gp, HasSubstr("mean of 3 seeds"));
  EXPECT_THAT(gp, HasSubstr("set offsets"));  // no point on the frame
}

TEST(Plots, EveryLoadHasCdfsAndUtilisationWithMemoryAndTheWindow) {
  const std::string gp = SweepGnuplot(Spec({"tune"}));
  EXPECT_THAT(gp, HasSubstr("cdf-tune-load2-multi.csv"));
  EXPECT_EQ(gp.find("cdf-tune-load4-multi.csv"), std::string::npos) << "load 4 has no multi-GPU job";
  EXPECT_THAT(gp, HasSubstr("cdf-tune-load4-all.csv"));
  EXPECT_THAT(gp, HasSubstr("set title 'memory'"));
  EXPECT_THAT(gp, HasSubstr("'tune-load2-seed1/utilisation.csv' using ($1/3600):4"));
  EXPECT_THAT(gp, HasSubstr("rect from 1.5000, graph 0 to 40.0000, graph 1"));
  for (const std::string& name : SweepPlotNames(Spec({"tune"}))) {
    EXPECT_THAT(gp, HasSubstr("set output '" + name + ".svg'"));
    EXPECT_THAT(gp, HasSubstr("set output '" + name + ".png'"));
  }
  EXPECT_EQ(SweepPlotNames(Spec({"tune"})).size(), 5u);
}

TEST(Plots, OneSeedNamesRunDirectoriesWithoutIt) {
  EXPECT_EQ(RunDirName("tune", 4, 42, false), "tune-load4");
  EXPECT_EQ(RunDirName("tune", 4.5, 42, true), "tune-load4.5-seed42");
}

TEST(Plots, SensitivityHasAPanelPerModelAndALinePerMemorySize) {
  const std::string gp = SensitivityGnuplot({"res18", "gnmt"}, {20.83, 62.5}, 3);
  EXPECT_THAT(gp, HasSubstr("set title 'res18'"));
  EXPECT_THAT(gp, HasSubstr("set title 'gnmt'"));
  EXPECT_THAT(gp, HasSubstr("'sensitivity-gnmt.csv' using 1:3 skip 1"));
  EXPECT_THAT(gp, HasSubstr("title '62.5 GB'"));
  EXPECT_THAT(gp, HasSubstr("set arrow 1 from 3, graph 0 to 3, graph 1"));
  EXPECT_THAT(gp, HasSubstr("set output 'sensitivity.png'"));
}

}  // namespace
}  // namespace synergy::sim
