#include "support/temp_user.h"

#include <grp.h>
#include <pwd.h>
#include <unistd.h>

#include <doctest/doctest.h>

#include <atomic>
#include <filesystem>
#include <fstream>

namespace tqtest {

namespace {
// Every name made here starts so, followed by the pid of the test process that made it.
constexpr const char* kPrefix = "tqt";
constexpr double kAdminTimeoutS = 60;

// Runs an account tool; several tests may hold the password database's lock at once, so a
// failure is tried again a few times before it fails the test.
void Admin(const std::vector<std::string>& argv) {
  RunResult r;
  for (int i = 0; i < 20; ++i) {
    r = Process(argv, {}).Finish(kAdminTimeoutS);
    if (r.exit_code == 0) return;
    usleep(100000 * (i + 1));
  }
  FAIL_CHECK(argv[0] << " " << argv.back() << " failed (" << r.exit_code << "): " << r.err);
}

// Removes what a test process that died (its pid is in the name and gone) left behind.
void RemoveOrphans() {
  std::ifstream passwd("/etc/passwd"), group("/etc/group");
  const auto orphan = [](const std::string& line) {
    if (line.rfind(kPrefix, 0) != 0) return std::string();
    const std::string name = line.substr(0, line.find(':'));
    const std::string pid = name.substr(3, name.find('x') - 3);
    return std::filesystem::exists("/proc/" + pid) ? std::string() : name;
  };
  std::vector<std::string> users, groups;
  for (std::string line; std::getline(passwd, line);)
    if (std::string n = orphan(line); !n.empty()) users.push_back(n);
  for (std::string line; std::getline(group, line);)
    if (std::string n = orphan(line); !n.empty()) groups.push_back(n);
  for (const auto& n : users) Process({"/usr/sbin/userdel", n}, {}).Finish(kAdminTimeoutS);
  for (const auto& n : groups) Process({"/usr/sbin/groupdel", n}, {}).Finish(kAdminTimeoutS);
}

// A name no other test process uses: tqt<pid>x<n>.
std::string NewName() {
  static std::atomic<int> next{0};
  static const bool cleaned = (RemoveOrphans(), true);
  (void)cleaned;
  return std::string(kPrefix) + std::to_string(getpid()) + "x" + std::to_string(next++);
}
}  // namespace

bool CanMakeUsers() {
  return geteuid() == 0 && access("/usr/sbin/useradd", X_OK) == 0;
}

TempGroup::TempGroup() : name_(NewName()) {
  Admin({"/usr/sbin/groupadd", name_});
  const group* g = getgrnam(name_.c_str());
  REQUIRE_MESSAGE(g != nullptr, "groupadd made no group " << name_);
  gid_ = g->gr_gid;
}

TempGroup::~TempGroup() {
  Admin({"/usr/sbin/groupdel", name_});
}

TempUser::TempUser(const std::string& home, const std::vector<std::string>& groups)
    : name_(NewName()) {
  std::vector<std::string> argv = {
      "/usr/sbin/useradd", "--no-create-home", "--user-group", "--home-dir", home,
      "--shell",           "/bin/sh"};
  if (!groups.empty()) {
    std::string list;
    for (const auto& g : groups) list += (list.empty() ? "" : ",") + g;
    argv.insert(argv.end(), {"--groups", list});
  }
  argv.push_back(name_);
  Admin(argv);
  const passwd* pw = getpwnam(name_.c_str());
  REQUIRE_MESSAGE(pw != nullptr, "useradd made no user " << name_);
  uid_ = pw->pw_uid;
  gid_ = pw->pw_gid;
}

void TempUser::Delete() {
  if (!deleted_) Admin({"/usr/sbin/userdel", name_});
  deleted_ = true;
}

TempUser::~TempUser() {
  Delete();
}

RunResult TrySubmitAs(const TestDaemon& d, const TempUser& who,
                      const std::vector<std::string>& args,
                      const std::vector<std::string>& extra_env, const std::string& stdin_data) {
  std::vector<std::string> full = {"submit"};
  full.insert(full.end(), args.begin(), args.end());
  return TqAs(d, who.run_as(), full, extra_env, stdin_data);
}

std::string SubmitAs(const TestDaemon& d, const TempUser& who, const std::vector<std::string>& args,
                     const std::vector<std::string>& extra_env) {
  const RunResult r = TrySubmitAs(d, who, args, extra_env);
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  return r.out.substr(0, r.out.find('\n'));
}

}  // namespace tqtest
