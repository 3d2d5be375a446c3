// The system daemon when the password database cannot be read (an LDAP or sssd outage): a fake
// lookup fails as getpwnam_r does then, and a task whose account cannot be looked up waits,
// untouched, while other users' tasks start.
#include <doctest/doctest.h>
#include <spdlog/sinks/ostream_sink.h>
#include <spdlog/spdlog.h>

#include <cerrno>
#include <cstring>
#include <map>
#include <set>
#include <sstream>

#include "daemon/daemon.h"
#include "daemon/users/accounts.h"
#include "support/fake_clock.h"
#include "support/fake_runner.h"
#include "support/temp_dir.h"

namespace tq {
namespace {

// The fake password database: its accounts (name to uid, the gid is the uid), and the names
// whose lookup fails with EIO.
std::map<std::string, uint32_t> accounts;
std::set<std::string> unreachable;
std::set<std::string> too_large;  // the names whose entry never fits (ERANGE at any size)

// getpwnam_r over the fake password database.
int FakeLookup(const char* name, passwd* entry, char* buf, size_t size, passwd** found) {
  *found = nullptr;
  if (unreachable.count(name)) return EIO;
  if (too_large.count(name)) return ERANGE;
  const auto it = accounts.find(name);
  if (it == accounts.end()) return 0;
  static constexpr char kRest[] = "\0/\0/bin/sh";  // home and shell after the name
  const size_t n = std::strlen(name);
  if (n + sizeof kRest > size) return ERANGE;
  std::memcpy(buf, name, n);
  std::memcpy(buf + n, kRest, sizeof kRest);
  *entry = passwd{};
  entry->pw_name = buf;
  entry->pw_passwd = buf + n;  // ""
  entry->pw_gecos = buf + n;
  entry->pw_dir = buf + n + 1;
  entry->pw_shell = buf + n + 3;
  entry->pw_uid = it->second;
  entry->pw_gid = it->second;
  *found = entry;
  return 0;
}

// A system daemon (tasks run as their owners) over a real store, with a fake runner, the fake
// password database and the daemon's log kept in `log`.
struct LookupFixture {
  TempDir dir{"lookup"};
  FakeClock clock;
  FakeRunner* runner = nullptr;
  std::unique_ptr<Daemon> daemon;
  std::ostringstream log;
  std::shared_ptr<spdlog::logger> saved_logger = spdlog::default_logger();

  LookupFixture() {
    accounts = {{"alice", 71001}, {"bob", 71002}};
    unreachable.clear();
    too_large.clear();
    SetPasswdLookup(FakeLookup);
    spdlog::set_default_logger(std::make_shared<spdlog::logger>(
        "test", std::make_shared<spdlog::sinks::ostream_sink_st>(log)));
    Config config;
    config.durability_full = false;
    DaemonOptions options;
    options.state_dir = dir.path.string();
    options.run_as.owner = true;
    options.config = std::make_shared<const Config>(std::move(config));
    options.make_runner = FakeRunner::Maker(clock, &runner);
    daemon = std::make_unique<Daemon>(std::move(options), clock);
    Status st = daemon->Open();
    REQUIRE_MESSAGE(st.ok(), st.message());
    daemon->RunReady();
  }
  ~LookupFixture() {
    daemon.reset();
    spdlog::set_default_logger(saved_logger);
    SetPasswdLookup(nullptr);
  }

  // Submits a task of the user `name`, uid `uid`, as `tq submit` does, and lets the daemon
  // dispatch.
  TaskId Submit(const std::string& name, uint32_t uid) {
    TaskSpec spec;
    spec.argv = {"true"};
    auto id = daemon->store().Insert(Owner{uid, uid, name}, spec, clock.WallNow());
    REQUIRE_MESSAGE(id.ok(), id.status().message());
    daemon->ScheduleDispatch();
    daemon->RunReady();
    return *id;
  }
  Task Get(TaskId id) {
    auto task = daemon->store().Get(id);
    REQUIRE_MESSAGE(task.ok(), task.status().message());
    return *task;
  }
  // Moves the clock by `ms` and lets the daemon handle what came due.
  void Advance(int64_t ms) {
    clock.Advance(ms);
    daemon->RunReady();
  }
  // How many lines of the log so far contain `text`.
  int LogLines(const std::string& text) const {
    std::istringstream lines(log.str());
    int n = 0;
    for (std::string line; std::getline(lines, line);) n += line.find(text) != std::string::npos;
    return n;
  }
};

TEST_CASE("a task whose account lookup fails waits with no attempt used while others start") {
  LookupFixture f;
  unreachable = {"alice"};
  const TaskId a = f.Submit("alice", 71001);
  const TaskId b = f.Submit("bob", 71002);
  CHECK(f.runner->Running() == std::vector<TaskId>{b});
  CHECK(f.Get(a).state == TaskState::kPending);
  CHECK(f.Get(a).attempts.empty());

  // Still unreachable: tried again later, still untouched, logged once.
  for (int i = 0; i < 3; ++i) f.Advance(30'000);
  CHECK(f.runner->launches.size() == 1);
  CHECK(f.Get(a).state == TaskState::kPending);
  CHECK(f.Get(a).attempts.empty());
  CHECK(f.LogLines("task " + std::to_string(a) + " waits") == 1);

  // The name service is back: the task starts with its first attempt, as its account.
  unreachable.clear();
  f.Advance(30'000);
  REQUIRE(f.runner->Running() == std::vector<TaskId>{a, b});
  CHECK(f.runner->launches.back().attempt == 1);
  REQUIRE(f.runner->launches.back().account.has_value());
  CHECK(f.runner->launches.back().account->uid == 71001);
}

TEST_CASE("a task whose account the lookup does not know fails user-gone") {
  LookupFixture f;
  accounts.erase("bob");
  const TaskId gone = f.Submit("bob", 71002);
  CHECK(f.Get(gone).state == TaskState::kFailed);
  CHECK(f.Get(gone).reason == TaskReason::kUserGone);
  CHECK(f.runner->launches.empty());
}

TEST_CASE("an account entry too large to read fails the attempt instead of waiting") {
  LookupFixture f;
  too_large = {"alice"};
  const TaskId a = f.Submit("alice", 71001);
  CHECK(f.Get(a).state == TaskState::kFailed);
  REQUIRE(f.Get(a).attempts.size() == 1);
  CHECK(f.Get(a).attempts[0].reason == AttemptReason::kSpawnFailed);
  CHECK(f.Get(a).attempts[0].detail.find("larger than") != std::string::npos);
  CHECK(f.runner->launches.empty());
}

}  // namespace
}  // namespace tq
