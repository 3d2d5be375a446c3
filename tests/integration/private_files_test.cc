// What tqd keeps is its own (SPEC 8): the store holds tasks' environments and stdin, so every
// file of it is 0600 and every directory 0700, whatever the umask tqd started with; files and
// directories an older tqd left open are narrowed at start. The one exception: a system daemon's
// state directory and its contexts/ are 0711, so that tasks reach their own context directories
// (SPEC 13), never list them.
#include <sys/stat.h>
#include <unistd.h>

#include <doctest/doctest.h>

#include <string>

#include "support/test_daemon.h"

using namespace tqtest;

namespace {

// The permission bits of `path`; -1 when it cannot be read.
int ModeOf(const std::string& path) {
  struct stat st {};
  return lstat(path.c_str(), &st) == 0 ? static_cast<int>(st.st_mode & 07777) : -1;
}

// Sets the umask for one scope.
struct UmaskScope {
  explicit UmaskScope(mode_t mask) : old(umask(mask)) {}
  ~UmaskScope() { umask(old); }
  mode_t old;
};

}  // namespace

TEST_CASE("the store, task files and tqd's directories are 0600 and 0700 under umask 0") {
  UmaskScope open_umask(0);
  TestDaemon d;
  TQ_LOG_ON_FAILURE(d);
  const RunResult submit =
      RunTq(d.socket(), {"submit", "--", "sh", "-c", "echo out; cat"}, {"SECRET=hunter2"}, "in");
  REQUIRE(submit.exit_code == 0);
  const std::string id = submit.out.substr(0, submit.out.find('\n'));
  REQUIRE(Tq(d, {"wait", id}).exit_code == 0);
  const std::string state = d.state_dir();
  const int enter_only = geteuid() == 0 ? 0711 : 0700;  // tasks run as their users only as root
  CHECK(ModeOf(state) == enter_only);
  CHECK(ModeOf(state + "/contexts") == 0711);
  for (const char* file : {"/tq.db", "/tq.db-wal", "/tq.db-shm"}) {
    CAPTURE(file);
    CHECK(ModeOf(state + file) == 0600);
  }
  for (const char* dir : {"/attempts", "/crontabs", "/hooks"}) {
    CAPTURE(dir);
    CHECK(ModeOf(state + dir) == 0700);
  }
  const std::string task_dir = TaskFilesDir(d, id);
  CHECK(ModeOf(task_dir) == 0700);
  int files = 0;
  for (const char* file : {".stdin", ".1.out", ".1.err", ".1.status"}) {
    const std::string path = task_dir + "/" + id + file;
    if (ModeOf(path) < 0) continue;
    CAPTURE(file);
    CHECK(ModeOf(path) == 0600);
    ++files;
  }
  CHECK(files > 0);
}

TEST_CASE("files and directories an older tqd left open to others are narrowed at start") {
  TestDaemon d;
  TQ_LOG_ON_FAILURE(d);
  Submit(d, {"--", "true"});
  d.Stop();
  const std::string state = d.state_dir();
  for (const char* file : {"/tq.db", "/tq.db-wal", "/tq.db-shm"})
    if (ModeOf(state + file) >= 0) REQUIRE(chmod((state + file).c_str(), 0644) == 0);
  for (const char* dir : {"/attempts", "/crontabs", "/hooks"})
    REQUIRE(chmod((state + dir).c_str(), 0755) == 0);
  d.Start();
  d.WaitReady();
  for (const char* file : {"/tq.db", "/tq.db-wal", "/tq.db-shm"}) {
    CAPTURE(file);
    const int mode = ModeOf(state + file);
    CHECK((mode == -1 || mode == 0600));
  }
  CHECK(ModeOf(state + "/tq.db") == 0600);
  for (const char* dir : {"/attempts", "/crontabs", "/hooks"}) {
    CAPTURE(dir);
    CHECK(ModeOf(state + dir) == 0700);
  }
}
