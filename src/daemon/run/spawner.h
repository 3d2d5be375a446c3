// The process-start seam under the Executor: it starts every task's supervisor through a
// Spawner, and production starts the shim it opened at start-up. (Daemon tests replace the whole
// Executor with a fake Runner, runner.h, and start no process at all.)
#pragma once

#include <sys/types.h>

#include <memory>
#include <string>
#include <vector>

#include "core/model/status.h"
#include "daemon/run/fork_server.h"

namespace tq {

/// Starts the shim executable open on `exec_fd` with `argv` as every shim process starts: in a
/// session of its own, no signal blocked or handled, an empty environment, stdin and stdout on
/// /dev/null, stderr tqd's, and `fds[i]` as descriptor 3 + i (none of them 3 + j for j < i).
/// Returns 0 with its pid in `pid`, or posix_spawn's error number.
int SpawnAsShim(int exec_fd, char* const argv[], const std::vector<int>& fds, pid_t* pid);

/// Starts a supervisor process with exactly `args` (after the program) and an empty
/// environment: the task's reaches it on a descriptor, never as its own.
class Spawner {
 public:
  virtual ~Spawner() = default;
  /// Starts the process in a new session with stdin and stdout on /dev/null, stderr inherited,
  /// `status_fd` as its descriptor TQ_SHIM_STATUS_FD (3) and `env_fd` as TQ_SHIM_ENV_FD (4);
  /// returns its pid. `pam` says the args open a PAM session (--pam-service).
  virtual Result<int> Spawn(const std::vector<std::string>& args, int status_fd, int env_fd,
                            bool pam) = 0;
};

/// Starts the shim executable from a descriptor opened once at start-up, so replacing the file
/// on disk (an upgrade) never mixes versions in flight: made by its fork server (fork_server.h)
/// when it can, else executed. The shim is linked statically, and a
/// static program cannot load libpam: a task with a PAM session starts `<shim>-pam` instead (the
/// same shim linked dynamically), when the build has one beside it.
class ShimSpawner : public Spawner {
 public:
  /// Opens `shim_path`, and `shim_path`-pam when it exists; check ok() before use.
  explicit ShimSpawner(const std::string& shim_path);
  ~ShimSpawner() override;
  ShimSpawner(const ShimSpawner&) = delete;
  ShimSpawner& operator=(const ShimSpawner&) = delete;

  /// Why the shim could not be opened, or ok.
  const Status& status() const { return status_; }
  Result<int> Spawn(const std::vector<std::string>& args, int status_fd, int env_fd,
                    bool pam) override;

 private:
  /// Opens `path` as an executable; an empty string, or why not.
  std::string Open(const std::string& path, int& fd) const;

  int fd_ = -1;
  int pam_fd_ = -1;  ///< the -pam build, or -1 when the one shim opens PAM sessions itself
  std::unique_ptr<ForkServer> fork_server_;  ///< of fd_'s shim; null when it could not be opened
  Status status_;
};

}  // namespace tq
