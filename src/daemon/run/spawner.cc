#include "daemon/run/spawner.h"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "daemon/shim/shim_record.h"

namespace tq {

int SpawnAsShim(int exec_fd, char* const argv[], const std::vector<int>& fds, pid_t* pid) {
  // The kernel resolves /proc/self/fd/N before it closes close-on-exec descriptors, so the
  // descriptor can stay close-on-exec and no task inherits it.
  const std::string exec_path = "/proc/self/fd/" + std::to_string(exec_fd);
  char* no_env[] = {nullptr};  // the shim runs as root: nothing of a submitter's acts on it
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0);
  // dup2 clears close-on-exec on the copy (glibc does so even when the numbers are equal).
  for (size_t i = 0; i < fds.size(); ++i)
    posix_spawn_file_actions_adddup2(&actions, fds[i], 3 + static_cast<int>(i));
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  sigset_t none;
  sigemptyset(&none);
  sigset_t all;
  sigfillset(&all);
  posix_spawnattr_setsigmask(&attr, &none);
  posix_spawnattr_setsigdefault(&attr, &all);
  // A session of its own: a terminal's ^C or hang-up aimed at tqd never reaches the tasks.
  posix_spawnattr_setflags(&attr,
                           POSIX_SPAWN_SETSID | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
  const int rc = posix_spawn(pid, exec_path.c_str(), &actions, &attr, argv, no_env);
  posix_spawnattr_destroy(&attr);
  posix_spawn_file_actions_destroy(&actions);
  return rc;
}

std::string ShimSpawner::Open(const std::string& path, int& fd) const {
  fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return "cannot open " + path + ": " + strerror(errno);
  if (faccessat(fd, "", X_OK, AT_EMPTY_PATH) != 0 && access(path.c_str(), X_OK) != 0)
    return path + " is not executable";
  return "";
}

ShimSpawner::ShimSpawner(const std::string& shim_path) {
  std::string why = Open(shim_path, fd_);
  const std::string pam_path = shim_path + "-pam";
  if (why.empty() && access(pam_path.c_str(), F_OK) == 0) why = Open(pam_path, pam_fd_);
  if (!why.empty()) status_ = Status(ErrorCode::kConfig, "shim", "shim: " + why);
  if (fd_ >= 0) fork_server_ = std::make_unique<ForkServer>(fd_);
}

ShimSpawner::~ShimSpawner() {
  fork_server_.reset();
  if (fd_ >= 0) close(fd_);
  if (pam_fd_ >= 0) close(pam_fd_);
}

Result<int> ShimSpawner::Spawn(const std::vector<std::string>& args, int status_fd, int env_fd,
                               bool pam) {
  // A PAM session needs the shim that loads libpam: that one tqd starts itself.
  if (!pam && fork_server_ != nullptr) {
    if (const pid_t pid = fork_server_->Make(args, status_fd, env_fd); pid > 0) return pid;
  }
  std::vector<char*> argv;
  argv.push_back(const_cast<char*>("tq-shim"));
  for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  // The status descriptor lands on 3 first: an env_fd that is 3 is moved out of its way.
  int env_copy = -1;
  if (env_fd == TQ_SHIM_STATUS_FD) {
    env_copy = fcntl(env_fd, F_DUPFD_CLOEXEC, TQ_SHIM_ENV_FD + 1);
    if (env_copy < 0)
      return Status::Internal(std::string("cannot start the shim: ") + strerror(errno));
    env_fd = env_copy;
  }
  pid_t pid = 0;
  const int rc =
      SpawnAsShim(pam && pam_fd_ >= 0 ? pam_fd_ : fd_, argv.data(), {status_fd, env_fd}, &pid);
  if (env_copy >= 0) close(env_copy);
  if (rc != 0) return Status::Internal(std::string("cannot start the shim: ") + strerror(rc));
  return static_cast<int>(pid);
}

}  // namespace tq
