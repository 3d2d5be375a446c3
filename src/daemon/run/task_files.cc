#include "daemon/run/task_files.h"

#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <map>
#include <set>

#include "daemon/host/context_dirs.h"
#include "daemon/host/private_files.h"

namespace tq {

namespace {

// True when `dir` exists and holds at least one entry.
bool HoldsEntries(const std::string& dir) {
  DIR* d = opendir(dir.c_str());
  if (d == nullptr) return false;
  bool any = false;
  for (struct dirent* e; !any && (e = readdir(d)) != nullptr;)
    any = std::strcmp(e->d_name, ".") != 0 && std::strcmp(e->d_name, "..") != 0;
  closedir(d);
  return any;
}

// The task id a file of attempts/ is named after (the digits before its first '.'), or 0.
TaskId IdOfFile(const char* name) {
  TaskId id = 0;
  for (; *name >= '0' && *name <= '9'; ++name) id = id * 10 + static_cast<TaskId>(*name - '0');
  return *name == '.' ? id : 0;
}

}  // namespace

TaskFiles::TaskFiles(const std::string& state_dir)
    : root_(state_dir + "/attempts"),
      legacy_root_(state_dir + "/tasks"),
      contexts_(state_dir + "/contexts"),
      legacy_(HoldsEntries(legacy_root_)) {}

Status TaskFiles::Prepare() const {
  Status st = MakePrivateDir(root_);
  if (st.ok()) st = MakePrivateDir(SpareDir());
  if (st.ok() && legacy_) st = MakePrivateDir(legacy_root_);
  if (st.ok()) st = PrepareContextRoot(contexts_);
  return st;
}

Status TaskFiles::MakeDirFor(TaskId id) const {
  const std::string dir = Dir(id);
  if (mkdir(dir.c_str(), 0700) == 0 || errno == EEXIST) return Status::Ok();
  return Status(ErrorCode::kConfig, "state", "cannot create " + dir + ": " + strerror(errno));
}

std::string TaskFiles::Attempt(TaskId id, int attempt, const char* suffix) const {
  if (legacy_) {
    const std::string old = LegacyDir(id);
    struct stat st {};
    if (stat(old.c_str(), &st) == 0 && S_ISDIR(st.st_mode))
      return old + "/" + std::to_string(attempt) + suffix;
  }
  return Dir(id) + "/" + std::to_string(id) + "." + std::to_string(attempt) + suffix;
}

std::vector<TaskId> TaskFiles::Ids() const {
  std::set<TaskId> ids;
  DIR* root = opendir(root_.c_str());
  if (root == nullptr) return {};
  for (struct dirent* bucket; (bucket = readdir(root)) != nullptr;) {
    if (bucket->d_name[0] < '0' || bucket->d_name[0] > '9') continue;  // ., .., spare
    DIR* d = opendir((root_ + "/" + bucket->d_name).c_str());
    if (d == nullptr) continue;
    for (struct dirent* e; (e = readdir(d)) != nullptr;)
      if (const TaskId id = IdOfFile(e->d_name); id != 0) ids.insert(id);
    closedir(d);
  }
  closedir(root);
  return {ids.begin(), ids.end()};
}

std::vector<std::string> TaskFiles::Remove(const std::vector<TaskId>& ids) const {
  std::vector<std::string> failed;
  std::map<TaskId, std::set<TaskId>> by_dir;  // Dir number -> the ids in it
  for (TaskId id : ids) by_dir[id / kPerDir].insert(id);
  for (const auto& [number, in_dir] : by_dir) {
    const std::string dir = root_ + "/" + std::to_string(number);
    DIR* d = opendir(dir.c_str());
    if (d == nullptr && errno != ENOENT) failed.push_back(dir + ": " + strerror(errno));
    if (d == nullptr) continue;
    for (struct dirent* e; (e = readdir(d)) != nullptr;) {
      if (in_dir.count(IdOfFile(e->d_name)) == 0) continue;
      if (unlinkat(dirfd(d), e->d_name, 0) != 0 && errno != ENOENT)
        failed.push_back(dir + "/" + e->d_name + ": " + strerror(errno));
    }
    closedir(d);
    rmdir(dir.c_str());  // when that was the last of its tasks; else ENOTEMPTY
  }
  for (std::string& why : RemoveContextDirs(contexts_, ids)) failed.push_back(std::move(why));
  if (legacy_) {
    for (TaskId id : ids) {
      std::error_code ec;
      std::filesystem::remove_all(LegacyDir(id), ec);
      if (ec) failed.push_back(LegacyDir(id) + ": " + ec.message());
    }
  }
  return failed;
}

}  // namespace tq
