#include "core/config/paths.h"

#include <limits.h>
#include <pwd.h>
#include <unistd.h>

#include <cstdlib>

namespace tq {

namespace {
// The system daemon's locations follow the FHS: runtime data under /run (a tmpfs, emptied at
// boot, as a stale socket should be), persistent state under /var/lib, config under /etc.
constexpr const char* kSystemSocket = "/run/tq/tq.sock";
constexpr const char* kSystemStateDir = "/var/lib/tq";
constexpr const char* kSystemConfig = "/etc/tq/tqd.toml";
// Job files are config a sysadmin edits, next to tqd.toml, as /etc/cron.d is next to crontab.
constexpr const char* kSystemJobsDir = "/etc/tq/jobs.d";

// An environment variable when it is set to an absolute path; the XDG base directory spec says
// relative values are invalid and must be ignored.
const char* AbsoluteEnv(const char* name) {
  const char* v = std::getenv(name);
  return (v != nullptr && v[0] == '/') ? v : nullptr;
}

// The per-user fallback directory when there is no XDG_RUNTIME_DIR: private to the uid; the
// daemon creates it 0700 and checks its owner, since /tmp is shared.
std::string TmpUserDir() {
  return "/tmp/tq-" + std::to_string(getuid());
}
}  // namespace

Mode ModeForUid(uid_t uid) {
  return uid == 0 ? Mode::kSystem : Mode::kUser;
}

std::string HomeDir() {
  if (const char* home = AbsoluteEnv("HOME")) return home;
  // No usable $HOME (cron-like or stripped environments): ask the password database.
  long size = sysconf(_SC_GETPW_R_SIZE_MAX);
  std::string buf(size > 0 ? static_cast<size_t>(size) : 16384, '\0');
  passwd pw{};
  passwd* found = nullptr;
  if (getpwuid_r(getuid(), &pw, buf.data(), buf.size(), &found) == 0 && found != nullptr &&
      found->pw_dir != nullptr && found->pw_dir[0] == '/') {
    return found->pw_dir;
  }
  // No home at all: the same private directory the socket falls back to, never a relative path.
  return TmpUserDir();
}

std::string SystemSocketPath() {
  return kSystemSocket;
}

std::string HelperPath(const std::string& name, const std::string& installed) {
  char self[PATH_MAX];
  const ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
  if (n > 0) {
    std::string dir(self, static_cast<size_t>(n));
    dir = dir.substr(0, dir.rfind('/'));
    const std::string beside = dir + "/" + name;
    if (access(beside.c_str(), X_OK) == 0) return beside;
  }
  return installed;
}

std::string UserSocketPath() {
  // XDG_RUNTIME_DIR is per-user, 0700, and removed at logout: the right home for a socket.
  if (const char* run = AbsoluteEnv("XDG_RUNTIME_DIR")) return std::string(run) + "/tq/tq.sock";
  return TmpUserDir() + "/tq.sock";
}

DaemonPaths DefaultDaemonPaths(Mode mode) {
  if (mode == Mode::kSystem) return {kSystemSocket, kSystemStateDir, kSystemConfig, kSystemJobsDir};
  DaemonPaths p;
  p.socket = UserSocketPath();
  // State (the database, task output) is neither config nor cache: XDG_STATE_HOME.
  const char* state = AbsoluteEnv("XDG_STATE_HOME");
  p.state_dir = (state != nullptr ? std::string(state) : HomeDir() + "/.local/state") + "/tq";
  // Config a user edits by hand: XDG_CONFIG_HOME, next to the jobs.d of SPEC 7.
  const char* config = AbsoluteEnv("XDG_CONFIG_HOME");
  const std::string config_dir =
      (config != nullptr ? std::string(config) : HomeDir() + "/.config") + "/tq";
  p.config_file = config_dir + "/tqd.toml";
  p.jobs_dir = config_dir + "/jobs.d";
  return p;
}

std::vector<std::string> ClientSocketCandidates() {
  // An explicit $TQ_SOCKET is the only answer: falling back elsewhere would silently talk to
  // a different daemon than the one asked for.
  const char* env = std::getenv("TQ_SOCKET");
  if (env != nullptr && env[0] != '\0') return {env};
  // The user's own daemon first: a user who runs one wants their tasks there.
  return {UserSocketPath(), SystemSocketPath()};
}

}  // namespace tq
