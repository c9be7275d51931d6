#include "service/job_spec.h"

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "test_support.h"

namespace synergy::service {
namespace {

TEST(JobSpecYaml, ParsesEveryField) {
  auto spec = ParseJobSpecYaml(
      "name: train\nmodel: res18\ngpus: 2\niterations: 500\ncommand: [./train, --lr, '0.1']\n"
      "env: {A: b}\nmax_retries: 3\nuses_agent: true\ntenant: vision\npriority: 7\n",
      "job.yaml");
  ASSERT_TRUE(spec.ok()) << spec.status();
  EXPECT_EQ(spec->name(), "train");
  EXPECT_EQ(spec->gpus(), 2);
  EXPECT_EQ(spec->iterations(), 500);
  ASSERT_EQ(spec->command_size(), 3);
  EXPECT_EQ(spec->command(2), "0.1");
  EXPECT_EQ(spec->env().at("A"), "b");
  EXPECT_EQ(spec->max_retries(), 3);
  EXPECT_TRUE(spec->uses_agent());
  EXPECT_EQ(spec->tenant(), "vision");
  EXPECT_EQ(spec->priority(), 7);
}

TEST(JobSpecYaml, ATimeLimitIsADurationOfAtMostAYear) {
  auto two_hours = ParseJobSpecYaml("gpus: 1\ntime_limit: 2h\ncommand: [x]\n", "j.yaml");
  ASSERT_TRUE(two_hours.ok()) << two_hours.status();
  EXPECT_EQ(two_hours->time_limit_s(), 7200);
  EXPECT_EQ(ParseJobSpecYaml("gpus: 1\ncommand: [x]\n", "j.yaml")->time_limit_s(), 0);
  for (const char* bad : {"3600", "2 h", "0m", "1.5h", "366d", "-1h", "forever"}) {
    auto refused = ParseJobSpecYaml(absl::StrCat("gpus: 1\ntime_limit: \"", bad, "\"\ncommand: [x]\n"), "j.yaml");
    ASSERT_FALSE(refused.ok()) << bad;
    EXPECT_NE(refused.status().message().find(
                  absl::StrCat("j.yaml:2: time_limit: '", bad, "': is not a duration from 1s to 365d")),
              std::string::npos)
        << refused.status();
  }
}

TEST(JobSpecYaml, CommandStringIsSplitOnSpaces) {
  auto spec = ParseJobSpecYaml("gpus: 1\ncommand: sleep  5\n", "j.yaml");
  ASSERT_TRUE(spec.ok()) << spec.status();
  ASSERT_EQ(spec->command_size(), 2);
  EXPECT_EQ(spec->max_retries(), -1);  // the daemon's default
}

TEST(JobSpecYaml, ErrorsNameFileLineAndField) {
  auto unknown = ParseJobSpecYaml("gpus: 1\ngpu: 2\ncommand: [x]\n", "j.yaml");
  ASSERT_FALSE(unknown.ok());
  EXPECT_NE(unknown.status().message().find("j.yaml:2: gpu: unknown field (fields: name, model, gpus,"),
            std::string::npos)
      << unknown.status();
  auto bad = ParseJobSpecYaml("gpus: two\ncommand: [x]\n", "j.yaml");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("j.yaml:1: gpus: 'two'"), std::string::npos) << bad.status();
  auto zero = ParseJobSpecYaml("gpus: 0\ncommand: [x]\n", "j.yaml");
  ASSERT_FALSE(zero.ok());
  EXPECT_NE(zero.status().message().find("spec.gpus: 0 is not a positive GPU count"), std::string::npos);
  auto none = ParseJobSpecYaml("gpus: 1\n", "j.yaml");
  ASSERT_FALSE(none.ok());
  EXPECT_NE(none.status().message().find("spec.command: required"), std::string::npos);
  auto prio = ParseJobSpecYaml("gpus: 1\npriority: -2\ncommand: [x]\n", "j.yaml");
  ASSERT_FALSE(prio.ok());
  EXPECT_NE(prio.status().message().find("spec.priority: -2 is not a priority class (0 to 1000)"), std::string::npos)
      << prio.status();
  auto yaml = ParseJobSpecYaml("gpus: [1\n", "j.yaml");
  ASSERT_FALSE(yaml.ok());
  EXPECT_NE(yaml.status().message().find("j.yaml:"), std::string::npos);
}

TEST(JobSpecYaml, HostileInputsAreErrors) {
  struct Case {
    const char* yaml;
    const char* message;
  };
  const Case cases[] = {
      {"? [a, b]\n: 1\n", "j.yaml:1: document: (a list): is not a field name"},
      {"gpus: 1\ncommand: {a: b}\n", "j.yaml:2: command: (a map): is not a list or a string"},
      {"gpus: 1\ncommand: [x, [y]]\n", "j.yaml:2: command[1]: (a list): is not a string"},
      {"gpus: 1\ncommand: [x]\nenv: {A: 1, A: 2}\n", "j.yaml:3: env.A: given twice"},
      {"gpus: 1\ncommand: [x]\nenv: {? [A]: 1}\n", "j.yaml:3: env: (a list): is not a field name"},
      {"gpus: 1\ncommand: [x]\nenv: {A: [1]}\n", "j.yaml:3: env.A: (a list): is not a string"},
      {"gpus: 4294967297\ncommand: [x]\n", "j.yaml:1: gpus: '4294967297': must be between -2147483648 and 2147483647"},
      {"gpus: 1\ngpus: 2\ncommand: [x]\n", "j.yaml:2: gpus: given twice (first on line 1)"},
      {"gpus: 1\ncommand: [x]\nuses_agent: maybe\n", "j.yaml:3: uses_agent: 'maybe': is not true or false"},
      {"[gpus]\n", "j.yaml:1: document: (a list): is not a map"},
  };
  for (const Case& c : cases) {
    auto spec = ParseJobSpecYaml(c.yaml, "j.yaml");
    ASSERT_FALSE(spec.ok()) << c.yaml;
    EXPECT_NE(spec.status().message().find(c.message), std::string::npos) << spec.status();
  }
}

TEST(JobSpecYaml, AliasesCannotBlowUpTheCommandOrEnv) {
  // One 32 kB argument named 200 times would be 6.4 MB of argv; refused
  // against request_limits.h's 64 KiB before it is copied.
  std::string text = "gpus: 1\ncommand: [&a " + std::string(32000, 'a');
  for (int i = 0; i < 200; ++i) text += ", *a";
  text += "]\n";
  auto spec = ParseJobSpecYaml(text, "j.yaml");
  ASSERT_FALSE(spec.ok());
  EXPECT_NE(spec.status().message().find("j.yaml:2: command: (a list): holds more than 65536 bytes"),
            std::string::npos)
      << spec.status();
  std::string many = "gpus: 1\ncommand: [x";
  for (int i = 0; i < 300; ++i) many += ", x";
  many += "]\n";
  spec = ParseJobSpecYaml(many, "j.yaml");
  ASSERT_FALSE(spec.ok());
  EXPECT_NE(spec.status().message().find("j.yaml:2: command: (a list): must have at most 256 items (has 301)"),
            std::string::npos)
      << spec.status();
}

TEST(JobSpecYaml, ProfilePointsAreReadAndEachValueChecked) {
  auto spec = ParseJobSpecYaml(
      "gpus: 1\niterations: 10\nuses_agent: true\ncommand: [x]\n"
      "profile_points:\n  - {cpus: 1, mem_gb: 8, throughput: 21}\n  - {cpus: 2.5, mem_gb: 8, throughput: 38.5}\n",
      "j.yaml");
  ASSERT_TRUE(spec.ok()) << spec.status();
  ASSERT_EQ(spec->profile_points_size(), 2);
  EXPECT_EQ(spec->profile_points(1).cpus(), 2.5);
  EXPECT_EQ(spec->profile_points(1).throughput(), 38.5);
  struct Case {
    const char* points;
    const char* message;
  };
  const Case cases[] = {
      {"[{cpus: 0, mem_gb: 8, throughput: 1}]", "j.yaml:5: profile_points[0].cpus: '0': must be"},
      {"[{cpus: 1, mem_gb: 8}]", "profile_points[0].throughput"},
      {"[{cpus: 1, mem_gb: .nan, throughput: 1}]", "profile_points[0].mem_gb"},
      {"[{cpus: 1, mem_gb: 8, throughput: 1, gpus: 2}]", "j.yaml:5: profile_points[0].gpus: unknown field (fields: cpus, mem_gb, throughput)"},
      {"[{cpus: 1, mem_gb: 8, throughput: -3}]", "profile_points[0].throughput: '-3'"},
      {"{cpus: 1}", "j.yaml:5: profile_points: (a map): is not a list"},
      {"[]", "profile_points"},
      {"[[1, 2, 3]]", "profile_points[0]: (a list): is not a map"},
      {"[{cpus: 1, mem_gb: 8, throughput: 1e-300}]", "spec.profile_points[0].throughput: 1e-300 is neither 0 nor at least 1e-06"},
  };
  for (const Case& c : cases) {
    const std::string text =
        std::string("gpus: 1\niterations: 10\nuses_agent: true\ncommand: [x]\nprofile_points: ") + c.points + "\n";
    auto bad = ParseJobSpecYaml(text, "j.yaml");
    ASSERT_FALSE(bad.ok()) << c.points;
    EXPECT_NE(bad.status().message().find(c.message), std::string::npos) << bad.status();
  }
  std::string many = "gpus: 1\niterations: 10\nuses_agent: true\ncommand: [x]\nprofile_points: [&p {cpus: 1, mem_gb: 1, throughput: 1}";
  for (int i = 0; i < 1100; ++i) many += ", *p";
  many += "]\n";
  // Distinct values on an axis are bounded too: each round builds a grid
  // over them.
  std::string wide = "gpus: 1\niterations: 10\nuses_agent: true\ncommand: [x]\nprofile_points:\n";
  for (int i = 1; i <= 65; ++i) wide += "  - {cpus: " + std::to_string(i) + ", mem_gb: 8, throughput: 1}\n";
  auto too_wide = ParseJobSpecYaml(wide, "j.yaml");
  ASSERT_FALSE(too_wide.ok());
  EXPECT_NE(too_wide.status().message().find("spec.profile_points: 65 distinct cpus values are more than 64"),
            std::string::npos)
      << too_wide.status();
  auto too_many = ParseJobSpecYaml(many, "j.yaml");
  ASSERT_FALSE(too_many.ok());
  EXPECT_NE(too_many.status().message().find("must have at most 1024 items"), std::string::npos)
      << too_many.status();
}

TEST(ValidateJobSpec, ChecksLimitsAndModels) {
  const ModelZoo zoo = testing::ZooOrDie();
  v1::JobSpec spec;
  spec.set_gpus(9);
  spec.add_command("x");
  EXPECT_NE(ValidateJobSpec(spec, JobLimits{8, &zoo}).message().find("spec.gpus: 9 is more than the cluster's 8"),
            std::string::npos);
  spec.set_gpus(1);
  EXPECT_TRUE(ValidateJobSpec(spec, JobLimits{8, &zoo}).ok());
  spec.set_model("vgg99");
  EXPECT_NE(ValidateJobSpec(spec, JobLimits{8, &zoo}).message().find("spec.model: unknown model 'vgg99'"),
            std::string::npos);
  spec.set_model("res18");
  spec.set_uses_agent(true);
  EXPECT_NE(ValidateJobSpec(spec, JobLimits{8, &zoo}).message().find("spec.iterations"), std::string::npos);
  spec.set_iterations(10);
  (*spec.mutable_env())["SYNERGY_JOB_ID"] = "x";
  EXPECT_NE(ValidateJobSpec(spec, JobLimits{8, &zoo}).message().find("spec.env"), std::string::npos);
}

}  // namespace
}  // namespace synergy::service

#include <filesystem>
#include <fstream>
#include <sstream>

#include "daemon/server/config.h"
#include "gmock/gmock.h"
#include "node/node_config.h"
#include "synergy/default_configs.h"

namespace synergy::service {
namespace {

TEST(JobSpecYaml, ShippedExamplesParse) {
  int files = 0;
  for (const auto& entry : std::filesystem::directory_iterator(std::string(SYNERGY_SOURCE_DIR) + "/configs/jobs")) {
    std::ifstream in(entry.path());
    std::stringstream ss;
    ss << in.rdbuf();
    auto spec = ParseJobSpecYaml(ss.str(), entry.path().string());
    EXPECT_TRUE(spec.ok()) << spec.status();
    ++files;
  }
  EXPECT_GE(files, 3);
}

using ::testing::AllOf;
using ::testing::HasSubstr;
using ::testing::Not;

TEST(DaemonConfig, EmbeddedDefaultNeedsTlsOrExplicitPlainText) {
  auto refused = daemon::LoadDaemonConfig("");
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.status().message().find("tls.cert and tls.key: required"), std::string::npos) << refused.status();
}

// The message of ParseDaemonConfig(text) on top of the embedded default.
std::string DaemonRefusal(const std::string& text) {
  auto base = daemon::ParseDaemonConfig(kDefaultDaemonYaml, "<embedded>", daemon::DaemonConfig{});
  EXPECT_TRUE(base.ok()) << base.status();
  auto c = daemon::ParseDaemonConfig(text, "d.yaml", *base);
  EXPECT_FALSE(c.ok()) << text;
  return c.ok() ? "" : std::string(c.status().message());
}

TEST(DaemonConfig, EmbeddedDefaultAndErrors) {
  auto c = daemon::ParseDaemonConfig(kDefaultDaemonYaml, "<embedded>", daemon::DaemonConfig{});
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_TRUE(c->auth.required);
  EXPECT_FALSE(c->tls.plaintext);
  EXPECT_EQ(c->listen, "127.0.0.1:50051");
  EXPECT_EQ(c->mechanism, "tune");
  EXPECT_EQ(c->round_s, 300);
  EXPECT_EQ(c->profile_wait_s, 600);
  EXPECT_THAT(DaemonRefusal("profile_wait_s: -1\n"),
              HasSubstr("d.yaml:1: profile_wait_s: '-1': must be between 0 and"));
  EXPECT_THAT(DaemonRefusal("profile_wait_s: .inf\n"), HasSubstr("d.yaml:1: profile_wait_s: '.inf': is not a finite number"));
  EXPECT_THAT(DaemonRefusal("policy: fifo\nround_s: -3\n"), HasSubstr("d.yaml:2: round_s: '-3': must be between 0.05 and 86400"));
  EXPECT_THAT(DaemonRefusal("round_s: 1e9\n"), HasSubstr("d.yaml:1: round_s: '1e9': must be between 0.05 and 86400"));
  EXPECT_THAT(DaemonRefusal("restart_gain: -0.1\n"), HasSubstr("d.yaml:1: restart_gain: '-0.1': must be between 0 and 10"));
  EXPECT_THAT(DaemonRefusal("restart_gain: 11\n"), HasSubstr("d.yaml:1: restart_gain: '11': must be between 0 and 10"));
  EXPECT_THAT(DaemonRefusal("restart_gain: .nan\n"), HasSubstr("restart_gain: '.nan': is not a finite number"));
  EXPECT_EQ(c->restart_gain, 0.1);
  EXPECT_THAT(DaemonRefusal("max_retries: 2147483647\n"), HasSubstr("max_retries: '2147483647': must be between 0 and 100"));
  EXPECT_THAT(DaemonRefusal("heartbeat_interval_ms: 0\n"), HasSubstr("heartbeat_interval_ms: '0': must be between 1 and"));
  EXPECT_THAT(DaemonRefusal("mechanism: best\n"), HasSubstr("d.yaml:1: mechanism: 'best': is not one of proportional"));
  EXPECT_THAT(DaemonRefusal("log_level: loud\n"), HasSubstr("d.yaml:1: log_level: 'loud': is not one of trace"));
  EXPECT_THAT(DaemonRefusal("listen: \"\"\n"), HasSubstr("d.yaml:1: listen: '': is empty"));
}

TEST(DaemonConfig, UnknownDuplicateAndNonScalarKeysAreRefused) {
  EXPECT_THAT(DaemonRefusal("rounds: 3\n"), HasSubstr("d.yaml:1: rounds: unknown field (fields: listen, "));
  EXPECT_THAT(DaemonRefusal("round_s: 1\nround_s: 2\n"), HasSubstr("d.yaml:2: round_s: given twice (first on line 1)"));
  EXPECT_THAT(DaemonRefusal("? [a, b]\n: 1\n"), HasSubstr("d.yaml:1: document: (a list): is not a field name"));
  EXPECT_THAT(DaemonRefusal("tls: {cert: a, kee: b}\n"), HasSubstr("d.yaml:1: tls.kee: unknown field (fields: cert, key,"));
  EXPECT_THAT(DaemonRefusal("auth: {mode: open}\n"), HasSubstr("d.yaml:1: auth.mode: 'open': is not tokens or none"));
  // The shared token of before auth: gets its own message, and is not echoed.
  const std::string tokens = DaemonRefusal("round_s: 1\ntokens: [shared-secret-0123456789]\n");
  EXPECT_THAT(tokens, HasSubstr("d.yaml:2: tokens: one shared token is no longer accepted"));
  EXPECT_THAT(tokens, HasSubstr("under auth:"));
  EXPECT_THAT(tokens, Not(HasSubstr("shared-secret")));
}

TEST(DaemonConfig, FileOverlaysTheDefaultFieldByField) {
  auto base = daemon::ParseDaemonConfig(kDefaultDaemonYaml, "<embedded>", daemon::DaemonConfig{});
  ASSERT_TRUE(base.ok()) << base.status();
  EXPECT_FALSE(base->align_rounds);
  auto c = daemon::ParseDaemonConfig("round_s: 2.5\nalign_rounds: yes\ntls: {plaintext: true}\n", "d.yaml", *base);
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_EQ(c->round_s, 2.5);
  EXPECT_TRUE(c->align_rounds);
  auto bad = daemon::ParseDaemonConfig("align_rounds: 5\n", "d.yaml", *base);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("d.yaml:1: align_rounds: '5': is not true or false"), std::string::npos)
      << bad.status();
  EXPECT_TRUE(c->tls.plaintext);
  EXPECT_EQ(c->policy, "fifo");               // from the default
  EXPECT_FALSE(c->tls.require_node_certificates);
  auto empty = daemon::ParseDaemonConfig("# nothing\n", "d.yaml", *c);
  ASSERT_TRUE(empty.ok()) << empty.status();
  EXPECT_EQ(empty->round_s, 2.5);
}

TEST(DaemonConfig, RetentionIsADurationOrForever) {
  auto base = daemon::ParseDaemonConfig(kDefaultDaemonYaml, "<embedded>", daemon::DaemonConfig{});
  ASSERT_TRUE(base.ok()) << base.status();
  EXPECT_EQ(base->retain_ended_jobs_s, 30 * 86400);
  for (const auto& [text, seconds] : std::vector<std::pair<std::string, int64_t>>{
           {"90s", 90}, {"30m", 1800}, {"12h", 43200}, {"7d", 604800}, {"forever", -1}}) {
    auto c = daemon::ParseDaemonConfig("retain_ended_jobs: " + text + "\n", "d.yaml", *base);
    ASSERT_TRUE(c.ok()) << text << ": " << c.status();
    EXPECT_EQ(c->retain_ended_jobs_s, seconds) << text;
  }
  for (const std::string bad : {"0s", "-1d", "30", "1w", "1e3s", "99999999999d", "'' "}) {
    EXPECT_THAT(DaemonRefusal("retain_ended_jobs: " + bad + "\n"),
                HasSubstr("d.yaml:1: retain_ended_jobs: ")) << bad;
  }
  EXPECT_THAT(DaemonRefusal("retain_ended_jobs: 1w\n"),
              HasSubstr("is not a duration from 1s to 10 years (e.g. 30d, 12h, 90m, 600s) or forever"));
}

TEST(DaemonConfig, TimeLimitsAreDurationsAndTheDefaultIsNoMoreThanTheMaximum) {
  auto base = daemon::ParseDaemonConfig(kDefaultDaemonYaml, "<embedded>", daemon::DaemonConfig{});
  ASSERT_TRUE(base.ok()) << base.status();
  EXPECT_EQ(base->default_time_limit_s, 0);
  EXPECT_EQ(base->max_time_limit_s, 0);
  auto both = daemon::ParseDaemonConfig("default_time_limit: 24h\nmax_time_limit: 7d\n", "d.yaml", *base);
  ASSERT_TRUE(both.ok()) << both.status();
  EXPECT_EQ(both->default_time_limit_s, 86400);
  EXPECT_EQ(both->max_time_limit_s, 7 * 86400);
  EXPECT_THAT(DaemonRefusal("max_time_limit: 7 days\n"), HasSubstr("d.yaml:1: max_time_limit: '7 days': is not a duration"));
  EXPECT_THAT(DaemonRefusal("default_time_limit: 2d\nmax_time_limit: 1d\n"),
              HasSubstr("d.yaml:1: default_time_limit: '2d': is more than max_time_limit"));
}

TEST(DaemonConfig, TheStoreIsSqliteByDefaultOrPostgresByItsDsn) {
  auto base = daemon::ParseDaemonConfig(kDefaultDaemonYaml, "<embedded>", daemon::DaemonConfig{});
  ASSERT_TRUE(base.ok()) << base.status();
  EXPECT_EQ(base->store_kind, "sqlite");
  EXPECT_EQ(base->state_db, "synergyd.db");
  auto sqlite = daemon::ParseDaemonConfig("store: {kind: sqlite, path: /var/lib/s.db}\n", "d.yaml", *base);
  ASSERT_TRUE(sqlite.ok()) << sqlite.status();
  EXPECT_EQ(sqlite->state_db, "/var/lib/s.db");
  auto pg = daemon::ParseDaemonConfig("store: {kind: postgres, dsn: \"host=db dbname=synergy user=synergyd\"}\n",
                                      "d.yaml", *base);
  ASSERT_TRUE(pg.ok()) << pg.status();
  EXPECT_EQ(pg->store_kind, "postgres");
  EXPECT_EQ(pg->store_dsn, "host=db dbname=synergy user=synergyd");
  EXPECT_THAT(DaemonRefusal("store: {kind: mysql}\n"), HasSubstr("d.yaml:1: store.kind: 'mysql': is not one of sqlite, postgres"));
  EXPECT_THAT(DaemonRefusal("store: {kind: postgres}\n"), HasSubstr("d.yaml:1: store: kind: postgres needs dsn:"));
  EXPECT_THAT(DaemonRefusal("store: {kind: postgres, dsn: \"\"}\n"), HasSubstr("store.dsn: '': is empty"));
  EXPECT_THAT(DaemonRefusal("store: {kind: postgres, path: a.db, dsn: x}\n"), HasSubstr("store.path: 'a.db': is for kind: sqlite"));
  EXPECT_THAT(DaemonRefusal("state_db: a.db\nstore: {kind: postgres, dsn: x}\n"),
              HasSubstr("d.yaml:1: state_db: 'a.db': is the SQLite store's file; the store is postgres"));
  EXPECT_THAT(DaemonRefusal("state_db: a.db\nstore: {path: b.db}\n"),
              HasSubstr("store.path: 'b.db': and state_db both name the SQLite file"));
  EXPECT_THAT(DaemonRefusal("store: {kind: sqlite, dsn: x}\n"), HasSubstr("store.dsn: 'x': is for kind: postgres"));
  EXPECT_THAT(DaemonRefusal("store: {kind: sqlite, instance: a}\n"), HasSubstr("store.instance: 'a': is for kind: postgres"));
  EXPECT_THAT(DaemonRefusal("store: {kind: postgres, dsn: x, failover_s: 0.5}\n"),
              HasSubstr("store.failover_s: '0.5': must be between 1 and 300"));
  auto standby = daemon::ParseDaemonConfig("store: {kind: postgres, dsn: x, instance: sched-b, failover_s: 4}\n",
                                           "d.yaml", *base);
  ASSERT_TRUE(standby.ok()) << standby.status();
  EXPECT_EQ(standby->store_instance, "sched-b");
  EXPECT_EQ(standby->store_failover_s, 4);
}

TEST(DaemonConfig, TheSlurmExecutorsLimitsAreSettings) {
  auto base = daemon::ParseDaemonConfig(kDefaultDaemonYaml, "<embedded>", daemon::DaemonConfig{});
  ASSERT_TRUE(base.ok()) << base.status();
  EXPECT_EQ(base->slurm.max_pending_s, 300);
  EXPECT_EQ(base->slurm.stale_limit_s, 600);
  EXPECT_EQ(base->slurm.submit_visible_s, 30);
  auto c = daemon::ParseDaemonConfig(
      "executor: slurm\nslurm: {partition: gpu, max_pending_s: 60, stale_limit_s: 1800, submit_visible_s: 5}\n",
      "d.yaml", *base);
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_EQ(c->slurm.max_pending_s, 60);
  EXPECT_EQ(c->slurm.stale_limit_s, 1800);
  EXPECT_EQ(c->slurm.submit_visible_s, 5);
  EXPECT_THAT(DaemonRefusal("slurm: {partition: gpu, max_pending_s: 0}\n"), HasSubstr("max_pending_s: '0'"));
  EXPECT_THAT(DaemonRefusal("slurm: {partition: gpu, stale_limit_s: 1e9}\n"), HasSubstr("stale_limit_s: '1e9'"));
  EXPECT_EQ(base->slurm.read_interval_s, 10);
  EXPECT_THAT(DaemonRefusal("slurm: {partition: gpu, read_interval_s: -1}\n"), HasSubstr("read_interval_s: '-1'"));
}

TEST(DaemonConfig, SlurmAccountsAndQosAreMappedByUserOrTenant) {
  auto base = daemon::ParseDaemonConfig(kDefaultDaemonYaml, "<embedded>", daemon::DaemonConfig{});
  ASSERT_TRUE(base.ok()) << base.status();
  auto c = daemon::ParseDaemonConfig(
      "slurm:\n  partition: gpu\n  account_of_user: {alice@lab: physics}\n  account_of_tenant: {vision: cv-lab}\n"
      "  qos_of_tenant: {vision: high}\n",
      "d.yaml", *base);
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_EQ(c->slurm.account_of_user.at("alice@lab"), "physics");
  EXPECT_EQ(c->slurm.account_of_tenant.at("vision"), "cv-lab");
  EXPECT_EQ(c->slurm.qos_of_tenant.at("vision"), "high");
  EXPECT_THAT(DaemonRefusal("slurm:\n  partition: gpu\n  account_of_user: {alice: 'a b'}\n"),
              HasSubstr("d.yaml:3: slurm.account_of_user.alice: 'a b': is not a Slurm name"));
  EXPECT_THAT(DaemonRefusal("slurm:\n  partition: gpu\n  qos_of_tenant: {vision: -high}\n"),
              HasSubstr("slurm.qos_of_tenant.vision: '-high'"));
  EXPECT_THAT(DaemonRefusal("slurm:\n  partition: gpu\n  account_of_user: [physics]\n"),
              HasSubstr("slurm.account_of_user"));
}

TEST(DaemonConfig, SlurmJobEnvIsVariablesShPassesOnNotSynergyds) {
  auto base = daemon::ParseDaemonConfig(kDefaultDaemonYaml, "<embedded>", daemon::DaemonConfig{});
  ASSERT_TRUE(base.ok()) << base.status();
  auto c = daemon::ParseDaemonConfig("slurm:\n  partition: gpu\n  job_env: {PYTHONPATH: /opt/site/python}\n",
                                     "d.yaml", *base);
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_EQ(c->slurm.job_env.at("PYTHONPATH"), "/opt/site/python");
  EXPECT_THAT(DaemonRefusal("slurm:\n  partition: gpu\n  job_env: {SYNERGY_SCHEDULER: x}\n"),
              HasSubstr("d.yaml:3: slurm.job_env.SYNERGY_SCHEDULER: 'x': SYNERGY_* variables are synergyd's own"));
  EXPECT_THAT(DaemonRefusal("slurm:\n  partition: gpu\n  job_env: {'A-B': x}\n"),
              HasSubstr("is not a variable name sh passes on"));
}

TEST(DaemonConfig, CredentialsAreCheckedAndNeverEchoed) {
  const std::string digest(64, 'A');
  auto c = daemon::ParseDaemonConfig(
      "auth:\n  users: [{name: alice@lab, tenant: vision, token: alice-credential-0123}]\n"
      "  node_join: [{token_sha256: " + digest + "}]\n",
      "d.yaml", daemon::DaemonConfig{});
  ASSERT_TRUE(c.ok()) << c.status();
  ASSERT_EQ(c->auth.users.size(), 1u);
  EXPECT_EQ(c->auth.users[0].name, "alice@lab");
  EXPECT_EQ(c->auth.users[0].tenant, "vision");
  EXPECT_EQ(c->auth.users[0].sha256.size(), 64u);
  EXPECT_EQ(c->auth.node_join[0].sha256, std::string(64, 'a'));

  const std::string short_token = DaemonRefusal("auth:\n  users: [{name: al, token: tiny-secret}]\n");
  EXPECT_THAT(short_token, HasSubstr("d.yaml:2: auth.users[0].token: is shorter than 16 characters"));
  EXPECT_THAT(short_token, Not(HasSubstr("tiny-secret")));
  const std::string control = DaemonRefusal("auth:\n  admins: [{name: ops, token: \"secret-secret-\\rsecret\"}]\n");
  EXPECT_THAT(control, HasSubstr("d.yaml:2: auth.admins[0].token: character 15 (byte 0x0d) is not printable ASCII"));
  EXPECT_THAT(control, Not(HasSubstr("secret-")));
  EXPECT_THAT(DaemonRefusal("auth:\n  nodes: [{name: n1, token: abcdefghijklmnopq, token_sha256: " + digest + "}]\n"),
              HasSubstr("d.yaml:2: auth.nodes[0]: needs exactly one of token or token_sha256"));
  EXPECT_THAT(DaemonRefusal("auth:\n  admins: [{name: ops, token_sha256: 0123-not-hex}]\n"),
              AllOf(HasSubstr("auth.admins[0].token_sha256: is not 64 hex digits"), Not(HasSubstr("not-hex"))));
  EXPECT_THAT(DaemonRefusal("auth:\n  admins: [{name: \"o p\", token: abcdefghijklmnopq}]\n"),
              HasSubstr("auth.admins[0].name: 'o p': is not 1-64 characters of A-Z a-z 0-9 . _ @ -"));
  EXPECT_THAT(DaemonRefusal("auth:\n  admins: [{name: {a: b}, token: abcdefghijklmnopq}]\n"),
              HasSubstr("auth.admins[0].name: (a map): is not a string"));
  EXPECT_THAT(DaemonRefusal("auth:\n  nodes: [{token: abcdefghijklmnopq}]\n"),
              HasSubstr("auth.nodes[0].name: missing"));
  EXPECT_THAT(DaemonRefusal("auth:\n  node_join: [{name: n, token: abcdefghijklmnopq}]\n"),
              HasSubstr("auth.node_join[0].name: unknown field (fields: token, token_sha256)"));
  // A bare string in a credential list may be the credential itself.
  EXPECT_THAT(DaemonRefusal("auth:\n  node_join: [bare-secret-0123456789]\n"),
              AllOf(HasSubstr("d.yaml:2: auth.node_join[0]: is not a map"), Not(HasSubstr("bare-secret"))));
}

// The message of ParseNodeConfig(text) on top of the embedded default.
std::string NodeRefusal(const std::string& text) {
  auto base = node::LoadNodeConfig("");
  EXPECT_TRUE(base.ok()) << base.status();
  auto c = node::ParseNodeConfig(text, "n.yaml", *base);
  EXPECT_FALSE(c.ok()) << text;
  return c.ok() ? "" : std::string(c.status().message());
}

TEST(NodeConfig, EmbeddedDefaultGpuIdsAndErrors) {
  auto c = node::LoadNodeConfig("");
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_EQ(c->scheduler, "127.0.0.1:50051");
  auto ids = node::ParseNodeConfig("gpus: [2, 3]\ncpus: [0]\nmemory_gb: 8\n", "n.yaml", *c);
  ASSERT_TRUE(ids.ok()) << ids.status();
  auto offer = node::Discover(*ids);
  ASSERT_TRUE(offer.ok());
  EXPECT_EQ(offer->gpu_ids, (std::vector<int>{2, 3}));
  EXPECT_EQ(offer->cpu_ids, (std::vector<int>{0}));
  EXPECT_EQ(offer->memory_gb, 8);
  auto count = node::ParseNodeConfig("gpus: 4\n", "n.yaml", *ids);  // a count replaces the ids
  ASSERT_TRUE(count.ok()) << count.status();
  EXPECT_EQ(count->gpu_count, 4);
  EXPECT_TRUE(count->gpu_ids.empty());
  EXPECT_EQ(count->cpu_ids, (std::vector<int>{0}));  // left as the file below had it
  EXPECT_THAT(NodeRefusal("gpus: -1\n"), HasSubstr("n.yaml:1: gpus: '-1': must be between 0 and 1024"));
  EXPECT_THAT(NodeRefusal("gpus: 2\ncpu_slots: -4\n"), HasSubstr("n.yaml:2: cpu_slots: '-4': must be between 0 and 65536"));
}

TEST(NodeConfig, TheGpuTypeIsConfiguredOrReadFromTheDriver) {
  auto base = node::LoadNodeConfig("");
  ASSERT_TRUE(base.ok()) << base.status();
  EXPECT_EQ(base->gpu_type, "");
  auto typed = node::ParseNodeConfig("gpu_type: a100\ngpus: 2\ncpus: [0]\nmemory_gb: 8\n", "n.yaml", *base);
  ASSERT_TRUE(typed.ok()) << typed.status();
  auto offer = node::Discover(*typed);
  ASSERT_TRUE(offer.ok());
  EXPECT_EQ(offer->gpu_type, "a100");
  EXPECT_THAT(NodeRefusal("gpu_type: V100\n"), HasSubstr("n.yaml:1: gpu_type: 'V100': a GPU type is 1 to 64"));
  // The driver's model names, as /proc/driver/nvidia/gpus/*/information
  // writes them.
  EXPECT_EQ(node::GpuTypeOfModel("\t Tesla V100-SXM2-16GB"), "v100");
  EXPECT_EQ(node::GpuTypeOfModel(" NVIDIA A100-SXM4-80GB"), "a100");
  EXPECT_EQ(node::GpuTypeOfModel("Tesla K80"), "k80");
  EXPECT_EQ(node::GpuTypeOfModel("Tesla P100-PCIE-16GB"), "p100");
  EXPECT_EQ(node::GpuTypeOfModel("NVIDIA H100 80GB HBM3"), "h100");
  EXPECT_EQ(node::GpuTypeOfModel("NVIDIA GeForce RTX 3090"), "3090");
  EXPECT_EQ(node::GpuTypeOfModel("Some Card"), "");
  EXPECT_EQ(node::GpuTypeOfModel("\x1b[8m9"), "");  // not a type name: unknown
  const std::string dir = ::testing::TempDir() + "/nvidia-gpus";
  std::filesystem::remove_all(dir);
  EXPECT_EQ(node::DetectGpuType(dir), "");  // no driver
  for (const auto& [bus, model] : {std::pair{"0000:07:00.0", "Tesla V100-SXM2-16GB"},
                                   std::pair{"0000:0a:00.0", "Tesla V100-SXM2-32GB"}}) {
    std::filesystem::create_directories(dir + "/" + bus);
    std::ofstream(dir + "/" + bus + "/information") << "IRQ:             38\nModel: \t\t " << model
                                                    << "\nGPU UUID: \t GPU-x\n";
  }
  bool mixed = true;
  EXPECT_EQ(node::DetectGpuType(dir, &mixed), "v100");
  EXPECT_FALSE(mixed);
  std::filesystem::create_directories(dir + "/0000:0b:00.0");
  std::ofstream(dir + "/0000:0b:00.0/information") << "Model: \t\t Tesla K80\n";
  EXPECT_EQ(node::DetectGpuType(dir, &mixed), "v100");
  EXPECT_TRUE(mixed);
}

TEST(NodeConfig, SizesNoServerHasAreRefused) {
  EXPECT_THAT(NodeRefusal("gpus: 1000000000\n"), HasSubstr("n.yaml:1: gpus: '1000000000': must be between 0 and 1024"));
  EXPECT_THAT(NodeRefusal("gpus: [0, 1024]\n"), HasSubstr("n.yaml:1: gpus[1]: '1024': must be between 0 and 1023"));
  EXPECT_THAT(NodeRefusal("gpus: [0, 1, 0]\n"), HasSubstr("n.yaml:1: gpus[2]: '0': is listed twice"));
  EXPECT_THAT(NodeRefusal("cpus: [65536]\n"), HasSubstr("n.yaml:1: cpus[0]: '65536': must be between 0 and 65535"));
  EXPECT_THAT(NodeRefusal("cpus: [1e308]\n"), HasSubstr("n.yaml:1: cpus[0]: '1e308': is not an integer"));
  EXPECT_THAT(NodeRefusal("cpu_slots: 65537\n"), HasSubstr("cpu_slots: '65537': must be between 0 and 65536"));
  EXPECT_THAT(NodeRefusal("memory_gb: 1e7\n"), HasSubstr("n.yaml:1: memory_gb: '1e7': must be between 0 and"));
  EXPECT_THAT(NodeRefusal("memory_gb: .nan\n"), HasSubstr("memory_gb: '.nan': is not a finite number"));
}

TEST(NodeConfig, KeysCredentialsAccountsAndPassthroughAreChecked) {
  EXPECT_THAT(NodeRefusal("gpus: 1\ncpu: [0]\n"), HasSubstr("n.yaml:2: cpu: unknown field (fields: name, scheduler,"));
  EXPECT_THAT(NodeRefusal("gpus: 1\ngpus: 2\n"), HasSubstr("n.yaml:2: gpus: given twice (first on line 1)"));
  EXPECT_THAT(NodeRefusal("? [a, b]\n: 1\n"), HasSubstr("n.yaml:1: document: (a list): is not a field name"));
  const std::string token = NodeRefusal("token: \"abc\\rdef-ghijklmnop\"\n");
  EXPECT_THAT(token, HasSubstr("n.yaml:1: token: character 4 (byte 0x0d) is not printable ASCII"));
  EXPECT_THAT(token, Not(HasSubstr("ghijklmnop")));
  EXPECT_THAT(NodeRefusal("join_token: [a]\n"), HasSubstr("n.yaml:1: join_token: (a list): is not a string"));
  EXPECT_THAT(NodeRefusal("accounts: {alice: \"ro ot\"}\n"),
              HasSubstr("n.yaml:1: accounts.alice: 'ro ot': is not a local account name"));
  EXPECT_THAT(NodeRefusal("accounts: {\"al\\x1bice\": root}\n"),
              HasSubstr("n.yaml:1: accounts: 'al\\x1bice': is not a user name"));
  EXPECT_THAT(NodeRefusal("accounts: [alice]\n"), HasSubstr("n.yaml:1: accounts: (a list): is not a map"));
  EXPECT_THAT(NodeRefusal("job_env_passthrough: [HOME, \"A-B\"]\n"),
              HasSubstr("n.yaml:1: job_env_passthrough[1]: 'A-B': is not a POSIX name"));
  EXPECT_THAT(NodeRefusal("job_env_passthrough: [SYNERGY_TOKEN]\n"),
              HasSubstr("job_env_passthrough[0]: 'SYNERGY_TOKEN': is synergy-node's own"));
  EXPECT_THAT(NodeRefusal("name: \"a b\"\n"), HasSubstr("n.yaml:1: name: 'a b': is not a node name"));
  EXPECT_THAT(NodeRefusal("scheduler: \"\"\n"), HasSubstr("n.yaml:1: scheduler: '': is empty"));
  EXPECT_THAT(NodeRefusal("scheduler: \"a:1,,b:2\"\n"), HasSubstr("n.yaml:1: scheduler: 'a:1,,b:2': has an empty address"));
  auto c = node::ParseNodeConfig("accounts: {alice: alice_hpc, bob@lab: bob}\njob_env_passthrough: [HOME, CUDA_HOME]\n",
                                 "n.yaml", *node::LoadNodeConfig(""));
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_EQ(c->accounts.at("alice"), "alice_hpc");
  EXPECT_EQ(c->accounts.at("bob@lab"), "bob");
  EXPECT_EQ(c->job_env_passthrough, (std::vector<std::string>{"HOME", "CUDA_HOME"}));
}

TEST(NodeConfig, CpuSlotsAreSharesOfTheConfiguredCores) {
  auto c = node::ParseNodeConfig("gpus: 2\ncpus: [0, 1]\ncpu_slots: 8\nmemory_gb: 8\n", "n.yaml",
                                 *node::LoadNodeConfig(""));
  ASSERT_TRUE(c.ok()) << c.status();
  auto offer = node::Discover(*c);
  ASSERT_TRUE(offer.ok());
  EXPECT_EQ(offer->cpu_ids, (std::vector<int>{0, 1, 2, 3, 4, 5, 6, 7}));  // what the scheduler hands out
  EXPECT_EQ(offer->shared_cores, (std::vector<int>{0, 1}));
  EXPECT_DOUBLE_EQ(offer->cores_per_cpu, 0.25);
  auto pinned = node::Discover(*node::ParseNodeConfig("cpus: [0, 1]\n", "n.yaml", *node::LoadNodeConfig("")));
  ASSERT_TRUE(pinned.ok());
  EXPECT_TRUE(pinned->shared_cores.empty());
  EXPECT_EQ(pinned->cores_per_cpu, 0);
}

}  // namespace
}  // namespace synergy::service

namespace synergy::service {
namespace {

TEST(DaemonConfig, TenantsHaveQuotasAndEveryUserBelongsToOne) {
  auto base = daemon::ParseDaemonConfig(kDefaultDaemonYaml, "<embedded>", daemon::DaemonConfig{});
  ASSERT_TRUE(base.ok()) << base.status();
  auto c = daemon::ParseDaemonConfig(
      "auth:\n  tenants: [{name: vision, gpus: 8, borrow: true}, {name: nlp, gpus: 4}]\n"
      "  users: [{name: alice, tenant: vision, token: alice-credential-0123}]\n",
      "d.yaml", *base);
  ASSERT_TRUE(c.ok()) << c.status();
  ASSERT_EQ(c->auth.tenants.size(), 2u);
  EXPECT_EQ(c->auth.tenants[0].gpus, 8);
  EXPECT_TRUE(c->auth.tenants[0].borrow);
  EXPECT_FALSE(c->auth.tenants[1].borrow);
  EXPECT_THAT(DaemonRefusal("auth: {tenants: [{name: a, gpus: -1}]}\n"), HasSubstr("d.yaml:1: auth.tenants[0].gpus: '-1'"));
  EXPECT_THAT(DaemonRefusal("auth: {tenants: [{name: a}, {name: a}]}\n"), HasSubstr("is listed twice"));
  EXPECT_THAT(DaemonRefusal("auth: {tenants: [{gpus: 2}]}\n"), HasSubstr("name: missing"));
  EXPECT_THAT(DaemonRefusal("auth: {tenants: [{name: a, quota: 2}]}\n"), HasSubstr("unknown field (fields: name, gpus, borrow)"));
  // A user of no tenant, or of one not listed, is refused once tenants are.
  auto tenantless = daemon::ParseDaemonConfig(
      "tls: {plaintext: true}\nauth:\n  tenants: [{name: vision, gpus: 8}]\n"
      "  users: [{name: carol, token: carol-credential-0123}]\n",
      "d.yaml", *base);
  ASSERT_TRUE(tenantless.ok()) << tenantless.status();
  const absl::Status st = daemon::ValidateSecurity(*tenantless, "d.yaml");
  EXPECT_THAT(std::string(st.message()),
              HasSubstr("auth.users: 'carol' has tenant '': with auth.tenants set, every user belongs to one of them"));
  tenantless->auth.users[0].tenant = "speech";
  EXPECT_THAT(std::string(daemon::ValidateSecurity(*tenantless, "d.yaml").message()),
              HasSubstr("auth.users: 'carol' has tenant 'speech', not one of auth.tenants"));
}

}  // namespace
}  // namespace synergy::service
