// AccountWarnings (config.h): the user and group names of tqd.toml looked up on this host.
#include <grp.h>
#include <pwd.h>

#include <cerrno>
#include <vector>

#include "core/config/config.h"
#include "core/model/quote.h"

namespace tq {

namespace {

// The largest buffer an entry is looked up with: a group of some thousand members fits.
constexpr size_t kMaxEntryBytes = size_t{1} << 24;

// Whether the user (or, when `group`, the group) `name` is known not to exist: the lookup
// answered with no entry. A lookup that fails is not taken as an answer.
bool KnownMissing(const std::string& name, bool group) {
  for (size_t size = 16384; size <= kMaxEntryBytes; size *= 4) {
    std::vector<char> buf(size);
    int rc;
    bool found;
    if (group) {
      struct group entry {};
      struct group* result = nullptr;
      rc = getgrnam_r(name.c_str(), &entry, buf.data(), buf.size(), &result);
      found = result != nullptr;
    } else {
      passwd entry{};
      passwd* result = nullptr;
      rc = getpwnam_r(name.c_str(), &entry, buf.data(), buf.size(), &result);
      found = result != nullptr;
    }
    if (found) return false;
    if (rc != ERANGE) return rc == 0 || rc == ENOENT || rc == ESRCH;
  }
  return false;
}

}  // namespace

std::vector<std::string> AccountWarnings(const Config& config, const std::string& source) {
  std::vector<std::string> warnings;
  for (const AccountMention& m : config.accounts) {
    if (!KnownMissing(m.name, m.group)) continue;
    const char* kind = m.group ? "group" : "user";
    warnings.push_back(source + ":" + std::to_string(m.line) + ": " + m.key + ": no " + kind + " " +
                       Quote(m.name) + " exists (a misspelling? tqd uses the name as " +
                       "given, so it takes effect once the " + kind + " is created)");
  }
  return warnings;
}

}  // namespace tq
