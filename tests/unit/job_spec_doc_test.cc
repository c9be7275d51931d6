// docs/job-spec.md and the parser describe the same fields: each field the
// parser reads has a "### field" heading there, and each heading is a field
// the parser reads; the example at the top parses.
#include <fstream>
#include <set>
#include <sstream>
#include <string>

#include "gtest/gtest.h"
#include "service/job_spec.h"

namespace synergy::service {
namespace {

std::string ReadDoc() {
  std::ifstream in(std::string(SYNERGY_SOURCE_DIR) + "/docs/job-spec.md");
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

TEST(JobSpecDoc, EveryParsedFieldHasItsSectionAndNoSectionIsStale) {
  const std::string doc = ReadDoc();
  ASSERT_FALSE(doc.empty()) << "docs/job-spec.md is missing";
  std::set<std::string> documented;
  std::istringstream lines(doc);
  for (std::string line; std::getline(lines, line);) {
    if (line.rfind("### ", 0) == 0) documented.insert(line.substr(4));
  }
  const std::set<std::string> parsed(std::begin(kJobSpecFields), std::end(kJobSpecFields));
  for (const std::string& f : parsed) EXPECT_TRUE(documented.count(f)) << f << " is not in docs/job-spec.md";
  for (const std::string& f : documented) EXPECT_TRUE(parsed.count(f)) << f << " is documented but not parsed";
}

TEST(JobSpecDoc, TheExampleParses) {
  const std::string doc = ReadDoc();
  const size_t start = doc.find("```yaml\n");
  ASSERT_NE(start, std::string::npos);
  const size_t end = doc.find("```", start + 8);
  ASSERT_NE(end, std::string::npos);
  auto spec = ParseJobSpecYaml(doc.substr(start + 8, end - start - 8), "docs/job-spec.md");
  ASSERT_TRUE(spec.ok()) << spec.status();
  EXPECT_EQ(spec->gpus(), 1);
  EXPECT_TRUE(spec->profile());
}

}  // namespace
}  // namespace synergy::service
