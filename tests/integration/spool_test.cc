// Every user's own job file under one system daemon (SPEC 8): `tq jobs install`, `cat`, `remove`
// and `edit` as crontab gives them, jobs that run as their user and are named USER/NAME, a
// broken file that never replaces the last good one, and no user reading or running another's.
// A file stays bound to the uid it was written for, as cron binds a crontab to its owner. The
// users are made for each test (root only).
#include <pwd.h>
#include <sys/stat.h>
#include <unistd.h>

#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "support/jobs.h"
#include "support/skip.h"
#include "support/temp_user.h"
#include "support/test_daemon.h"

using namespace tqtest;

namespace {
// A job file with one yearly job `name` running `command` in /.
std::string OneJob(const std::string& name, const std::string& command) {
  return "[[job]]\nname = \"" + name + "\"\nschedule = \"0 0 1 1 *\"\ncwd = \"/\"\ncommand = \"" +
         command + "\"\n";
}

// The spool file of `user` under `d`.
std::string SpoolFile(const TestDaemon& d, const std::string& user) {
  return d.state_dir() + "/crontabs/" + user + ".toml";
}

// The owner of `path` (REQUIREs that it exists).
struct stat StatOf(const std::string& path) {
  struct stat st {};
  REQUIRE_MESSAGE(stat(path.c_str(), &st) == 0, path);
  return st;
}

// A new account under the name of one just deleted (useradd gives it the next free uid);
// userdel on destruction.
class NewAccount {
 public:
  explicit NewAccount(const std::string& name) : name_(name) {
    // Other tests may hold the password database's lock for a moment.
    RunResult r;
    WaitFor([&] {
      r = Process({"/usr/sbin/useradd", "--no-create-home", "--user-group", "--home-dir",
                   "/nonexistent", "--shell", "/bin/sh", name},
                  {})
              .Finish();
      return r.exit_code == 0;
    });
    REQUIRE_MESSAGE(r.exit_code == 0, r.err);
    const passwd* pw = getpwnam(name.c_str());
    REQUIRE_MESSAGE(pw != nullptr, "useradd made no user " << name);
    run_as_ = RunAs{pw->pw_uid, pw->pw_gid};
  }
  ~NewAccount() { Process({"/usr/sbin/userdel", name_}, {}).Finish(); }
  NewAccount(const NewAccount&) = delete;
  NewAccount& operator=(const NewAccount&) = delete;

  RunAs run_as() const { return run_as_; }

 private:
  std::string name_;
  RunAs run_as_;
};
}  // namespace

TEST_CASE("a user's own job file: installed, run as its user, kept when a new one is broken") {
  if (!CanMakeUsers()) TQ_SKIP("needs root and useradd");
  TempUser alice, bob, mallory;
  TestDaemon d("deny_users = [\"" + mallory.name() + "\"]\n");
  TQ_LOG_ON_FAILURE(d);
  const std::string good = OneJob("report", "id -u");
  const RunResult installed = TqAs(d, alice.run_as(), {"jobs", "install", "-"}, {}, good);
  REQUIRE_MESSAGE(installed.exit_code == 0, installed.err);
  CHECK(installed.out == "installed 1 job(s)\n");
  const std::string full = alice.name() + "/report";
  CHECK(TqAs(d, alice.run_as(), {"jobs", "cat"}).out == good);
  CHECK(TqAs(d, alice.run_as(), {"jobs", "--json"}).out.find(full) != std::string::npos);
  CHECK(Tq(d, {"jobs", "show", full}).exit_code == 0);  // root sees it
  CHECK(TqAs(d, bob.run_as(), {"jobs", "--json"}).out.find(full) == std::string::npos);

  // Its user runs it by its short name; it runs as that user.
  const RunResult run = TqAs(d, alice.run_as(), {"jobs", "run", "report"});
  REQUIRE_MESSAGE(run.exit_code == 0, run.err);
  const std::string id = run.out.substr(0, run.out.find('\n'));
  CHECK(TqAs(d, alice.run_as(), {"wait", id}).exit_code == 0);
  CHECK(Tq(d, {"logs", id}).out == std::to_string(alice.uid()) + "\n");

  // A broken file, and one naming another user, change nothing.
  for (const std::string& bad :
       {std::string("[[job]]\nname = \"report\"\nschedule = \"61 * * * *\"\ncommand = \"x\"\n"),
        OneJob("report", "x") + "user = \"root\"\n"}) {
    const RunResult refused = TqAs(d, alice.run_as(), {"jobs", "install", "-"}, {}, bad);
    CHECK(refused.exit_code == 2);
    // Named as the user gave it, never by the daemon's copy, which the user cannot read.
    CHECK_MESSAGE(refused.err.rfind("tq: <stdin>:", 0) == 0, refused.err);
    CHECK_MESSAGE(refused.err.find("crontabs") == std::string::npos, refused.err);
    CHECK(TqAs(d, alice.run_as(), {"jobs", "cat"}).out == good);
  }
  const std::string mine = d.dir() + "/mine.toml";
  WriteFile(mine,
            "[[job]]\nname = \"r\"\nschedule = \"* * * *\"\ncommand = \"x\"\n"
            "[[job]]\nname = \"s\"\nschedule = \"@daily\"\ncommand = \"x\"\nnice = 99\n");
  REQUIRE(chmod(mine.c_str(), 0644) == 0);
  const RunResult named = TqAs(d, alice.run_as(), {"jobs", "install", mine});
  CHECK(named.exit_code == 2);
  // Every error of the file, each on a line of its own, in one pass.
  CHECK_MESSAGE(named.err.rfind("tq: " + mine + ":3: ", 0) == 0, named.err);
  CHECK_MESSAGE(
      named.err.find("\ntq: " + mine + ":9: nice: 99 is out of range") != std::string::npos,
      named.err);
  CHECK(Tq(d, {"jobs", "show", full}).exit_code == 0);

  // Nobody else reads, replaces, runs or removes it.
  CHECK(TqAs(d, bob.run_as(), {"jobs", "cat", "-u", alice.name()}).exit_code == 5);
  CHECK(TqAs(d, bob.run_as(), {"jobs", "install", "-u", alice.name(), "-"}, {}, good).exit_code ==
        5);
  CHECK(TqAs(d, bob.run_as(), {"jobs", "remove", "-u", alice.name()}).exit_code == 5);
  CHECK(TqAs(d, bob.run_as(), {"jobs", "run", full}).exit_code == 4);
  CHECK(TqAs(d, bob.run_as(), {"jobs", "cat"}).exit_code == 4);  // bob has none
  CHECK(TqAs(d, mallory.run_as(), {"jobs", "install", "-"}, {}, good).exit_code == 5);

  // It survives a restart; root can read and remove it.
  d.Restart();
  CHECK(Tq(d, {"jobs", "cat", "-u", alice.name()}).out == good);
  CHECK(Tq(d, {"jobs", "show", full}).exit_code == 0);
  CHECK(TqAs(d, alice.run_as(), {"jobs", "remove"}).exit_code == 0);
  CHECK(Tq(d, {"jobs", "show", full}).exit_code == 4);
  CHECK(TqAs(d, alice.run_as(), {"jobs", "cat"}).exit_code == 4);
}

TEST_CASE("tq jobs edit opens the editor again on an error, and keeps the last good file") {
  if (!CanMakeUsers()) TQ_SKIP("needs root and useradd");
  TempUser alice;
  TestDaemon d;
  TQ_LOG_ON_FAILURE(d);
  const std::string work = d.dir() + "/alice";
  REQUIRE(mkdir(work.c_str(), 0700) == 0);
  REQUIRE(chown(work.c_str(), alice.uid(), alice.gid()) == 0);
  REQUIRE(chmod(d.dir().c_str(), 0711) == 0);
  // The editor writes a broken file the first time, a good one the next.
  const std::string editor = work + "/editor";
  {
    std::ofstream script(editor);
    script << "#!/bin/sh\nn=$(cat " << work << "/count 2>/dev/null || echo 0)\n"
           << "echo $((n+1)) > " << work << "/count\n"
           << "if [ \"$n\" = 0 ]; then printf '[[job]]\\nname = \"x\"\\n' > \"$1\"; "
           << "else printf '" << OneJob("nightly", "true") << "' > \"$1\"; fi\n";
  }
  REQUIRE(chown(editor.c_str(), alice.uid(), alice.gid()) == 0);
  REQUIRE(chmod(editor.c_str(), 0755) == 0);
  const std::vector<std::string> env = {"EDITOR=" + editor, "VISUAL=", "TMPDIR=" + work};

  SUBCASE("edit again: the second, good file is installed") {
    const RunResult r = TqAs(d, alice.run_as(), {"jobs", "edit"}, env, "y\n");
    CHECK_MESSAGE(r.exit_code == 0, r.err);
    CHECK(r.err.find("Edit again?") != std::string::npos);
    CHECK(r.out == "installed 1 job(s)\n");
    CHECK(Tq(d, {"jobs", "show", alice.name() + "/nightly"}).exit_code == 0);
  }
  SUBCASE("no: nothing is installed, the file in force stays") {
    REQUIRE(
        TqAs(d, alice.run_as(), {"jobs", "install", "-"}, {}, OneJob("old", "true")).exit_code ==
        0);
    const RunResult r = TqAs(d, alice.run_as(), {"jobs", "edit"}, env, "n\n");
    CHECK(r.exit_code == 2);
    CHECK(r.err.find("the last good job file stays in force") != std::string::npos);
    CHECK(TqAs(d, alice.run_as(), {"jobs", "cat"}).out == OneJob("old", "true"));
    CHECK(Tq(d, {"jobs", "show", alice.name() + "/old"}).exit_code == 0);
  }
  // The temporary copies are gone.
  for (const auto& e : std::filesystem::directory_iterator(work))
    CHECK(e.path().filename().string().rfind("tq-jobs-", 0) != 0);
}

TEST_CASE("a job file belongs to its user and a new account of the same name does not get it") {
  if (!CanMakeUsers()) TQ_SKIP("needs root and useradd");
  auto alice = std::make_unique<TempUser>();
  TempUser later;  // made after alice: the new alice cannot get her uid back
  TestDaemon d;
  TQ_LOG_ON_FAILURE(d);
  const std::string name = alice->name();
  const uid_t old_uid = alice->uid();
  const std::string path = SpoolFile(d, name);
  const RunResult installed =
      TqAs(d, alice->run_as(), {"jobs", "install", "-"}, {}, OneJob("report", "true"));
  REQUIRE_MESSAGE(installed.exit_code == 0, installed.err);
  const struct stat st = StatOf(path);
  CHECK(st.st_uid == old_uid);
  CHECK(st.st_gid == alice->gid());
  CHECK((st.st_mode & 07777) == 0600);

  alice.reset();  // userdel
  NewAccount again(name);
  REQUIRE(again.run_as().uid != old_uid);
  d.Restart();
  const std::string full = name + "/report";
  CHECK(TqAs(d, again.run_as(), {"jobs", "--json"}).out.find(full) == std::string::npos);
  CHECK(Tq(d, {"jobs", "show", full}).exit_code == 4);
  CHECK(TqAs(d, again.run_as(), {"jobs", "run", "report"}).exit_code == 4);
  CHECK(TqAs(d, again.run_as(), {"jobs", "cat"}).exit_code == 4);
  CHECK(ListTasks(d).empty());
  const std::string log = d.Log();
  CHECK(log.find(path + " belongs to uid " + std::to_string(old_uid)) != std::string::npos);
  CHECK(log.find("is uid " + std::to_string(again.run_as().uid)) != std::string::npos);

  // The new account starts afresh: its file replaces the old one and is its own.
  const std::string fresh = OneJob("fresh", "true");
  REQUIRE(TqAs(d, again.run_as(), {"jobs", "install", "-"}, {}, fresh).exit_code == 0);
  CHECK(TqAs(d, again.run_as(), {"jobs", "cat"}).out == fresh);
  CHECK(StatOf(path).st_uid == again.run_as().uid);
  CHECK(Tq(d, {"jobs", "show", name + "/fresh"}).exit_code == 0);
  CHECK(Tq(d, {"jobs", "show", full}).exit_code == 4);
  CHECK(ListTasks(d).empty());
}

TEST_CASE("a job file of another uid is no job file: not loaded and removed by tq jobs remove") {
  if (!CanMakeUsers()) TQ_SKIP("needs root and useradd");
  TempUser alice, bob;
  TestDaemon d;
  TQ_LOG_ON_FAILURE(d);
  const std::string path = SpoolFile(d, alice.name());
  REQUIRE(
      TqAs(d, alice.run_as(), {"jobs", "install", "-"}, {}, OneJob("report", "true")).exit_code ==
      0);
  REQUIRE(chown(path.c_str(), bob.uid(), bob.gid()) == 0);
  REQUIRE(Tq(d, {"reload"}).exit_code == 0);
  CHECK(Tq(d, {"jobs", "show", alice.name() + "/report"}).exit_code == 4);
  CHECK(TqAs(d, alice.run_as(), {"jobs", "cat"}).exit_code == 4);
  CHECK(TqAs(d, alice.run_as(), {"jobs", "remove"}).exit_code == 4);
  CHECK(access(path.c_str(), F_OK) != 0);
}

TEST_CASE("a job file an earlier tqd wrote as root is given to its user at start") {
  if (!CanMakeUsers()) TQ_SKIP("needs root and useradd");
  TempUser alice;
  TestDaemon d;
  TQ_LOG_ON_FAILURE(d);
  const std::string path = SpoolFile(d, alice.name());
  const std::string text = OneJob("report", "true");
  REQUIRE(TqAs(d, alice.run_as(), {"jobs", "install", "-"}, {}, text).exit_code == 0);
  d.Stop();
  REQUIRE(chown(path.c_str(), 0, 0) == 0);
  d.Start();
  d.WaitReady();
  CHECK(StatOf(path).st_uid == alice.uid());
  CHECK(StatOf(path).st_gid == alice.gid());
  CHECK(Tq(d, {"jobs", "show", alice.name() + "/report"}).exit_code == 0);
  CHECK(TqAs(d, alice.run_as(), {"jobs", "cat"}).out == text);
  CHECK(d.Log().find(path + " belonged to root: given to " + alice.name()) != std::string::npos);
}

TEST_CASE("tq jobs install reads only that user's file again, and installs are rate-limited") {
  if (!CanMakeUsers()) TQ_SKIP("needs root and useradd");
  TempUser alice;
  TestDaemon d;
  TQ_LOG_ON_FAILURE(d);
  // A system job file broken after the last reload: an install of alice's does not read it.
  d.WriteJobFile("broken.toml", "[[job]]\nname = \"x\"\n");
  const RunResult first =
      TqAs(d, alice.run_as(), {"jobs", "install", "-"}, {}, OneJob("a", "true"));
  REQUIRE_MESSAGE(first.exit_code == 0, first.err);
  const auto errors = [&] {
    return nlohmann::json::parse(Tq(d, {"jobs", "--json"}).out)["errors"].size();
  };
  CHECK(errors() == 0);
  CHECK(d.Log().find("broken.toml") == std::string::npos);
  REQUIRE(Tq(d, {"reload"}).exit_code != 0);  // a full reload does
  CHECK(errors() == 1);
  // ... and a later install of alice's leaves that error as the full reload found it.
  REQUIRE(TqAs(d, alice.run_as(), {"jobs", "install", "-"}, {}, OneJob("b", "true")).exit_code ==
          0);
  CHECK(errors() == 1);
  CHECK(Tq(d, {"jobs", "show", alice.name() + "/b"}).exit_code == 0);
  CHECK(Tq(d, {"jobs", "show", alice.name() + "/a"}).exit_code == 4);  // replaced

  // Ten changes at once; the next is refused, naming the limit, and changes nothing.
  int accepted = 2;
  RunResult refused;
  while (accepted < 20) {
    refused = TqAs(d, alice.run_as(), {"jobs", "install", "-"}, {},
                   OneJob("n" + std::to_string(accepted), "true"));
    if (refused.exit_code != 0) break;
    ++accepted;
  }
  CHECK(accepted >= 10);
  CHECK(accepted < 20);
  CHECK(refused.exit_code == 2);
  CHECK_MESSAGE(refused.err.find("changes their job file faster than allowed") != std::string::npos,
                refused.err);
  CHECK(Tq(d, {"jobs", "show", alice.name() + "/n" + std::to_string(accepted)}).exit_code == 4);
  // root is not limited.
  for (int i = 0; i < 12; ++i)
    CHECK(Tq(d, {"jobs", "install", "-u", alice.name(), "-"}, OneJob("r", "true")).exit_code == 0);
}
