// The systemd units CMake configures from packaging/deb/*.service.in (tqd(8), SYSTEMD): they
// pass `systemd-analyze verify` without a word about them, and keep the settings that running
// tasks depend on across a stop or restart of the daemon (SPEC 11).
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <sstream>
#include <string>
#include <vector>

#include <doctest/doctest.h>

#include "support/skip.h"
#include "support/temp_dir.h"
#include "support/test_daemon.h"

using namespace tqtest;

namespace {

// Where CMake configured the units: beside the built tqd, which is the top of the build tree.
std::string SystemUnit() {
  return std::string(TQ_BIN_DIR) + "/systemd/tqd.service";
}
std::string UserUnit() {
  return std::string(TQ_BIN_DIR) + "/systemd-user/tqd.service";
}

// The man pages of the source tree (this file is tests/integration/ in it).
std::string SourceManDir() {
  return (std::filesystem::path(__FILE__).parent_path().parent_path().parent_path() / "man")
      .string();
}

// The first executable `name` on $PATH (or in the usual system directories); "" when none.
std::string FindProgram(const std::string& name) {
  const char* env = std::getenv("PATH");
  std::string path = env != nullptr ? env : "";
  path += ":/usr/bin:/bin:/usr/sbin:/sbin";
  std::istringstream dirs(path);
  for (std::string dir; std::getline(dirs, dir, ':');) {
    if (dir.empty()) continue;
    const std::string candidate = dir + "/" + name;
    if (access(candidate.c_str(), X_OK) == 0) return candidate;
  }
  return "";
}

// The unit's settings: its lines without comments and blank lines, trimmed.
std::vector<std::string> Settings(const std::string& unit_text) {
  std::vector<std::string> out;
  std::istringstream in(unit_text);
  for (std::string line; std::getline(in, line);) {
    const size_t begin = line.find_first_not_of(" \t");
    if (begin == std::string::npos || line[begin] == '#' || line[begin] == ';') continue;
    const size_t end = line.find_last_not_of(" \t\r");
    out.push_back(line.substr(begin, end - begin + 1));
  }
  return out;
}

bool HasSetting(const std::vector<std::string>& settings, const std::string& line) {
  for (const std::string& s : settings)
    if (s == line) return true;
  return false;
}

bool HasKey(const std::vector<std::string>& settings, const std::string& key) {
  for (const std::string& s : settings)
    if (s.rfind(key + "=", 0) == 0) return true;
  return false;
}

// The settings every unit of tqd must keep, whatever else changes.
void CheckEssentials(const std::string& path, const std::string& wanted_by) {
  CAPTURE(path);
  const std::string text = ReadFile(path);
  REQUIRE_MESSAGE(!text.empty(), "no configured unit at " << path);
  CHECK_MESSAGE(text.find('@') == std::string::npos, "a placeholder was not configured");
  const std::vector<std::string> settings = Settings(text);
  CHECK(HasSetting(settings, "Type=notify"));
  // Without it a stop or restart of tqd would kill every running task.
  CHECK(HasSetting(settings, "KillMode=process"));
  CHECK(HasSetting(settings, "Delegate=yes"));
  CHECK(HasSetting(settings, "Restart=on-failure"));
  CHECK(HasSetting(settings, "RestartPreventExitStatus=78"));
  CHECK(HasSetting(settings, "ExecReload=/bin/kill -HUP $MAINPID"));
  CHECK(HasSetting(settings, "WantedBy=" + wanted_by));
  CHECK(HasKey(settings, "WatchdogSec"));
  // A restarted tqd must see the same /tmp as the tasks it re-attaches to.
  CHECK_FALSE(HasKey(settings, "PrivateTmp"));
}

// A copy of the configured unit in `dir`, named tqd.service, whose ExecStart runs the tqd of
// this build (the configured bindir's tqd is not installed where the tests run): verify
// checks that the program exists.
void CopyForVerify(const std::string& unit, const std::string& dir) {
  REQUIRE(mkdir(dir.c_str(), 0755) == 0);
  std::istringstream in(ReadFile(unit));
  std::string out;
  int exec_starts = 0;
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("ExecStart=", 0) == 0) {
      ++exec_starts;
      const std::string configured = line.substr(std::string("ExecStart=").size());
      CAPTURE(configured);
      REQUIRE(configured.size() > 4);
      CHECK(configured.front() == '/');
      CHECK(configured.compare(configured.size() - 4, 4, "/tqd") == 0);
      line = "ExecStart=" + BinPath("tqd");
    }
    out += line + "\n";
  }
  CHECK(exec_starts == 1);
  WriteFile(dir + "/tqd.service", out);
}

// A man directory with the source tree's pages in their sections, for the Documentation=
// lines that verify looks up with man(1).
void ManDir(const std::string& dir) {
  REQUIRE(mkdir(dir.c_str(), 0755) == 0);
  for (const auto& [page, section] : std::vector<std::pair<std::string, std::string>>{
           {"tq.1", "man1"}, {"tqd.toml.5", "man5"}, {"tq-jobs.5", "man5"}, {"tqd.8", "man8"}}) {
    const std::string text = ReadFile(SourceManDir() + "/" + page);
    REQUIRE_MESSAGE(!text.empty(), "no man page " << SourceManDir() << "/" << page);
    mkdir((dir + "/" + section).c_str(), 0755);  // already there for the second page of 5
    WriteFile(dir + "/" + section + "/" + page, text);
  }
}

// Runs `systemd-analyze [--user] verify UNIT` and checks that it succeeds and says nothing
// about the unit. It may report on other units of the host; only lines naming ours count.
void Verify(const std::string& analyze, const std::string& unit, bool user,
            const std::string& scratch) {
  std::vector<std::string> argv = {analyze};
  if (user) argv.push_back("--user");
  argv.push_back("verify");
  // Documentation=man:... is checked with man(1); without it there is nothing to check with.
  if (FindProgram("man").empty()) argv.push_back("--man=no");
  argv.push_back(unit);
  // A user manager's verify needs a runtime directory; one of the test's own, so it works the
  // same with or without a user session (and never touches a real one).
  const std::string runtime = scratch + "/runtime";
  mkdir(runtime.c_str(), 0700);
  Process p(argv, {"MANPATH=" + scratch + "/man", "XDG_RUNTIME_DIR=" + runtime,
                   "SYSTEMD_LOG_COLOR=0", "SYSTEMD_PAGER=cat"});
  const RunResult r = p.Finish();
  INFO("systemd-analyze" << (user ? " --user" : "") << " verify " << unit << ":\n"
                         << r.out << r.err);
  CHECK(r.exit_code == 0);
  std::istringstream lines(r.out + "\n" + r.err);
  for (std::string line; std::getline(lines, line);) {
    CAPTURE(line);
    CHECK(line.find("tqd") == std::string::npos);  // tqd.service, its path, or the tqd it runs
  }
}

}  // namespace

TEST_CASE("the configured systemd units keep what running tasks depend on") {
  CheckEssentials(SystemUnit(), "multi-user.target");
  CheckEssentials(UserUnit(), "default.target");
  // Ordered as Debian's cron.service: network file systems and the name service first.
  const std::vector<std::string> system = Settings(ReadFile(SystemUnit()));
  CHECK(HasSetting(system, "After=remote-fs.target nss-user-lookup.target"));
}

TEST_CASE("systemd-analyze verify finds nothing to say about the units") {
  const std::string analyze = FindProgram("systemd-analyze");
  if (analyze.empty()) TQ_SKIP("systemd-analyze is not installed");
  tq::TempDir tmp("units");
  const std::string dir = tmp.path.string();
  ManDir(dir + "/man");
  CopyForVerify(SystemUnit(), dir + "/system");
  CopyForVerify(UserUnit(), dir + "/user");
  SUBCASE("the system unit") {
    Verify(analyze, dir + "/system/tqd.service", false, dir);
  }
  // The user unit as a user's service manager loads it: `--user` needs no running user
  // manager, only a runtime directory, which Verify provides.
  SUBCASE("the user unit") {
    Verify(analyze, dir + "/user/tqd.service", true, dir);
  }
}
