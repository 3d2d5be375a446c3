#include "core/config/paths.h"

#include <doctest/doctest.h>
#include <pwd.h>
#include <unistd.h>

#include <cstdlib>
#include <optional>
#include <string>
#include <vector>

namespace tq {
namespace {

// Sets or unsets environment variables for one test; restores them all on destruction.
class EnvGuard {
 public:
  EnvGuard() = default;
  EnvGuard(const EnvGuard&) = delete;
  EnvGuard& operator=(const EnvGuard&) = delete;
  ~EnvGuard() {
    for (auto it = saved_.rbegin(); it != saved_.rend(); ++it) {
      if (it->second) {
        setenv(it->first.c_str(), it->second->c_str(), 1);
      } else {
        unsetenv(it->first.c_str());
      }
    }
  }
  void Set(const char* name, const char* value) {
    Save(name);
    setenv(name, value, 1);
  }
  void Unset(const char* name) {
    Save(name);
    unsetenv(name);
  }

 private:
  void Save(const char* name) {
    const char* v = std::getenv(name);
    saved_.emplace_back(name, v ? std::optional<std::string>(v) : std::nullopt);
  }
  std::vector<std::pair<std::string, std::optional<std::string>>> saved_;
};

std::string Uid() {
  return std::to_string(getuid());
}

TEST_CASE("ModeForUid: root runs the system daemon") {
  CHECK(ModeForUid(0) == Mode::kSystem);
  CHECK(ModeForUid(1000) == Mode::kUser);
  CHECK(ModeForUid(65534) == Mode::kUser);
}

TEST_CASE("system paths are fixed") {
  EnvGuard env;
  env.Set("XDG_RUNTIME_DIR", "/run/user/1000");
  env.Set("HOME", "/home/someone");
  DaemonPaths p = DefaultDaemonPaths(Mode::kSystem);
  CHECK(p.socket == "/run/tq/tq.sock");
  CHECK(p.state_dir == "/var/lib/tq");
  CHECK(p.config_file == "/etc/tq/tqd.toml");
  CHECK(p.jobs_dir == "/etc/tq/jobs.d");
  CHECK(SystemSocketPath() == "/run/tq/tq.sock");
}

TEST_CASE("user paths follow XDG variables") {
  EnvGuard env;
  env.Set("XDG_RUNTIME_DIR", "/run/user/1000");
  env.Set("XDG_STATE_HOME", "/srv/state");
  env.Set("XDG_CONFIG_HOME", "/srv/config");
  env.Set("HOME", "/home/someone");
  DaemonPaths p = DefaultDaemonPaths(Mode::kUser);
  CHECK(p.socket == "/run/user/1000/tq/tq.sock");
  CHECK(p.state_dir == "/srv/state/tq");
  CHECK(p.config_file == "/srv/config/tq/tqd.toml");
  CHECK(p.jobs_dir == "/srv/config/tq/jobs.d");
  CHECK(UserSocketPath() == "/run/user/1000/tq/tq.sock");
}

TEST_CASE("user paths without XDG variables fall back to HOME and /tmp") {
  EnvGuard env;
  env.Unset("XDG_RUNTIME_DIR");
  env.Unset("XDG_STATE_HOME");
  env.Unset("XDG_CONFIG_HOME");
  env.Set("HOME", "/home/someone");
  DaemonPaths p = DefaultDaemonPaths(Mode::kUser);
  CHECK(p.socket == "/tmp/tq-" + Uid() + "/tq.sock");
  CHECK(p.state_dir == "/home/someone/.local/state/tq");
  CHECK(p.config_file == "/home/someone/.config/tq/tqd.toml");
  CHECK(p.jobs_dir == "/home/someone/.config/tq/jobs.d");
}

TEST_CASE("empty or relative XDG variables are ignored") {
  EnvGuard env;
  env.Set("XDG_RUNTIME_DIR", "");
  env.Set("XDG_STATE_HOME", "relative/state");
  env.Set("XDG_CONFIG_HOME", "");
  env.Set("HOME", "/home/someone");
  DaemonPaths p = DefaultDaemonPaths(Mode::kUser);
  CHECK(p.socket == "/tmp/tq-" + Uid() + "/tq.sock");
  CHECK(p.state_dir == "/home/someone/.local/state/tq");
  CHECK(p.config_file == "/home/someone/.config/tq/tqd.toml");
  CHECK(p.jobs_dir == "/home/someone/.config/tq/jobs.d");
}

TEST_CASE("HOME comes from the password database when unset") {
  EnvGuard env;
  env.Unset("HOME");
  std::string home = HomeDir();
  CHECK(home[0] == '/');
  passwd* pw = getpwuid(getuid());
  if (pw != nullptr && pw->pw_dir != nullptr && pw->pw_dir[0] == '/') CHECK(home == pw->pw_dir);
}

TEST_CASE("ClientSocketCandidates: TQ_SOCKET alone, else user then system") {
  EnvGuard env;
  env.Set("XDG_RUNTIME_DIR", "/run/user/1000");
  env.Set("TQ_SOCKET", "/srv/tq/custom.sock");
  CHECK(ClientSocketCandidates() == std::vector<std::string>{"/srv/tq/custom.sock"});

  env.Set("TQ_SOCKET", "");
  CHECK(ClientSocketCandidates() ==
        std::vector<std::string>{"/run/user/1000/tq/tq.sock", "/run/tq/tq.sock"});

  env.Unset("TQ_SOCKET");
  env.Unset("XDG_RUNTIME_DIR");
  CHECK(ClientSocketCandidates() ==
        std::vector<std::string>{"/tmp/tq-" + Uid() + "/tq.sock", "/run/tq/tq.sock"});
}

}  // namespace
}  // namespace tq
