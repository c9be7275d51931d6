// synergy-sim import (src/sim/import/): small fixtures written in each
// format's schema, imported, read back with the simulator's own readers
// and, for the durations, replayed.
#include "sim/import/trace_import.h"

#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>

#include "gtest/gtest.h"
#include "sim/import/import_fields.h"
#include "sim/import/job_models.h"
#include "sim/simulator.h"
#include "sim/trace.h"
#include "synergy/config_loader.h"
#include "synergy/policy.h"
#include "test_support.h"

namespace synergy::sim {
namespace {

namespace fs = std::filesystem;

constexpr char kOpenbHeader[] =
    "name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,pod_phase,creation_time,deletion_time,"
    "scheduled_time\n";
// Four pods that ran (one on a share of a GPU, one of 8 GPUs) and one of
// each kind the importer drops.
constexpr char kOpenbPods[] =
    "p0,12000,16384,1,1000,,LS,Succeeded,100,1100,100\n"
    "p1,6000,12288,1,460,,BE,Running,200,5200,250\n"
    "p2,4000,8192,0,0,,BE,Running,300,400,300\n"
    "p3,11908,47104,1,1000,,BE,Pending,400,450,\n"
    "p4,88000,327680,8,1000,,Burstable,Succeeded,500,2500,600\n"
    "p5,16000,32768,1,1000,V100M16|V100M32,LS,Failed,700,900,700\n"
    "p6,2000,4096,2,1000,,LS,Succeeded,800,800,800\n"
    "p7,3000,8192,1,1000,,LS,Succeeded,900,1900,900\n";
constexpr char kOpenbNodes[] =
    "sn,cpu_milli,memory_mib,gpu,model\n"
    "n0,96000,786432,8,V100M32\n"
    "n1,96000,786432,8,V100M16\n"
    "n2,32000,262144,0,\n";

class TraceImportTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("synergy-import-test-" + std::to_string(getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  std::string Write(const std::string& name, const std::string& text) {
    const fs::path p = dir_ / name;
    std::ofstream(p) << text;
    return p.string();
  }
  static std::string Read(const fs::path& p) {
    std::ifstream in(p);
    return std::string(std::istreambuf_iterator<char>(in), {});
  }
  // An import of `format` from a table named `table` holding `text`, into
  // out/.
  ImportOptions Options(const std::string& format, const std::string& table, const std::string& text) {
    ImportOptions o;
    o.format = format;
    o.in_path = Write(table, text);
    o.out_dir = (dir_ / "out").string();
    return o;
  }
  ImportOptions Openb(const std::string& pods = kOpenbPods, const std::string& nodes = kOpenbNodes) {
    ImportOptions o = Options("openb", "pods.csv", kOpenbHeader + pods);
    o.nodes_path = Write("nodes.csv", nodes);
    return o;
  }
  // The imported trace as the simulator reads it, on the imported cluster.
  std::vector<JobSpec> Imported(const Cluster& cluster) {
    auto jobs = LoadTrace((dir_ / "out" / "trace.csv").string(), zoo_, cluster);
    EXPECT_TRUE(jobs.ok()) << jobs.status();
    return jobs.ok() ? *jobs : std::vector<JobSpec>{};
  }
  // A bad input: INVALID_ARGUMENT with `fragment`, and no output directory.
  void ExpectRefused(const ImportOptions& o, const std::string& fragment) {
    auto account = ImportTrace(o, zoo_);
    ASSERT_FALSE(account.ok()) << "accepted; expected " << fragment;
    EXPECT_EQ(account.status().code(), absl::StatusCode::kInvalidArgument) << account.status();
    EXPECT_NE(account.status().message().find(fragment), std::string::npos) << account.status();
    EXPECT_FALSE(fs::exists(o.out_dir)) << "wrote output for a refused input";
  }

  fs::path dir_;
  ModelZoo zoo_ = testing::ZooOrDie();
};

TEST_F(TraceImportTest, OpenbKeepsThePodsThatRanAndAccountsForEveryLine) {
  auto account = ImportTrace(Openb(), zoo_);
  ASSERT_TRUE(account.ok()) << account.status();
  EXPECT_EQ(account->jobs.lines, 9);
  EXPECT_EQ(account->jobs.header_lines, 1);
  EXPECT_EQ(account->jobs.kept, 4);
  EXPECT_EQ(account->jobs.dropped, (std::map<std::string, int64_t>{
                                       {"cpu_only", 1}, {"failed", 1}, {"never_scheduled", 1}, {"zero_duration", 1}}));
  EXPECT_EQ(account->gpu_shares_rounded_up, 1);
  EXPECT_EQ(account->nodes.kept, 2);
  EXPECT_EQ(account->nodes.dropped, (std::map<std::string, int64_t>{{"no_gpus", 1}}));
  EXPECT_EQ(account->time_origin_s, 100);
  const std::string json = Read(dir_ / "out" / "import.json");
  EXPECT_NE(json.find("\"dropped_by_reason\": {\"cpu_only\": 1, \"failed\": 1, \"never_scheduled\": 1, "
                      "\"zero_duration\": 1}"),
            std::string::npos)
      << json;

  auto cluster = LoadClusterFile((dir_ / "out" / "cluster.yaml").string());
  ASSERT_TRUE(cluster.ok()) << cluster.status();
  ASSERT_EQ(cluster->servers().size(), 2u);
  EXPECT_EQ(cluster->servers()[0].capacity, (Resources{8, 96, 768, 500}));
  EXPECT_EQ(cluster->servers()[1].gpu_type, "v100");
  const std::vector<JobSpec> jobs = Imported(*cluster);
  ASSERT_EQ(jobs.size(), 4u);
  // p0, p1, p4, p7 in arrival order, from the first pod's creation.
  EXPECT_EQ(jobs[0].arrival_s, 0);
  EXPECT_EQ(jobs[0].duration_s, 1000);
  EXPECT_EQ(jobs[0].requested_cpus, 12);
  EXPECT_EQ(jobs[0].requested_mem_gb, 16);
  EXPECT_EQ(jobs[1].arrival_s, 100);
  EXPECT_EQ(jobs[1].gpu_fraction, 0.46);
  EXPECT_EQ(jobs[1].duration_s, 4950);
  EXPECT_EQ(jobs[2].gpus, 8);
  EXPECT_EQ(jobs[2].requested_cpus, 88);
  EXPECT_EQ(jobs[2].requested_mem_gb, 320);
  EXPECT_EQ(jobs[3].arrival_s, 800);
}

TEST_F(TraceImportTest, OpenbPackingVariantsTakeTheirTimesFromThePodList) {
  ImportOptions o = Openb();
  o.times_path = o.in_path;  // the default list, with times
  o.in_path = Write("multigpu.csv",
                    "name,cpu_milli,memory_mib,num_gpu,gpu_milli\n"
                    "p0,12000,16384,1,1000\n"       // p0's times
                    "p2,4000,8192,0,0\n"            // CPU-only there: dropped as there
                    "p5,16000,32768,1,1000\n"       // failed there
                    "p900,80000,327680,8,1000\n");  // added: an 8-GPU pod's times (p4's)
  auto account = ImportTrace(o, zoo_);
  ASSERT_TRUE(account.ok()) << account.status();
  EXPECT_EQ(account->jobs.kept, 2);
  EXPECT_EQ(account->jobs.dropped, (std::map<std::string, int64_t>{{"cpu_only", 1}, {"failed", 1}}));
  EXPECT_EQ(account->times.kept, 8);
  EXPECT_EQ(account->times_borrowed, 1);
  auto cluster = LoadClusterFile((dir_ / "out" / "cluster.yaml").string());
  const std::vector<JobSpec> jobs = Imported(*cluster);
  ASSERT_EQ(jobs.size(), 2u);
  EXPECT_EQ(jobs[0].duration_s, 1000);
  EXPECT_EQ(jobs[1].gpus, 8);
  EXPECT_EQ(jobs[1].requested_cpus, 80);  // its own request, p4's times
  EXPECT_EQ(jobs[1].arrival_s, 400);
  EXPECT_EQ(jobs[1].duration_s, 1900);
  fs::remove_all(o.out_dir);
  o.times_path.clear();
  ExpectRefused(o,
                "multigpu.csv:1: header: 'name,cpu_milli,memory_mib,num_gpu,gpu_milli': openb's packing variant "
                "has no times: give --times");
  ImportOptions plain = Openb();
  plain.times_path = plain.in_path;
  ExpectRefused(plain, "--times: only for openb's packing variants");
}

TEST_F(TraceImportTest, ARequestedReplayWhereNothingQueuesReproducesTheRecordedDurations) {
  ImportOptions o = Openb();
  o.keep_failed = true;  // p5 too: a failed pod held its GPUs for its time all the same
  ASSERT_TRUE(ImportTrace(o, zoo_).ok());
  auto cluster = LoadClusterFile((dir_ / "out" / "cluster.yaml").string());
  ASSERT_TRUE(cluster.ok()) << cluster.status();
  const std::vector<JobSpec> jobs = Imported(*cluster);
  ASSERT_EQ(jobs.size(), 5u);
  auto policy = *MakePolicy("fifo");
  auto mechanism = *MakeMechanism("requested");
  SimConfig c;
  c.cluster = &*cluster;
  c.zoo = &zoo_;
  c.policy = policy.get();
  c.mechanism = mechanism.get();
  c.launch_between_rounds = true;
  auto result = RunTrace(c, jobs);
  ASSERT_TRUE(result.ok()) << result.status();
  ASSERT_EQ(result->jobs.size(), jobs.size());
  for (const JobRecord& r : result->jobs) {
    EXPECT_EQ(r.start_s, r.spec.arrival_s) << "job " << r.spec.id << " waited";
    EXPECT_EQ(std::round(r.finish_s - r.start_s), r.spec.duration_s) << "job " << r.spec.id;
  }
  // The same jobs under TUNE run at what the zoo says their models do with
  // more: not their recorded durations.
  auto tune = *MakeMechanism("tune");
  c.mechanism = tune.get();
  auto tuned = RunTrace(c, jobs);
  ASSERT_TRUE(tuned.ok());
  int faster = 0;
  for (const JobRecord& r : tuned->jobs) faster += r.finish_s - r.start_s < r.spec.duration_s - 1;
  EXPECT_GT(faster, 0);
}

TEST_F(TraceImportTest, Pai2020ReadsItsHeaderlessTablesAndRoundsGpuSharesUp) {
  ImportOptions o = Options("pai2020", "pai_task_table.csv",
                            "j1,worker,2,Terminated,1000.0,4600.0,600.0,29.296875,50.0,MISC\n"
                            "j1,ps,1,Terminated,1000.0,4600.0,400.0,10.0,,\n"
                            "j2,worker,1,Failed,2000.0,2100.0,600.0,20.0,25.0,T4\n"
                            "j3,worker,1,Waiting,,,600.0,20.0,100.0,\n"
                            "j4,tensorflow,1,Terminated,3000.0,3500.0,800.0,30.0,25.0,V100\n");
  o.nodes_path = Write("pai_machine_spec.csv", "m1,V100,96,512,8\nm2,MISC,64,256,8\nm3,CPU,64,256,0\n");
  auto account = ImportTrace(o, zoo_);
  ASSERT_TRUE(account.ok()) << account.status();
  EXPECT_EQ(account->jobs.header_lines, 0);
  EXPECT_EQ(account->jobs.kept, 2);
  EXPECT_EQ(account->jobs.dropped,
            (std::map<std::string, int64_t>{{"cpu_only", 1}, {"failed", 1}, {"never_started", 1}}));
  EXPECT_EQ(account->gpu_shares_rounded_up, 1);
  auto cluster = LoadClusterFile((dir_ / "out" / "cluster.yaml").string());
  ASSERT_TRUE(cluster.ok()) << cluster.status();
  ASSERT_EQ(cluster->servers().size(), 2u);
  EXPECT_EQ(cluster->servers()[1].gpu_type, "k80");
  const std::vector<JobSpec> jobs = Imported(*cluster);
  ASSERT_EQ(jobs.size(), 2u);
  // j1's two instances of half a GPU each: one GPU, 12 cores, 58.6 GB.
  EXPECT_EQ(jobs[0].gpus, 1);
  EXPECT_EQ(jobs[0].gpu_fraction, 1);
  EXPECT_EQ(jobs[0].requested_cpus, 12);
  EXPECT_EQ(jobs[0].requested_mem_gb, 58.59375);
  EXPECT_EQ(jobs[0].gpu_type, "k80");
  EXPECT_EQ(jobs[0].duration_s, 3600);
  EXPECT_EQ(jobs[1].arrival_s, 2000);
  EXPECT_EQ(jobs[1].gpu_fraction, 0.25);
  EXPECT_EQ(jobs[1].gpu_type, "v100");
}

TEST_F(TraceImportTest, HeliosTimesAreCalendarSecondsAndUsersAreKept) {
  ImportOptions o =
      Options("helios", "cluster_log.csv",
              "job_id,user,vc,gpu_num,cpu_num,node_num,state,submit_time,start_time,end_time,duration,queue\n"
              "1,uA,vc1,1,4,1,COMPLETED,2020-06-09 18:41:01,2020-06-09 18:41:01,2020-06-10 04:55:09,36848,0\n"
              "2,uB,vc1,4,16,1,FAILED,2020-06-09 18:41:27,2020-06-09 18:41:27,2020-06-09 18:45:36,249,0\n"
              "3,uC,vc2,0,8,1,COMPLETED,2020-06-09 18:42:00,2020-06-09 18:42:00,2020-06-09 19:00:00,1080,0\n"
              "4,uD,vc2,8,64,1,COMPLETED,2020-06-10 00:00:00,2020-06-10 00:10:00,2020-06-10 01:10:00,3600,600\n");
  o.cluster_path = Write("helios.yaml", "servers:\n  - {name: s, count: 4, gpus: 8, cpus: 64, memory_gb: 512}\n");
  auto account = ImportTrace(o, zoo_);
  ASSERT_TRUE(account.ok()) << account.status();
  EXPECT_EQ(account->jobs.kept, 2);
  EXPECT_FALSE(fs::exists(dir_ / "out" / "cluster.yaml"));  // Helios lists no machines
  auto cluster = LoadClusterFile(o.cluster_path);
  const std::vector<JobSpec> jobs = Imported(*cluster);
  ASSERT_EQ(jobs.size(), 2u);
  EXPECT_EQ(jobs[0].duration_s, 36848);
  EXPECT_EQ(jobs[0].user, "uA");
  EXPECT_EQ(jobs[1].arrival_s, 5 * 3600 + 18 * 60 + 59);  // 18:41:01 to midnight
  EXPECT_EQ(jobs[1].duration_s, 3600);
  EXPECT_EQ(jobs[1].requested_mem_gb, 0);  // not recorded
  EXPECT_EQ(jobs[1].user, "uD");
}

TEST_F(TraceImportTest, PhillyReadsItsJsonLogOneJobAtATime) {
  ImportOptions o =
      Options("philly", "cluster_job_log",
              "[\n"
              "{\"status\": \"Pass\", \"vc\": \"ee9e8c\", \"jobid\": \"application_1\",\n"
              " \"attempts\": [{\"start_time\": \"2017-10-07 01:12:09\", \"end_time\": \"2017-10-07 01:13:23\",\n"
              "   \"detail\": [{\"ip\": \"m47\", \"gpus\": [\"gpu0\", \"gpu1\"]}]},\n"
              "  {\"start_time\": \"2017-10-07 01:13:30\", \"end_time\": \"2017-10-07 02:13:30\",\n"
              "   \"detail\": [{\"ip\": \"m4\", \"gpus\": [\"gpu0\", \"gpu1\", \"gpu2\", \"gpu3\"]},\n"
              "              {\"ip\": \"m5\", \"gpus\": [\"gpu0\", \"gpu1\", \"gpu2\", \"gpu3\"]}]}],\n"
              " \"submitted_time\": \"2017-10-07 01:11:39\", \"user\": \"ce2f4c\"},\n"
              "{\"status\": \"Killed\", \"vc\": \"a\", \"jobid\": \"application_2\", \"attempts\": [],\n"
              " \"submitted_time\": \"2017-10-07 01:20:00\", \"user\": \"u2\"},\n"
              "{\"status\": \"Pass\", \"vc\": \"a\", \"jobid\": \"application_3\",\n"
              " \"attempts\": [{\"start_time\": \"2017-10-07 03:00:00\", \"end_time\": null,\n"
              "   \"detail\": [{\"ip\": \"m1\", \"gpus\": [\"gpu0\"]}]}],\n"
              " \"submitted_time\": \"2017-10-07 02:59:00\", \"user\": \"u3\"},\n"
              "{\"status\": \"Pass\", \"vc\": \"a\", \"jobid\": \"application_4\",\n"
              " \"attempts\": [{\"start_time\": \"2017-10-07 04:00:00\", \"end_time\": \"2017-10-07 04:30:00\",\n"
              "   \"detail\": [{\"ip\": \"m1\", \"gpus\": [\"gpu0\"]}]}],\n"
              " \"submitted_time\": \"2017-10-07 03:11:39\", \"user\": \"u4 \\\"x]\"}\n"
              "]\n");
  auto account = ImportTrace(o, zoo_);
  // The last user holds a space and a quote: not a name a trace can hold.
  ASSERT_FALSE(account.ok());
  EXPECT_NE(account.status().message().find("cluster_job_log:15: user: 'u4 \"x]'"), std::string::npos)
      << account.status();
  std::string log = Read(o.in_path);
  log.replace(log.find("u4 \\\"x]"), 7, "u4");
  Write("cluster_job_log", log);
  account = ImportTrace(o, zoo_);
  ASSERT_TRUE(account.ok()) << account.status();
  EXPECT_EQ(account->model_rule, "split");  // Philly records no CPUs
  EXPECT_EQ(account->jobs.lines, 4);
  EXPECT_EQ(account->jobs.kept, 2);
  EXPECT_EQ(account->jobs.dropped,
            (std::map<std::string, int64_t>{{"attempt_without_times", 1}, {"never_started", 1}}));
  const std::vector<JobSpec> jobs = Imported(testing::DefaultClusterOrDie());
  ASSERT_EQ(jobs.size(), 2u);
  EXPECT_EQ(jobs[0].gpus, 8);                // its last attempt's, on two servers
  EXPECT_EQ(jobs[0].duration_s, 74 + 3600);  // both attempts
  EXPECT_EQ(jobs[1].arrival_s, 2 * 3600);
  EXPECT_EQ(jobs[1].user, "u4");

  fs::remove_all(o.out_dir);
  for (const auto& [text, fragment] : std::vector<std::pair<std::string, std::string>>{
           {"{\"status\": \"Pass\"}", "bad.json:1: is not a JSON array of job records"},
           {"[{\"status\": \"Pass\"", "the file ends inside a job record"},
           {"[1, 2]", "a job record is not a JSON object"},
           {"[{\"status\": \"Maybe\"}]", "status: 'Maybe': is not one of Pass, Killed, Failed"},
           {"[]", "no job to import"},
           {"[] []", "holds more after the array"}}) {
    ImportOptions bad = o;
    bad.in_path = Write("bad.json", text);
    ExpectRefused(bad, fragment);
  }
}

TEST_F(TraceImportTest, BadInputIsRefusedWithFileLineAndFieldAndNothingIsWritten) {
  ExpectRefused(Openb("p0,12000,16384,1\n"), "pods.csv:2: 'p0,12000,16384,1': has 4 fields, openb's rows have 11");
  ImportOptions wrong_header = Openb();
  wrong_header.in_path = Write("other.csv", "job_id,model,arrival_s,iterations,gpus\n0,alexnet,0,10,1\n");
  ExpectRefused(wrong_header, "other.csv:1: header: 'job_id,model,arrival_s,iterations,gpus': is not openb's");
  ExpectRefused(Openb("p0,12000,16384,1,1000,,LS,Succeeded,-5,1100,100\n"), "pods.csv:2: creation_time: '-5'");
  ExpectRefused(Openb("p0,12000,16384,1,1000,,LS,Succeeded,100,50,100\n"),
                "pods.csv:2: deletion_time: '50': is before the pod was scheduled (100)");
  ExpectRefused(Openb("p0,200000,16384,1,1000,,LS,Succeeded,100,1100,100\n"),
                "pods.csv:2: cpu_milli: the job (1 GPUs, 200 cores, 16 GB) is larger than any server");
  ExpectRefused(Openb("p0,12000,16384,24,1000,,LS,Succeeded,100,1100,100\n"), "pods.csv:2: num_gpu: the job (24 GPUs");
  ExpectRefused(Openb("p0,12000,16384,1,1000,H100,LS,Succeeded,100,1100,100\n"),
                "pods.csv:2: GPU model 'H100' is not in the GPU model table <embedded gpu-models.yaml>");
  ExpectRefused(Openb(kOpenbPods, "sn,cpu_milli,memory_mib,gpu,model\nn0,96000,786432,8,H100\n"),
                "nodes.csv:2: GPU model 'H100' is not in the GPU model table");
  ExpectRefused(Openb("p0,12000,16384,1,1000,,LS,Exploded,100,1100,100\n"), "pods.csv:2: pod_phase: 'Exploded'");
  ExpectRefused(Openb("p0,12000,16384,1,1000,,LS,Succeeded,100,1100,100\x01\n"), "pods.csv:2: scheduled_time:");
  ExpectRefused(Openb(""), "no job to import");
  ImportOptions missing = Openb();
  missing.in_path = (dir_ / "absent.csv").string();
  auto account = ImportTrace(missing, zoo_);
  EXPECT_EQ(account.status().code(), absl::StatusCode::kNotFound);
  ImportOptions unknown = Openb();
  unknown.format = "philly2";
  ExpectRefused(unknown, "format: 'philly2': is not one of openb, pai2020, helios, philly");
}

TEST_F(TraceImportTest, ModelsAreChosenBySeedAndRuleTheSameEveryTime) {
  const ModelRuleSettings by_request{ModelRule::kRequest, {20, 70, 10}, 7};
  auto chooser = ModelChooser::Make(zoo_, by_request);
  ASSERT_TRUE(chooser.ok());
  ImportedJob hungry;  // 12 cores a GPU: an image model whose best is 12 cores
  hungry.gpus = 2;
  hungry.cpus = 24;
  ImportedJob lean;  // 1 core a GPU: a language model
  lean.cpus = 1;
  std::map<std::string, int> drawn;
  for (int64_t i = 0; i < 2000; ++i) {
    const ModelSpec& h = zoo_.model(chooser->ModelFor(i, hungry));
    EXPECT_TRUE(h.name == "alexnet" || h.name == "shufflenet") << h.name;
    EXPECT_EQ(zoo_.model(chooser->ModelFor(i, lean)).task, Task::kLanguage);
    ImportedJob unrecorded;
    ++drawn[TaskName(zoo_.model(chooser->ModelFor(i, unrecorded)).task)];
  }
  // Unrecorded CPUs: drawn by the split (20/70/10 of 2,000, within 3 sigma).
  EXPECT_NEAR(drawn["image"], 400, 60);
  EXPECT_NEAR(drawn["language"], 1400, 65);
  EXPECT_NEAR(drawn["speech"], 200, 45);
  // The same seed gives the same models; another seed, others.
  auto again = ModelChooser::Make(zoo_, by_request);
  ModelRuleSettings other = by_request;
  other.seed = 8;
  auto reseeded = ModelChooser::Make(zoo_, other);
  int differ = 0;
  for (int64_t i = 0; i < 200; ++i) {
    ImportedJob j;
    EXPECT_EQ(chooser->ModelFor(i, j), again->ModelFor(i, j));
    differ += chooser->ModelFor(i, j) != reseeded->ModelFor(i, j);
  }
  EXPECT_GT(differ, 50);
}

TEST(ImportFieldsTest, CalendarTimesAreCheckedAndExact) {
  EXPECT_EQ(*DateTimeField("t", "1970-01-01 00:00:00"), 0);
  EXPECT_EQ(*DateTimeField("t", "2020-03-01 00:00:00") - *DateTimeField("t", "2020-02-28 00:00:00"), 2 * 86400);
  for (const char* bad : {"2020-13-01 00:00:00", "2020-06-09T18:41:01", "2020-06-09 18:41", "", "2020-06-09 25:00:00",
                          "２020-06-09 18:41:01"}) {
    auto t = DateTimeField("submit_time", bad);
    ASSERT_FALSE(t.ok()) << bad;
    EXPECT_NE(t.status().message().find("submit_time: '"), std::string::npos) << t.status();
  }
  EXPECT_FALSE(NumberField("plan_cpu", "nan", 0, 10).ok());
  EXPECT_FALSE(NumberField("plan_cpu", "1e400", 0, 10).ok());
  EXPECT_FALSE(IntegerField("gpu", "3.0", 0, 10).ok());
  EXPECT_FALSE(NameField("user", "a b").ok());
}

}  // namespace
}  // namespace synergy::sim
