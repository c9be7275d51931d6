// Who may call what, against a real synergyd on loopback with TLS (a CA
// made at run time by scripts/make-dev-pki), mutual TLS for nodes and one
// credential per principal. The matrix walks every RPC of every service in
// the proto's descriptors, so a new RPC without an access rule fails here;
// the named tests are the attacks of issue 13, each refused.
#include <cstdlib>
#include <filesystem>
#include <future>
#include <thread>

#include "daemon/api/access_rules.h"
#include "daemon/server/server.h"
#include "google/protobuf/dynamic_message.h"
#include "grpcpp/generic/generic_stub.h"
#include "gtest/gtest.h"
#include "service/channel.h"
#include "service/credentials.h"
#include "spdlog/spdlog.h"
#include "synergy/v1/synergy.grpc.pb.h"

namespace synergy {
namespace {

namespace fs = std::filesystem;
using grpc::StatusCode;

const std::string kAlice = "alice-credential-0123456789";
const std::string kBob = "bob-credential-0123456789ab";
const std::string kAdmin = "admin-credential-0123456789";
const std::string kNode1 = "node1-credential-0123456789";
const std::string kNode2 = "node2-credential-0123456789";
const std::string kJoin = "join-credential-01234567890";

daemon::CredentialEntry Entry(const std::string& name, const std::string& credential,
                              const std::string& tenant = "") {
  return daemon::CredentialEntry{name, tenant, service::Sha256Hex(credential)};
}

class AuthMatrix : public ::testing::Test {
 protected:
  void SetUp() override {
    spdlog::set_level(spdlog::level::warn);
    dir_ = fs::temp_directory_path() / ("synergy-auth-test-" + std::to_string(getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    const std::string pki = (dir_ / "pki").string();
    const std::string make = std::string(SYNERGY_SOURCE_DIR) + "/scripts/make-dev-pki " + pki + " n1 n2 n3";
    ASSERT_EQ(std::system(make.c_str()), 0) << make;
    daemon::DaemonConfig c;
    c.listen = "127.0.0.1:0";
    c.metrics_listen = "";
    c.state_db = (dir_ / "state.db").string();
    c.round_s = 0.2;
    c.tls.cert = pki + "/synergyd.crt";
    c.tls.key = pki + "/synergyd.key";
    c.tls.client_ca = pki + "/ca.crt";
    c.tls.require_node_certificates = true;
    c.auth.users = {Entry("alice", kAlice, "vision"), Entry("bob", kBob, "nlp")};
    c.auth.admins = {Entry("admin", kAdmin)};
    c.auth.nodes = {Entry("n1", kNode1), Entry("n2", kNode2)};
    c.auth.node_join = {Entry("", kJoin)};
    c.max_active_jobs_per_user = 2;
    ASSERT_TRUE(daemon::ValidateSecurity(c, "test").ok());
    auto d = daemon::Daemon::Start(c);
    ASSERT_TRUE(d.ok()) << d.status();
    daemon_ = std::move(*d);
    address_ = "127.0.0.1:" + std::to_string(daemon_->port());
    user_channel_ = Channel(pki, "");
    for (const char* n : {"n1", "n2", "n3"}) node_channel_[n] = Channel(pki, n);

    registration_.set_name("n1");
    registration_.set_address("127.0.0.1");
    registration_.mutable_resources()->add_gpu_ids(0);
    for (int i = 0; i < 4; ++i) registration_.mutable_resources()->add_cpu_ids(i);
    registration_.mutable_resources()->set_mem_gb(16);
    v1::RegisterNodeResponse registered;
    ASSERT_TRUE(NodeStub("n1")->RegisterNode(Ctx(kNode1).get(), registration_, &registered).ok());

    v1::SubmitJobRequest submit;
    submit.mutable_spec()->set_name("alice-job");
    submit.mutable_spec()->set_gpus(1);
    submit.mutable_spec()->set_iterations(100000);
    submit.mutable_spec()->set_uses_agent(true);
    submit.mutable_spec()->add_command("/bin/train");
    submit.mutable_spec()->add_command("--secret-flag");
    (*submit.mutable_spec()->mutable_env())["API_KEY"] = "alice-secret";
    v1::SubmitJobResponse submitted;
    ASSERT_TRUE(Sched()->SubmitJob(Ctx(kAlice).get(), submit, &submitted).ok());
    job_ = submitted.job_id();
    for (int i = 0; i < 100 && epoch_ == 0; ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
      v1::Job job = Get(job_, kAlice);
      if (job.has_lease()) epoch_ = job.lease().epoch();
    }
    ASSERT_GT(epoch_, 0) << "the job got no lease";
  }
  void TearDown() override {
    if (daemon_) daemon_->Shutdown();
    fs::remove_all(dir_);
  }

  std::shared_ptr<grpc::Channel> Channel(const std::string& pki, const std::string& client) {
    service::ChannelSecurity security;
    security.ca_file = pki + "/ca.crt";
    if (!client.empty()) {
      security.cert_file = pki + "/" + client + ".crt";
      security.key_file = pki + "/" + client + ".key";
    }
    auto channel = service::OpenChannel(address_, security, true);
    EXPECT_TRUE(channel.ok()) << channel.status();
    return *channel;
  }
  std::unique_ptr<grpc::ClientContext> Ctx(const std::string& credential) {
    auto ctx = std::make_unique<grpc::ClientContext>();
    ctx->set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(10));
    service::AttachCredential(*ctx, credential);
    return ctx;
  }
  std::unique_ptr<v1::SchedulerService::Stub> Sched() { return v1::SchedulerService::NewStub(user_channel_); }
  std::unique_ptr<v1::AgentService::Stub> Agent() { return v1::AgentService::NewStub(user_channel_); }
  std::unique_ptr<v1::NodeService::Stub> NodeStub(const std::string& cert) {
    return v1::NodeService::NewStub(node_channel_.at(cert));
  }
  v1::Job Get(const std::string& id, const std::string& credential) {
    v1::GetJobRequest req;
    req.set_job_id(id);
    v1::Job job;
    grpc::Status st = Sched()->GetJob(Ctx(credential).get(), req, &job);
    EXPECT_TRUE(st.ok()) << st.error_message();
    return job;
  }
  std::string LeaseCredential() const { return daemon_->authenticator().LeaseCredential(job_, epoch_); }

  // Calls `full_method` with raw request bytes.
  grpc::Status RawCall(std::shared_ptr<grpc::Channel> channel, const std::string& full_method, const std::string& bytes,
                       const std::string& credential) {
    grpc::GenericStub stub(channel);
    grpc::Slice slice(bytes);
    grpc::ByteBuffer request(&slice, 1), response;
    auto ctx = Ctx(credential);
    std::promise<grpc::Status> done;
    stub.UnaryCall(ctx.get(), full_method, grpc::StubOptions(), &request, &response,
                   [&](grpc::Status st) { done.set_value(st); });
    return done.get_future().get();
  }

  fs::path dir_;
  std::unique_ptr<daemon::Daemon> daemon_;
  std::string address_;
  std::shared_ptr<grpc::Channel> user_channel_;
  std::map<std::string, std::shared_ptr<grpc::Channel>> node_channel_;
  v1::RegisterNodeRequest registration_;
  std::string job_;
  int64_t epoch_ = 0;
};

// A request for `method` naming alice's job, its lease and node n1, as far
// as the message has such fields.
std::string RequestFor(const google::protobuf::MethodDescriptor& method, const std::string& job, int64_t epoch,
                       const v1::RegisterNodeRequest& registration) {
  if (method.input_type()->full_name() == "synergy.v1.RegisterNodeRequest") return registration.SerializeAsString();
  google::protobuf::DynamicMessageFactory factory;
  std::unique_ptr<google::protobuf::Message> msg(factory.GetPrototype(method.input_type())->New());
  const auto* reflection = msg->GetReflection();
  if (const auto* f = method.input_type()->FindFieldByName("job_id")) reflection->SetString(msg.get(), f, job);
  if (const auto* f = method.input_type()->FindFieldByName("epoch")) reflection->SetInt64(msg.get(), f, epoch);
  if (const auto* f = method.input_type()->FindFieldByName("name")) reflection->SetString(msg.get(), f, "n1");
  return msg->SerializeAsString();
}

TEST_F(AuthMatrix, EveryRpcRefusesMissingWrongAndOtherPrincipalsCredentials) {
  const google::protobuf::FileDescriptor* file = v1::Job::descriptor()->file();
  ASSERT_EQ(file->service_count(), 3);
  // Whose credential is someone else's for each rule, and whose is right.
  const std::string other_lease = daemon_->authenticator().LeaseCredential(job_, epoch_ + 1);
  int checked = 0;
  for (int s = 0; s < file->service_count(); ++s) {
    const google::protobuf::ServiceDescriptor* service = file->service(s);
    for (int m = 0; m < service->method_count(); ++m) {
      const google::protobuf::MethodDescriptor* method = service->method(m);
      const std::string full = "/" + service->full_name() + "/" + method->name();
      const std::optional<daemon::Access> rule = daemon::AccessRule(full);
      ASSERT_TRUE(rule.has_value()) << full << " has no access rule in daemon/api/access_rules.cc";
      std::string right, other;
      switch (*rule) {
        case daemon::Access::kUserOrAdmin: right = kAlice; other = kNode1; break;
        case daemon::Access::kAdmin: right = kAdmin; other = kAlice; break;
        case daemon::Access::kNode: right = kNode1; other = kAlice; break;
        case daemon::Access::kLeaseAgent: right = LeaseCredential(); other = other_lease; break;
      }
      auto channel = *rule == daemon::Access::kNode ? node_channel_.at("n1") : user_channel_;
      const std::string bytes = RequestFor(*method, job_, epoch_, registration_);
      EXPECT_EQ(RawCall(channel, full, bytes, "").error_code(), StatusCode::UNAUTHENTICATED) << full << ": none";
      EXPECT_EQ(RawCall(channel, full, bytes, "not-a-credential-at-all").error_code(), StatusCode::UNAUTHENTICATED)
          << full << ": wrong";
      const StatusCode by_other = RawCall(channel, full, bytes, other).error_code();
      EXPECT_TRUE(by_other == StatusCode::PERMISSION_DENIED || by_other == StatusCode::UNAUTHENTICATED)
          << full << ": another principal's credential got " << by_other;
      if (*rule != daemon::Access::kLeaseAgent) {
        EXPECT_EQ(by_other, StatusCode::PERMISSION_DENIED) << full;
      }
      const grpc::Status by_right = RawCall(channel, full, bytes, right);
      EXPECT_NE(by_right.error_code(), StatusCode::UNAUTHENTICATED) << full << ": " << by_right.error_message();
      EXPECT_NE(by_right.error_code(), StatusCode::PERMISSION_DENIED) << full << ": " << by_right.error_message();
      ++checked;
    }
  }
  EXPECT_EQ(checked, 20);
}

TEST_F(AuthMatrix, AUserCannotCancelAnotherUsersJob) {
  v1::CancelJobRequest req;
  req.set_job_id(job_);
  v1::CancelJobResponse resp;
  EXPECT_EQ(Sched()->CancelJob(Ctx(kBob).get(), req, &resp).error_code(), StatusCode::PERMISSION_DENIED);
  EXPECT_NE(Get(job_, kAdmin).state(), v1::JOB_STATE_CANCELLED);
  EXPECT_TRUE(Sched()->CancelJob(Ctx(kAdmin).get(), req, &resp).ok()) << "admins may cancel any job";
}

TEST_F(AuthMatrix, OnlyTheOwnerAndAdminsSeeAJobsCommandAndEnvironment) {
  const v1::Job by_bob = Get(job_, kBob);
  EXPECT_EQ(by_bob.spec().command_size(), 0);
  EXPECT_EQ(by_bob.spec().env_size(), 0);
  EXPECT_EQ(by_bob.spec().name(), "alice-job") << "that it exists is public";
  const v1::Job by_alice = Get(job_, kAlice);
  EXPECT_EQ(by_alice.spec().command_size(), 2);
  EXPECT_EQ(by_alice.spec().env().at("API_KEY"), "alice-secret");
  EXPECT_EQ(by_alice.owner(), "alice");
  EXPECT_EQ(by_alice.spec().tenant(), "vision") << "a user's jobs go to its tenant";
  EXPECT_EQ(Get(job_, kAdmin).spec().env().at("API_KEY"), "alice-secret");
  v1::ListJobsResponse list;
  ASSERT_TRUE(Sched()->ListJobs(Ctx(kBob).get(), v1::ListJobsRequest{}, &list).ok());
  ASSERT_EQ(list.jobs_size(), 1);
  EXPECT_EQ(list.jobs(0).spec().command_size(), 0);
  EXPECT_EQ(list.jobs(0).spec().env_size(), 0);
}

TEST_F(AuthMatrix, OnlyTheOwnerAndAdminsHoldReleaseRequeueOrReprioritiseAJob) {
  v1::JobActionRequest req;
  req.set_job_id(job_);
  v1::JobActionResponse resp;
  v1::UpdateJobRequest lower;
  lower.set_job_id(job_);
  lower.set_priority(0);
  EXPECT_EQ(Sched()->HoldJob(Ctx(kBob).get(), req, &resp).error_code(), StatusCode::PERMISSION_DENIED);
  EXPECT_EQ(Sched()->RequeueJob(Ctx(kBob).get(), req, &resp).error_code(), StatusCode::PERMISSION_DENIED);
  EXPECT_EQ(Sched()->UpdateJob(Ctx(kBob).get(), lower, &resp).error_code(), StatusCode::PERMISSION_DENIED);
  EXPECT_FALSE(Get(job_, kAdmin).held());
  // An admin's hold: alice may not release it.
  ASSERT_TRUE(Sched()->HoldJob(Ctx(kAdmin).get(), req, &resp).ok());
  EXPECT_TRUE(resp.job().held());
  EXPECT_EQ(Sched()->ReleaseJob(Ctx(kBob).get(), req, &resp).error_code(), StatusCode::PERMISSION_DENIED);
  EXPECT_EQ(Sched()->ReleaseJob(Ctx(kAlice).get(), req, &resp).error_code(), StatusCode::PERMISSION_DENIED);
  ASSERT_TRUE(Sched()->ReleaseJob(Ctx(kAdmin).get(), req, &resp).ok());
  // Her own hold she releases; her priority she lowers but cannot raise.
  ASSERT_TRUE(Sched()->HoldJob(Ctx(kAlice).get(), req, &resp).ok());
  EXPECT_EQ(resp.job().spec().env_size(), Get(job_, kAlice).spec().env_size()) << "the owner sees her job in full";
  ASSERT_TRUE(Sched()->ReleaseJob(Ctx(kAlice).get(), req, &resp).ok());
  ASSERT_TRUE(Sched()->UpdateJob(Ctx(kAlice).get(), lower, &resp).ok());
  v1::UpdateJobRequest raise = lower;
  raise.set_priority(7);
  EXPECT_EQ(Sched()->UpdateJob(Ctx(kAlice).get(), raise, &resp).error_code(), StatusCode::PERMISSION_DENIED);
  ASSERT_TRUE(Sched()->UpdateJob(Ctx(kAdmin).get(), raise, &resp).ok());
  EXPECT_EQ(Get(job_, kAlice).spec().priority(), 7);
  // Bounds first: out of range, or nothing to change.
  raise.set_priority(1001);
  EXPECT_EQ(Sched()->UpdateJob(Ctx(kAdmin).get(), raise, &resp).error_code(), StatusCode::INVALID_ARGUMENT);
  v1::UpdateJobRequest nothing;
  nothing.set_job_id(job_);
  EXPECT_EQ(Sched()->UpdateJob(Ctx(kAdmin).get(), nothing, &resp).error_code(), StatusCode::INVALID_ARGUMENT);
}

TEST_F(AuthMatrix, OnlyAdminsDrainNodes) {
  v1::DrainNodeRequest req;
  req.set_name("n1");
  v1::DrainNodeResponse resp;
  EXPECT_EQ(Sched()->DrainNode(Ctx(kAlice).get(), req, &resp).error_code(), StatusCode::PERMISSION_DENIED);
  EXPECT_EQ(Sched()->UndrainNode(Ctx(kAlice).get(), req, &resp).error_code(), StatusCode::PERMISSION_DENIED);
  EXPECT_EQ(Sched()->DrainNode(Ctx(kNode1).get(), req, &resp).error_code(), StatusCode::PERMISSION_DENIED);
  req.set_reason("disk\x1b[2Jfailing");
  EXPECT_EQ(Sched()->DrainNode(Ctx(kAdmin).get(), req, &resp).error_code(), StatusCode::INVALID_ARGUMENT)
      << "a reason is printable text";
  EXPECT_FALSE(resp.node().drained());
  req.set_reason("disk failing");
  ASSERT_TRUE(Sched()->DrainNode(Ctx(kAdmin).get(), req, &resp).ok());
  EXPECT_TRUE(resp.node().drained());
  EXPECT_EQ(resp.node().drain_reason(), "disk failing");
  EXPECT_EQ(Sched()->UndrainNode(Ctx(kAdmin).get(), req, &resp).error_code(), StatusCode::INVALID_ARGUMENT)
      << "an undrain takes no reason";
}

TEST_F(AuthMatrix, AUserCannotSubmitToAnotherTenant) {
  v1::SubmitJobRequest submit;
  submit.mutable_spec()->set_gpus(1);
  submit.mutable_spec()->add_command("true");
  submit.mutable_spec()->set_tenant("vision");
  v1::SubmitJobResponse resp;
  EXPECT_EQ(Sched()->SubmitJob(Ctx(kBob).get(), submit, &resp).error_code(), StatusCode::PERMISSION_DENIED);
}

TEST_F(AuthMatrix, ALeaseCredentialIsNeededToForgeAFinishedCheckpointOrAProfile) {
  v1::CheckpointDone done;
  done.set_job_id(job_);
  done.set_epoch(epoch_);
  done.set_iteration(10);
  done.set_finished(true);
  done.set_path("/etc/shadow");
  v1::CheckpointAck ack;
  EXPECT_EQ(Agent()->ConfirmCheckpoint(Ctx("").get(), done, &ack).error_code(), StatusCode::UNAUTHENTICATED);
  EXPECT_EQ(Agent()->ConfirmCheckpoint(Ctx(kAlice).get(), done, &ack).error_code(), StatusCode::UNAUTHENTICATED);
  EXPECT_EQ(Agent()->ConfirmCheckpoint(Ctx(kAdmin).get(), done, &ack).error_code(), StatusCode::UNAUTHENTICATED);
  v1::MeasuredProfile profile;
  profile.set_job_id(job_);
  profile.set_epoch(epoch_);
  auto* p = profile.add_points();
  p->set_cpus(1);
  p->set_mem_gb(0.001);
  p->set_throughput(1);
  v1::ProfileAck pack;
  EXPECT_EQ(Agent()->SubmitProfile(Ctx(kNode1).get(), profile, &pack).error_code(), StatusCode::UNAUTHENTICATED);
  const v1::Job job = Get(job_, kAdmin);
  EXPECT_NE(job.state(), v1::JOB_STATE_SUCCEEDED);
  EXPECT_EQ(job.checkpoint_path(), "");
  EXPECT_FALSE(job.has_measured_profile());
}

TEST_F(AuthMatrix, AnOversizedProfileIsRefusedAndNotStored) {
  v1::MeasuredProfile profile;
  profile.set_job_id(job_);
  profile.set_epoch(epoch_);
  for (int i = 0; i < 12000; ++i) {
    auto* p = profile.add_points();
    p->set_cpus(1 + i % 8);
    p->set_mem_gb(1 + i % 100);
    p->set_throughput(10);
  }
  v1::ProfileAck ack;
  EXPECT_EQ(Agent()->SubmitProfile(Ctx(LeaseCredential()).get(), profile, &ack).error_code(),
            StatusCode::INVALID_ARGUMENT);
  EXPECT_FALSE(Get(job_, kAdmin).has_measured_profile());
}

TEST_F(AuthMatrix, ANodeSpeaksOnlyForItselfAndItsOwnLeases) {
  v1::RegisterNodeRequest n2 = registration_;
  n2.set_name("n2");
  v1::RegisterNodeResponse resp;
  ASSERT_TRUE(NodeStub("n2")->RegisterNode(Ctx(kNode2).get(), n2, &resp).ok());
  // n2 reports a crash of alice's job, which runs on n1: not believed.
  v1::HeartbeatRequest beat;
  beat.set_name("n2");
  v1::ProcessExit* exit = beat.add_exits();
  exit->set_job_id(job_);
  exit->set_epoch(epoch_);
  exit->set_exit_code(3);
  exit->set_reason("forged");
  v1::HeartbeatResponse out;
  ASSERT_TRUE(NodeStub("n2")->Heartbeat(Ctx(kNode2).get(), beat, &out).ok());
  const v1::Job job = Get(job_, kAdmin);
  EXPECT_EQ(job.crashes(), 0);
  EXPECT_TRUE(job.has_lease());
  // n2's credential cannot speak for n1, nor n1's over n2's certificate.
  beat.set_name("n1");
  EXPECT_EQ(NodeStub("n2")->Heartbeat(Ctx(kNode2).get(), beat, &out).error_code(), StatusCode::PERMISSION_DENIED);
  EXPECT_EQ(NodeStub("n2")->Heartbeat(Ctx(kNode1).get(), beat, &out).error_code(), StatusCode::PERMISSION_DENIED);
  // A user cannot pose as a node and receive launch orders.
  EXPECT_EQ(NodeStub("n1")->Heartbeat(Ctx(kAlice).get(), beat, &out).error_code(), StatusCode::PERMISSION_DENIED);
}

TEST_F(AuthMatrix, LaunchOrdersCarryTheLeaseCredentialAndOwnerButNoOtherSecret) {
  v1::HeartbeatRequest beat;
  beat.set_name("n1");
  v1::HeartbeatResponse out;
  ASSERT_TRUE(NodeStub("n1")->Heartbeat(Ctx(kNode1).get(), beat, &out).ok());
  ASSERT_EQ(out.launch_size(), 1);
  const v1::LaunchOrder& order = out.launch(0);
  EXPECT_EQ(order.user(), "alice");
  EXPECT_EQ(order.env().at("SYNERGY_AGENT_TOKEN"), LeaseCredential());
  EXPECT_EQ(order.env().at("SYNERGY_AGENT_TOKEN").size(), 64u) << "256 bits";
  for (const auto& [name, value] : order.env()) {
    for (const std::string& secret : {kAlice, kBob, kAdmin, kNode1, kNode2, kJoin}) {
      EXPECT_EQ(value.find(secret), std::string::npos) << name;
    }
  }
  EXPECT_FALSE(daemon_->authenticator().IsLeaseCredential(LeaseCredential(), job_, epoch_ + 1))
      << "a lease credential is valid for its own epoch only";
}

TEST_F(AuthMatrix, AJoinCredentialAdmitsANewNodeOnceWithACredentialOfItsOwn) {
  v1::RegisterNodeRequest n3 = registration_;
  n3.set_name("n3");
  v1::RegisterNodeResponse joined;
  ASSERT_TRUE(NodeStub("n3")->RegisterNode(Ctx(kJoin).get(), n3, &joined).ok());
  ASSERT_EQ(joined.node_credential().size(), 64u);
  v1::RegisterNodeResponse again;
  EXPECT_EQ(NodeStub("n3")->RegisterNode(Ctx(kJoin).get(), n3, &again).error_code(), StatusCode::PERMISSION_DENIED)
      << "the join credential cannot take the name over again";
  v1::HeartbeatRequest beat;
  beat.set_name("n3");
  v1::HeartbeatResponse out;
  EXPECT_TRUE(NodeStub("n3")->Heartbeat(Ctx(joined.node_credential()).get(), beat, &out).ok());
  EXPECT_EQ(NodeStub("n3")->Heartbeat(Ctx(kJoin).get(), beat, &out).error_code(), StatusCode::PERMISSION_DENIED);
  v1::RegisterNodeRequest n1 = registration_;
  EXPECT_EQ(NodeStub("n1")->RegisterNode(Ctx(kJoin).get(), n1, &again).error_code(), StatusCode::PERMISSION_DENIED)
      << "a configured node's name cannot be joined";
}

TEST_F(AuthMatrix, InvalidUtf8IsInvalidArgumentNotInternal) {
  v1::SubmitJobRequest submit;
  submit.mutable_spec()->set_gpus(1);
  submit.mutable_spec()->add_command("true");
  std::string bytes = submit.SerializeAsString();
  // JobSpec.name (field 1) = "\xff\xfe": a proto3 string that is not UTF-8.
  std::string spec = submit.spec().SerializeAsString() + std::string("\x0a\x02\xff\xfe", 4);
  bytes = std::string("\x0a", 1) + static_cast<char>(spec.size()) + spec;
  const grpc::Status st = RawCall(user_channel_, "/synergy.v1.SchedulerService/SubmitJob", bytes, kAlice);
  EXPECT_EQ(st.error_code(), StatusCode::INVALID_ARGUMENT) << st.error_message();
}

TEST_F(AuthMatrix, BadInputIsRefusedNamingTheFieldAndNothingIsStored) {
  v1::SubmitJobRequest submit;
  submit.mutable_spec()->set_gpus(1);
  submit.mutable_spec()->add_command("true");
  submit.mutable_spec()->set_name("job\n j-999999  forged  running");
  v1::SubmitJobResponse resp;
  const grpc::Status st = Sched()->SubmitJob(Ctx(kAlice).get(), submit, &resp);
  EXPECT_EQ(st.error_code(), StatusCode::INVALID_ARGUMENT);
  EXPECT_NE(st.error_message().find("spec.name"), std::string::npos) << st.error_message();
  submit.mutable_spec()->set_name("ok");
  submit.mutable_spec()->set_iterations(INT64_MAX);
  EXPECT_EQ(Sched()->SubmitJob(Ctx(kAlice).get(), submit, &resp).error_code(), StatusCode::INVALID_ARGUMENT);
  v1::ListJobsResponse list;
  ASSERT_TRUE(Sched()->ListJobs(Ctx(kAdmin).get(), v1::ListJobsRequest{}, &list).ok());
  EXPECT_EQ(list.jobs_size(), 1);
}

TEST_F(AuthMatrix, AUsersActiveJobsAreCapped) {
  v1::SubmitJobRequest submit;
  submit.mutable_spec()->set_gpus(1);
  submit.mutable_spec()->add_command("true");
  v1::SubmitJobResponse resp;
  EXPECT_TRUE(Sched()->SubmitJob(Ctx(kAlice).get(), submit, &resp).ok()) << "alice's second job";
  EXPECT_EQ(Sched()->SubmitJob(Ctx(kAlice).get(), submit, &resp).error_code(), StatusCode::RESOURCE_EXHAUSTED);
  EXPECT_TRUE(Sched()->SubmitJob(Ctx(kBob).get(), submit, &resp).ok()) << "the cap is per user";
  EXPECT_TRUE(Sched()->SubmitJob(Ctx(kAdmin).get(), submit, &resp).ok()) << "admins are not capped";
}

TEST_F(AuthMatrix, AnAgentCannotInflateItsProgressOrRepeatWrites) {
  v1::ProgressReport report;
  report.set_job_id(job_);
  report.set_epoch(epoch_);
  report.set_iterations_done(1000000000000);
  report.set_throughput(5);
  v1::ProgressReply reply;
  ASSERT_TRUE(Agent()->ReportProgress(Ctx(LeaseCredential()).get(), report, &reply).ok());
  EXPECT_EQ(Get(job_, kAdmin).iterations_done(), 100000) << "no further than the job's own iterations";
  v1::CheckpointDone done;
  done.set_job_id(job_);
  done.set_epoch(epoch_);
  done.set_iteration(10);
  done.set_path("ckpt-10");
  v1::CheckpointAck ack;
  ASSERT_TRUE(Agent()->ConfirmCheckpoint(Ctx(LeaseCredential()).get(), done, &ack).ok());
  const int events = Get(job_, kAdmin).events_size();
  for (int i = 0; i < 20; ++i) ASSERT_TRUE(Agent()->ConfirmCheckpoint(Ctx(LeaseCredential()).get(), done, &ack).ok());
  EXPECT_EQ(Get(job_, kAdmin).events_size(), events) << "the same checkpoint again writes nothing";
  v1::MeasuredProfile profile;
  profile.set_job_id(job_);
  profile.set_epoch(epoch_);
  auto* p = profile.add_points();
  p->set_cpus(1);
  p->set_mem_gb(1);
  p->set_throughput(1);
  v1::ProfileAck pack;
  ASSERT_TRUE(Agent()->SubmitProfile(Ctx(LeaseCredential()).get(), profile, &pack).ok()) << "once";
  EXPECT_EQ(Agent()->SubmitProfile(Ctx(LeaseCredential()).get(), profile, &pack).error_code(),
            StatusCode::FAILED_PRECONDITION)
      << "not again without a profiling lease";
}

TEST(Channel, PlainTextWithACredentialOnlyToLoopback) {
  service::ChannelSecurity plain;
  plain.plaintext = true;
  EXPECT_EQ(service::OpenChannel("10.1.2.3:50051", plain, true).status().code(),
            absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(service::OpenChannel("scheduler.example:50051", plain, true).status().code(),
            absl::StatusCode::kFailedPrecondition);
  EXPECT_TRUE(service::OpenChannel("127.0.0.1:50051", plain, true).ok());
  EXPECT_TRUE(service::OpenChannel("[::1]:50051", plain, true).ok());
  EXPECT_TRUE(service::OpenChannel("localhost:50051", plain, true).ok());
  EXPECT_FALSE(service::IsLoopbackTarget("128.0.0.1:1"));
  // Every address of a list, not the first only.
  EXPECT_FALSE(service::IsLoopbackTarget("ipv6:[::1]:1,[::ffff:192.0.2.2]:47002"));
  EXPECT_FALSE(service::IsLoopbackTarget("ipv4:127.0.0.1:1,10.0.0.1:2"));
  EXPECT_TRUE(service::IsLoopbackTarget("ipv4:127.0.0.1:1,127.0.0.2:2"));
  EXPECT_FALSE(service::IsLoopbackTarget("xds:///scheduler"));
}

TEST(Credentials, ControlCharactersAndNonAsciiAreRefusedNotSent) {
  EXPECT_FALSE(service::ValidateCredentialText("abc\r\n", "token").ok());
  EXPECT_FALSE(service::ValidateCredentialText("t\xc3\xa9", "token").ok());
  EXPECT_FALSE(service::ValidateCredentialText("a b", "token").ok());
  EXPECT_TRUE(service::ValidateCredentialText("0123abcdef-_.", "token").ok());
  grpc::ClientContext ctx;
  service::AttachCredential(ctx, "bad\ncredential");  // must not abort
}

}  // namespace
}  // namespace synergy
