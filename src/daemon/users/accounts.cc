#include "daemon/users/accounts.h"

#include <grp.h>
#include <pwd.h>

#include <cerrno>
#include <cstring>
#include <vector>

#include "core/model/quote.h"

namespace tq {

namespace {
// Entries larger than this (a group database gone wrong) are refused rather than chased.
constexpr size_t kMaxEntryBytes = 1 << 20;
constexpr int kMaxGroups = 65536;

PasswdLookup passwd_lookup = getpwnam_r;

// Looks up `name` into `pw` (strings in `buf`, grown as needed); getpwnam_r's result: 0 with
// `found` null when there is no such account (ENOENT and ESRCH say the same).
int LookUp(const std::string& name, passwd& pw, std::vector<char>& buf, passwd*& found) {
  buf.resize(16384);
  int rc = 0;
  while ((rc = passwd_lookup(name.c_str(), &pw, buf.data(), buf.size(), &found)) == ERANGE &&
         buf.size() < kMaxEntryBytes)
    buf.resize(buf.size() * 2);
  if (rc == ENOENT || rc == ESRCH) {
    found = nullptr;
    return 0;
  }
  return rc;
}
}  // namespace

void SetPasswdLookup(PasswdLookup lookup) {
  passwd_lookup = lookup != nullptr ? lookup : getpwnam_r;
}

Result<std::optional<Owner>> OwnerNamed(const std::string& name) {
  std::vector<char> buf;
  passwd pw{};
  passwd* found = nullptr;
  if (const int rc = LookUp(name, pw, buf, found); rc != 0)
    return Status::Internal("cannot look up the account " + Quote(name) + ": " + strerror(rc));
  if (!found) return std::optional<Owner>();
  return std::optional<Owner>(Owner{pw.pw_uid, pw.pw_gid, pw.pw_name});
}

std::vector<uint32_t> GroupsOf(const std::string& name, uint32_t gid) {
  std::vector<gid_t> groups(32);
  for (;;) {
    int n = static_cast<int>(groups.size());
    if (getgrouplist(name.c_str(), gid, groups.data(), &n) >= 0) {
      groups.resize(static_cast<size_t>(n));
      return {groups.begin(), groups.end()};
    }
    // -1 with n set to the count needed; n not grown means the lookup failed.
    if (n <= static_cast<int>(groups.size()) || n > kMaxGroups) return {};
    groups.resize(static_cast<size_t>(n));
  }
}

Result<Account> AccountOf(const Owner& owner) {
  const std::string who = Quote(owner.name) + " (uid " + std::to_string(owner.uid) + ")";
  std::vector<char> buf;
  passwd pw{};
  passwd* found = nullptr;
  if (const int rc = LookUp(owner.name, pw, buf, found); rc == ERANGE)
    return Status::Invalid("account", "the password database entry of " + who + " is larger than " +
                                          std::to_string(kMaxEntryBytes >> 10) + " KiB");
  else if (rc != 0)
    return Status::Internal("cannot look up the account " + who + ": " + strerror(rc));
  if (!found) return Status::NotFound("the account " + who + " no longer exists");
  if (pw.pw_uid != owner.uid)
    return Status::NotFound("the account " + Quote(owner.name) + " is uid " +
                            std::to_string(pw.pw_uid) + " now, not uid " +
                            std::to_string(owner.uid) + " as when the task was submitted");
  Account a;
  a.uid = pw.pw_uid;
  a.gid = pw.pw_gid;
  a.name = pw.pw_name;
  a.home = pw.pw_dir != nullptr && pw.pw_dir[0] == '/' ? pw.pw_dir : "/";
  a.shell = pw.pw_shell != nullptr && pw.pw_shell[0] != '\0' ? pw.pw_shell : "/bin/sh";
  a.groups = GroupsOf(pw.pw_name, pw.pw_gid);
  if (a.groups.empty()) return Status::Internal("cannot look up the groups of the account " + who);
  return a;
}

}  // namespace tq
