#include "daemon/host/context_dirs.h"

#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>  // renameat2
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <set>

#include "core/model/quote.h"

namespace tq {

namespace {

// How every directory is opened: never through a symbolic link, and never a FIFO or device
// (O_DIRECTORY refuses them before they are opened).
constexpr int kDirFlags = O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC;

// What is said of a directory or file that is not on the root's file system: a user may mount
// one (FUSE) over their own directory, and tqd is not to read what its server makes up.
constexpr const char* kElsewhere = "on another file system (a mount point)";

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
  // Gives the descriptor up to the caller, who closes it.
  int Release() {
    const int fd = fd_;
    fd_ = -1;
    return fd;
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

// The name of user `uid`'s directory in the root: never all digits, as the names of the
// contexts an earlier tqd made in the root are.
std::string UserDirName(uint32_t uid) {
  return "u" + std::to_string(uid);
}

// True when `name` is the name of a user's directory in the root.
bool IsUserDirName(const char* name) {
  if (name[0] != 'u' || name[1] == '\0') return false;
  for (const char* c = name + 1; *c != '\0'; ++c)
    if (*c < '0' || *c > '9') return false;
  return true;
}

// True when `name` in `at` (a path when `at` is AT_FDCWD) is on the file system `dev`; false
// with errno EXDEV when it is not, else with stat's. It asks nothing of a file system mounted
// there: no attribute is wanted nor synced, so not even a FUSE server is waited for.
bool OnDevice(int at, const char* name, dev_t dev) {
  struct statx sx {};
  if (statx(at, name, AT_SYMLINK_NOFOLLOW | AT_NO_AUTOMOUNT | AT_STATX_DONT_SYNC, 0, &sx) != 0)
    return false;
  if (makedev(sx.stx_dev_major, sx.stx_dev_minor) == dev) return true;
  errno = EXDEV;
  return false;
}

// Opens the directory `name` in `at` (a path when `at` is AT_FDCWD) without following a
// symbolic link, once OnDevice saw it on `dev`, and checks that what was opened is there too
// (not mounted over since). -1 with errno EXDEV when it is elsewhere, else stat's or open's.
int OpenDirOn(int at, const char* name, dev_t dev) {
  if (!OnDevice(at, name, dev)) return -1;
  Fd fd(openat(at, name, kDirFlags));
  struct stat st {};
  if (!fd.ok() || fstat(fd.get(), &st) != 0) return -1;
  if (st.st_dev == dev) return fd.Release();
  errno = EXDEV;
  return -1;
}

// Why a directory OpenDirOn did not open is left as it is, from errno.
std::string NotOpened() {
  if (errno == ENOTDIR || errno == ELOOP)
    return "not a directory (a file or a symbolic link); left as it is";
  if (errno == EXDEV) return std::string(kElsewhere) + "; left as it is";
  return "cannot open it: " + Errno();
}

// Opens the directory `name` in `at` (on `dev`) into `d`, made with mode 0700 and given to
// `owner` (uid, gid; tqd's own when nullopt) when missing. An existing one is used only when it
// is a directory owned by that uid on `dev`. "" or why not, for a message naming it.
std::string OpenOwnDir(int at, const std::string& name,
                       std::optional<std::pair<uint32_t, uint32_t>> owner, dev_t dev, Fd& d) {
  const bool made = mkdirat(at, name.c_str(), 0700) == 0;
  if (!made && errno != EEXIST) return "cannot create it: " + Errno();
  d.Reset(OpenDirOn(at, name.c_str(), dev));
  if (!d.ok()) return NotOpened();
  const uid_t uid = owner ? owner->first : geteuid();
  if (made) {
    if ((!owner || fchown(d.get(), owner->first, owner->second) == 0) && fchmod(d.get(), 0700) == 0)
      return "";
    const std::string why = Errno();
    d.Reset();
    unlinkat(at, name.c_str(), AT_REMOVEDIR);  // so that the next attempt makes it anew
    return "cannot give it to uid " + std::to_string(uid) + " with mode 0700: " + why;
  }
  struct stat st {};
  if (fstat(d.get(), &st) != 0) return "cannot read it: " + Errno();
  if (st.st_uid != uid) return Owners(st.st_uid, uid) + "; left as it is";
  return "";
}

// Moves the context `name` an earlier tqd made in the root `r` into the user's directory `u`,
// when `u` has none of that name: only a directory (not a symbolic link) owned by `uid` on `dev`
// is moved. "" when it moved or there was nothing to move, else why not.
std::string MoveOldContext(int r, int u, const std::string& name, uid_t uid, dev_t dev) {
  if (OnDevice(u, name.c_str(), dev) || errno != ENOENT) return "";  // the new one is used
  Fd old(OpenDirOn(r, name.c_str(), dev));
  if (!old.ok()) return errno == ENOENT ? "" : NotOpened();
  struct stat st {};
  if (fstat(old.get(), &st) != 0) return "cannot read it: " + Errno();
  if (st.st_uid != uid) return Owners(st.st_uid, uid) + "; left as it is";
  old.Reset();
  if (renameat2(r, name.c_str(), u, name.c_str(), RENAME_NOREPLACE) == 0 || errno == ENOENT)
    return "";
  return "cannot move it: " + Errno();
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

// Empties and removes one tree parent/<name> at a time. Every directory below the tree's top T
// is emptied one level only: its files are unlinked and its sub-directories renamed into T,
// where a later scan of T comes to them. So no depth is ever needed and at most three
// descriptors are open: T, a directory in T, and (to make one writable) one of its own.
class TreeRemover {
 public:
  // "" when parent/<name> is gone (or never was), else why it is not. Nothing off the file
  // system `dev` (the root's) is entered, the parent included.
  std::string Remove(const std::string& parent, const std::string& name, dev_t dev) {
    steps_ = 0;
    dev_ = dev;
    for (;;) {
      Fd r(OpenDirOn(AT_FDCWD, parent.c_str(), dev_));
      if (!r.ok()) return errno == ENOENT ? "" : "cannot open " + parent + ": " + Errno();
      if (unlinkat(r.get(), name.c_str(), 0) == 0 || errno == ENOENT) return "";
      if (errno != EISDIR) return Errno();
      Fd t(OpenDirOn(r.get(), name.c_str(), dev_));
      if (!t.ok() && errno == EXDEV) return std::string(kElsewhere) + "; left";
      if (!t.ok()) return errno == ENOENT ? "" : Errno();
      struct stat st {};
      if (fstat(t.get(), &st) != 0) return Errno();
      uid_ = st.st_uid;
      r.Reset();  // the third descriptor is needed below
      if (std::string why = Empty(t.get(), name.c_str()); !why.empty()) return why;
      t.Reset();
      r.Reset(OpenDirOn(AT_FDCWD, parent.c_str(), dev_));
      if (!r.ok()) return "cannot open " + parent + ": " + Errno();
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

  // Why `name`, which OpenDirOn or OnDevice refused, is left; "" when it is gone or no longer a
  // directory (the next scan of T finds what it is now).
  static std::string Refused(const char* name) {
    if (errno == EXDEV) return Quote(name) + " is a mount point; left";
    if (errno == ENOENT || errno == ENOTDIR || errno == ELOOP) return "";
    return Quote(name) + ": " + Errno();
  }

  // Checks that the directory `fd` (`name` in its parent) is the tree owner's, and gives its
  // owner all rights on it (tqd not run as root needs them).
  std::string Enter(int fd, const char* name) const {
    struct stat st {};
    if (fstat(fd, &st) != 0) return Quote(name) + ": " + Errno();
    if (st.st_uid != uid_) return Quote(name) + " is " + Owners(st.st_uid, uid_) + "; left";
    if ((st.st_mode & S_IRWXU) != S_IRWXU && fchmod(fd, (st.st_mode & 07777) | S_IRWXU) != 0)
      return Quote(name) + ": " + Errno();
    return "";
  }

  // Scans T (`top` in the parent) until a whole scan finds it empty.
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
    Fd d(OpenDirOn(t, name, dev_));
    if (!d.ok()) return Refused(name);
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

  // Renames the directory `entry` of `d` into T under a name of its own, unless it is a mount
  // point.
  std::string MoveUp(int d, const char* entry, int t) {
    if (!OnDevice(d, entry, dev_)) return Refused(entry);
    bool opened = false;
    for (;;) {
      const std::string to = ".tq-rm-" + std::to_string(moved_++);
      if (renameat2(d, entry, t, to.c_str(), RENAME_NOREPLACE) == 0 || errno == ENOENT) return "";
      if (errno == EEXIST && Step()) continue;
      if (errno == EEXIST) return Busy();
      if (errno != EACCES || opened) return Quote(entry) + ": " + Errno();
      // Not root: moving a directory takes write permission on it (its .. changes).
      opened = true;
      Fd sub(OpenDirOn(d, entry, dev_));
      if (!sub.ok()) return Refused(entry);
      if (std::string why = Enter(sub.get(), entry); !why.empty()) return why;
    }
  }

  int64_t steps_ = 0;
  int64_t moved_ = 0;  // numbers the names of directories moved up
  uid_t uid_ = 0;      // the tree's owner
  dev_t dev_ = 0;      // the root's file system, the only one entered
};

// The names in the directory `fd` that `wanted` holds, or that are users' directories when
// `users` is given (into it); false with errno set when it cannot be read.
bool Listed(int fd, const std::set<std::string>& wanted, std::vector<std::string>& names,
            std::vector<std::string>* users) {
  return ForEachEntry(fd, [&](const char* name) {
    if (wanted.count(name) != 0) names.push_back(name);
    if (users != nullptr && IsUserDirName(name)) users->push_back(name);
    return true;
  });
}

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

std::string ContextDirPath(const std::string& root, int64_t task_id, uint32_t uid) {
  return root + "/" + UserDirName(uid) + "/" + std::to_string(task_id);
}

Result<std::string> MakeContextDir(const std::string& root, int64_t task_id,
                                   std::optional<std::pair<uint32_t, uint32_t>> owner) {
  const uid_t uid = owner ? owner->first : geteuid();
  const std::string user = UserDirName(uid);
  const std::string name = std::to_string(task_id);
  const std::string path = ContextDirPath(root, task_id, uid);
  const auto failed = [](const std::string& what, const std::string& why) {
    return Status::Internal(what + ": " + why);
  };
  Fd r(open(root.c_str(), kDirFlags));
  struct stat st {};
  if (!r.ok() || fstat(r.get(), &st) != 0)
    return failed("context directory " + path, "cannot open " + root + ": " + Errno());
  const dev_t dev = st.st_dev;
  Fd u;
  if (std::string why = OpenOwnDir(r.get(), user, owner, dev, u); !why.empty())
    return failed("directory of uid " + std::to_string(uid) + "'s contexts " + root + "/" + user,
                  why);
  if (std::string why = MoveOldContext(r.get(), u.get(), name, uid, dev); !why.empty())
    return failed("context directory " + root + "/" + name, why);
  r.Reset();
  Fd d;
  if (std::string why = OpenOwnDir(u.get(), name, owner, dev, d); !why.empty())
    return failed("context directory " + path, why);
  return path;
}

Result<ContextEnv> ReadContextEnvFile(const std::string& root, int64_t task_id, uint32_t uid) {
  const std::string dir = ContextDirPath(root, task_id, uid);
  const std::string path = dir + "/env";
  const auto ignored = [](const std::string& why) {
    ContextEnv env;
    env.refused.push_back(why + "; ignored");
    return env;
  };
  const auto failed = [&](const std::string& what) {
    return Status::Internal("cannot " + what + " " + path + ": " + Errno());
  };
  Fd r(open(root.c_str(), kDirFlags));
  struct stat st {};
  if (!r.ok() || fstat(r.get(), &st) != 0)
    return Status::Internal("cannot open " + root + ": " + Errno());
  const dev_t dev = st.st_dev;
  Fd d(OpenDirOn(r.get(), UserDirName(uid).c_str(), dev));
  if (d.ok()) d.Reset(OpenDirOn(d.get(), std::to_string(task_id).c_str(), dev));
  if (!d.ok() && errno == ENOENT) return ContextEnv();
  if (!d.ok() && errno == EXDEV)
    return Status::Internal("context directory " + dir + " is " + kElsewhere + "; not entered");
  if (!d.ok()) return Status::Internal("cannot open " + dir + ": " + Errno());
  // Looked at before it is opened, so that a device, a FIFO or a mount is not even opened; what
  // the descriptor shows below is what counts (it may have been replaced in between).
  if (!OnDevice(d.get(), "env", dev) && errno == EXDEV) return ignored(kElsewhere);
  if (fstatat(d.get(), "env", &st, AT_SYMLINK_NOFOLLOW) != 0)
    return errno == ENOENT ? Result<ContextEnv>(ContextEnv()) : failed("read");
  if (!S_ISREG(st.st_mode)) return ignored("not a regular file");
  Fd f(openat(d.get(), "env", O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC | O_NOCTTY));
  if (!f.ok() && errno == ENOENT) return ContextEnv();
  if (!f.ok() && (errno == ELOOP || errno == ENXIO)) return ignored("not a regular file");
  if (!f.ok()) return failed("open");
  if (fstat(f.get(), &st) != 0) return failed("read");
  if (!S_ISREG(st.st_mode)) return ignored("not a regular file");
  if (st.st_dev != dev) return ignored(kElsewhere);
  if (st.st_uid != uid) return ignored(Owners(st.st_uid, uid));
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
  std::set<std::string> wanted;
  for (const int64_t id : ids) wanted.insert(std::to_string(id));
  Fd r(open(root.c_str(), kDirFlags));
  if (!r.ok() && errno == ENOENT) return failed;
  struct stat st {};
  std::vector<std::string> old, users;  // contexts an earlier tqd made in the root; users' dirs
  if (!r.ok() || fstat(r.get(), &st) != 0 || !Listed(r.get(), wanted, old, &users))
    return {root + ": cannot read it: " + Errno()};
  r.Reset();
  const dev_t dev = st.st_dev;
  TreeRemover remover;
  const auto remove = [&](const std::string& parent, const std::vector<std::string>& names) {
    for (const std::string& name : names)
      if (std::string why = remover.Remove(parent, name, dev); !why.empty())
        failed.push_back(parent + "/" + name + ": " + why);
  };
  remove(root, old);
  for (const std::string& user : users) {
    const std::string parent = root + "/" + user;
    std::vector<std::string> names;
    Fd u(OpenDirOn(AT_FDCWD, parent.c_str(), dev));
    const int error = errno;
    if (!u.ok() && error == EXDEV) failed.push_back(parent + ": " + kElsewhere + "; left");
    if (!u.ok() && error != EXDEV && error != ENOENT && error != ENOTDIR && error != ELOOP)
      failed.push_back(parent + ": cannot open it: " + std::strerror(error));
    if (!u.ok()) continue;
    if (!Listed(u.get(), wanted, names, nullptr))
      failed.push_back(parent + ": cannot read it: " + Errno());
    u.Reset();
    remove(parent, names);
    // Once it holds nothing, not even the user's uid shows; else ENOTEMPTY.
    if (!names.empty()) rmdir(parent.c_str());
  }
  return failed;
}

}  // namespace tq
