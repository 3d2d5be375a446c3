#include "daemon/host/context_dirs.h"

#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>  // renameat2
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "core/model/quote.h"

namespace tq {

namespace {

// How every directory is opened: never through a symbolic link, and never a FIFO or device
// (O_DIRECTORY refuses them before they are opened).
constexpr int kDirFlags = O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC;

// A descriptor this file owns, closed when it goes.
class Fd {
 public:
  explicit Fd(int fd = -1) : fd_(fd) {}
  ~Fd() { Reset(); }
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;

  int get() const { return fd_; }
  bool ok() const { return fd_ >= 0; }
  // Closes the descriptor held, and holds `fd` instead.
  void Reset(int fd = -1) {
    if (fd_ >= 0) close(fd_);
    fd_ = fd;
  }

 private:
  int fd_;
};

std::string Errno() {
  return std::strerror(errno);
}

std::string Owners(uid_t has, uid_t wanted) {
  return "owned by uid " + std::to_string(has) + ", not uid " + std::to_string(wanted);
}

// Calls `each` with the name of every entry of the directory `fd` but . and .., from its
// current offset, until `each` returns false; false with errno set when it cannot be read.
template <typename Each>
bool ForEachEntry(int fd, Each each) {
  alignas(dirent64) char buf[16 * 1024];
  for (;;) {
    const ssize_t n = getdents64(fd, buf, sizeof buf);
    if (n <= 0) return n == 0;
    for (ssize_t at = 0; at < n;) {
      const auto* e = reinterpret_cast<const dirent64*>(buf + at);
      at += e->d_reclen;
      if (std::strcmp(e->d_name, ".") == 0 || std::strcmp(e->d_name, "..") == 0) continue;
      if (!each(e->d_name)) return true;
    }
  }
}

// Empties and removes one tree root/<name> at a time. Every directory below the tree's top T
// is emptied one level only: its files are unlinked and its sub-directories renamed into T,
// where a later scan of T comes to them. So no depth is ever needed and at most three
// descriptors are open: T, a directory in T, and (to make one writable) one of its own.
class TreeRemover {
 public:
  // "" when root/<name> is gone (or never was), else why it is not.
  std::string Remove(const std::string& root, const std::string& name) {
    steps_ = 0;
    for (;;) {
      Fd r(open(root.c_str(), kDirFlags));
      if (!r.ok()) return errno == ENOENT ? "" : "cannot open " + root + ": " + Errno();
      if (unlinkat(r.get(), name.c_str(), 0) == 0 || errno == ENOENT) return "";
      if (errno != EISDIR) return Errno();
      Fd t(openat(r.get(), name.c_str(), kDirFlags));
      if (!t.ok()) return errno == ENOENT ? "" : Errno();
      struct stat st {};
      if (fstat(t.get(), &st) != 0) return Errno();
      uid_ = st.st_uid;
      dev_ = st.st_dev;
      r.Reset();  // the third descriptor is needed below
      if (std::string why = Empty(t.get(), name.c_str()); !why.empty()) return why;
      t.Reset();
      r.Reset(open(root.c_str(), kDirFlags));
      if (!r.ok()) return "cannot open " + root + ": " + Errno();
      if (unlinkat(r.get(), name.c_str(), AT_REMOVEDIR) == 0 || errno == ENOENT) return "";
      if (errno != ENOTEMPTY) return Errno();
      if (!Step()) return Busy();  // written into since the last scan: once more
    }
  }

 private:
  // Counts one step; false past the limit.
  bool Step() { return ++steps_ <= kMaxContextRemoveSteps; }

  static std::string Busy() {
    return "still changing after " + std::to_string(kMaxContextRemoveSteps) + " steps; left";
  }

  // Checks that the directory `fd` (`name` in its parent) is the tree owner's and on the tree's
  // filesystem, and gives its owner all rights on it (tqd not run as root needs them).
  std::string Enter(int fd, const char* name) const {
    struct stat st {};
    if (fstat(fd, &st) != 0) return Quote(name) + ": " + Errno();
    if (st.st_dev != dev_) return Quote(name) + " is a mount point; left";
    if (st.st_uid != uid_) return Quote(name) + " is " + Owners(st.st_uid, uid_) + "; left";
    if ((st.st_mode & S_IRWXU) != S_IRWXU && fchmod(fd, (st.st_mode & 07777) | S_IRWXU) != 0)
      return Quote(name) + ": " + Errno();
    return "";
  }

  // Scans T (`top` in the root) until a whole scan finds it empty.
  std::string Empty(int t, const char* top) {
    if (std::string why = Enter(t, top); !why.empty()) return why;
    for (;;) {
      if (lseek(t, 0, SEEK_SET) < 0) return Errno();
      bool any = false;
      std::string why;
      const bool read = ForEachEntry(t, [&](const char* name) {
        any = true;
        if (!Step()) why = Busy();
        if (!why.empty()) return false;
        if (unlinkat(t, name, 0) == 0 || errno == ENOENT) return true;
        why = errno == EISDIR ? EmptyDir(t, name) : Quote(name) + ": " + Errno();
        return why.empty();
      });
      if (!why.empty()) return why;
      if (!read) return Errno();
      if (!any) return "";
    }
  }

  // Empties the directory `name` in T one level, moving its sub-directories up into T, and
  // removes it when that left it empty (else a later scan of T comes back to it).
  std::string EmptyDir(int t, const char* name) {
    Fd d(openat(t, name, kDirFlags));
    // Gone or no longer a directory: the next scan of T finds what it is now.
    if (!d.ok()) return errno == ENOENT || errno == ENOTDIR || errno == ELOOP ? "" : Errno();
    if (std::string why = Enter(d.get(), name); !why.empty()) return why;
    std::string why;
    const bool read = ForEachEntry(d.get(), [&](const char* entry) {
      if (!Step()) why = Busy();
      if (!why.empty()) return false;
      if (unlinkat(d.get(), entry, 0) == 0 || errno == ENOENT) return true;
      why = errno == EISDIR ? MoveUp(d.get(), entry, t) : Quote(entry) + ": " + Errno();
      return why.empty();
    });
    if (!why.empty()) return why;
    if (!read) return Quote(name) + ": " + Errno();
    d.Reset();
    if (unlinkat(t, name, AT_REMOVEDIR) == 0) return "";
    if (errno == ENOENT || errno == ENOTEMPTY || errno == ENOTDIR) return "";
    return Quote(name) + ": " + Errno();
  }

  // Renames the directory `entry` of `d` into T under a name of its own.
  std::string MoveUp(int d, const char* entry, int t) {
    bool opened = false;
    for (;;) {
      const std::string to = ".tq-rm-" + std::to_string(moved_++);
      if (renameat2(d, entry, t, to.c_str(), RENAME_NOREPLACE) == 0 || errno == ENOENT) return "";
      if (errno == EEXIST && Step()) continue;
      if (errno == EEXIST) return Busy();
      if (errno != EACCES || opened) return Quote(entry) + ": " + Errno();
      // Not root: moving a directory takes write permission on it (its .. changes).
      opened = true;
      Fd sub(openat(d, entry, kDirFlags));
      if (!sub.ok()) return errno == ENOENT ? "" : Quote(entry) + ": " + Errno();
      if (std::string why = Enter(sub.get(), entry); !why.empty()) return why;
    }
  }

  int64_t steps_ = 0;
  int64_t moved_ = 0;  // numbers the names of directories moved up
  uid_t uid_ = 0;      // the tree's owner
  dev_t dev_ = 0;      // the tree's filesystem
};

}  // namespace

Status PrepareContextRoot(const std::string& root) {
  const auto failed = [&](const std::string& what) {
    return Status(ErrorCode::kConfig, "state",
                  "state: cannot " + what + " " + root + ": " + std::strerror(errno));
  };
  if (mkdir(root.c_str(), 0711) != 0 && errno != EEXIST) return failed("create");
  Fd r(open(root.c_str(), kDirFlags));
  if (!r.ok() && (errno == ENOTDIR || errno == ELOOP))
    return Status(ErrorCode::kConfig, "state", "state: " + root + " is not a directory");
  if (!r.ok()) return failed("open");
  struct stat st {};
  if (fstat(r.get(), &st) != 0) return failed("read");
  if (st.st_uid != geteuid())
    return Status(ErrorCode::kConfig, "state",
                  "state: " + root + " is " + Owners(st.st_uid, geteuid()) + " (tqd's)");
  if ((st.st_mode & 07777) != 0711 && fchmod(r.get(), 0711) != 0) return failed("chmod");
  return Status::Ok();
}

Result<std::string> MakeContextDir(const std::string& root, int64_t task_id,
                                   std::optional<std::pair<uint32_t, uint32_t>> owner) {
  const std::string name = std::to_string(task_id);
  const std::string path = root + "/" + name;
  const auto failed = [&](const std::string& why) {
    return Status::Internal("context directory " + path + ": " + why);
  };
  Fd r(open(root.c_str(), kDirFlags));
  if (!r.ok()) return failed("cannot open " + root + ": " + Errno());
  const bool made = mkdirat(r.get(), name.c_str(), 0700) == 0;
  if (!made && errno != EEXIST) return failed("cannot create it: " + Errno());
  Fd d(openat(r.get(), name.c_str(), kDirFlags));
  if (!d.ok() && (errno == ENOTDIR || errno == ELOOP))
    return failed("not a directory (a file or a symbolic link); left as it is");
  if (!d.ok()) return failed("cannot open it: " + Errno());
  const uid_t uid = owner ? owner->first : geteuid();
  if (made) {
    if ((!owner || fchown(d.get(), owner->first, owner->second) == 0) && fchmod(d.get(), 0700) == 0)
      return path;
    const std::string why = Errno();
    d.Reset();
    unlinkat(r.get(), name.c_str(), AT_REMOVEDIR);  // so that the next attempt makes it anew
    return failed("cannot give it to uid " + std::to_string(uid) + " with mode 0700: " + why);
  }
  struct stat st {};
  if (fstat(d.get(), &st) != 0) return failed("cannot read it: " + Errno());
  if (st.st_uid != uid) return failed(Owners(st.st_uid, uid) + "; left as it is");
  return path;
}

Result<ContextEnv> ReadContextEnvFile(const std::string& context_dir, uint32_t expected_uid) {
  const std::string path = context_dir + "/env";
  const auto ignored = [](const std::string& why) {
    ContextEnv env;
    env.refused.push_back(why + "; ignored");
    return env;
  };
  const auto failed = [&](const std::string& what) {
    return Status::Internal("cannot " + what + " " + path + ": " + Errno());
  };
  Fd d(open(context_dir.c_str(), kDirFlags));
  if (!d.ok() && errno == ENOENT) return ContextEnv();
  if (!d.ok()) return Status::Internal("cannot open " + context_dir + ": " + Errno());
  // Looked at before it is opened, so that a device or a FIFO is not even opened; what the
  // descriptor shows below is what counts (it may have been replaced in between).
  struct stat st {};
  if (fstatat(d.get(), "env", &st, AT_SYMLINK_NOFOLLOW) != 0)
    return errno == ENOENT ? Result<ContextEnv>(ContextEnv()) : failed("read");
  if (!S_ISREG(st.st_mode)) return ignored("not a regular file");
  Fd f(openat(d.get(), "env", O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC | O_NOCTTY));
  if (!f.ok() && errno == ENOENT) return ContextEnv();
  if (!f.ok() && (errno == ELOOP || errno == ENXIO)) return ignored("not a regular file");
  if (!f.ok()) return failed("open");
  if (fstat(f.get(), &st) != 0) return failed("read");
  if (!S_ISREG(st.st_mode)) return ignored("not a regular file");
  if (st.st_uid != expected_uid) return ignored(Owners(st.st_uid, expected_uid));
  if (st.st_nlink != 1)
    return ignored(std::to_string(st.st_nlink) + " links to it (a hard link is never read)");
  const std::string too_big =
      "larger than the limit of " + std::to_string(kMaxContextEnvBytes) + " bytes";
  if (static_cast<uint64_t>(st.st_size) > kMaxContextEnvBytes) return ignored(too_big);
  std::string text(kMaxContextEnvBytes + 1, '\0');
  size_t done = 0;
  while (done < text.size()) {
    const ssize_t n = read(f.get(), text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return failed("read");
    if (n == 0) break;
    done += static_cast<size_t>(n);
  }
  if (done > kMaxContextEnvBytes) return ignored(too_big);  // it grew since fstat
  text.resize(done);
  return ParseContextEnv(text);
}

std::vector<std::string> RemoveContextDirs(const std::string& root,
                                           const std::vector<int64_t>& ids) {
  std::vector<std::string> failed;
  TreeRemover remover;
  for (const int64_t id : ids) {
    const std::string name = std::to_string(id);
    if (std::string why = remover.Remove(root, name); !why.empty())
      failed.push_back(root + "/" + name + ": " + why);
  }
  return failed;
}

}  // namespace tq
