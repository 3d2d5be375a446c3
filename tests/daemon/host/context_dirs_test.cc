// Tasks' context directories: made private to the task's user in a directory of their own, an
// earlier tqd's moved there, the env file read without trusting it, trees removed without
// following what their owner put in them, and nothing on another file system entered.
#include "daemon/host/context_dirs.h"

#include <dirent.h>
#include <fcntl.h>
#include <ftw.h>
#include <grp.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <doctest/doctest.h>

#include <fstream>
#include <set>

#include "support/skip.h"
#include "support/temp_dir.h"
#include "support/tmpfs.h"

namespace tq {
namespace {

constexpr uint32_t kNobody = 65534;

bool IsRoot() {
  return geteuid() == 0;
}

void WriteText(const std::string& path, const std::string& text) {
  std::ofstream(path, std::ios::binary) << text;
}

bool Exists(const std::string& path) {
  struct stat st {};
  return lstat(path.c_str(), &st) == 0;
}

struct stat Lstat(const std::string& path) {
  struct stat st {};
  REQUIRE(lstat(path.c_str(), &st) == 0);
  return st;
}

int ModeOf(const std::string& path) {
  return static_cast<int>(Lstat(path).st_mode & 07777);
}

// The descriptors this process has open.
std::set<int> OpenFds() {
  std::set<int> fds;
  DIR* d = opendir("/proc/self/fd");
  REQUIRE(d != nullptr);
  for (struct dirent* e; (e = readdir(d)) != nullptr;)
    if (e->d_name[0] != '.') fds.insert(std::stoi(e->d_name));
  fds.erase(dirfd(d));
  closedir(d);
  return fds;
}

// Gives every file of the tree at `path` to `uid` (as root), following no link.
void ChownTree(const std::string& path, uint32_t uid) {
  static uint32_t to;
  to = uid;
  REQUIRE(nftw(
              path.c_str(),
              [](const char* p, const struct stat*, int, struct FTW*) { return lchown(p, to, to); },
              16, FTW_PHYS) == 0);
}

// Makes `depth` directories d/d/d... in `top`, each holding a file f, without long paths.
void MakeDeep(const std::string& top, int depth) {
  int fd = open(top.c_str(), O_RDONLY | O_DIRECTORY);
  REQUIRE(fd >= 0);
  for (int i = 0; i < depth; ++i) {
    REQUIRE(mkdirat(fd, "d", 0700) == 0);
    const int f = openat(fd, "f", O_WRONLY | O_CREAT, 0600);
    REQUIRE(f >= 0);
    close(f);
    const int next = openat(fd, "d", O_RDONLY | O_DIRECTORY);
    close(fd);
    REQUIRE(next >= 0);
    fd = next;
  }
  close(fd);
}

// A tmpfs mounted over `dir` while it lives: another file system, as a user's FUSE would be.
struct Mounted : tqtest::Tmpfs {
  explicit Mounted(const std::string& dir) : Tmpfs(dir, "1m") {}
};

// A directory of contexts in a fresh temporary directory.
struct Contexts {
  TempDir tmp{"contexts"};
  std::string root = tmp.File("contexts");

  Contexts() { REQUIRE(PrepareContextRoot(root).ok()); }

  // The directory of user `uid`'s contexts.
  std::string UserDir(uint32_t uid = geteuid()) const { return root + "/u" + std::to_string(uid); }
  std::string Dir(int64_t id, uint32_t uid = geteuid()) const {
    return UserDir(uid) + "/" + std::to_string(id);
  }
  // Where an earlier tqd made the context directory of `id`.
  std::string OldDir(int64_t id) const { return root + "/" + std::to_string(id); }
  // Makes the context directory of `id`, tqd's own.
  std::string Make(int64_t id) const {
    Result<std::string> dir = MakeContextDir(root, id, std::nullopt);
    REQUIRE(dir.ok());
    return *dir;
  }
  // What the env file of `id`'s context gives a stage run as `uid`.
  Result<ContextEnv> Read(int64_t id, uint32_t uid = geteuid()) const {
    return ReadContextEnvFile(root, id, uid);
  }
};

TEST_CASE("context dirs: the root is made 0711, and an existing one given that mode") {
  TempDir tmp("contexts");
  const std::string root = tmp.File("contexts");
  const mode_t old = umask(077);
  const Status made = PrepareContextRoot(root);
  umask(old);
  REQUIRE(made.ok());
  CHECK(ModeOf(root) == 0711);
  REQUIRE(chmod(root.c_str(), 0755) == 0);
  CHECK(PrepareContextRoot(root).ok());
  CHECK(ModeOf(root) == 0711);

  WriteText(tmp.File("file"), "x");
  const Status file = PrepareContextRoot(tmp.File("file"));
  CHECK(file.code() == ErrorCode::kConfig);
  CHECK(file.message() == "state: " + tmp.File("file") + " is not a directory");
  REQUIRE(symlink(root.c_str(), tmp.File("link").c_str()) == 0);
  CHECK(PrepareContextRoot(tmp.File("link")).message() ==
        "state: " + tmp.File("link") + " is not a directory");
}

TEST_CASE(
    "context dirs: a task's directory and its user's are 0700 and theirs, whatever the umask") {
  Contexts c;
  const mode_t old = umask(0277);  // mkdir alone would give 0500
  const std::optional<std::pair<uint32_t, uint32_t>> nobody =
      IsRoot() ? std::make_optional(std::make_pair(kNobody, kNobody)) : std::nullopt;
  const uint32_t uid = IsRoot() ? kNobody : geteuid();
  Result<std::string> dir = MakeContextDir(c.root, 12, nobody);
  umask(old);
  REQUIRE(dir.ok());
  CHECK(*dir == c.Dir(12, uid));
  CHECK(*dir == ContextDirPath(c.root, 12, uid));
  for (const std::string& path : {*dir, c.UserDir(uid)}) {
    CAPTURE(path);
    const struct stat st = Lstat(path);
    CHECK(S_ISDIR(st.st_mode));
    CHECK((st.st_mode & 07777) == 0700);
    CHECK(st.st_uid == uid);
  }
  CHECK(ModeOf(c.root) == 0711);
  // The user's directory is made once; what its user made of it since is theirs.
  REQUIRE(chmod(c.UserDir(uid).c_str(), 0750) == 0);
  REQUIRE(MakeContextDir(c.root, 13, nobody).ok());
  CHECK(ModeOf(c.UserDir(uid)) == 0750);
  if (!IsRoot()) TQ_SKIP("not root: the directory cannot be given to another user");
  CHECK(Lstat(*dir).st_gid == kNobody);
  CHECK(Lstat(c.UserDir(uid)).st_gid == kNobody);
}

TEST_CASE("context dirs: another account learns that a uid has contexts, never which") {
  if (!IsRoot()) TQ_SKIP("not root: no directory of another user can be made");
  Contexts c;
  REQUIRE(chmod(c.tmp.path.c_str(), 0711) == 0);  // as a state directory of the system daemon
  REQUIRE(MakeContextDir(c.root, 14, std::make_pair(kNobody, kNobody)).ok());
  const pid_t child = fork();
  REQUIRE(child >= 0);
  if (child == 0) {
    if (setgroups(0, nullptr) != 0 || setgid(kNobody - 1) != 0 || setuid(kNobody - 1) != 0)
      _exit(10);
    struct stat st {};
    if (stat(c.UserDir(kNobody).c_str(), &st) != 0) _exit(11);  // that much it may know
    if (stat(c.Dir(14, kNobody).c_str(), &st) == 0 || errno != EACCES) _exit(12);
    if (opendir(c.UserDir(kNobody).c_str()) != nullptr || errno != EACCES) _exit(13);
    if (opendir(c.root.c_str()) != nullptr || errno != EACCES) _exit(14);
    _exit(0);
  }
  int status = 0;
  REQUIRE(waitpid(child, &status, 0) == child);
  CHECK(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 0);
}

TEST_CASE("context dirs: a user's directory that is a link, a file or another's is refused") {
  Contexts c;
  const std::string elsewhere = c.tmp.File("elsewhere");
  REQUIRE(mkdir(elsewhere.c_str(), 0755) == 0);
  REQUIRE(symlink(elsewhere.c_str(), c.UserDir().c_str()) == 0);
  Result<std::string> link = MakeContextDir(c.root, 15, std::nullopt);
  REQUIRE(!link.ok());
  CHECK(link.status().code() == ErrorCode::kInternal);
  CHECK(link.status().message() == "directory of uid " + std::to_string(geteuid()) +
                                       "'s contexts " + c.UserDir() +
                                       ": not a directory (a file or a symbolic link); left as it "
                                       "is");
  CHECK(!Exists(elsewhere + "/15"));
  REQUIRE(unlink(c.UserDir().c_str()) == 0);
  WriteText(c.UserDir(), "x");
  CHECK(!MakeContextDir(c.root, 15, std::nullopt).ok());
  CHECK(S_ISREG(Lstat(c.UserDir()).st_mode));

  if (!IsRoot()) TQ_SKIP("not root: no directory of another user can be made");
  REQUIRE(mkdir(c.UserDir(kNobody).c_str(), 0700) == 0);
  Result<std::string> foreign = MakeContextDir(c.root, 16, std::make_pair(kNobody, kNobody));
  REQUIRE(!foreign.ok());
  CHECK(foreign.status().message() == "directory of uid 65534's contexts " + c.UserDir(kNobody) +
                                          ": owned by uid 0, not uid 65534; left as it is");
  CHECK(!Exists(c.Dir(16, kNobody)));
}

TEST_CASE("context dirs: a later stage gets the same directory, with what is in it") {
  Contexts c;
  const std::string dir = c.Make(7);
  WriteText(dir + "/data", "kept");
  REQUIRE(chmod(dir.c_str(), 0750) == 0);  // the user's own business
  CHECK(c.Make(7) == dir);
  CHECK(Exists(dir + "/data"));
  CHECK(ModeOf(dir) == 0750);
}

TEST_CASE("context dirs: a link, a file or another user's directory in its place is refused") {
  Contexts c;
  c.Make(1);  // the user's directory
  const std::string elsewhere = c.tmp.File("elsewhere");
  REQUIRE(mkdir(elsewhere.c_str(), 0755) == 0);
  REQUIRE(symlink(elsewhere.c_str(), c.Dir(13).c_str()) == 0);
  Result<std::string> link = MakeContextDir(c.root, 13, std::nullopt);
  REQUIRE(!link.ok());
  CHECK(link.status().code() == ErrorCode::kInternal);
  CHECK(link.status().message() == "context directory " + c.Dir(13) +
                                       ": not a directory (a file or a symbolic link); left as "
                                       "it is");
  CHECK(ModeOf(elsewhere) == 0755);
  CHECK(S_ISLNK(Lstat(c.Dir(13)).st_mode));

  WriteText(c.Dir(14), "x");
  CHECK(!MakeContextDir(c.root, 14, std::nullopt).ok());
  CHECK(S_ISREG(Lstat(c.Dir(14)).st_mode));

  if (!IsRoot()) TQ_SKIP("not root: no directory of another user can be made");
  REQUIRE(mkdir(c.Dir(15).c_str(), 0700) == 0);
  REQUIRE(chown(c.Dir(15).c_str(), kNobody, kNobody) == 0);
  Result<std::string> foreign = MakeContextDir(c.root, 15, std::nullopt);
  REQUIRE(!foreign.ok());
  CHECK(foreign.status().message() ==
        "context directory " + c.Dir(15) + ": owned by uid 65534, not uid 0; left as it is");
  CHECK(Lstat(c.Dir(15)).st_uid == kNobody);
}

TEST_CASE("context dirs: one an earlier tqd made in the root moves to its user's directory") {
  Contexts c;
  const std::string old = c.OldDir(81);
  REQUIRE(mkdir(old.c_str(), 0750) == 0);
  WriteText(old + "/env", "ROWS=12\n");
  REQUIRE(mkdir((old + "/sub").c_str(), 0700) == 0);
  const std::optional<std::pair<uint32_t, uint32_t>> nobody =
      IsRoot() ? std::make_optional(std::make_pair(kNobody, kNobody)) : std::nullopt;
  const uint32_t uid = IsRoot() ? kNobody : geteuid();
  if (IsRoot()) ChownTree(old, kNobody);
  Result<std::string> dir = MakeContextDir(c.root, 81, nobody);
  REQUIRE(dir.ok());
  CHECK(*dir == c.Dir(81, uid));
  CHECK(!Exists(old));
  CHECK(ModeOf(*dir) == 0750);  // as the task left it
  CHECK(Exists(*dir + "/sub"));
  Result<ContextEnv> env = c.Read(81, uid);
  REQUIRE(env.ok());
  CHECK(env->entries == std::vector<std::string>{"ROWS=12"});

  // One in the user's directory already: that one is used, the old one left for removal.
  REQUIRE(mkdir(old.c_str(), 0700) == 0);
  if (IsRoot()) ChownTree(old, kNobody);
  CHECK(MakeContextDir(c.root, 81, nobody).ok());
  CHECK(Exists(old));
  CHECK(Exists(*dir + "/env"));
}

TEST_CASE("context dirs: an earlier tqd's context that is a link, a file or another's stays") {
  Contexts c;
  const std::string elsewhere = c.tmp.File("elsewhere");
  REQUIRE(mkdir(elsewhere.c_str(), 0755) == 0);
  REQUIRE(symlink(elsewhere.c_str(), c.OldDir(82).c_str()) == 0);
  Result<std::string> link = MakeContextDir(c.root, 82, std::nullopt);
  REQUIRE(!link.ok());
  CHECK(link.status().message() == "context directory " + c.OldDir(82) +
                                       ": not a directory (a file or a symbolic link); left as "
                                       "it is");
  CHECK(S_ISLNK(Lstat(c.OldDir(82)).st_mode));
  CHECK(!Exists(c.Dir(82)));
  WriteText(c.OldDir(83), "x");
  CHECK(!MakeContextDir(c.root, 83, std::nullopt).ok());
  CHECK(!Exists(c.Dir(83)));

  if (!IsRoot()) TQ_SKIP("not root: no directory of another user can be made");
  REQUIRE(mkdir(c.OldDir(84).c_str(), 0700) == 0);
  REQUIRE(chown(c.OldDir(84).c_str(), kNobody, kNobody) == 0);
  Result<std::string> foreign = MakeContextDir(c.root, 84, std::nullopt);
  REQUIRE(!foreign.ok());
  CHECK(foreign.status().message() ==
        "context directory " + c.OldDir(84) + ": owned by uid 65534, not uid 0; left as it is");
  CHECK(Exists(c.OldDir(84)));
  CHECK(!Exists(c.Dir(84)));
}

TEST_CASE("context dirs: the env file, missing or written") {
  Contexts c;
  const std::string dir = c.Make(3);
  Result<ContextEnv> none = c.Read(3);
  REQUIRE(none.ok());
  CHECK(none->entries.empty());
  CHECK(none->refused.empty());

  WriteText(dir + "/env", "# from the dump stage\nexport ROWS=12\nTQ_STAGE=x\n");
  Result<ContextEnv> env = c.Read(3);
  REQUIRE(env.ok());
  CHECK(env->entries == std::vector<std::string>{"ROWS=12"});
  CHECK(env->refused == std::vector<std::string>{"line 3: \"TQ_STAGE\" is tq's own"});

  Result<ContextEnv> gone = c.Read(4);  // no directory at all
  REQUIRE(gone.ok());
  CHECK(gone->entries.empty());
  Result<ContextEnv> no_user = c.Read(3, geteuid() + 1);  // not even the user's
  REQUIRE(no_user.ok());
  CHECK(no_user->entries.empty());
}

// The one message of the env file of `id`'s context ignored whole.
std::string IgnoredWhy(const Contexts& c, int64_t id, uint32_t uid = geteuid()) {
  Result<ContextEnv> env = c.Read(id, uid);
  REQUIRE(env.ok());
  CHECK(env->entries.empty());
  REQUIRE(env->refused.size() == 1);
  return env->refused[0];
}

TEST_CASE("context dirs: an env file that is not a plain file of the user's is ignored") {
  Contexts c;
  const std::string dir = c.Make(5);
  const std::string env = dir + "/env";
  const std::string secret = c.tmp.File("secret");
  WriteText(secret, "PASSWORD=hunter2\n");

  REQUIRE(symlink(secret.c_str(), env.c_str()) == 0);
  CHECK(IgnoredWhy(c, 5) == "not a regular file; ignored");
  REQUIRE(unlink(env.c_str()) == 0);

  REQUIRE(mkfifo(env.c_str(), 0600) == 0);  // would block an open without O_NONBLOCK
  CHECK(IgnoredWhy(c, 5) == "not a regular file; ignored");
  REQUIRE(unlink(env.c_str()) == 0);

  REQUIRE(mkdir(env.c_str(), 0700) == 0);
  CHECK(IgnoredWhy(c, 5) == "not a regular file; ignored");
  REQUIRE(rmdir(env.c_str()) == 0);

  REQUIRE(link(secret.c_str(), env.c_str()) == 0);
  CHECK(IgnoredWhy(c, 5) == "2 links to it (a hard link is never read); ignored");
  REQUIRE(unlink(env.c_str()) == 0);

  WriteText(env, "A=1\n");
  const uint32_t other = geteuid() + 1;  // the context moved to another user's directory
  REQUIRE(mkdir(c.UserDir(other).c_str(), 0700) == 0);
  REQUIRE(rename(dir.c_str(), c.Dir(5, other).c_str()) == 0);
  CHECK(IgnoredWhy(c, 5, other) == "owned by uid " + std::to_string(geteuid()) + ", not uid " +
                                       std::to_string(other) + "; ignored");
  REQUIRE(rename(c.Dir(5, other).c_str(), dir.c_str()) == 0);
  if (!IsRoot()) TQ_SKIP("not root: the file cannot be given to another user");
  REQUIRE(chown(env.c_str(), kNobody, kNobody) == 0);
  CHECK(IgnoredWhy(c, 5) == "owned by uid 65534, not uid 0; ignored");
  REQUIRE(mkdir(c.UserDir(kNobody).c_str(), 0700) == 0);
  REQUIRE(rename(dir.c_str(), c.Dir(5, kNobody).c_str()) == 0);
  Result<ContextEnv> theirs = c.Read(5, kNobody);
  REQUIRE(theirs.ok());
  CHECK(theirs->entries == std::vector<std::string>{"A=1"});
}

TEST_CASE("context dirs: an env file over 64 KiB is ignored whole") {
  Contexts c;
  const std::string dir = c.Make(6);
  std::string full = "A=1\n";
  full += std::string(kMaxContextEnvBytes - full.size() - 1, '#') + "\n";
  WriteText(dir + "/env", full);
  Result<ContextEnv> fits = c.Read(6);
  REQUIRE(fits.ok());
  CHECK(fits->entries == std::vector<std::string>{"A=1"});
  CHECK(fits->refused.empty());

  WriteText(dir + "/env", full + "B=2\n");
  CHECK(IgnoredWhy(c, 6) == "larger than the limit of 65536 bytes; ignored");
  REQUIRE(truncate((dir + "/env").c_str(), 1LL << 40) == 0);  // sparse: never read
  CHECK(IgnoredWhy(c, 6) == "larger than the limit of 65536 bytes; ignored");
}

TEST_CASE("context dirs: removing a tree 500 directories deep, of the task's user") {
  Contexts c;
  const std::string dir = c.Make(21);
  MakeDeep(dir, 500);
  if (IsRoot()) ChownTree(dir, kNobody);  // as tqd finds it: everything the user's
  const std::set<int> before = OpenFds();
  CHECK(RemoveContextDirs(c.root, {21}).empty());
  CHECK(!Exists(dir));
  CHECK(OpenFds() == before);
  CHECK(Exists(c.root));
}

TEST_CASE("context dirs: removing follows no link out of the tree") {
  Contexts c;
  const std::string dir = c.Make(22);
  const std::string outside = c.tmp.File("outside");
  REQUIRE(mkdir(outside.c_str(), 0700) == 0);
  WriteText(outside + "/keep", "x");
  REQUIRE(symlink(outside.c_str(), (dir + "/to-dir").c_str()) == 0);
  REQUIRE(symlink((outside + "/keep").c_str(), (dir + "/to-file").c_str()) == 0);
  REQUIRE(mkdir((dir + "/sub").c_str(), 0700) == 0);
  REQUIRE(symlink(outside.c_str(), (dir + "/sub/to-dir").c_str()) == 0);
  REQUIRE(link((outside + "/keep").c_str(), (dir + "/sub/hard").c_str()) == 0);
  CHECK(RemoveContextDirs(c.root, {22}).empty());
  CHECK(!Exists(dir));
  CHECK(Exists(outside + "/keep"));
  CHECK(Lstat(outside + "/keep").st_nlink == 1);

  // A link or a file in place of the directory, in the user's directory or where an earlier
  // tqd made it: it goes, what it names stays.
  c.Make(26);
  REQUIRE(symlink(outside.c_str(), c.Dir(23).c_str()) == 0);
  WriteText(c.Dir(24), "a file");
  REQUIRE(symlink(outside.c_str(), c.OldDir(27).c_str()) == 0);
  WriteText(c.OldDir(28), "a file");
  CHECK(RemoveContextDirs(c.root, {23, 24, 25, 27, 28}).empty());  // 25 never existed
  for (const std::string& gone : {c.Dir(23), c.Dir(24), c.OldDir(27), c.OldDir(28)}) {
    CAPTURE(gone);
    CHECK(!Exists(gone));
  }
  CHECK(Exists(outside + "/keep"));
}

TEST_CASE("context dirs: removing odd names, FIFOs and read-only directories") {
  Contexts c;
  const std::string dir = c.Make(31);
  for (const std::string name : {"\xff\xfe", "-rf", "--", " ", "a\nb", "*", ".tq-rm-0"})
    REQUIRE(mkdir((dir + "/" + name).c_str(), 0700) == 0);
  WriteText(dir + "/-rf/\x80", "x");
  WriteText(dir + "/.tq-rm-0/x", "x");  // the name the remover gives the first directory it moves
  REQUIRE(mkdir((dir + "/-rf/.tq-rm-1").c_str(), 0700) == 0);
  REQUIRE(mkdir((dir + "/-rf/.tq-rm-1/deeper").c_str(), 0700) == 0);
  REQUIRE(mkfifo((dir + "/--/fifo").c_str(), 0600) == 0);
  REQUIRE(mkdir((dir + "/ro").c_str(), 0700) == 0);
  MakeDeep(dir + "/ro", 3);
  for (const char* ro : {"/ro/d/d", "/ro/d", "/ro"}) REQUIRE(chmod((dir + ro).c_str(), 0500) == 0);
  REQUIRE(chmod(dir.c_str(), 0500) == 0);
  CHECK(RemoveContextDirs(c.root, {31}).empty());
  CHECK(!Exists(dir));
}

TEST_CASE("context dirs: removing holds no more than 3 descriptors") {
  Contexts c;
  const std::string dir = c.Make(41);
  MakeDeep(dir, 20);
  REQUIRE(chmod((dir + "/d/d").c_str(), 0500) == 0);  // not root: the remover opens it
  // The lowest limit under which exactly 3 descriptors are free.
  const std::set<int> open = OpenFds();
  int limit = 0;
  for (int free = 0; free < 3; ++limit)
    if (open.count(limit) == 0) ++free;
  struct rlimit old {};
  REQUIRE(getrlimit(RLIMIT_NOFILE, &old) == 0);
  struct rlimit tight = old;
  tight.rlim_cur = static_cast<rlim_t>(limit);
  REQUIRE(setrlimit(RLIMIT_NOFILE, &tight) == 0);
  const std::vector<std::string> failed = RemoveContextDirs(c.root, {41});
  REQUIRE(setrlimit(RLIMIT_NOFILE, &old) == 0);
  CHECK(failed.empty());
  CHECK(!Exists(dir));
}

TEST_CASE("context dirs: a directory the task's user does not own is left, and said") {
  if (!IsRoot()) TQ_SKIP("not root: no directory of another user can be made");
  Contexts c;
  const std::string dir = c.Make(51);
  REQUIRE(mkdir((dir + "/theirs").c_str(), 0700) == 0);
  WriteText(dir + "/theirs/precious", "x");
  ChownTree(dir, kNobody);
  REQUIRE(chown((dir + "/theirs").c_str(), 0, 0) == 0);  // moved in from elsewhere
  const std::vector<std::string> failed = RemoveContextDirs(c.root, {51});
  CHECK(failed == std::vector<std::string>{c.Dir(51) +
                                           ": \"theirs\" is owned by uid 0, not uid 65534; left"});
  CHECK(Exists(dir + "/theirs/precious"));
}

TEST_CASE("context dirs: removing takes contexts of both layouts, and a user's emptied directory") {
  Contexts c;
  WriteText(c.Make(71) + "/f", "x");
  c.Make(72);
  for (const int64_t id : {73, 74}) {
    REQUIRE(mkdir(c.OldDir(id).c_str(), 0700) == 0);  // as an earlier tqd made them
    WriteText(c.OldDir(id) + "/env", "A=1\n");
  }
  if (IsRoot()) {
    REQUIRE(MakeContextDir(c.root, 75, std::make_pair(kNobody, kNobody)).ok());
    ChownTree(c.OldDir(73), kNobody);
  }
  CHECK(RemoveContextDirs(c.root, {71, 73, 75, 76}).empty());
  for (const std::string& gone : {c.Dir(71), c.OldDir(73), c.Dir(75, kNobody)}) {
    CAPTURE(gone);
    CHECK(!Exists(gone));
  }
  CHECK(Exists(c.Dir(72)));
  CHECK(Exists(c.OldDir(74)));
  if (IsRoot()) CHECK(!Exists(c.UserDir(kNobody)));  // nothing of theirs left: not their uid
  CHECK(RemoveContextDirs(c.root, {72, 74}).empty());
  CHECK(!Exists(c.Dir(72)));
  CHECK(!Exists(c.UserDir()));
  CHECK(!Exists(c.OldDir(74)));
  CHECK(Exists(c.root));
  CHECK(RemoveContextDirs(c.root, {72}).empty());  // nothing left to remove
}

TEST_CASE("context dirs: nothing on another file system is entered, made, read or removed") {
  if (!IsRoot()) TQ_SKIP("not root: no file system can be mounted");
  Contexts c;
  const std::string dir = c.Make(61);
  WriteText(dir + "/env", "A=1\n");
  const std::string elsewhere = ": on another file system (a mount point); left as it is";
  {
    Mounted over(dir);  // a user's FUSE mount over their context
    WriteText(dir + "/env", "EVIL=1\n");
    Result<std::string> made = MakeContextDir(c.root, 61, std::nullopt);
    REQUIRE(!made.ok());
    CHECK(made.status().message() == "context directory " + dir + elsewhere);
    Result<ContextEnv> env = c.Read(61);
    REQUIRE(!env.ok());
    CHECK(env.status().message() ==
          "context directory " + dir + " is on another file system (a mount point); not entered");
    CHECK(RemoveContextDirs(c.root, {61}) ==
          std::vector<std::string>{dir + ": on another file system (a mount point); left"});
    CHECK(Exists(dir + "/env"));
  }
  CHECK(c.Read(61)->entries == std::vector<std::string>{"A=1"});

  {
    Mounted over(c.UserDir());  // over the user's directory
    Result<std::string> made = MakeContextDir(c.root, 62, std::nullopt);
    REQUIRE(!made.ok());
    CHECK(made.status().message() == "directory of uid 0's contexts " + c.UserDir() + elsewhere);
    CHECK(!c.Read(61).ok());
    CHECK(RemoveContextDirs(c.root, {61}) ==
          std::vector<std::string>{c.UserDir() + ": on another file system (a mount point); left"});
  }
  CHECK(Exists(dir + "/env"));

  {
    REQUIRE(mkdir(c.OldDir(63).c_str(), 0700) == 0);  // an earlier tqd's, mounted over
    Mounted over(c.OldDir(63));
    Result<std::string> made = MakeContextDir(c.root, 63, std::nullopt);
    REQUIRE(!made.ok());
    CHECK(made.status().message() == "context directory " + c.OldDir(63) + elsewhere);
    CHECK(!Exists(c.Dir(63)));
  }

  {
    REQUIRE(mkdir((dir + "/deep").c_str(), 0700) == 0);  // deeper in the tree
    REQUIRE(mkdir((dir + "/deep/sub").c_str(), 0700) == 0);
    Mounted over(dir + "/deep/sub");
    WriteText(dir + "/deep/sub/precious", "x");
    CHECK(RemoveContextDirs(c.root, {61}) ==
          std::vector<std::string>{dir + ": \"sub\" is a mount point; left"});
    CHECK(Exists(dir + "/deep/sub/precious"));
  }
}

}  // namespace
}  // namespace tq
