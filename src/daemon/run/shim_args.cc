#include "daemon/run/shim_args.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace tq {

std::vector<std::string> IdentityArgs(const std::optional<Account>& account,
                                      const std::string& pam_service, const std::string& pam_dir) {
  if (!account) return {};
  std::string groups;
  for (uint32_t g : account->groups) groups += (groups.empty() ? "" : ",") + std::to_string(g);
  std::vector<std::string> args = {"--uid",    std::to_string(account->uid),
                                   "--gid",    std::to_string(account->gid),
                                   "--groups", groups};
  if (!pam_service.empty())
    args.insert(args.end(), {"--pam-service", pam_service, "--user", account->name});
  if (!pam_service.empty() && !pam_dir.empty()) args.insert(args.end(), {"--pam-dir", pam_dir});
  return args;
}

std::vector<std::string> ResourceArgs(const Resources& res) {
  std::vector<std::string> args;
  if (res.nice) args.insert(args.end(), {"--nice", std::to_string(*res.nice)});
  if (res.ionice)
    if (auto prio = IoPriority(*res.ionice))
      args.insert(args.end(), {"--ioprio", std::to_string(*prio)});
  if (res.nofile) args.insert(args.end(), {"--limit-nofile", std::to_string(*res.nofile)});
  if (res.nproc) args.insert(args.end(), {"--limit-nproc", std::to_string(*res.nproc)});
  if (res.core) args.insert(args.end(), {"--limit-core", std::to_string(*res.core)});
  return args;
}

Result<int> EnvironmentFd(const std::vector<std::string>& env) {
  std::string text;
  for (const std::string& e : env) {
    text += e;
    text += '\0';
  }
  const int fd = memfd_create("tq-task-env", MFD_CLOEXEC);
  size_t done = 0;
  while (fd >= 0 && done < text.size()) {
    const ssize_t n = write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    done += static_cast<size_t>(n);
  }
  if (fd >= 0 && done == text.size() && lseek(fd, 0, SEEK_SET) == 0) return fd;
  const std::string why = strerror(errno);
  if (fd >= 0) close(fd);
  return Status::Internal("cannot hold the task's environment: " + why);
}

Result<int> LockedStatusRecord(const std::string& path) {
  const int fd = open(path.c_str(), O_RDWR | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0600);
  if (fd < 0) return Status::Internal("cannot create " + path + ": " + strerror(errno));
  if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
    const std::string why = strerror(errno);
    close(fd);
    return Status::Internal("cannot lock " + path + ": " + why);
  }
  return fd;
}

}  // namespace tq
