#include "daemon/cron/job_dir.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "core/jobs/job_file.h"
#include "core/model/bytes.h"
#include "core/model/quote.h"

namespace tq {

namespace {

bool IsJobFileName(const std::string& name) {
  constexpr std::string_view kSuffix = ".toml";
  return name.size() > kSuffix.size() && name[0] != '.' &&
         name.compare(name.size() - kSuffix.size(), kSuffix.size(), kSuffix) == 0;
}

JobLoadError FileError(const std::string& path, const std::string& reason) {
  return JobLoadError{path, 0, path + ": " + reason};
}

// Reads the whole file at `path`, or says why it is not a usable job file.
JobFileRead ReadOne(const std::string& path, bool strict_owner) {
  JobFileRead out;
  out.path = path;
  // O_NONBLOCK: opening a FIFO must not wait for a writer; reading a regular file ignores it.
  const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
  if (fd < 0) {
    out.error = FileError(path, std::string("cannot open: ") + strerror(errno));
    return out;
  }
  struct stat st {};
  if (fstat(fd, &st) != 0) {
    out.error = FileError(path, std::string("cannot stat: ") + strerror(errno));
  } else if (!S_ISREG(st.st_mode)) {
    out.error = FileError(path, "not a regular file (a job file must be one)");
  } else if (strict_owner && st.st_uid != 0) {
    out.error = FileError(path, "belongs to uid " + std::to_string(st.st_uid) +
                                    " (the system daemon reads only files owned by root)");
  } else if (strict_owner && (st.st_mode & (S_IWGRP | S_IWOTH)) != 0) {
    out.error = FileError(path,
                          "is writable by its group or others (the system daemon reads "
                          "only files no one but root may change: chmod go-w)");
  } else {
    char buf[65536];
    for (;;) {
      const ssize_t n = read(fd, buf, sizeof buf);
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) {
        out.error = FileError(path, std::string("cannot read: ") + strerror(errno));
        break;
      }
      if (n == 0) break;
      out.text.append(buf, static_cast<size_t>(n));
      if (out.text.size() > kMaxJobFileBytes) {
        out.error = FileError(path, "larger than " + std::to_string(kMaxJobFileBytes) +
                                        " bytes (the most a job file may hold)");
        break;
      }
    }
  }
  close(fd);
  if (out.error) out.text.clear();
  return out;
}

}  // namespace

Result<std::vector<JobFileRead>> ReadJobDir(const std::string& dir, bool strict_owner) {
  std::vector<JobFileRead> files;
  DIR* d = opendir(dir.c_str());
  if (d == nullptr) {
    if (errno == ENOENT) return files;
    return Status(ErrorCode::kConfig, "jobs_dir",
                  "jobs_dir: cannot list " + Quote(dir) + ": " + strerror(errno));
  }
  std::vector<std::string> names;
  errno = 0;
  while (const dirent* e = readdir(d)) {
    if (IsJobFileName(e->d_name)) names.emplace_back(e->d_name);
    errno = 0;
  }
  const int list_errno = errno;
  closedir(d);
  if (list_errno != 0)
    return Status(ErrorCode::kConfig, "jobs_dir",
                  "jobs_dir: cannot list " + Quote(dir) + ": " + strerror(list_errno));
  std::sort(names.begin(), names.end());
  const std::string prefix = !dir.empty() && dir.back() == '/' ? dir : dir + "/";
  for (const std::string& name : names) {
    const std::string path = prefix + name;
    if (!IsValidUtf8(path)) {
      // Its name goes into replies and logs as text: name it escaped and leave it unread.
      const std::string shown = Quote(path);
      files.push_back({shown, "", FileError(shown, "the file name is not UTF-8 (rename it)"), ""});
      continue;
    }
    files.push_back(ReadOne(path, strict_owner));
  }
  return files;
}

Result<std::vector<JobFileRead>> ReadJobFileIfAny(const std::string& path, bool strict_owner) {
  struct stat st {};
  if (lstat(path.c_str(), &st) != 0 && errno == ENOENT) return std::vector<JobFileRead>{};
  return std::vector<JobFileRead>{ReadOne(path, strict_owner)};
}

}  // namespace tq
