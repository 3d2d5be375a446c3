// Runs the real tq-shim binary (TQ_SHIM_PATH) and checks its record, outputs and kills.
#include <doctest/doctest.h>
#include <fcntl.h>
#include <spawn.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <regex>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "daemon/run/shim_record.h"
#include "daemon/shim/shim_record.h"
#include "support/skip.h"
#include "support/temp_dir.h"
#include "support/test_cgroup.h"

#ifndef TQ_SHIM_PATH
#error "TQ_SHIM_PATH must name the built tq-shim binary"
#endif

extern char** environ;

namespace {

using namespace std::chrono_literals;
using namespace std::string_literals;

// Generous: the suite must pass on a loaded 2-core machine.
constexpr auto kTimeout = 30s;

// Polls `done` every few milliseconds until it holds or `timeout` passes.
bool WaitFor(const std::function<bool()>& done, std::chrono::milliseconds timeout = kTimeout) {
  auto deadline = std::chrono::steady_clock::now() + timeout;
  while (!done()) {
    if (std::chrono::steady_clock::now() > deadline) return false;
    std::this_thread::sleep_for(5ms);
  }
  return true;
}

std::string ReadRecordFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

void WriteFile(const std::string& path, const std::string& data) {
  std::ofstream(path, std::ios::binary) << data;
}

bool FileExists(const std::string& path) {
  return access(path.c_str(), F_OK) == 0;
}

// True once `pid` no longer runs: gone entirely, or a zombie nobody has reaped yet.
bool ProcessGone(pid_t pid) {
  if (kill(pid, 0) != 0 && errno == ESRCH) return true;
  std::string stat = ReadRecordFile("/proc/" + std::to_string(pid) + "/stat");
  size_t paren = stat.rfind(')');
  return stat.empty() || (paren != std::string::npos && stat.substr(paren + 2, 1) == "Z");
}

// Field `field` (1-based, >= 3) of /proc/PID/stat.
unsigned long long StatField(pid_t pid, int field) {
  std::string stat = ReadRecordFile("/proc/" + std::to_string(pid) + "/stat");
  std::istringstream rest(stat.substr(stat.rfind(')') + 1));
  std::string token;
  for (int f = 3; f <= field; f++) rest >> token;
  return std::stoull(token);
}

// What the shim should leave for `full` output under --output-max `cap` (head + marker + tail).
std::string Capped(const std::string& full, size_t cap) {
  size_t half = cap / 2;
  if (full.size() <= 2 * half) return full;
  return full.substr(0, half) + "\n[tq: " + std::to_string(full.size() - 2 * half) +
         " bytes cut]\n" + full.substr(full.size() - half);
}

// A temp dir with one shim run in it; the destructor kills leftovers and removes the dir.
class ShimRun {
 public:
  ShimRun() {
    char tmpl[] = "/tmp/tq-shim-test-XXXXXX";
    REQUIRE(mkdtemp(tmpl) != nullptr);
    dir_ = tmpl;
  }
  ~ShimRun() {
    if (pid_ > 0 && !exited_) {
      kill(pid_, TQ_SHIM_SIG_KILL);
      if (!Wait(10s)) {
        kill(pid_, SIGKILL);
        waitpid(pid_, nullptr, 0);
      }
    }
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec);
  }
  ShimRun(const ShimRun&) = delete;
  ShimRun& operator=(const ShimRun&) = delete;

  std::string Path(const std::string& name) const { return dir_ + "/" + name; }
  std::string StatusPath() const { return Path("status"); }
  std::string Out() const { return ReadRecordFile(Path("out")); }
  std::string Err() const { return ReadRecordFile(Path("err")); }
  pid_t pid() const { return pid_; }

  /// Spawns the shim as the daemon does (own session, stdin/stdout /dev/null), with the
  /// standard options, `options` appended before `--`, then `program`.
  void Start(const std::vector<std::string>& program, std::vector<std::string> options = {},
             const std::string& output_max = "1048576") {
    std::vector<std::string> args = {TQ_SHIM_PATH, "--status",     StatusPath(),
                                     "--stdout",   Path("out"),    "--stderr",
                                     Path("err"),  "--output-max", output_max};
    args.insert(args.end(), options.begin(), options.end());
    args.push_back("--");
    args.insert(args.end(), program.begin(), program.end());
    StartRaw(args);
  }

  /// Spawns the shim with exactly `args` (args[0] is the binary), and `env_fd`, when given, as
  /// its descriptor TQ_SHIM_ENV_FD.
  void StartRaw(const std::vector<std::string>& args, int env_fd = -1) {
    std::vector<char*> argv;
    for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0);
    std::string shim_stderr = Path("shim-stderr");  // the shim's own messages
    posix_spawn_file_actions_addopen(&actions, 2, shim_stderr.c_str(), O_WRONLY | O_CREAT, 0600);
    if (env_fd >= 0) posix_spawn_file_actions_adddup2(&actions, env_fd, TQ_SHIM_ENV_FD);
    posix_spawnattr_t attr;
    posix_spawnattr_init(&attr);
    sigset_t none, all;
    sigemptyset(&none);
    sigfillset(&all);
    posix_spawnattr_setsigmask(&attr, &none);
    posix_spawnattr_setsigdefault(&attr, &all);
    posix_spawnattr_setflags(&attr,
                             POSIX_SPAWN_SETSID | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
    int rc = posix_spawn(&pid_, args[0].c_str(), &actions, &attr, argv.data(), environ);
    posix_spawn_file_actions_destroy(&actions);
    posix_spawnattr_destroy(&attr);
    REQUIRE(rc == 0);
  }

  /// As Start, with `--env-fd` and a memory file holding `env` (entries each ended by a NUL,
  /// exactly as given) as the task's environment.
  void StartWithEnv(const std::vector<std::string>& program, const std::string& env) {
    const int fd = memfd_create("env", MFD_CLOEXEC);
    REQUIRE(fd >= 0);
    REQUIRE(write(fd, env.data(), env.size()) == static_cast<ssize_t>(env.size()));
    REQUIRE(lseek(fd, 0, SEEK_SET) == 0);
    std::vector<std::string> args = {TQ_SHIM_PATH,
                                     "--status",
                                     StatusPath(),
                                     "--stdout",
                                     Path("out"),
                                     "--stderr",
                                     Path("err"),
                                     "--output-max",
                                     "1048576",
                                     "--env-fd",
                                     std::to_string(TQ_SHIM_ENV_FD),
                                     "--"};
    args.insert(args.end(), program.begin(), program.end());
    StartRaw(args, fd);
    close(fd);
  }

  /// Waits for the shim to exit; false on timeout.
  bool Wait(std::chrono::milliseconds timeout = kTimeout) {
    return exited_ || WaitFor(
                          [&] {
                            exited_ = waitpid(pid_, &wait_status_, WNOHANG) == pid_;
                            return exited_;
                          },
                          timeout);
  }

  /// True while the shim has not exited (reaps it if it has).
  bool Running() {
    if (!exited_) exited_ = waitpid(pid_, &wait_status_, WNOHANG) == pid_;
    return !exited_;
  }

  /// The shim's exit status; requires it to have exited normally.
  int ExitStatus() const {
    REQUIRE(exited_);
    REQUIRE(WIFEXITED(wait_status_));
    return WEXITSTATUS(wait_status_);
  }

  /// Waits for the shim and returns its final record.
  tq::ShimRecord Finish() {
    REQUIRE(Wait());
    CHECK(ExitStatus() == TQ_SHIM_EXIT_OK);
    tq::Result<tq::ShimRecord> record = tq::ReadShimRecord(StatusPath());
    INFO(record.status().message());
    REQUIRE(record.ok());
    CHECK(record->finished);
    CHECK(record->shim_pid == pid_);
    CHECK_FALSE(tq::ShimRecordLocked(StatusPath()));
    return *record;
  }

  /// Runs `program` to the end and returns its final record.
  tq::ShimRecord Run(const std::vector<std::string>& program, std::vector<std::string> options = {},
                     const std::string& output_max = "1048576") {
    Start(program, std::move(options), output_max);
    return Finish();
  }

 private:
  std::string dir_;
  pid_t pid_ = -1;
  int wait_status_ = 0;
  bool exited_ = false;
};

}  // namespace

TEST_CASE("shim: a successful task leaves a finished, unlocked record") {
  ShimRun run;
  tq::ShimRecord r = run.Run({"true"});
  CHECK(r.version == TQ_SHIM_RECORD_VERSION);
  CHECK(r.exit_code == 0);
  CHECK(r.signal == 0);
  CHECK(r.spawn_errno == 0);
  CHECK(r.pid > 0);
  CHECK(r.pid != run.pid());
  CHECK(r.pid_start_time > 0);
  CHECK(r.started_ms > 0);
  CHECK(r.ended_ms >= r.started_ms);
  CHECK(run.Out().empty());
  CHECK(run.Err().empty());
  struct stat st {};
  REQUIRE(stat(run.StatusPath().c_str(), &st) == 0);
  CHECK((st.st_mode & 0777) == 0600);
}

TEST_CASE("shim: what a blanked spare held is overwritten with NULs, its length kept") {
  ShimRun run;
  const std::string earlier = std::string(1, '\0') + std::string(1500, 'x');
  WriteFile(run.StatusPath(), earlier);
  tq::ShimRecord r = run.Run({"true"});  // Finish() reads the record back
  CHECK(r.exit_code == 0);
  const std::string text = ReadRecordFile(run.StatusPath());
  CHECK(text.size() == earlier.size());  // padded, never truncated: its block stays allocated
  CHECK(text.find("xx") == std::string::npos);
  const size_t end = text.find('\0');
  REQUIRE(end != std::string::npos);
  CHECK(text.find_first_not_of('\0', end) == std::string::npos);
  CHECK(tq::ParseShimRecord(text.substr(0, end)).ok());
}

TEST_CASE("shim: a file longer than any record where the record goes is trimmed to the record") {
  ShimRun run;
  WriteFile(run.StatusPath(), std::string(8192, 'x'));
  tq::ShimRecord r = run.Run({"true"});
  CHECK(r.exit_code == 0);
  const std::string text = ReadRecordFile(run.StatusPath());
  CHECK(text.find("xx") == std::string::npos);
  CHECK(text.find('\0') == std::string::npos);
}

TEST_CASE("shim: exit codes and signals are recorded") {
  SUBCASE("exit 7") {
    ShimRun run;
    tq::ShimRecord r = run.Run({"sh", "-c", "exit 7"});
    CHECK(r.exit_code == 7);
    CHECK(r.signal == 0);
  }
  SUBCASE("killed by signal 9") {
    ShimRun run;
    tq::ShimRecord r = run.Run({"sh", "-c", "kill -9 $$"});
    CHECK(r.exit_code == -1);
    CHECK(r.signal == 9);
  }
  SUBCASE("stdout and stderr go to their own files") {
    ShimRun run;
    tq::ShimRecord r = run.Run({"sh", "-c", "echo out; echo err >&2"});
    CHECK(r.exit_code == 0);
    CHECK(run.Out() == "out\n");
    CHECK(run.Err() == "err\n");
  }
}

TEST_CASE("shim: argv reaches the program byte for byte") {
  ShimRun run;
  std::vector<std::string> args = {"a b", "", "it's", "new\nline", "\xff", "\"q\"", "$HOME", "*"};
  std::vector<std::string> program = {"/usr/bin/printf", "[%s]\\n"};
  program.insert(program.end(), args.begin(), args.end());
  tq::ShimRecord r = run.Run(program);
  CHECK(r.exit_code == 0);
  std::string expected;
  for (const auto& a : args) expected += "[" + a + "]\n";
  CHECK(run.Out() == expected);
}

TEST_CASE("shim: failures to start are recorded with their errno") {
  SUBCASE("missing program by path") {
    ShimRun run;
    tq::ShimRecord r = run.Run({"/nonexistent/tq-no-such-program"});
    CHECK(r.spawn_errno == ENOENT);
    CHECK(r.spawn_step == "exec");
    CHECK(r.exit_code == 127);
    CHECK(r.signal == 0);
  }
  SUBCASE("missing program on PATH") {
    ShimRun run;
    tq::ShimRecord r = run.Run({"tq-no-such-program-on-path"});
    CHECK(r.spawn_errno == ENOENT);
    CHECK(r.exit_code == 127);
  }
  SUBCASE("missing working directory") {
    ShimRun run;
    tq::ShimRecord r = run.Run({"true"}, {"--cwd", run.Path("no-such-dir")});
    CHECK(r.spawn_errno == ENOENT);
    CHECK(r.spawn_step == "cwd");
    CHECK(r.exit_code == 127);
  }
  SUBCASE("missing stdin file") {
    ShimRun run;
    tq::ShimRecord r = run.Run({"cat"}, {"--stdin", run.Path("no-such-file")});
    CHECK(r.spawn_errno == ENOENT);
    CHECK(r.spawn_step == "stdin");
    CHECK(r.exit_code == 127);
  }
  SUBCASE("not executable") {
    ShimRun run;
    WriteFile(run.Path("script"), "#!/bin/sh\n");
    REQUIRE(chmod(run.Path("script").c_str(), 0644) == 0);
    tq::ShimRecord r = run.Run({run.Path("script")});
    CHECK(r.spawn_errno == EACCES);
    CHECK(r.spawn_step == "exec");
    CHECK(r.exit_code == 126);
  }
}

TEST_CASE("shim: a PAM session it cannot open fails the start at pam, and the task never runs") {
  // The static build refuses any PAM session (tqd starts tq-shim-pam for those); a dynamic
  // build meets a service that denies every account.
  ShimRun run;
  std::filesystem::create_directory(run.Path("pam.d"));
  WriteFile(run.Path("pam.d/tq-test-none"),
            "auth required pam_deny.so\naccount required pam_deny.so\n"
            "session required pam_deny.so\n");
  run.StartRaw({TQ_SHIM_PATH, "--status", run.StatusPath(), "--stdout", run.Path("out"), "--stderr",
                run.Path("err"), "--output-max", "1048576", "--pam-service", "tq-test-none",
                "--user", "root", "--pam-dir", run.Path("pam.d"), "--", "touch", run.Path("ran")});
  tq::ShimRecord r = run.Finish();
  CHECK(r.spawn_step == "pam");
  CHECK((r.exit_code == 126 || r.exit_code == 127));  // EACCES: PAM's refusal; ELIBACC: static
  CHECK_FALSE(FileExists(run.Path("ran")));
}

TEST_CASE("shim: an output file is created when its stream is first written") {
  ShimRun run;
  tq::ShimRecord r = run.Run({"sh", "-c", "echo to-err >&2"});
  CHECK(r.exit_code == 0);
  CHECK_FALSE(FileExists(run.Path("out")));  // nothing written, no file
  CHECK(run.Err() == "to-err\n");
}

TEST_CASE("shim: --order keeps where the task switched between stdout and stderr") {
  ShimRun run;
  // Each write waits until the shim has filed the one before, so the order is certain.
  const std::string script =
      "printf a; until [ -s \"$1\" ]; do sleep 0.01; done; printf bb >&2; "
      "until [ -s \"$2\" ]; do sleep 0.01; done; printf ccc";
  const std::vector<std::string> program = {"sh",           "-c", script, "sh", run.Path("out"),
                                            run.Path("err")};
  SUBCASE("within the limit") {
    CHECK(run.Run(program, {"--order", run.Path("order")}).exit_code == 0);
    CHECK(run.Out() == "accc");
    CHECK(run.Err() == "bb");
    CHECK(ReadRecordFile(run.Path("order")) == "o 1\ne 2\n");
  }
  SUBCASE("a stream past half the limit ends the order") {
    CHECK(run.Run(program, {"--order", run.Path("order")}, "4").exit_code == 0);
    CHECK(ReadRecordFile(run.Path("order")) == "o 1\ne 2\no 2\nend\n");
  }
  SUBCASE("one stream only: no order file") {
    CHECK(run.Run({"sh", "-c", "echo a; echo b"}, {"--order", run.Path("order")}).exit_code == 0);
    CHECK_FALSE(FileExists(run.Path("order")));
  }
}

TEST_CASE("shim: an output file it cannot create loses that stream, not the task's start") {
  ShimRun run;
  run.StartRaw({TQ_SHIM_PATH, "--status", run.StatusPath(), "--stdout", run.Path("no-dir/out"),
                "--stderr", run.Path("err"), "--output-max", "1048576", "--cwd", run.Path(""), "--",
                "sh", "-c", "echo to-out; echo to-err >&2; touch ran"});
  tq::ShimRecord r = run.Finish();
  CHECK(r.spawn_errno == 0);
  CHECK(r.exit_code == 0);
  CHECK(FileExists(run.Path("ran")));
  CHECK(run.Err() == "to-err\n");
  CHECK(ReadRecordFile(run.Path("shim-stderr")).find("cannot create " + run.Path("no-dir/out")) !=
        std::string::npos);
  CHECK(r.cut_at[0] == 0);  // all of it cut, and said so
  CHECK(r.cut_errno[0] == ENOENT);
}

TEST_CASE("shim: output it cannot write is cut, recorded where and why, and logged once") {
  ShimRun run;
  // /dev/full refuses every write with ENOSPC, as a full disk does.
  run.StartRaw({TQ_SHIM_PATH, "--status", run.StatusPath(), "--stdout", "/dev/full", "--stderr",
                run.Path("err"), "--output-max", "0", "--log-name", "task 12 attempt 3", "--", "sh",
                "-c", "seq 1 1000; echo kept >&2; seq 1 1000; exit 0"});
  tq::ShimRecord r = run.Finish();
  CHECK(r.exit_code == 0);  // the task is not failed for it
  CHECK(r.cut_at[0] == 0);
  CHECK(r.cut_errno[0] == ENOSPC);
  CHECK(r.cut_at[1] == -1);
  CHECK(r.cut_errno[1] == 0);
  CHECK(run.Err() == "kept\n");
  // One line, as tqd writes its own: the time, the level, the attempt, where and why.
  const std::string log = ReadRecordFile(run.Path("shim-stderr"));
  CHECK_MESSAGE(
      std::regex_match(log, std::regex(R"(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d{3} warning )"
                                       R"(task 12 attempt 3: stdout cut at 0 bytes: )"
                                       R"(cannot write /dev/full: No space left on device\n)")),
      log);
}

TEST_CASE("shim: --log-style journal gives its lines the journal's priority, not a time") {
  ShimRun run;
  run.StartRaw({TQ_SHIM_PATH, "--status", run.StatusPath(), "--stdout", "/dev/full", "--stderr",
                run.Path("err"), "--output-max", "0", "--log-style", "journal", "--", "echo", "x"});
  run.Finish();
  CHECK(ReadRecordFile(run.Path("shim-stderr")) ==
        "<4>tq-shim: stdout cut at 0 bytes: cannot write /dev/full: No space left on device\n");
}

TEST_CASE("shim: the task starts with no signal blocked or ignored") {
  ShimRun run;
  tq::ShimRecord r = run.Run({"grep", "-E", "^Sig(Blk|Ign)", "/proc/self/status"});
  CHECK(r.exit_code == 0);
  CHECK(run.Out() == "SigBlk:\t0000000000000000\nSigIgn:\t0000000000000000\n");
}

TEST_CASE("shim: the working directory is applied") {
  ShimRun run;
  REQUIRE(mkdir(run.Path("work").c_str(), 0700) == 0);
  tq::ShimRecord r = run.Run({"sh", "-c", "pwd -P"}, {"--cwd", run.Path("work")});
  CHECK(r.exit_code == 0);
  std::error_code ec;
  CHECK(run.Out() == std::filesystem::canonical(run.Path("work"), ec).string() + "\n");
}

TEST_CASE("shim: --cwd-fallback is entered when --cwd cannot be") {
  ShimRun run;
  tq::ShimRecord r =
      run.Run({"sh", "-c", "pwd -P"}, {"--cwd", run.Path("no-such-dir"), "--cwd-fallback", "/"});
  CHECK(r.exit_code == 0);
  CHECK(r.spawn_step.empty());
  CHECK(run.Out() == "/\n");
}

TEST_CASE("shim: stdin comes from --stdin, else /dev/null") {
  SUBCASE("from a file") {
    ShimRun run;
    std::string payload("line one\n\0binary\xff\n", 18);
    WriteFile(run.Path("in"), payload);
    tq::ShimRecord r = run.Run({"cat"}, {"--stdin", run.Path("in")});
    CHECK(r.exit_code == 0);
    CHECK(run.Out() == payload);
  }
  SUBCASE("/dev/null") {
    ShimRun run;
    tq::ShimRecord r = run.Run({"cat"});
    CHECK(r.exit_code == 0);
    CHECK(run.Out().empty());
  }
}

TEST_CASE("shim: output is capped to head and tail with a marker") {
  ShimRun run;
  std::string big;
  for (size_t i = 0; big.size() < 100000; i++) big += "line " + std::to_string(i) + "\n";
  big.resize(100000);
  WriteFile(run.Path("big"), big);

  SUBCASE("stdout over the cap") {
    run.Run({"cat", run.Path("big")}, {}, "1000");
    std::string expected =
        big.substr(0, 500) + "\n[tq: 99000 bytes cut]\n" + big.substr(big.size() - 500);
    CHECK(run.Out() == expected);
  }
  SUBCASE("stderr over the cap") {
    run.Run({"sh", "-c", "cat \"$0\" >&2", run.Path("big")}, {}, "1000");
    CHECK(run.Err() == Capped(big, 1000));
    CHECK(run.Out().empty());
  }
  SUBCASE("just under, at and just over the cap") {
    for (size_t size : {999u, 1000u, 1001u}) {
      ShimRun inner;
      WriteFile(inner.Path("in"), big.substr(0, size));
      inner.Run({"cat"}, {"--stdin", inner.Path("in")}, "1000");
      INFO("size " << size);
      std::string expected = big.substr(0, size);
      if (size == 1001)
        expected = big.substr(0, 500) + "\n[tq: 1 bytes cut]\n" + big.substr(501, 500);
      CHECK(inner.Out() == expected);
    }
  }
  SUBCASE("many small writes through an odd cap") {
    std::string expected;
    for (int i = 0; i < 3000; i++) expected += "n " + std::to_string(i) + "\n";
    run.Run({"sh", "-c", "i=0; while [ $i -lt 3000 ]; do echo \"n $i\"; i=$((i+1)); done"}, {},
            "101");
    CHECK(run.Out() == Capped(expected, 101));
  }
  SUBCASE("0 means unlimited") {
    run.Run({"cat", run.Path("big")}, {}, "0");
    CHECK(run.Out() == big);
  }
}

TEST_CASE("shim: while running the record is locked and names the task") {
  ShimRun run;
  run.Start({"sh", "-c", "echo $$ > task.tmp && mv task.tmp task.pid; exec sleep 1000"},
            {"--cwd", run.Path("")});
  REQUIRE(WaitFor([&] { return FileExists(run.Path("task.pid")); }));
  pid_t task = std::stoi(ReadRecordFile(run.Path("task.pid")));

  tq::ShimRecord r;
  REQUIRE(WaitFor([&] {
    tq::Result<tq::ShimRecord> read = tq::ReadShimRecord(run.StatusPath());
    if (read.ok()) r = *read;
    return read.ok() && r.pid != 0;
  }));
  CHECK_FALSE(r.finished);
  CHECK(r.pid == task);
  CHECK(r.shim_pid == run.pid());
  CHECK(r.pid_start_time == StatField(task, 22));
  CHECK(r.version == TQ_SHIM_RECORD_VERSION);
  CHECK(r.shim_start_time == StatField(run.pid(), 22));
  CHECK(r.boot_id + "\n" == ReadRecordFile("/proc/sys/kernel/random/boot_id"));
  CHECK(r.started_ms > 0);
  CHECK(r.ended_ms == 0);
  CHECK(tq::ShimRecordLocked(run.StatusPath()));
  CHECK(StatField(task, 5) == static_cast<unsigned long long>(task));  // own process group
  // Only 0, 1, 2: nothing of the shim leaks, not the lock. The shell may hold a descriptor of
  // its own until its exec of sleep has closed it, which happens after the name changes, so
  // wait for the list: a leaked descriptor never goes away.
  std::vector<std::string> fds;
  const bool only_std = WaitFor([&] {
    fds.clear();
    std::error_code ec;
    for (const auto& e :
         std::filesystem::directory_iterator("/proc/" + std::to_string(task) + "/fd", ec))
      fds.push_back(e.path().filename().string());
    std::sort(fds.begin(), fds.end());
    return !ec && fds == std::vector<std::string>{"0", "1", "2"};
  });
  std::string shown;
  for (const std::string& fd : fds) shown += " " + fd;
  CHECK_MESSAGE(only_std, "the task's descriptors:" << shown);

  REQUIRE(kill(run.pid(), TQ_SHIM_SIG_KILL) == 0);
  tq::ShimRecord done = run.Finish();
  CHECK(done.signal == SIGKILL);
  CHECK(done.pid == task);
}

TEST_CASE("shim: TERM reaches the task and a grandchild that called setsid") {
  ShimRun run;
  run.Start({"sh", "-c",
             "setsid sh -c 'echo $$ > gc.tmp && mv gc.tmp gc.pid; exec sleep 1000' & "
             "exec sleep 1000"},
            {"--cwd", run.Path("")});
  REQUIRE(WaitFor([&] { return FileExists(run.Path("gc.pid")); }));
  pid_t grandchild = std::stoi(ReadRecordFile(run.Path("gc.pid")));
  REQUIRE(grandchild > 0);
  CHECK(StatField(grandchild, 6) == static_cast<unsigned long long>(grandchild));  // own session

  REQUIRE(kill(run.pid(), TQ_SHIM_SIG_TERMINATE) == 0);
  tq::ShimRecord r = run.Finish();
  CHECK(r.signal == SIGTERM);
  CHECK(r.exit_code == -1);
  CHECK(WaitFor([&] { return ProcessGone(grandchild); }));
}

TEST_CASE("shim: the kill signal ends a task that survives TERM") {
  ShimRun run;
  run.Start(
      {"sh", "-c", "trap 'echo term >> termed' TERM; echo > ready; while :; do sleep 1; done"},
      {"--cwd", run.Path("")});
  REQUIRE(WaitFor([&] { return FileExists(run.Path("ready")); }));
  REQUIRE(kill(run.pid(), TQ_SHIM_SIG_TERMINATE) == 0);
  REQUIRE(WaitFor([&] { return FileExists(run.Path("termed")); }));
  CHECK(run.Running());
  CHECK(tq::ShimRecordLocked(run.StatusPath()));

  REQUIRE(kill(run.pid(), TQ_SHIM_SIG_KILL) == 0);
  tq::ShimRecord r = run.Finish();
  CHECK(r.signal == SIGKILL);
}

TEST_CASE("shim: with --keep-background a process holding the pipes does not keep it alive") {
  ShimRun run;
  tq::ShimRecord r = run.Run({"sh", "-c", "sleep 1000 & echo $! > bg.pid; echo done"},
                             {"--cwd", run.Path(""), "--keep-background"});
  CHECK(r.exit_code == 0);
  CHECK(run.Out() == "done\n");
  pid_t bg = std::stoi(ReadRecordFile(run.Path("bg.pid")));
  CHECK_FALSE(ProcessGone(bg));  // it was left running, and it does not hold the lock
  kill(bg, SIGKILL);
}

// A shell that starts the three kinds of descendant a task can leave behind, each writing its pid
// to NAME.pid in the working directory: one in the task's group, one in a session of its own, and
// one that ignores TERM. `main` runs after them in the foreground.
std::vector<std::string> LeavesDescendants(const std::string& main) {
  return {"sh", "-c",
          "sh -c 'echo $$ > grp.tmp; mv grp.tmp grp.pid; exec sleep 1001' & "
          "setsid sh -c 'echo $$ > sid.tmp; mv sid.tmp sid.pid; exec sleep 1002' & "
          "sh -c 'trap \"\" TERM; echo $$ > ign.tmp; mv ign.tmp ign.pid; exec sleep 1003' & "
          "while [ ! -e grp.pid ] || [ ! -e sid.pid ] || [ ! -e ign.pid ]; do sleep 0.01; done; " +
              main};
}

// The pids LeavesDescendants wrote.
std::vector<pid_t> Descendants(const ShimRun& run) {
  std::vector<pid_t> pids;
  for (const char* name : {"grp.pid", "sid.pid", "ign.pid"})
    pids.push_back(static_cast<pid_t>(std::stoi(ReadRecordFile(run.Path(name)))));
  return pids;
}

TEST_CASE("shim: when the task ends, what it left running is ended before the shim exits") {
  ShimRun run;
  tq::ShimRecord r =
      run.Run(LeavesDescendants("echo done"), {"--cwd", run.Path(""), "--kill-grace", "200"});
  CHECK(r.exit_code == 0);
  CHECK(run.Out() == "done\n");
  for (pid_t pid : Descendants(run)) {
    CAPTURE(pid);
    CHECK(ProcessGone(pid));  // gone by the time the record is final, not merely soon after
  }
}

TEST_CASE("shim: TERM ends every descendant, with KILL after the grace even from no daemon") {
  ShimRun run;
  run.Start(LeavesDescendants("exec sleep 1000"), {"--cwd", run.Path(""), "--kill-grace", "200"});
  REQUIRE(WaitFor([&] {  // each descendant writes its own file, in no particular order
    return FileExists(run.Path("grp.pid")) && FileExists(run.Path("sid.pid")) &&
           FileExists(run.Path("ign.pid"));
  }));
  const std::vector<pid_t> left = Descendants(run);
  REQUIRE(kill(run.pid(), TQ_SHIM_SIG_TERMINATE) == 0);
  tq::ShimRecord r = run.Finish();
  CHECK(r.signal == SIGTERM);
  for (pid_t pid : left) {
    CAPTURE(pid);
    CHECK(ProcessGone(pid));
  }
}

TEST_CASE("shim: --keep-background leaves what the task started running") {
  ShimRun run;
  tq::ShimRecord r =
      run.Run(LeavesDescendants("echo done"), {"--cwd", run.Path(""), "--keep-background"});
  CHECK(r.exit_code == 0);
  for (pid_t pid : Descendants(run)) {
    CAPTURE(pid);
    CHECK_FALSE(ProcessGone(pid));
    kill(pid, SIGKILL);
  }
}

TEST_CASE("shim: rusage is the task's") {
  ShimRun run;
  // Burn until the shell's own user+system time reaches 0.35 s (35 ticks of 10 ms).
  tq::ShimRecord r = run.Run({"sh", "-c",
                              "while :; do read -r l < /proc/$$/stat; set -- $l; "
                              "[ $((${14} + ${15})) -ge 35 ] && break; done"});
  CHECK(r.exit_code == 0);
  CHECK(r.user_cpu_us + r.system_cpu_us >= 250000);
  CHECK(r.max_rss_kb > 0);
}

TEST_CASE("shim: usage errors exit 2 and touch nothing") {
  std::vector<std::vector<std::string>> cases = {
      {"--stdout", "o", "--stderr", "e", "--output-max", "1", "--", "true"},  // no status
      {"--status", "S", "--stdout", "o", "--stderr", "e", "--output-max", "1", "true"},  // no --
      {"--status", "S", "--stdout", "o", "--stderr", "e", "--output-max", "1", "--"},    // no prog
      {"--status", "S", "--stdout", "o", "--stderr", "e", "--output-max", "1x", "--", "true"},
      {"--status", "S", "--stdout", "o", "--stderr", "e", "--output-max", "-1", "--", "true"},
      {"--status", "S", "--status", "S", "--stdout", "o", "--stderr", "e", "--output-max", "1",
       "--", "true"},
      {"--status", "S", "--stdout", "o", "--stderr", "e", "--output-max", "1", "--bogus", "x", "--",
       "true"},
      {"--status", "S", "--stdout", "o", "--stderr", "e", "--output-max", "1", "--cwd", "", "--",
       "true"},
      {"--status", "S", "--status-fd", "2", "--stdout", "o", "--stderr", "e", "--output-max", "1",
       "--", "true"},  // 0, 1 and 2 are the standard streams, never the record
      {"--status", "S", "--status-fd", "3x", "--stdout", "o", "--stderr", "e", "--output-max", "1",
       "--", "true"},
      {"--status", "S", "--stdout", "o", "--stderr", "e", "--output-max", "1", "--uid", "65534",
       "--", "true"},  // an identity is all three of --uid, --gid and --groups
      {"--status", "S", "--stdout", "o", "--stderr", "e", "--output-max", "1", "--uid",
       "4294967295", "--gid", "1", "--groups", "1", "--",
       "true"},  // -1 means "unchanged" to setresuid
      {"--status", "S", "--stdout", "o", "--stderr", "e", "--output-max", "1", "--uid", "1",
       "--gid", "1", "--groups", "1,,2", "--", "true"},
      {"--status", "S", "--stdout", "o", "--stderr", "e", "--output-max", "1", "--uid", "1",
       "--gid", "-1", "--groups", "1", "--", "true"},
      {"--status", "S", "--stdout", "o", "--stderr", "e", "--output-max", "1", "--nice", "20", "--",
       "true"},
      {"--status", "S", "--stdout", "o", "--stderr", "e", "--output-max", "1", "--nice", "-21",
       "--", "true"},
      {"--status", "S", "--stdout", "o", "--stderr", "e", "--output-max", "1", "--ioprio", "65536",
       "--", "true"},
      {"--status", "S", "--stdout", "o", "--stderr", "e", "--output-max", "1", "--limit-core", "-1",
       "--", "true"},
      {"--status", "S", "--stdout", "o", "--stderr", "e", "--output-max", "1", "--pam-service",
       "tq", "--", "true"},  // PAM needs the user's name
      {"--status", "S", "--stdout", "o", "--stderr", "e", "--output-max", "1", "--cwd-fallback",
       "/", "--", "true"},  // a fallback for no directory
  };
  for (size_t i = 0; i < cases.size(); i++) {
    ShimRun run;
    std::vector<std::string> args = {TQ_SHIM_PATH};
    for (const auto& a : cases[i])
      args.push_back(a == "S" ? run.StatusPath() : a == "o" || a == "e" ? run.Path(a) : a);
    INFO("case " << i);
    run.StartRaw(args);
    REQUIRE(run.Wait());
    CHECK(run.ExitStatus() == TQ_SHIM_EXIT_USAGE);
    CHECK(ReadRecordFile(run.Path("shim-stderr")).find("usage: tq-shim") != std::string::npos);
    CHECK_FALSE(FileExists(run.StatusPath()));
    CHECK_FALSE(FileExists(run.Path("o")));
  }
}

TEST_CASE("shim: a --status-fd that is not the --status file is refused before the task runs") {
  ShimRun run;
  WriteFile(run.Path("other"), "");
  const int fd = open(run.Path("other").c_str(), O_RDWR | O_CLOEXEC);
  REQUIRE(fd >= 0);
  constexpr int kHandedFd = 200;              // far above anything the test process has open
  REQUIRE(dup2(fd, kHandedFd) == kHandedFd);  // dup2 leaves the copy open across exec
  close(fd);
  WriteFile(run.StatusPath(), "");
  run.Start({"sh", "-c", "echo ran > " + run.Path("ran")},
            {"--status-fd", std::to_string(kHandedFd)});
  close(kHandedFd);
  REQUIRE(run.Wait());
  CHECK(run.ExitStatus() == TQ_SHIM_EXIT_FAILED);
  CHECK(ReadRecordFile(run.Path("shim-stderr")).find("match --status-fd to") != std::string::npos);
  CHECK_FALSE(FileExists(run.Path("ran")));
  CHECK(ReadRecordFile(run.StatusPath()).empty());
}

TEST_CASE("shim record: the reader checks version and keys") {
  const std::string body =
      "finished=1\nshim_pid=10\npid=11\npid_start_time=12345\nstarted_ms=1000\nended_ms=2000\n"
      "exit_code=-1\nsignal=15\nspawn_errno=0\nuser_cpu_us=5\nsystem_cpu_us=6\nmax_rss_kb=7\n";

  SUBCASE("version 1 parses, unknown keys are ignored") {
    tq::Result<tq::ShimRecord> r = tq::ParseShimRecord("tq-shim-status 1\n" + body + "later=x\n");
    INFO(r.status().message());
    REQUIRE(r.ok());
    CHECK(r->version == 1);
    CHECK(r->finished);
    CHECK(r->shim_pid == 10);
    CHECK(r->pid == 11);
    CHECK(r->pid_start_time == 12345);
    CHECK(r->started_ms == 1000);
    CHECK(r->ended_ms == 2000);
    CHECK(r->exit_code == -1);
    CHECK(r->signal == 15);
    CHECK(r->user_cpu_us == 5);
    CHECK(r->system_cpu_us == 6);
    CHECK(r->max_rss_kb == 7);
  }
  SUBCASE("version 2 needs its own keys and carries the boot and the shim's start") {
    CHECK(tq::ParseShimRecord("tq-shim-status 2\n" + body).status().message().find("'boot_id'") !=
          std::string::npos);
    tq::Result<tq::ShimRecord> r = tq::ParseShimRecord(
        "tq-shim-status 2\n" + body + "boot_id=0f1e2d3c-aaaa-bbbb-cccc-000011112222\n" +
        "shim_start_time=777\n");
    REQUIRE(r.ok());
    CHECK(r->version == 2);
    CHECK(r->boot_id == "0f1e2d3c-aaaa-bbbb-cccc-000011112222");
    CHECK(r->shim_start_time == 777);
  }
  SUBCASE("version 3 names the step that failed") {
    const std::string v2 = body + "boot_id=0f1e2d3c\nshim_start_time=777\n";
    CHECK(tq::ParseShimRecord("tq-shim-status 3\n" + v2).status().message().find("'spawn_step'") !=
          std::string::npos);
    tq::Result<tq::ShimRecord> r =
        tq::ParseShimRecord("tq-shim-status 3\n" + v2 + "spawn_step=cwd\n");
    REQUIRE(r.ok());
    CHECK(r->spawn_step == "cwd");
    r = tq::ParseShimRecord("tq-shim-status 3\n" + v2 + "spawn_step=none\n");
    REQUIRE(r.ok());
    CHECK(r->spawn_step.empty());
    CHECK_FALSE(tq::ParseShimRecord("tq-shim-status 3\n" + v2 + "spawn_step=a b\n").ok());
  }
  SUBCASE("an unknown version is refused by name") {
    tq::Result<tq::ShimRecord> r = tq::ParseShimRecord("tq-shim-status 6\n" + body);
    REQUIRE_FALSE(r.ok());
    CHECK(r.status().message().find("version 6 is not supported") != std::string::npos);
  }
  SUBCASE("version 4 adds the cgroup's peak memory") {
    const std::string v3 = body + "boot_id=0123-abcd\nshim_start_time=77\nspawn_step=none\n";
    tq::Result<tq::ShimRecord> r =
        tq::ParseShimRecord("tq-shim-status 4\n" + v3 + "memory_peak=1048576\n");
    REQUIRE(r.ok());
    CHECK(r->memory_peak == 1048576);
    CHECK_FALSE(tq::ParseShimRecord("tq-shim-status 4\n" + v3).ok());  // required from 4
    CHECK(tq::ParseShimRecord("tq-shim-status 3\n" + v3).ok());
  }
  SUBCASE("version 5 says where and why each stream was cut") {
    const std::string v4 =
        body + "boot_id=0123-abcd\nshim_start_time=77\nspawn_step=none\nmemory_peak=0\n";
    tq::Result<tq::ShimRecord> r = tq::ParseShimRecord(
        "tq-shim-status 5\n" + v4 +
        "stdout_cut_at=11534336\nstdout_cut_errno=28\nstderr_cut_at=-1\nstderr_cut_errno=0\n");
    REQUIRE(r.ok());
    CHECK(r->cut_at[0] == 11534336);
    CHECK(r->cut_errno[0] == ENOSPC);
    CHECK(r->cut_at[1] == -1);
    CHECK(r->cut_errno[1] == 0);
    CHECK_FALSE(tq::ParseShimRecord("tq-shim-status 5\n" + v4).ok());  // required from 5
    r = tq::ParseShimRecord("tq-shim-status 4\n" + v4);
    REQUIRE(r.ok());
    CHECK(r->cut_errno[0] == 0);
    CHECK(r->cut_errno[1] == 0);
  }
  SUBCASE("a checked-in record of the previous version reads") {
    tq::Result<tq::ShimRecord> r =
        tq::ReadShimRecord(std::string(TQ_TEST_DATA_DIR) + "/shim_record_v1.txt");
    INFO(r.status().message());
    REQUIRE(r.ok());
    CHECK(r->version == 1);
    CHECK(r->finished);
    CHECK(r->exit_code == 3);
    CHECK(r->max_rss_kb == 2048);
    CHECK(r->boot_id.empty());
  }
  SUBCASE("a record ends at its first NUL; one that starts with NUL is blank") {
    const std::string text = "tq-shim-status 1\n" + body;
    tq::Result<tq::ShimRecord> r =
        tq::ParseShimRecord(text + std::string(1, '\0') + "exit_code=3\nnot a line\n");
    REQUIRE(r.ok());
    CHECK(r->exit_code == -1);
    tq::Result<tq::ShimRecord> blank = tq::ParseShimRecord(std::string(1, '\0') + text);
    REQUIRE_FALSE(blank.ok());
    CHECK(blank.status().message().find("empty") != std::string::npos);
  }
  SUBCASE("a wrong magic is refused") {
    CHECK_FALSE(tq::ParseShimRecord("something 1\n" + body).ok());
    CHECK_FALSE(tq::ParseShimRecord("").ok());
  }
  SUBCASE("a missing key is named") {
    std::string text = "tq-shim-status 1\n" + body;
    text.erase(text.find("signal=15\n"), 10);
    tq::Result<tq::ShimRecord> r = tq::ParseShimRecord(text);
    REQUIRE_FALSE(r.ok());
    CHECK(r.status().message().find("'signal'") != std::string::npos);
  }
  SUBCASE("a bad value is named") {
    std::string text = "tq-shim-status 1\n" + body;
    text.replace(text.find("pid=11"), 6, "pid=1x");
    tq::Result<tq::ShimRecord> r = tq::ParseShimRecord(text);
    REQUIRE_FALSE(r.ok());
    CHECK(r.status().message().find("'pid'") != std::string::npos);
  }
  SUBCASE("a missing file is an error naming the path, and is not locked") {
    tq::Result<tq::ShimRecord> r = tq::ReadShimRecord("/nonexistent/tq-status");
    REQUIRE_FALSE(r.ok());
    CHECK(r.status().message().find("/nonexistent/tq-status") != std::string::npos);
    CHECK_FALSE(tq::ShimRecordLocked("/nonexistent/tq-status"));
  }
}

TEST_CASE("shim: --env-fd is the task's whole environment, never the shim's") {
  struct Case {
    const char* what;
    std::string env;    // as the daemon writes it
    std::string shown;  // what env(1) prints in the task
  };
  const Case cases[] = {
      {"entries each ended by a NUL", "A=1\0B=two words\0"s, "A=1\nB=two words\n"},
      {"a last entry without its NUL", "A=1\0B=2"s, "A=1\nB=2\n"},
      {"none at all", "", ""},
      {"a value with a newline", "A=x\ny\0"s, "A=x\ny\n"},
  };
  for (const Case& c : cases) {
    CAPTURE(c.what);
    ShimRun run;
    run.StartWithEnv({"/usr/bin/env"}, c.env);
    tq::ShimRecord r = run.Finish();
    CHECK(r.exit_code == 0);
    CHECK(run.Out() == c.shown);
  }

  // The program is looked up in the task's PATH, which only the task's environment has.
  ShimRun run;
  std::filesystem::create_directory(run.Path("bin"));
  WriteFile(run.Path("bin/hello"), "#!/bin/sh\necho hello $A\n");
  REQUIRE(chmod(run.Path("bin/hello").c_str(), 0755) == 0);
  run.StartWithEnv({"hello"}, "PATH=" + run.Path("bin") + ":/usr/bin:/bin\0A=task\0"s);
  tq::ShimRecord r = run.Finish();
  CHECK(r.exit_code == 0);
  CHECK(run.Out() == "hello task\n");
}

TEST_CASE("shim: an --env-fd it cannot read or that is too large fails the start at setup") {
  SUBCASE("nothing open on the descriptor") {
    ShimRun run;
    run.Start({"true"}, {"--env-fd", "9"});
    tq::ShimRecord r = run.Finish();
    CHECK(r.spawn_step == TQ_SHIM_STEP_SETUP);
    CHECK(r.spawn_errno == EBADF);
    CHECK(r.exit_code == 127);
  }
  SUBCASE("more than TQ_SHIM_ENV_MAX_BYTES") {
    ShimRun run;
    run.StartWithEnv({"true"}, "A=" + std::string(TQ_SHIM_ENV_MAX_BYTES, 'x'));
    tq::ShimRecord r = run.Finish();
    CHECK(r.spawn_step == TQ_SHIM_STEP_SETUP);
    CHECK(r.spawn_errno == E2BIG);
    CHECK(r.exit_code == 127);
  }
}

namespace {
// The unprivileged account the identity tests switch to.
constexpr uid_t kNobodyUid = 65534;
constexpr gid_t kNogroup = 65534;
}  // namespace

TEST_CASE("shim: --uid --gid --groups run the task as that user and nothing as root") {
  if (geteuid() != 0) TQ_SKIP("needs root to switch users");
  ShimRun run;
  REQUIRE(mkdir(run.Path("work").c_str(), 0755) == 0);
  REQUIRE(chmod(run.Path("").c_str(), 0755) == 0);
  tq::ShimRecord r = run.Run(
      {"sh", "-c",
       "id -u; id -g; id -G; grep -E '^(Uid|Gid|Groups):' /proc/self/status; pwd; echo e >&2"},
      {"--uid", "65534", "--gid", "65534", "--groups", "65534,100", "--cwd", run.Path("work")});
  CHECK(r.spawn_errno == 0);
  CHECK(r.exit_code == 0);
  // Real, effective, saved and filesystem ids all changed; the groups are exactly those given.
  CHECK(run.Out() ==
        "65534\n65534\n65534 100\nUid:\t65534\t65534\t65534\t65534\n"
        "Gid:\t65534\t65534\t65534\t65534\nGroups:\t100 65534 \n" +
            run.Path("work") + "\n");
  // The output files are the user's (the shim writes them; the task never opens them).
  for (const char* name : {"out", "err"}) {
    struct stat st {};
    REQUIRE(stat(run.Path(name).c_str(), &st) == 0);
    CHECK(st.st_uid == kNobodyUid);
    CHECK(st.st_gid == kNogroup);
  }
}

TEST_CASE("shim: the working directory is entered with the task user's rights") {
  if (geteuid() != 0) TQ_SKIP("needs root to switch users");
  ShimRun run;
  REQUIRE(chmod(run.Path("").c_str(), 0755) == 0);
  REQUIRE(mkdir(run.Path("private").c_str(), 0700) == 0);  // root's: nobody may not enter
  tq::ShimRecord r = run.Run(
      {"touch", run.Path("ran")},
      {"--uid", "65534", "--gid", "65534", "--groups", "65534", "--cwd", run.Path("private")});
  CHECK(r.spawn_step == TQ_SHIM_STEP_CWD);
  CHECK(r.spawn_errno == EACCES);
  CHECK(r.exit_code == 126);  // as a shell says "permission denied"
  CHECK_FALSE(FileExists(run.Path("ran")));
}

TEST_CASE("shim: an identity it cannot take fails the start and the task never runs") {
  if (geteuid() != 0) TQ_SKIP("needs root to start the shim as another user");
  // A shim that is not root cannot take groups it is not in: setgroups fails, and the task must
  // not run with the shim's own identity instead.
  ShimRun run;
  REQUIRE(chown(run.Path("").c_str(), kNobodyUid, kNogroup) == 0);
  const std::string shim = run.Path("tq-shim");  // the build tree may be closed to nobody
  std::filesystem::copy_file(TQ_SHIM_PATH, shim);
  REQUIRE(chmod(shim.c_str(), 0755) == 0);
  run.StartRaw({"/usr/bin/setpriv",
                "--reuid=65534",
                "--regid=65534",
                "--clear-groups",
                shim,
                "--status",
                run.StatusPath(),
                "--stdout",
                run.Path("out"),
                "--stderr",
                run.Path("err"),
                "--output-max",
                "1024",
                "--uid",
                "65534",
                "--gid",
                "65534",
                "--groups",
                "0",
                "--",
                "touch",
                run.Path("ran")});
  tq::ShimRecord r = run.Finish();
  CHECK(r.spawn_step == TQ_SHIM_STEP_IDENTITY);
  CHECK(r.spawn_errno == EPERM);
  CHECK(r.exit_code == 127);
  CHECK_FALSE(FileExists(run.Path("ran")));
}

TEST_CASE("shim: --nice, --ioprio and the --limit-* limits reach the task") {
  ShimRun run;
  tq::ShimRecord r = run.Run(
      {"sh", "-c",
       "cut -d' ' -f19 /proc/self/stat; ionice -p $$; "
       "grep -E '^Max (open files|processes|core file size)' /proc/self/limits | tr -s ' '"},
      {"--nice", "7", "--ioprio", std::to_string(3 << 13), "--limit-nofile", "64", "--limit-nproc",
       "4000", "--limit-core", "0"});
  CHECK(r.spawn_errno == 0);
  CHECK(r.exit_code == 0);
  CHECK(run.Out() ==
        "7\nidle\nMax core file size 0 0 bytes \nMax processes 4000 4000 processes \n"
        "Max open files 64 64 files \n");
}

TEST_CASE("shim: a resource it cannot set fails the start at resources") {
  ShimRun run;  // more descriptors than fs.nr_open allows: refused even to root
  tq::ShimRecord r = run.Run({"true"}, {"--limit-nofile", "1099511627776"});
  CHECK(r.spawn_step == TQ_SHIM_STEP_RESOURCES);
  CHECK(r.exit_code == 127);
}

TEST_CASE("shim: --cgroup runs the task in a cgroup of its own and removes it afterwards") {
  tqtest::TestCgroup cg;
  if (cg.dir().empty()) TQ_SKIP("no writable cgroup v2 hierarchy here");
  ShimRun run;
  const std::string task_cgroup = cg.dir() + "/task-1-1";
  tq::ShimRecord r =
      run.Run({"sh", "-c", "cat /proc/self/cgroup; sleep 0.1 & wait"}, {"--cgroup", task_cgroup});
  CHECK(r.spawn_errno == 0);
  CHECK(r.exit_code == 0);
  const std::string relative = task_cgroup.substr(task_cgroup.find("/tq-test-"));
  CHECK(run.Out().find("0::" + relative + "\n") != std::string::npos);
  CHECK_FALSE(FileExists(task_cgroup));  // gone with the task
  if (cg.Has("memory")) CHECK(r.memory_peak > 0);
  if (!cg.Has("memory")) CHECK(r.memory_peak == 0);  // unknown, never made up
}

TEST_CASE("shim: KILL through the cgroup ends a setsid grandchild that ignores TERM") {
  tqtest::TestCgroup cg;
  if (cg.dir().empty()) TQ_SKIP("no writable cgroup v2 hierarchy here");
  ShimRun run;
  const std::string task_cgroup = cg.dir() + "/task-2-1";
  run.Start({"sh", "-c",
             "setsid sh -c 'trap \"\" TERM; echo $$ > gc.tmp && mv gc.tmp gc.pid; "
             "exec sleep 1000' & exec sleep 1000"},
            {"--cwd", run.Path(""), "--cgroup", task_cgroup, "--kill-grace", "200"});
  REQUIRE(WaitFor([&] { return FileExists(run.Path("gc.pid")); }));
  const pid_t grandchild = std::stoi(ReadRecordFile(run.Path("gc.pid")));
  CHECK(tqtest::TestCgroup::Read(task_cgroup + "/cgroup.procs").find(std::to_string(grandchild)) !=
        std::string::npos);
  REQUIRE(kill(run.pid(), TQ_SHIM_SIG_TERMINATE) == 0);
  tq::ShimRecord r = run.Finish();
  CHECK(r.signal == SIGTERM);
  CHECK(WaitFor([&] { return ProcessGone(grandchild); }));
  CHECK_FALSE(FileExists(task_cgroup));
}

TEST_CASE("shim: the cgroup's limits are written before the task starts") {
  tqtest::TestCgroup cg;
  if (cg.dir().empty()) TQ_SKIP("no writable cgroup v2 hierarchy here");
  if (!cg.Has("memory") || !cg.Has("pids") || !cg.Has("cpu"))
    TQ_SKIP("the memory, cpu and pids controllers are not all in the cgroup v2 hierarchy here");
  ShimRun run;
  const std::string task_cgroup = cg.dir() + "/task-3-1";
  tq::ShimRecord r = run.Run(
      {"sh", "-c", "cd " + task_cgroup + " && cat memory.max pids.max cpu.weight memory.oom.group"},
      {"--cgroup", task_cgroup, "--memory-max", "67108864", "--pids-max", "50", "--cpu-weight",
       "20"});
  CHECK(r.exit_code == 0);
  CHECK(run.Out() == "67108864\n50\n20\n1\n");
  CHECK(r.memory_peak > 0);
}

TEST_CASE("shim: a cgroup it cannot make or limit fails the start at cgroup") {
  ShimRun run;  // a plain directory: mkdir works, but there is no memory.max to write
  tq::ShimRecord r = run.Run(
      {"sh", "-c", "echo ran > ran"},
      {"--cwd", run.Path(""), "--cgroup", run.Path("task-4-1"), "--memory-max", "67108864"});
  CHECK(r.spawn_step == TQ_SHIM_STEP_CGROUP);
  CHECK(r.spawn_errno == ENOENT);
  CHECK(r.exit_code == 127);
  CHECK_FALSE(FileExists(run.Path("ran")));
  CHECK_FALSE(FileExists(run.Path("task-4-1")));  // removed again

  ShimRun missing;
  r = missing.Run({"true"}, {"--cgroup", missing.Path("no/such/parent")});
  CHECK(r.spawn_step == TQ_SHIM_STEP_CGROUP);
  CHECK(r.spawn_errno == ENOENT);
}

TEST_CASE("shim record: an absent, empty or NUL-first record is blank, a written one is not") {
  tq::TempDir temp;
  const std::string dir = temp.path.string();
  CHECK(tq::ShimRecordBlank(dir + "/absent"));
  WriteFile(dir + "/empty", "");
  CHECK(tq::ShimRecordBlank(dir + "/empty"));
  WriteFile(dir + "/blanked", std::string(1, '\0') + "tq-shim-status 5\nfinished=1\n");
  CHECK(tq::ShimRecordBlank(dir + "/blanked"));
  WriteFile(dir + "/written", "tq-shim-status 5\nfinished=0\n");
  CHECK_FALSE(tq::ShimRecordBlank(dir + "/written"));
}
