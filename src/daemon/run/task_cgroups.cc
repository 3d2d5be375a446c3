#include "daemon/run/task_cgroups.h"

#include <dirent.h>
#include <fcntl.h>
#include <linux/magic.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/xattr.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>
#include <vector>

#include "core/model/quote.h"
#include "daemon/host/log.h"

namespace tq {

namespace {

constexpr const char* kSupervisors = "supervisors";  // tqd and its shims, when tqd ran in DIR
constexpr const char* kTaskPrefix = "task-";
constexpr const char* kHookPrefix = "hook-";

// The first line of `path`, or "" when it cannot be read.
std::string ReadLine(const std::string& path) {
  std::ifstream in(path);
  std::string line;
  std::getline(in, line);
  return line;
}

// Writes `value` to the cgroup file `path`; 0, or the errno of the failure (EIO for a short
// write).
int WriteKnob(const std::string& path, const std::string& value) {
  const int fd = open(path.c_str(), O_WRONLY | O_CLOEXEC | O_NOFOLLOW);
  if (fd < 0) return errno;
  const ssize_t n = write(fd, value.data(), value.size());
  const int err = n < 0 ? errno : n == static_cast<ssize_t>(value.size()) ? 0 : EIO;
  close(fd);
  return err;
}

// Where the cgroup v2 hierarchy is mounted (from /proc/self/mountinfo); "" when it is not.
std::string Cgroup2Mount() {
  std::ifstream in("/proc/self/mountinfo");
  for (std::string line; std::getline(in, line);) {
    const size_t dash = line.find(" - ");
    if (dash == std::string::npos || line.compare(dash + 3, 8, "cgroup2 ") != 0) continue;
    std::istringstream fields(line.substr(0, dash));
    std::string id, parent, dev, root, mount_point;
    if (fields >> id >> parent >> dev >> root >> mount_point && root == "/") return mount_point;
  }
  return "";
}

// tqd's own cgroup directory ("" when it has none in the v2 hierarchy).
std::string OwnCgroup(const std::string& mount) {
  std::ifstream in("/proc/self/cgroup");
  for (std::string line; std::getline(in, line);)
    if (line.rfind("0::", 0) == 0) return line.size() > 4 ? mount + line.substr(3) : "";
  return "";
}

// True when systemd delegated `dir` (Delegate=yes marks it with this extended attribute).
bool Delegated(const std::string& dir) {
  for (const char* name : {"trusted.delegate", "user.delegate"}) {
    char value[8] = {};
    if (getxattr(dir.c_str(), name, value, sizeof value - 1) > 0 && value[0] == '1') return true;
  }
  return false;
}

// Moves every process of `dir` into dir/supervisors, so `dir` may hand controllers to the
// tasks' cgroups (a cgroup with processes of its own cannot).
Status MoveOutOf(const std::string& dir) {
  const std::string leaf = dir + "/" + kSupervisors;
  if (mkdir(leaf.c_str(), 0755) != 0 && errno != EEXIST)
    return Status(ErrorCode::kConfig, "cgroup",
                  "cgroup: cannot create " + leaf + ": " + strerror(errno));
  std::ifstream procs(dir + "/cgroup.procs");
  for (std::string pid; std::getline(procs, pid);) {
    const int err = WriteKnob(leaf + "/cgroup.procs", pid);
    if (err != 0 && err != ESRCH)
      return Status(ErrorCode::kConfig, "cgroup",
                    "cgroup: cannot move process " + pid + " into " + leaf + ": " + strerror(err));
  }
  return Status::Ok();
}

// The names in directory `dir` (none when it cannot be read).
std::vector<std::string> EntryNames(const std::string& dir) {
  std::vector<std::string> names;
  DIR* d = opendir(dir.c_str());
  if (d == nullptr) return names;
  for (dirent* e; (e = readdir(d)) != nullptr;) names.emplace_back(e->d_name);
  closedir(d);
  return names;
}

// KILLs every process in the cgroup `path` at once.
void KillDir(const std::string& path) {
  const int err = WriteKnob(path + "/cgroup.kill", "1");
  if (err != 0 && err != ENOENT) LogWarn("cgroup: cannot kill {}: {}", path, strerror(err));
}

// Removes the empty cgroup `path`; true when it is gone (or never was).
bool RemoveDir(const std::string& path) {
  if (rmdir(path.c_str()) == 0 || errno == ENOENT) return true;
  if (errno != EBUSY) LogWarn("cgroup: cannot remove {}: {}", path, strerror(errno));
  return false;
}

}  // namespace

Result<std::optional<TaskCgroups>> TaskCgroups::Open(const std::string& setting) {
  if (setting == "off") return std::optional<TaskCgroups>();
  const std::string mount = Cgroup2Mount();
  const std::string own = mount.empty() ? "" : OwnCgroup(mount);
  std::string dir = setting;
  if (setting == "auto") {
    // With systemd's DelegateSubgroup=supervisors tqd starts in DIR/supervisors.
    const std::string parent = own.substr(0, own.rfind('/'));
    if (!own.empty() && own != mount && own == parent + "/" + kSupervisors && Delegated(parent))
      dir = parent;
    else if (own.empty() || own == mount || !Delegated(own)) {
      LogInfo(
          "cgroup: no delegated cgroup v2 subtree; tasks are tracked by process group "
          "and subreaper, and memory_max, cpu_weight and pids_max are not enforced");
      return std::optional<TaskCgroups>();
    } else {
      dir = own;
    }
  }
  struct statfs fs {};
  const std::string fs_error = statfs(dir.c_str(), &fs) != 0      ? strerror(errno)
                               : fs.f_type != CGROUP2_SUPER_MAGIC ? "another file system"
                                                                  : "";
  if (!fs_error.empty())
    return Status(ErrorCode::kConfig, "cgroup",
                  "cgroup: " + Quote(dir) + " is not a cgroup v2 directory (" + fs_error +
                      "; use \"auto\", \"off\" or a delegated cgroup v2 directory)");
  if (access((dir + "/cgroup.subtree_control").c_str(), W_OK) != 0)
    return Status(ErrorCode::kConfig, "cgroup",
                  "cgroup: " + Quote(dir) +
                      " is not delegated to tqd (cannot write its "
                      "cgroup.subtree_control: " +
                      strerror(errno) + ")");
  if (access((dir + "/cgroup.kill").c_str(), F_OK) != 0)
    return Status(ErrorCode::kConfig, "cgroup",
                  "cgroup: " + Quote(dir) +
                      " has no cgroup.kill (it needs Linux 5.14 or later; use \"off\")");
  // A daemon started in DIR itself would be started there again after a restart, which the
  // kernel refuses once DIR hands controllers to its children: there the tasks get cgroups of
  // their own, but no controllers.
  const bool started_inside = dir == own;
  if (started_inside)
    if (Status st = MoveOutOf(dir); !st.ok()) return st;
  TaskCgroups cgroups;
  cgroups.dir_ = dir;
  std::istringstream offered(ReadLine(dir + "/cgroup.controllers"));
  for (std::string c; offered >> c && !started_inside;) {
    if (c != "memory" && c != "cpu" && c != "pids") continue;
    if (const int err = WriteKnob(dir + "/cgroup.subtree_control", "+" + c); err != 0)
      LogWarn("cgroup: cannot enable {} in {}: {}", c, dir, strerror(err));
  }
  if (started_inside)
    LogWarn(
        "cgroup: tqd started in {} itself, so it enables no controllers there (memory_max, "
        "cpu_weight and pids_max are not enforced); with systemd 254 or later, "
        "DelegateSubgroup={} starts it beside the tasks instead",
        dir, kSupervisors);
  std::istringstream enabled(ReadLine(dir + "/cgroup.subtree_control"));
  for (std::string c; enabled >> c;) cgroups.controllers_.insert(c);
  std::string have;
  for (const std::string& c : cgroups.controllers_) have += " " + c;
  LogInfo("cgroup: each task runs in a cgroup of its own under {} (controllers:{})", dir,
          have.empty() ? " none" : have);
  return std::optional<TaskCgroups>(std::move(cgroups));
}

std::string TaskCgroups::PathOf(TaskId id, int attempt) const {
  return dir_ + "/" + kTaskPrefix + std::to_string(id) + "-" + std::to_string(attempt);
}

bool TaskCgroups::Populated(TaskId id, int attempt) const {
  std::ifstream in(PathOf(id, attempt) + "/cgroup.events");
  for (std::string key, value; in >> key >> value;)
    if (key == "populated") return value == "1";
  return false;  // gone (or unreadable: nothing to wait for)
}

void TaskCgroups::Kill(TaskId id, int attempt) const {
  KillDir(PathOf(id, attempt));
}

bool TaskCgroups::Remove(TaskId id, int attempt) const {
  return RemoveDir(PathOf(id, attempt));
}

void TaskCgroups::Sweep(const std::set<std::pair<TaskId, int>>& keep) const {
  for (const std::string& name : EntryNames(dir_)) {
    long long id = 0;
    int attempt = 0, used = 0;
    if (sscanf(name.c_str(), "task-%lld-%d%n", &id, &attempt, &used) != 2 || name[used] != '\0' ||
        keep.count({id, attempt}) > 0)
      continue;
    rmdir((dir_ + "/" + name).c_str());  // a populated one (kept processes) stays
  }
}

std::string TaskCgroups::HookPathOf(uint64_t seq) const {
  return dir_ + "/" + kHookPrefix + std::to_string(seq);
}

bool TaskCgroups::EndHook(uint64_t seq) const {
  const std::string path = HookPathOf(seq);
  // A shim that ended as it should removed it (the kill then finds nothing); one that died left
  // the hook's processes in it.
  KillDir(path);
  if (rmdir(path.c_str()) == 0 || errno == ENOENT) return true;
  if (errno == EBUSY) return false;  // the killed processes are still leaving
  LogWarn("cgroup: cannot remove {}: {}", path, strerror(errno));
  return true;  // trying again would not help
}

std::set<uint64_t> TaskCgroups::HookSeqs() const {
  std::set<uint64_t> seqs;
  for (const std::string& name : EntryNames(dir_)) {
    unsigned long long seq = 0;
    int used = 0;
    if (sscanf(name.c_str(), "hook-%llu%n", &seq, &used) == 1 && name[used] == '\0')
      seqs.insert(seq);
  }
  return seqs;
}

}  // namespace tq
