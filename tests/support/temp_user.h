// Throwaway users and groups for the tests of the system daemon (SPEC 8): made with useradd and
// groupadd for one test, removed with userdel and groupdel after it. Root only.
#pragma once

#include <sys/types.h>

#include <string>
#include <vector>

#include "support/test_daemon.h"

namespace tqtest {

/// True when this process may make users: it is root and useradd is installed.
bool CanMakeUsers();

/// A group of its own for one test; groupdel on destruction.
class TempGroup {
 public:
  TempGroup();
  ~TempGroup();
  TempGroup(const TempGroup&) = delete;
  TempGroup& operator=(const TempGroup&) = delete;

  const std::string& name() const { return name_; }
  gid_t gid() const { return gid_; }

 private:
  std::string name_;
  gid_t gid_ = 0;
};

/// A user with a group of its own name, home `home` (not created), shell /bin/sh, and member of
/// `groups` as well; userdel on destruction (unless Delete ran first).
class TempUser {
 public:
  explicit TempUser(const std::string& home = "/nonexistent",
                    const std::vector<std::string>& groups = {});
  ~TempUser();
  TempUser(const TempUser&) = delete;
  TempUser& operator=(const TempUser&) = delete;

  const std::string& name() const { return name_; }
  uid_t uid() const { return uid_; }
  gid_t gid() const { return gid_; }
  /// Whom TqAs runs as to be this user.
  RunAs run_as() const { return RunAs{uid_, gid_}; }
  /// userdel now, as an administrator removing the account while its tasks wait.
  void Delete();

 private:
  std::string name_;
  uid_t uid_ = 0;
  gid_t gid_ = 0;
  bool deleted_ = false;
};

/// `tq submit ARGS` run as `who` (TqAs), with `extra_env` and `stdin_data`.
RunResult TrySubmitAs(const TestDaemon& d, const TempUser& who,
                      const std::vector<std::string>& args,
                      const std::vector<std::string>& extra_env = {},
                      const std::string& stdin_data = "");
/// The id `tq submit ARGS` printed as `who`; REQUIREs success.
std::string SubmitAs(const TestDaemon& d, const TempUser& who, const std::vector<std::string>& args,
                     const std::vector<std::string>& extra_env = {});

}  // namespace tqtest
