// Many users under one system daemon (SPEC 8): each sees and touches only their own tasks and
// jobs, members of admin_group see everything, and allow_users / deny_users keep users out as
// cron.allow and cron.deny do. The users are made for each test (root only).
#include <grp.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <doctest/doctest.h>

#include <cstdio>
#include <set>
#include <string>

#include "support/jobs.h"
#include "support/raw_client.h"
#include "support/skip.h"
#include "support/temp_user.h"
#include "support/test_daemon.h"

using namespace tqtest;

namespace {
// Sends one frame `payload` to `socket` from a child running as `who`, and returns the answer's
// payload ("" when none came). Plain system calls: nothing of the test framework runs in the
// child.
std::string ExchangeAs(const std::string& socket, RunAs who, const std::string& payload) {
  int out[2];
  REQUIRE(pipe(out) == 0);
  const pid_t child = fork();
  REQUIRE(child >= 0);
  if (child == 0) {
    close(out[0]);
    sockaddr_un addr{};
    addr.sun_family = AF_UNIX;
    std::snprintf(addr.sun_path, sizeof addr.sun_path, "%s", socket.c_str());
    const int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (setgroups(0, nullptr) != 0 || setgid(who.gid) != 0 || setuid(who.uid) != 0 || fd < 0 ||
        connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0)
      _exit(1);
    const std::string frame = LengthPrefix(static_cast<uint32_t>(payload.size())) + payload;
    if (write(fd, frame.data(), frame.size()) != static_cast<ssize_t>(frame.size())) _exit(1);
    std::string in;
    char buf[4096];
    for (ssize_t n; (n = read(fd, buf, sizeof buf)) > 0;) {
      in.append(buf, static_cast<size_t>(n));
      if (in.size() >= 4) {
        const uint32_t len = (uint32_t(uint8_t(in[0])) << 24) | (uint32_t(uint8_t(in[1])) << 16) |
                             (uint32_t(uint8_t(in[2])) << 8) | uint32_t(uint8_t(in[3]));
        if (in.size() >= 4 + len) {
          const ssize_t ignored = write(out[1], in.data() + 4, len);
          (void)ignored;
          break;
        }
      }
    }
    _exit(0);
  }
  close(out[1]);
  std::string answer;
  char buf[4096];
  for (ssize_t n; (n = read(out[0], buf, sizeof buf)) > 0;) answer.append(buf, n);
  close(out[0]);
  int status = 0;
  REQUIRE(waitpid(child, &status, 0) == child);
  CHECK(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 0);
  return answer;
}

}  // namespace

TEST_CASE("another user's task is not found, and a member of admin_group sees every task") {
  if (!CanMakeUsers()) TQ_SKIP("needs root and useradd");
  TempGroup admins;
  TempUser alice, bob, carol("/nonexistent", {admins.name()});
  TestDaemon d("admin_group = \"" + admins.name() + "\"\n");
  TQ_LOG_ON_FAILURE(d);
  const std::string id = SubmitAs(d, alice, {"--delay", "1h", "--", "true"});
  for (const std::vector<std::string>& args : {std::vector<std::string>{"status", id},
                                               {"wait", id},
                                               {"cancel", id},
                                               {"logs", id},
                                               {"retry", id},
                                               {"submit", "--after", id, "--", "true"}}) {
    CAPTURE(args[0]);
    const RunResult r = TqAs(d, bob.run_as(), args);
    CHECK(r.exit_code == 4);
    CHECK(r.err.find("not found") != std::string::npos);
  }
  const RunResult bob_list = TqAs(d, bob.run_as(), {"list", "--json"});
  CHECK(bob_list.exit_code == 0);
  CHECK(bob_list.out.empty());
  CHECK(JsonLines(TqAs(d, alice.run_as(), {"list", "--json"}).out).size() == 1);
  // carol is in admin_group: she sees alice's task and may act on it.
  const RunResult carol_status = TqAs(d, carol.run_as(), {"status", id});
  CHECK_MESSAGE(carol_status.exit_code == 0, carol_status.err);
  CHECK(JsonLines(TqAs(d, carol.run_as(), {"list", "--json"}).out).size() == 1);
  CHECK(TqAs(d, carol.run_as(), {"queue", "pause", "default"}).exit_code == 0);
  CHECK(TqAs(d, bob.run_as(), {"queue", "resume", "default"}).exit_code == 5);
  CHECK(TqAs(d, carol.run_as(), {"cancel", id}).exit_code == 0);
  CHECK(TaskState(d, id) == "cancelled");
}

TEST_CASE("allow_users and deny_users keep users out with a message naming the key") {
  if (!CanMakeUsers()) TQ_SKIP("needs root and useradd");
  TempUser alice, bob, mallory;
  TestDaemon d("allow_users = [\"" + alice.name() + "\", \"" + mallory.name() +
               "\"]\ndeny_users = [\"" + mallory.name() + "\"]\n");
  TQ_LOG_ON_FAILURE(d);
  SubmitAs(d, alice, {"--", "true"});
  for (const TempUser* kept_out : {&bob, &mallory}) {
    CAPTURE(kept_out->name());
    const RunResult submit = TqAs(d, kept_out->run_as(), {"submit", "--", "true"});
    CHECK(submit.exit_code == 5);
    CHECK(submit.err.find("may not use tq") != std::string::npos);
    CHECK(submit.err.find(kept_out == &bob ? "allow_users" : "deny_users") != std::string::npos);
    CHECK(TqAs(d, kept_out->run_as(), {"list"}).exit_code == 5);
    CHECK(TqAs(d, kept_out->run_as(), {"ping"}).exit_code == 0);  // it reaches the daemon
  }
  CHECK(JsonLines(Tq(d, {"list", "--json"}).out).size() == 1);  // nothing was added
  CHECK(Tq(d, {"submit", "--", "true"}).exit_code == 0);        // root is always let in
}

TEST_CASE("a job is seen, run and disabled only by its own user and admins") {
  if (!CanMakeUsers()) TQ_SKIP("needs root and useradd");
  TempUser alice, bob;
  TestDaemon d;
  TQ_LOG_ON_FAILURE(d);
  d.WriteJobFile("alice.toml", JobFile("alice-report", "0 0 1 1 *", "id -u",
                                       {"user = \"" + alice.name() + "\"", "cwd = \"/\""}));
  d.WriteJobFile("root.toml", JobFile("root-report", "0 0 1 1 *", "true"));
  Reload(d);
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"jobs", "run", "alice-report"},
        {"jobs", "show", "alice-report"},
        {"jobs", "disable", "alice-report"},
        {"jobs", "run", "root-report"}}) {
    CAPTURE(args[1]);
    const RunResult r = TqAs(d, bob.run_as(), args);
    CHECK(r.exit_code == 4);
    CHECK(r.err.find("not found") != std::string::npos);
  }
  const RunResult bob_jobs = TqAs(d, bob.run_as(), {"jobs", "--json"});
  CHECK(bob_jobs.exit_code == 0);
  CHECK(bob_jobs.out.find("report") == std::string::npos);
  const RunResult alice_jobs = TqAs(d, alice.run_as(), {"jobs", "--json"});
  CHECK(alice_jobs.out.find("alice-report") != std::string::npos);
  CHECK(alice_jobs.out.find("root-report") == std::string::npos);

  const RunResult run = TqAs(d, alice.run_as(), {"jobs", "run", "alice-report"});
  REQUIRE_MESSAGE(run.exit_code == 0, run.err);
  const std::string id = run.out.substr(0, run.out.find('\n'));
  CHECK(TqAs(d, alice.run_as(), {"wait", id}).exit_code == 0);
  CHECK(Tq(d, {"logs", id}).out == std::to_string(alice.uid()) + "\n");
  CHECK(TqAs(d, alice.run_as(), {"jobs", "disable", "alice-report"}).exit_code == 0);
  CHECK(Tq(d, {"jobs", "run", "alice-report", "--force"}).exit_code == 0);  // root may
}

TEST_CASE("a request that claims another user in its fields changes nothing") {
  if (!CanMakeUsers()) TQ_SKIP("needs root and useradd");
  TempUser bob;
  TestDaemon d;
  TQ_LOG_ON_FAILURE(d);
  // bob's own client sends a submit that names root everywhere a field could.
  REQUIRE(chmod(d.dir().c_str(), 0711) == 0);
  const std::string answer =
      ExchangeAs(d.socket(), bob.run_as(),
                 R"({"proto":1,"type":"submit","argv":["id","-u"],"uid":0,"gid":0,"user":"root",)"
                 R"("owner":{"uid":0,"gid":0,"name":"root"},"owner_uid":0,"owner_name":"root"})");
  CAPTURE(answer);
  const nlohmann::json reply = nlohmann::json::parse(answer);
  if (!reply.value("ok", false)) {
    CHECK(JsonLines(Tq(d, {"list", "--json"}).out).empty());  // refused: nothing was added
    return;
  }
  const std::string id = std::to_string(reply["id"].get<long long>());
  const nlohmann::json t = TaskJson(d, id);
  CHECK(t["owner"]["uid"] == bob.uid());
  CHECK(t["owner"]["name"] == bob.name());
  CHECK(Tq(d, {"wait", id}).exit_code == 0);
  CHECK(Tq(d, {"logs", id}).out == std::to_string(bob.uid()) + "\n");
}

TEST_CASE(
    "an admin's tq list has an OWNER column and --user, which a user may give only for self") {
  if (!CanMakeUsers()) TQ_SKIP("needs root and useradd");
  TempUser alice, bob;
  TestDaemon d;
  TQ_LOG_ON_FAILURE(d);
  const std::string a = SubmitAs(d, alice, {"--delay", "1h", "--", "true"});
  const std::string b = SubmitAs(d, bob, {"--delay", "1h", "--", "true"});

  const RunResult table = Tq(d, {"list"});  // root sees everyone's
  REQUIRE(table.exit_code == 0);
  CHECK_MESSAGE(table.out.find("OWNER") != std::string::npos, table.out);
  CHECK_MESSAGE(table.out.find(alice.name()) != std::string::npos, table.out);
  const RunResult own = TqAs(d, alice.run_as(), {"list"});  // a user sees only their own
  REQUIRE(own.exit_code == 0);
  CHECK_MESSAGE(own.out.find("OWNER") == std::string::npos, own.out);

  const RunResult only_bob = Tq(d, {"list", "--user", bob.name(), "--json"});
  REQUIRE(only_bob.exit_code == 0);
  const std::vector<nlohmann::json> bobs = JsonLines(only_bob.out);
  REQUIRE(bobs.size() == 1);
  CHECK(bobs[0]["id"].dump() == b);
  const RunResult self = TqAs(d, alice.run_as(), {"list", "-u", alice.name(), "--json"});
  REQUIRE(self.exit_code == 0);
  REQUIRE(JsonLines(self.out).size() == 1);
  CHECK(JsonLines(self.out)[0]["id"].dump() == a);

  const RunResult other = TqAs(d, alice.run_as(), {"list", "--user", bob.name()});
  CHECK(other.exit_code == 5);
  CHECK_MESSAGE(other.err.find("only admins may list another user's tasks") != std::string::npos,
                other.err);
  const RunResult nobody = Tq(d, {"list", "--user", "no-such-user-tq"});
  CHECK(nobody.exit_code == 4);
}

TEST_CASE("a queue with allow_users lends its raised priority to those users and admins only") {
  if (!CanMakeUsers()) TQ_SKIP("needs root and useradd");
  TempUser alice, bob;
  TestDaemon d("[queues.fast]\nnice = -10\nallow_users = [\"" + alice.name() + "\"]\n");
  TQ_LOG_ON_FAILURE(d);
  const RunResult refused = TqAs(d, bob.run_as(), {"submit", "--queue", "fast", "--", "true"});
  CHECK(refused.exit_code == 5);
  CHECK_MESSAGE(refused.err.find("queue: \"fast\" is not open to \"" + bob.name() + "\"") !=
                    std::string::npos,
                refused.err);
  const RunResult batch =
      TqAs(d, bob.run_as(), {"submit", "--batch", "--queue", "fast"}, {}, "true\ntrue\n");
  CHECK(batch.exit_code == 5);
  CHECK(JsonLines(Tq(d, {"list", "--json"}).out).empty());  // nothing was added

  // bob's own job file may not name it either, refused at install naming the line of queue.
  const RunResult install = TqAs(d, bob.run_as(), {"jobs", "install", "-"}, {},
                                 "[[job]]\nname = \"nightly\"\nschedule = \"@yearly\"\n"
                                 "command = \"true\"\ncwd = \"/\"\nqueue = \"fast\"\n");
  CHECK(install.exit_code == 2);
  CHECK_MESSAGE(install.err.find(":6: queue: \"fast\" is not open to") != std::string::npos,
                install.err);

  // alice and root get the raised priority.
  const std::string mine = SubmitAs(d, alice, {"--queue", "fast", "--", "sh", "-c", "nice"});
  CHECK(Tq(d, {"wait", mine}).exit_code == 0);
  CHECK(Tq(d, {"logs", mine}).out == "-10\n");
  const std::string roots = Submit(d, {"--queue", "fast", "--", "sh", "-c", "nice"});
  CHECK(Tq(d, {"wait", roots}).exit_code == 0);
  CHECK(Tq(d, {"logs", roots}).out == "-10\n");
}

TEST_CASE("queues a user makes are theirs to see, last while used, and share one metric series") {
  if (!CanMakeUsers()) TQ_SKIP("needs root and useradd");
  TempUser alice, bob;
  TestDaemon d("[queues.fast]\nallow_users = [\"" + alice.name() + "\"]\n[queues.open]\n");
  TQ_LOG_ON_FAILURE(d);
  std::vector<std::string> ids;
  for (int i = 0; i < 30; ++i)
    ids.push_back(
        SubmitAs(d, bob, {"--queue", "bobq-" + std::to_string(i), "--delay", "1h", "--", "true"}));
  const auto names = [&](const RunResult& r) {
    std::set<std::string> out;
    for (const auto& q : JsonLines(r.out)) out.insert(q["name"].get<std::string>());
    return out;
  };
  const auto list = [&](const TempUser* who) {
    return names(who ? TqAs(d, who->run_as(), {"queue", "list", "--json"})
                     : Tq(d, {"queue", "list", "--json"}));
  };
  // alice sees the queues open to her, never bob's; bob his own and the open ones.
  CHECK(list(&alice) == std::set<std::string>{"default", "fast", "open"});
  const std::set<std::string> bobs = list(&bob);
  CHECK(bobs.size() == 32);
  CHECK(bobs.count("fast") == 0);
  CHECK(list(nullptr).size() == 33);  // root sees every queue that exists
  // One series for the unconfigured queues, whoever made them.
  const std::string metrics = Tq(d, {"stats", "--prometheus"}).out;
  CHECK(metrics.find("bobq-") == std::string::npos);
  CHECK(metrics.find("queue=\"(other)\",state=\"pending\"} 30") != std::string::npos);
  // Once nothing in them is pending or running, they are gone.
  for (const std::string& id : ids) REQUIRE(Tq(d, {"cancel", id}).exit_code == 0);
  CHECK(list(nullptr) == std::set<std::string>{"default", "fast", "open"});
  CHECK(list(&bob) == std::set<std::string>{"default", "open"});
}
