#include "service/request_validation.h"

#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <limits>
#include <sstream>
#include <string>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "service/job_spec.h"
#include "test_support.h"

namespace synergy::service {
namespace {

using namespace std::string_literals;

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

// The spec of job_spec_test's ParsesEveryField, built by hand.
v1::JobSpec GoodSpec() {
  v1::JobSpec spec;
  spec.set_name("train");
  spec.set_model("res18");
  spec.set_gpus(2);
  spec.set_iterations(500);
  for (const char* arg : {"./train", "--lr", "0.1"}) spec.add_command(arg);
  (*spec.mutable_env())["A"] = "b"s;
  spec.set_max_retries(3);
  spec.set_uses_agent(true);
  spec.set_tenant("vision");
  spec.set_priority(7);
  return spec;
}

// A refusal: InvalidArgument, with `text` in its message.
::testing::AssertionResult RefusedWith(const absl::Status& st, const std::string& text) {
  if (st.ok()) return ::testing::AssertionFailure() << "accepted; expected a refusal with \"" << text << "\"";
  if (st.code() != absl::StatusCode::kInvalidArgument) return ::testing::AssertionFailure() << "code: " << st;
  if (st.message().find(text) == std::string::npos) {
    return ::testing::AssertionFailure() << "message \"" << st.message() << "\" lacks \"" << text << "\"";
  }
  // Whatever was sent, the message is short and safe to print.
  if (st.message().size() > 400) return ::testing::AssertionFailure() << st.message().size() << "-byte message";
  if (!IsPrintableText(st.message())) return ::testing::AssertionFailure() << "unprintable message";
  return ::testing::AssertionSuccess();
}

absl::Status Submit(const v1::JobSpec& spec) {
  v1::SubmitJobRequest request;
  *request.mutable_spec() = spec;
  return ValidateSubmitJobRequest(request);
}

v1::RegisterNodeRequest GoodRegistration() {
  v1::RegisterNodeRequest reg;  // as agent_test's node
  reg.set_name("n1");
  reg.set_address("127.0.0.1");
  reg.mutable_resources()->add_gpu_ids(0);
  for (int i = 0; i < 3; ++i) reg.mutable_resources()->add_cpu_ids(i);
  reg.mutable_resources()->set_mem_gb(62.5);
  reg.set_cgroups("cpuset v2, memory v2");
  return reg;
}

v1::MeasuredProfile GoodProfile() {
  v1::MeasuredProfile profile;
  profile.set_job_id("j-000001");
  profile.set_epoch(3);
  for (double cpus : {1.0, 2.0, 3.0}) {
    for (double mem : {15.625, 31.25, 62.5}) {
      v1::ProfilePoint* p = profile.add_points();
      p->set_cpus(cpus);
      p->set_mem_gb(mem);
      p->set_throughput(10 * cpus);
    }
  }
  profile.set_seconds(42.5);
  return profile;
}

// ------------------------------------------------------------- job specs --

TEST(RequestValidation, GoodSpecsPass) {
  EXPECT_TRUE(Submit(GoodSpec()).ok()) << Submit(GoodSpec());
  v1::JobSpec plain;  // the least a plain job needs
  plain.set_gpus(1);
  plain.add_command("sleep");
  plain.set_max_retries(-1);
  EXPECT_TRUE(Submit(plain).ok()) << Submit(plain);
  v1::JobSpec roomy = GoodSpec();
  roomy.set_name("my job (h\xc3\xa9llo, \xe6\x97\xa5\xe6\x9c\xac)");  // spaces and Unicode
  roomy.set_iterations(kMaxIterations);
  roomy.set_max_retries(kMaxRetries);
  roomy.set_priority(kMaxPriorityClass);
  roomy.set_command(0, "sh");
  roomy.add_command("-c");
  roomy.add_command("echo one\n\techo two");  // a script keeps its newlines and tabs
  (*roomy.mutable_env())["_UNDER_score9"] = "multi\nline value";
  EXPECT_TRUE(Submit(roomy).ok()) << Submit(roomy);
}

TEST(RequestValidation, ShippedExampleJobSpecsPassTheBounds) {
  int files = 0;
  for (const auto& entry : std::filesystem::directory_iterator(std::string(SYNERGY_SOURCE_DIR) + "/configs/jobs")) {
    std::ifstream in(entry.path());
    std::stringstream ss;
    ss << in.rdbuf();
    auto spec = ParseJobSpecYaml(ss.str(), entry.path().string());
    ASSERT_TRUE(spec.ok()) << spec.status();
    EXPECT_TRUE(Submit(*spec).ok()) << entry.path() << ": " << Submit(*spec);
    ++files;
  }
  EXPECT_GE(files, 3);
}

TEST(RequestValidation, IterationsOfInt64MaxAreRefused) {
  v1::JobSpec spec = GoodSpec();
  spec.set_iterations(std::numeric_limits<int64_t>::max());
  EXPECT_TRUE(RefusedWith(Submit(spec), "spec.iterations: 9223372036854775807 is more than 1000000000000"));
  spec.set_iterations(-1);
  EXPECT_TRUE(RefusedWith(Submit(spec), "spec.iterations: -1 is negative"));
}

TEST(RequestValidation, MaxRetriesOfInt32MaxAreRefused) {
  v1::JobSpec spec = GoodSpec();
  spec.set_max_retries(std::numeric_limits<int32_t>::max());
  EXPECT_TRUE(RefusedWith(Submit(spec), "spec.max_retries: 2147483647 is more than 100"));
  spec.set_max_retries(-2);
  EXPECT_TRUE(RefusedWith(Submit(spec), "spec.max_retries: -2 is below -1 (the default)"));
}

TEST(RequestValidation, GpusBeyondTheCapOrBelowOneAreRefused) {
  v1::JobSpec spec = GoodSpec();
  spec.set_gpus(std::numeric_limits<int32_t>::max());
  EXPECT_TRUE(RefusedWith(Submit(spec), "spec.gpus: 2147483647 is more than 65536"));
  spec.set_gpus(-4);
  EXPECT_TRUE(RefusedWith(Submit(spec), "spec.gpus: -4 is not a positive GPU count"));
}

TEST(RequestValidation, PriorityOutsideTheClassesIsRefused) {
  v1::JobSpec spec = GoodSpec();
  spec.set_priority(kMaxPriorityClass + 1);
  EXPECT_TRUE(RefusedWith(Submit(spec), "spec.priority: 1001 is not a priority class (0 to 1000)"));
}

TEST(RequestValidation, AMegabyteNameIsRefusedWithoutBeingEchoed) {
  v1::JobSpec spec = GoodSpec();
  spec.set_name(std::string(1 << 20, 'n'));
  EXPECT_TRUE(RefusedWith(Submit(spec), "spec.name: 'nnnn"));
  EXPECT_TRUE(RefusedWith(Submit(spec), "'... (1048576 bytes) is longer than 256 bytes"));
  spec = GoodSpec();
  spec.set_model(std::string(1 << 20, 'm'));
  EXPECT_TRUE(RefusedWith(Submit(spec), "spec.model: 'mmm"));
  spec = GoodSpec();
  spec.set_tenant(std::string(65, 't'));
  EXPECT_TRUE(RefusedWith(Submit(spec), "is longer than 64 bytes"));
}

TEST(RequestValidation, NamesWithEscOrNewlineAreRefusedAndShownEscaped) {
  v1::JobSpec spec = GoodSpec();
  spec.set_name("ok\x1b]0;owned\x07");
  EXPECT_TRUE(RefusedWith(Submit(spec), "spec.name: 'ok\\x1b]0;owned\\x07' contains a control character"));
  spec.set_name("two\nlines");
  EXPECT_TRUE(RefusedWith(Submit(spec), "spec.name: 'two\\nlines' contains a control character"));
  spec = GoodSpec();
  spec.set_model("res18\r");
  EXPECT_TRUE(RefusedWith(Submit(spec), "spec.model: 'res18\\r' contains a control character"));
  spec = GoodSpec();
  spec.set_tenant("a\xe2\x80\xae" "b");  // RIGHT-TO-LEFT OVERRIDE
  EXPECT_TRUE(RefusedWith(Submit(spec), "spec.tenant: 'a\\u202eb' contains a control character"));
}

TEST(RequestValidation, InvalidUtf8FromAnInProcessCallerIsRefused) {
  v1::JobSpec spec = GoodSpec();
  spec.set_name("caf\xe9");  // Latin-1
  EXPECT_TRUE(RefusedWith(Submit(spec), "spec.name: 'caf\\xe9' is not valid UTF-8"));
  spec = GoodSpec();
  spec.set_command(1, "\xff"s);
  EXPECT_TRUE(RefusedWith(Submit(spec), "spec.command[1]: '\\xff' is not valid UTF-8"));
}

TEST(RequestValidation, CommandsOverTheArgumentOrByteCapOrWithNulAreRefused) {
  v1::JobSpec spec = GoodSpec();
  for (int i = 0; i < 10000; ++i) spec.add_command("x"s);
  EXPECT_TRUE(RefusedWith(Submit(spec), "spec.command: 10003 arguments are more than 256"));
  spec = GoodSpec();
  spec.add_command(std::string(kMaxCommandBytes, 'a'));
  EXPECT_TRUE(RefusedWith(Submit(spec), "spec.command: 65550 bytes in all are more than 65536"));
  spec = GoodSpec();
  spec.set_command(2, "0.1\0rm -rf /"s);
  EXPECT_TRUE(RefusedWith(Submit(spec), "spec.command[2]: '0.1\\x00rm -rf /' contains NUL"));
  spec = GoodSpec();
  spec.set_command(0, "");
  EXPECT_TRUE(RefusedWith(Submit(spec), "spec.command: required (the job's argv)"));
}

TEST(RequestValidation, TenThousandEnvVarsAreRefused) {
  v1::JobSpec spec = GoodSpec();
  for (int i = 0; i < 10000; ++i) (*spec.mutable_env())[absl::StrCat("V", i)] = "1"s;
  EXPECT_TRUE(RefusedWith(Submit(spec), "spec.env: 10001 variables are more than 256"));
}

TEST(RequestValidation, EnvNamesWithNulOrSpacesAreNotPosixNames) {
  v1::JobSpec spec = GoodSpec();
  (*spec.mutable_env())["A\0B"s] = "1";
  EXPECT_TRUE(RefusedWith(Submit(spec), "spec.env: 'A\\x00B' is not a POSIX name ([A-Za-z_][A-Za-z0-9_]*)"));
  spec = GoodSpec();
  (*spec.mutable_env())["A B"] = "1";
  EXPECT_TRUE(RefusedWith(Submit(spec), "spec.env: 'A B' is not a POSIX name"));
  for (const std::string bad : {"", "9LIVES", "A=B", "A-B", "A\nB", "\xc3\xa9T\xc3\xa9"}) {
    spec = GoodSpec();
    (*spec.mutable_env())[bad] = "1"s;
    EXPECT_TRUE(RefusedWith(Submit(spec), "is not a POSIX name")) << EscapeForDisplay(bad);
  }
  spec = GoodSpec();
  (*spec.mutable_env())["SYNERGY_JOB_ID"] = "j-000009";
  EXPECT_TRUE(RefusedWith(Submit(spec), "spec.env: 'SYNERGY_JOB_ID' is not a variable name a job may set"));
}

TEST(RequestValidation, EnvNamesAndValuesOverTheirCapsAreRefused) {
  v1::JobSpec spec = GoodSpec();
  (*spec.mutable_env())[std::string(kMaxEnvNameBytes + 1, 'N')] = "1";
  EXPECT_TRUE(RefusedWith(Submit(spec), "(129 bytes) is longer than 128 bytes"));
  spec = GoodSpec();
  (*spec.mutable_env())["BIG"] = std::string(kMaxEnvValueBytes + 1, 'v');
  EXPECT_TRUE(RefusedWith(Submit(spec), "spec.env.BIG: 'vvv"));
  EXPECT_TRUE(RefusedWith(Submit(spec), "(32769 bytes) is longer than 32768 bytes"));
  spec = GoodSpec();
  for (int i = 0; i < 5; ++i) (*spec.mutable_env())[absl::StrCat("V", i)] = std::string(kMaxEnvValueBytes, 'v');
  EXPECT_TRUE(RefusedWith(Submit(spec), "of names and values are more than 131072"));
  spec = GoodSpec();
  (*spec.mutable_env())["NUL"] = "a\0b"s;
  EXPECT_TRUE(RefusedWith(Submit(spec), "spec.env.NUL: 'a\\x00b' contains NUL"));
}

TEST(RequestValidation, ValidateJobSpecAppliesTheBoundsBeforeTheZoo) {
  const ModelZoo zoo = testing::ZooOrDie();
  v1::JobSpec spec = GoodSpec();
  EXPECT_TRUE(ValidateJobSpec(spec, JobLimits{8, &zoo}).ok());
  spec.set_model(std::string(1 << 20, 'm'));  // refused for its size, not looked up and listed
  EXPECT_TRUE(RefusedWith(ValidateJobSpec(spec, JobLimits{8, &zoo}), "spec.model: 'mmm"));
  spec.set_model("vgg\x1b[2J");
  EXPECT_TRUE(RefusedWith(ValidateJobSpec(spec, JobLimits{8, &zoo}), "spec.model: 'vgg\\x1b[2J' contains"));
  spec = GoodSpec();
  spec.set_iterations(std::numeric_limits<int64_t>::max());
  EXPECT_TRUE(RefusedWith(ValidateJobSpec(spec, JobLimits{}), "spec.iterations"));
  spec = GoodSpec();
  spec.set_model("vgg99");
  EXPECT_TRUE(RefusedWith(ValidateJobSpec(spec, JobLimits{8, &zoo}), "spec.model: unknown model 'vgg99'"));
}

TEST(RequestValidation, JobSpecYamlIsHeldToTheSameBounds) {
  auto spec = ParseJobSpecYaml("gpus: 1\ncommand: [x]\nmax_retries: 2147483647\n", "j.yaml");
  ASSERT_FALSE(spec.ok());
  EXPECT_NE(spec.status().message().find("j.yaml: spec.max_retries: 2147483647 is more than 100"), std::string::npos)
      << spec.status();
}

// --------------------------------------------------------- other clients --

TEST(RequestValidation, JobIdsAreTokensOfLettersDigitsDotsDashes) {
  v1::GetJobRequest get;
  get.set_job_id("j-000001");
  EXPECT_TRUE(ValidateGetJobRequest(get).ok());
  get.set_job_id("");
  EXPECT_TRUE(RefusedWith(ValidateGetJobRequest(get), "job_id: '' is empty"));
  get.set_job_id("j-1\n");
  EXPECT_TRUE(RefusedWith(ValidateGetJobRequest(get), "job_id: 'j-1\\n' may hold only letters, digits and . _ -"));
  v1::CancelJobRequest cancel;
  cancel.set_job_id(std::string(1 << 20, 'j'));
  EXPECT_TRUE(RefusedWith(ValidateCancelJobRequest(cancel), "(1048576 bytes) is longer than 253 bytes"));
  cancel.set_job_id("j 1");
  EXPECT_TRUE(RefusedWith(ValidateCancelJobRequest(cancel), "job_id: 'j 1' may hold only"));
}

TEST(RequestValidation, JobActionsNameAJobAndUpdatesABoundedPriority) {
  v1::JobActionRequest action;
  action.set_job_id("j-000001");
  EXPECT_TRUE(ValidateJobActionRequest(action).ok());
  action.set_job_id("j-1\x1b");
  EXPECT_TRUE(RefusedWith(ValidateJobActionRequest(action), "job_id: 'j-1\\x1b' may hold only"));
  v1::UpdateJobRequest update;
  update.set_job_id("j-000001");
  EXPECT_TRUE(RefusedWith(ValidateUpdateJobRequest(update), "priority: (not set) is the only field"));
  update.set_priority(1000);
  EXPECT_TRUE(ValidateUpdateJobRequest(update).ok());
  update.set_priority(1001);
  EXPECT_TRUE(RefusedWith(ValidateUpdateJobRequest(update), "priority: 1001 is not a priority class (0 to 1000)"));
  update.set_priority(-1);
  EXPECT_TRUE(RefusedWith(ValidateUpdateJobRequest(update), "priority: -1 is not a priority class"));
}

TEST(RequestValidation, LogReadsAndPiecesAreBounded) {
  v1::JobLogsRequest read;
  read.set_job_id("j-000001");
  EXPECT_TRUE(ValidateJobLogsRequest(read).ok());
  read.set_offset(-1);
  EXPECT_TRUE(RefusedWith(ValidateJobLogsRequest(read), "offset: -1 is negative"));
  read.set_offset(0);
  read.set_max_bytes((1 << 20) + 1);
  EXPECT_TRUE(RefusedWith(ValidateJobLogsRequest(read), "max_bytes: 1048577 is not in 0 to 1048576"));
  read.set_max_bytes(0);
  read.set_rank(-2);
  EXPECT_TRUE(RefusedWith(ValidateJobLogsRequest(read), "rank: -2 is not a rank"));
  read.set_rank(0);
  read.set_epoch(-1);
  EXPECT_TRUE(RefusedWith(ValidateJobLogsRequest(read), "epoch: -1 is negative"));
  v1::LogChunk chunk;
  chunk.set_name("n1");
  chunk.set_data("output");
  EXPECT_TRUE(ValidateLogChunk(chunk).ok());
  chunk.set_data(std::string((1 << 20) + 1, 'x'));
  EXPECT_TRUE(RefusedWith(ValidateLogChunk(chunk), "data: (1048577 bytes) is longer than 1048576 bytes"));
  chunk.clear_data();
  chunk.set_error("no such\x1b[2J file");
  EXPECT_TRUE(RefusedWith(ValidateLogChunk(chunk), "error: 'no such\\x1b[2J file' contains a control character"));
  chunk.clear_error();
  chunk.set_name("../n1");
  EXPECT_FALSE(ValidateLogChunk(chunk).ok());
}

TEST(RequestValidation, ADrainReasonIsOneShortPrintableLine) {
  v1::DrainNodeRequest drain;
  drain.set_name("n1");
  drain.set_reason("GPU 3 ECC errors, ticket OPS-1234");
  EXPECT_TRUE(ValidateDrainNodeRequest(drain).ok());
  drain.set_reason("two\nlines");
  EXPECT_TRUE(RefusedWith(ValidateDrainNodeRequest(drain), "reason: 'two\\nlines' contains a control character"));
  drain.set_reason(std::string(257, 'r'));
  EXPECT_TRUE(RefusedWith(ValidateDrainNodeRequest(drain), "is longer than 256 bytes"));
}

TEST(RequestValidation, ListJobsStatesMustBeJobStates) {
  v1::ListJobsRequest list;
  EXPECT_TRUE(ValidateListJobsRequest(list).ok());
  list.add_states(v1::JOB_STATE_RUNNING);
  list.add_states(v1::JOB_STATE_CANCELLED);
  EXPECT_TRUE(ValidateListJobsRequest(list).ok());
  list.add_states(static_cast<v1::JobState>(42));  // proto3 keeps unknown enum values
  EXPECT_TRUE(RefusedWith(ValidateListJobsRequest(list), "states[2]: 42 is not a job state (0 to 9)"));
  list.clear_states();
  list.add_states(static_cast<v1::JobState>(-1));
  EXPECT_TRUE(RefusedWith(ValidateListJobsRequest(list), "states[0]: -1 is not a job state"));
  list.clear_states();
  for (int i = 0; i < 1000; ++i) list.add_states(v1::JOB_STATE_RUNNING);
  EXPECT_TRUE(RefusedWith(ValidateListJobsRequest(list), "states: 1000 states are more than 64"));
}

TEST(RequestValidation, ListJobsPagesAreBoundedAndTokensAreJobIds) {
  v1::ListJobsRequest list;
  list.set_page_size(5000);
  list.set_page_token("j-000500");
  list.set_owner("alice");
  list.set_tenant("vision");
  EXPECT_TRUE(ValidateListJobsRequest(list).ok());
  list.set_page_size(5001);
  EXPECT_TRUE(RefusedWith(ValidateListJobsRequest(list), "page_size: 5001"));
  list.set_page_size(-1);
  EXPECT_TRUE(RefusedWith(ValidateListJobsRequest(list), "page_size: -1"));
  list.set_page_size(0);
  list.set_page_token("j-1 OR 1=1");
  EXPECT_TRUE(RefusedWith(ValidateListJobsRequest(list), "page_token"));
  list.set_page_token("");
  list.set_owner(std::string(300, 'a'));
  EXPECT_TRUE(RefusedWith(ValidateListJobsRequest(list), "owner"));
  list.set_owner("");
  list.set_submitted_since_unix_ms(-5);
  EXPECT_TRUE(RefusedWith(ValidateListJobsRequest(list), "submitted_since_unix_ms: -5"));
}

TEST(RequestValidation, DrainNodeNamesAreTokens) {
  v1::DrainNodeRequest drain;
  drain.set_name("gpu-node-01.cluster.local");
  EXPECT_TRUE(ValidateDrainNodeRequest(drain).ok());
  drain.set_name("../n1");
  EXPECT_TRUE(RefusedWith(ValidateDrainNodeRequest(drain), "name: '../n1' may hold only"));
  drain.set_name("n1\x1b[8m");
  EXPECT_TRUE(RefusedWith(ValidateDrainNodeRequest(drain), "name: 'n1\\x1b[8m' may hold only"));
  EXPECT_TRUE(ValidateListNodesRequest(v1::ListNodesRequest()).ok());
  EXPECT_TRUE(ValidateClusterStateRequest(v1::ClusterStateRequest()).ok());
}

// ----------------------------------------------------------------- nodes --

TEST(RequestValidation, AMemorySizeTooCloseToZeroToMeanAnythingIsRefused) {
  v1::RegisterNodeRequest tiny = GoodRegistration();
  tiny.mutable_resources()->set_mem_gb(1e-320);
  const absl::Status st = ValidateRegisterNodeRequest(tiny);
  EXPECT_EQ(st.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(std::string(st.message()).find("is too close to 0 to mean anything"), std::string::npos) << st;
}

TEST(RequestValidation, AGoodNodeRegistrationPasses) {
  EXPECT_TRUE(ValidateRegisterNodeRequest(GoodRegistration()).ok()) << ValidateRegisterNodeRequest(GoodRegistration());
  v1::RegisterNodeRequest big = GoodRegistration();
  big.set_address("[fe80::1%eth0]");
  big.mutable_resources()->clear_gpu_ids();
  big.mutable_resources()->clear_cpu_ids();
  for (int i = 0; i < kMaxNodeGpuIds; ++i) big.mutable_resources()->add_gpu_ids(kMaxDeviceId - i);
  for (int i = 0; i < kMaxNodeCpuIds; ++i) big.mutable_resources()->add_cpu_ids(i);
  big.mutable_resources()->set_mem_gb(kMaxMemoryGb);
  v1::RunningProcess* p = big.add_running();
  p->set_job_id("j-000007");
  p->set_epoch(12);
  p->set_pid(4242);
  EXPECT_TRUE(ValidateRegisterNodeRequest(big).ok()) << ValidateRegisterNodeRequest(big);
  v1::RegisterNodeRequest bare = GoodRegistration();
  bare.clear_address();
  bare.mutable_resources()->clear_gpu_ids();  // a node without GPUs registers
  EXPECT_TRUE(ValidateRegisterNodeRequest(bare).ok()) << ValidateRegisterNodeRequest(bare);
}

TEST(RequestValidation, ANodesGpuTypeIsAShortLowerCaseNameOrEmpty) {
  v1::RegisterNodeRequest reg = GoodRegistration();
  reg.mutable_resources()->set_gpu_type("a100-80gb");
  EXPECT_TRUE(ValidateRegisterNodeRequest(reg).ok()) << ValidateRegisterNodeRequest(reg);
  for (const std::string& bad : std::vector<std::string>{"V100", "v100\x1b[8m", "a b", std::string(65, 'a')}) {
    reg.mutable_resources()->set_gpu_type(bad);
    EXPECT_TRUE(RefusedWith(ValidateRegisterNodeRequest(reg), "resources.gpu_type: ")) << bad;
  }
}

TEST(RequestValidation, InventoriesWithNegativeDuplicateOrOutOfRangeIdsAreRefused) {
  v1::RegisterNodeRequest reg = GoodRegistration();
  reg.mutable_resources()->add_gpu_ids(-1);
  EXPECT_TRUE(RefusedWith(ValidateRegisterNodeRequest(reg), "resources.gpu_ids[1]: -1 is not an id in 0..65535"));
  reg = GoodRegistration();
  reg.mutable_resources()->add_cpu_ids(1);
  EXPECT_TRUE(RefusedWith(ValidateRegisterNodeRequest(reg), "resources.cpu_ids[3]: 1 is listed twice"));
  reg = GoodRegistration();
  reg.mutable_resources()->add_cpu_ids(65536);
  EXPECT_TRUE(RefusedWith(ValidateRegisterNodeRequest(reg), "resources.cpu_ids[3]: 65536 is not an id"));
  reg = GoodRegistration();
  reg.mutable_resources()->add_gpu_ids(std::numeric_limits<int32_t>::max());
  EXPECT_TRUE(RefusedWith(ValidateRegisterNodeRequest(reg), "resources.gpu_ids[1]: 2147483647 is not an id"));
}

TEST(RequestValidation, InventoriesOverTheIdCapsAreRefused) {
  v1::RegisterNodeRequest reg = GoodRegistration();
  for (int i = 1; i <= kMaxNodeGpuIds; ++i) reg.mutable_resources()->add_gpu_ids(i);
  EXPECT_TRUE(RefusedWith(ValidateRegisterNodeRequest(reg), "resources.gpu_ids: 4097 ids are more than 4096"));
  reg = GoodRegistration();
  for (int i = 0; i < 100000; ++i) reg.mutable_resources()->add_cpu_ids(i % 7);
  EXPECT_TRUE(RefusedWith(ValidateRegisterNodeRequest(reg), "resources.cpu_ids: 100003 ids are more than 65536"));
}

TEST(RequestValidation, InventoryMemoryMustBeFiniteAndPositive) {
  for (double bad : {kInf, -kInf, kNaN, 0.0, -1.0, 2e6}) {
    v1::RegisterNodeRequest reg = GoodRegistration();
    reg.mutable_resources()->set_mem_gb(bad);
    EXPECT_TRUE(RefusedWith(ValidateRegisterNodeRequest(reg), "resources.mem_gb: ")) << bad;
  }
  v1::RegisterNodeRequest reg = GoodRegistration();
  reg.mutable_resources()->set_mem_gb(kNaN);
  EXPECT_TRUE(RefusedWith(ValidateRegisterNodeRequest(reg), "resources.mem_gb: nan is not a finite number"));
  reg.mutable_resources()->set_mem_gb(0);
  EXPECT_TRUE(RefusedWith(ValidateRegisterNodeRequest(reg), "resources.mem_gb: 0 is not in (0, 1e+06]"));
}

TEST(RequestValidation, NodeNamesAddressesAndCgroupsAreBoundedAndPrintable) {
  v1::RegisterNodeRequest reg = GoodRegistration();
  reg.set_name("gpu node");
  EXPECT_TRUE(RefusedWith(ValidateRegisterNodeRequest(reg), "name: 'gpu node' may hold only"));
  reg.set_name(std::string(254, 'n'));
  EXPECT_TRUE(RefusedWith(ValidateRegisterNodeRequest(reg), "(254 bytes) is longer than 253 bytes"));
  reg = GoodRegistration();
  reg.set_address("10.0.0.1; rm -rf /");
  EXPECT_TRUE(RefusedWith(ValidateRegisterNodeRequest(reg), "address: '10.0.0.1; rm -rf /' is not a host name"));
  reg = GoodRegistration();
  reg.set_cgroups("v2\x1b[2J");
  EXPECT_TRUE(RefusedWith(ValidateRegisterNodeRequest(reg), "cgroups: 'v2\\x1b[2J' contains a control character"));
}

v1::HeartbeatRequest GoodHeartbeat() {
  v1::HeartbeatRequest beat;
  beat.set_name("n1");
  v1::RunningProcess* p = beat.add_running();
  p->set_job_id("j-000001");
  p->set_epoch(4);  // pid 0: not said, as agent_test's node sends
  v1::ProcessExit* e = beat.add_exits();
  e->set_job_id("j-000002");
  e->set_epoch(2);
  e->set_exit_code(-1);
  e->set_signal(9);
  e->set_stopped_by_node(true);
  e->set_reason("killed by signal 9 (Killed); still running 10000 ms after SIGTERM");
  return beat;
}

TEST(RequestValidation, AGoodHeartbeatPasses) {
  EXPECT_TRUE(ValidateHeartbeatRequest(GoodHeartbeat()).ok()) << ValidateHeartbeatRequest(GoodHeartbeat());
}

TEST(RequestValidation, HeartbeatsOverTheProcessCapAreRefused) {
  v1::HeartbeatRequest beat = GoodHeartbeat();
  for (int i = 0; i < kMaxProcessesPerHeartbeat; ++i) *beat.add_running() = beat.running(0);
  EXPECT_TRUE(RefusedWith(ValidateHeartbeatRequest(beat), "running: 4097 processes are more than 4096"));
  beat = GoodHeartbeat();
  for (int i = 0; i < kMaxProcessesPerHeartbeat; ++i) *beat.add_exits() = beat.exits(0);
  EXPECT_TRUE(RefusedWith(ValidateHeartbeatRequest(beat), "exits: 4097 exits are more than 4096"));
}

TEST(RequestValidation, HeartbeatEntriesOutOfRangeAreRefused) {
  v1::HeartbeatRequest beat = GoodHeartbeat();
  beat.mutable_running(0)->set_epoch(-3);
  EXPECT_TRUE(RefusedWith(ValidateHeartbeatRequest(beat), "running[0].epoch: -3 is negative"));
  beat = GoodHeartbeat();
  beat.mutable_running(0)->set_pid(-1);
  EXPECT_TRUE(RefusedWith(ValidateHeartbeatRequest(beat), "running[0].pid: -1 is negative"));
  beat = GoodHeartbeat();
  beat.mutable_running(0)->set_job_id("j-1\x1b");
  EXPECT_TRUE(RefusedWith(ValidateHeartbeatRequest(beat), "running[0].job_id: 'j-1\\x1b' may hold only"));
  beat = GoodHeartbeat();
  beat.mutable_exits(0)->set_exit_code(1000);
  EXPECT_TRUE(RefusedWith(ValidateHeartbeatRequest(beat), "exits[0].exit_code: 1000 is more than 255"));
  beat = GoodHeartbeat();
  beat.mutable_exits(0)->set_signal(-9);
  EXPECT_TRUE(RefusedWith(ValidateHeartbeatRequest(beat), "exits[0].signal: -9 is negative"));
  beat = GoodHeartbeat();
  beat.mutable_exits(0)->set_reason("exited\n[fake log line]");
  EXPECT_TRUE(RefusedWith(ValidateHeartbeatRequest(beat), "exits[0].reason: 'exited\\n[fake log line]' contains"));
  beat = GoodHeartbeat();
  beat.mutable_exits(0)->set_reason(std::string(kMaxReasonBytes + 1, 'r'));
  EXPECT_TRUE(RefusedWith(ValidateHeartbeatRequest(beat), "(1025 bytes) is longer than 1024 bytes"));
  beat = GoodHeartbeat();
  beat.set_name("");
  EXPECT_TRUE(RefusedWith(ValidateHeartbeatRequest(beat), "name: '' is empty"));
}

// ---------------------------------------------------------------- agents --

TEST(RequestValidation, AgentMessagesNeedAJobIdAndANonNegativeEpochAndRank) {
  v1::AgentHello hello;
  hello.set_job_id("j-000001");
  hello.set_epoch(1);
  EXPECT_TRUE(ValidateAgentHello(hello).ok());
  hello.set_epoch(-1);
  EXPECT_TRUE(RefusedWith(ValidateAgentHello(hello), "epoch: -1 is negative"));
  hello.set_epoch(1);
  hello.set_rank(-1);
  EXPECT_TRUE(RefusedWith(ValidateAgentHello(hello), "rank: -1 is negative"));
  hello.set_rank(1 << 20);
  EXPECT_TRUE(RefusedWith(ValidateAgentHello(hello), "rank: 1048576 is more than 65535"));
  hello.set_rank(0);
  hello.set_job_id("");
  EXPECT_TRUE(RefusedWith(ValidateAgentHello(hello), "job_id: '' is empty"));
}

v1::ProgressReport GoodReport() {
  v1::ProgressReport report;
  report.set_job_id("j-000001");
  report.set_epoch(2);
  report.set_iterations_done(1200);
  report.set_throughput(48.5);
  return report;
}

TEST(RequestValidation, ProgressWithNaNInfiniteOrNegativeThroughputIsRefused) {
  EXPECT_TRUE(ValidateProgressReport(GoodReport()).ok());
  for (double bad : {kNaN, kInf, -kInf}) {
    v1::ProgressReport report = GoodReport();
    report.set_throughput(bad);
    EXPECT_TRUE(RefusedWith(ValidateProgressReport(report), "is not a finite number")) << bad;
  }
  v1::ProgressReport report = GoodReport();
  report.set_throughput(-0.5);
  EXPECT_TRUE(RefusedWith(ValidateProgressReport(report), "throughput: -0.5 is not in [0, 1e+09]"));
  report.set_throughput(1e12);
  EXPECT_TRUE(RefusedWith(ValidateProgressReport(report), "throughput: 1e+12 is not in [0, 1e+09]"));
  report = GoodReport();
  report.set_iterations_done(-5);
  EXPECT_TRUE(RefusedWith(ValidateProgressReport(report), "iterations_done: -5 is negative"));
  report = GoodReport();
  report.set_stop_at_iteration(std::numeric_limits<int64_t>::max());
  EXPECT_TRUE(RefusedWith(ValidateProgressReport(report), "stop_at_iteration: 9223372036854775807 is more than"));
}

TEST(RequestValidation, CheckpointsAtNegativeIterationsOrOddPathsAreRefused) {
  v1::CheckpointDone done;
  done.set_job_id("j-000001");
  done.set_epoch(2);
  done.set_iteration(800);
  done.set_path("/tmp/synergy-ckpt/j-000001/iter-800.pt");
  EXPECT_TRUE(ValidateCheckpointDone(done).ok());
  done.set_iteration(-1);
  EXPECT_TRUE(RefusedWith(ValidateCheckpointDone(done), "iteration: -1 is negative"));
  done.set_iteration(std::numeric_limits<int64_t>::max());
  EXPECT_TRUE(RefusedWith(ValidateCheckpointDone(done), "iteration: 9223372036854775807 is more than"));
  done.set_iteration(800);
  done.set_path("/tmp/x\n/etc/passwd");
  EXPECT_TRUE(RefusedWith(ValidateCheckpointDone(done), "path: '/tmp/x\\n/etc/passwd' contains a control character"));
  done.set_path(absl::StrCat("/", std::string(kMaxPathBytes, 'p')));
  EXPECT_TRUE(RefusedWith(ValidateCheckpointDone(done), "(4097 bytes) is longer than 4096 bytes"));
}

TEST(RequestValidation, AGoodMeasuredProfilePasses) {
  EXPECT_TRUE(ValidateMeasuredProfile(GoodProfile()).ok()) << ValidateMeasuredProfile(GoodProfile());
}

TEST(RequestValidation, ProfileWithMorePointsThanTheCapIsRefused) {
  v1::MeasuredProfile profile = GoodProfile();
  while (profile.points_size() < 12000) *profile.add_points() = profile.points(0);
  EXPECT_TRUE(RefusedWith(ValidateMeasuredProfile(profile), "points: 12000 points are more than 1024"));
}

TEST(RequestValidation, ProfilePointsMustBeFiniteWithPositiveResources) {
  const auto with = [](auto set) {
    v1::MeasuredProfile profile = GoodProfile();
    set(*profile.mutable_points(4));
    return ValidateMeasuredProfile(profile);
  };
  using P = v1::ProfilePoint;
  EXPECT_TRUE(RefusedWith(with([](P& p) { p.set_cpus(kNaN); }), "points[4].cpus: nan is not a finite"));
  EXPECT_TRUE(RefusedWith(with([](P& p) { p.set_cpus(0); }), "points[4].cpus: 0 is not in (0, 65536]"));
  EXPECT_TRUE(RefusedWith(with([](P& p) { p.set_cpus(-2); }), "points[4].cpus: -2 is not in"));
  EXPECT_TRUE(RefusedWith(with([](P& p) { p.set_mem_gb(kInf); }), "points[4].mem_gb: inf is not a finite"));
  EXPECT_TRUE(RefusedWith(with([](P& p) { p.set_mem_gb(kNaN); }), "points[4].mem_gb: nan is not a finite"));
  EXPECT_TRUE(RefusedWith(with([](P& p) { p.set_mem_gb(0); }), "points[4].mem_gb: 0 is not in (0, 1e+06]"));
  EXPECT_TRUE(RefusedWith(with([](P& p) { p.set_throughput(-1); }), "points[4].throughput: -1 is not in [0, 1e+09]"));
  EXPECT_TRUE(RefusedWith(with([](P& p) { p.set_throughput(kNaN); }), "points[4].throughput: nan"));
  EXPECT_TRUE(with([](P& p) { p.set_throughput(0); }).ok());  // a point that made no progress
}

TEST(RequestValidation, ProfileSecondsMustBeFiniteAndNonNegative) {
  v1::MeasuredProfile profile = GoodProfile();
  profile.set_seconds(kNaN);
  EXPECT_TRUE(RefusedWith(ValidateMeasuredProfile(profile), "seconds: nan is not a finite number"));
  profile.set_seconds(-kInf);
  EXPECT_TRUE(RefusedWith(ValidateMeasuredProfile(profile), "seconds: -inf is not a finite number"));
  profile.set_seconds(-1);
  EXPECT_TRUE(RefusedWith(ValidateMeasuredProfile(profile), "seconds: -1 is not in [0"));
  profile.set_seconds(0);
  EXPECT_TRUE(ValidateMeasuredProfile(profile).ok());
}

TEST(RequestValidation, NameHelpersFollowTheirGrammars) {
  EXPECT_TRUE(IsPosixEnvName("_"));
  EXPECT_TRUE(IsPosixEnvName("CUDA_VISIBLE_DEVICES"));
  EXPECT_TRUE(IsPosixEnvName("a9"));
  EXPECT_FALSE(IsPosixEnvName(""));
  EXPECT_FALSE(IsPosixEnvName("9a"));
  EXPECT_FALSE(IsPosixEnvName("A.B"));
  EXPECT_FALSE(IsPosixEnvName("A\0"s));
  EXPECT_TRUE(IsNameToken("j-000001"));
  EXPECT_TRUE(IsNameToken("node_1.example-site"));
  EXPECT_FALSE(IsNameToken(""));
  EXPECT_FALSE(IsNameToken("a/b"));
  EXPECT_FALSE(IsNameToken(".."));
  EXPECT_FALSE(IsNameToken("."));
  EXPECT_TRUE(IsNameToken("..."));
  EXPECT_FALSE(IsNameToken("a b"));
  EXPECT_FALSE(IsNameToken("n\xc3\xa9"));
}

}  // namespace
}  // namespace synergy::service
