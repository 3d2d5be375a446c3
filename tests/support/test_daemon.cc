#include "support/test_daemon.h"

#include <dirent.h>
#include <fcntl.h>
#include <ftw.h>
#include <grp.h>
#include <poll.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <fstream>
#include <sstream>
#include <thread>
#include <utility>

#include <doctest/doctest.h>

extern char** environ;

namespace tqtest {

namespace {

using Clock = std::chrono::steady_clock;

// Seconds left until `deadline` (never negative).
double SecondsLeft(Clock::time_point deadline) {
  return std::max(0.0, std::chrono::duration<double>(deadline - Clock::now()).count());
}

Clock::time_point After(double seconds) {
  return Clock::now() +
         std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(seconds));
}

// The test's environment plus `extra` ("NAME=VALUE" entries replace same-named ones).
std::vector<std::string> ChildEnv(const std::vector<std::string>& extra) {
  std::vector<std::string> env;
  for (char** e = environ; *e; ++e) {
    const std::string entry = *e;
    const std::string name = entry.substr(0, entry.find('='));
    bool replaced = name == "TQ_SOCKET";  // the tests always say which socket
    for (const auto& x : extra)
      replaced = replaced || x.compare(0, name.size() + 1, name + "=") == 0;
    if (!replaced) env.push_back(entry);
  }
  env.insert(env.end(), extra.begin(), extra.end());
  return env;
}

// NULL-terminated char* views of `v` (which must outlive the result).
std::vector<char*> CStrings(const std::vector<std::string>& v) {
  std::vector<char*> out;
  for (const auto& s : v) out.push_back(const_cast<char*>(s.c_str()));
  out.push_back(nullptr);
  return out;
}

// Opens /dev/null on any of 0, 1, 2 that is closed (CI may run without stdin), so the pipes the
// harness makes never land there and get clobbered by the child's dup2 calls.
void EnsureStdFds() {
  for (int fd = 0; fd <= 2; ++fd)
    if (fcntl(fd, F_GETFD) == -1) open("/dev/null", O_RDWR);
}

// Forks and execs `argv` with `env`, stdin/stdout/stderr on the given descriptors. Everything is
// prepared before fork, so the child only makes async-signal-safe calls.
pid_t Spawn(const std::vector<std::string>& argv, const std::vector<std::string>& env, int in,
            int out, int err, std::optional<RunAs> run_as = std::nullopt) {
  std::vector<char*> cargv = CStrings(argv);
  std::vector<char*> cenv = CStrings(env);
  sigset_t none;
  sigemptyset(&none);
  const pid_t pid = fork();
  REQUIRE_MESSAGE(pid >= 0, "fork: " << strerror(errno));
  if (pid == 0) {
    signal(SIGPIPE, SIG_DFL);
    sigprocmask(SIG_SETMASK, &none, nullptr);
    if (dup2(in, 0) < 0 || dup2(out, 1) < 0 || dup2(err, 2) < 0) _exit(127);
    if (run_as && (setgroups(0, nullptr) != 0 || setgid(run_as->gid) != 0 ||
                   setuid(run_as->uid) != 0 || chdir("/") != 0))
      _exit(127);
    syscall(SYS_close_range, 3, ~0U, 0);
    execve(cargv[0], cargv.data(), cenv.data());
    const char msg[] = "tq test harness: execve failed\n";
    [[maybe_unused]] ssize_t n = write(2, msg, sizeof msg - 1);
    _exit(127);
  }
  return pid;
}

int DecodeWaitStatus(int status) {
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return -1;
}

// Reads what `fd` has into `sink`; closes it and sets it to -1 at end of file.
void Drain(int& fd, std::string& sink) {
  char buf[65536];
  for (;;) {
    const ssize_t n = read(fd, buf, sizeof buf);
    if (n > 0) {
      sink.append(buf, static_cast<size_t>(n));
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && errno == EAGAIN) return;
    close(fd);
    fd = -1;
    return;
  }
}

void CloseFd(int& fd) {
  if (fd >= 0) close(fd);
  fd = -1;
}

int RemoveEntry(const char* path, const struct stat*, int, FTW*) {
  return remove(path);
}

}  // namespace

bool WaitFor(const std::function<bool()>& pred, double timeout_s) {
  const auto deadline = After(timeout_s);
  for (;;) {
    if (pred()) return true;
    if (Clock::now() >= deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
}

pid_t WaitPidFile(const std::string& path) {
  std::string text;
  const bool written = WaitFor([&] {
    text = ReadFile(path);
    return !text.empty() && text.back() == '\n';
  });
  REQUIRE_MESSAGE(written, "the task did not write its pid to " << path);
  return static_cast<pid_t>(std::stol(text));
}

std::string TaskFilesDir(const TestDaemon& d, const std::string& id) {
  return d.state_dir() + "/attempts/" + std::to_string(std::stoll(id) / 1000);
}

std::string RecordPath(const TestDaemon& d, const std::string& id, int attempt) {
  return TaskFilesDir(d, id) + "/" + id + "." + std::to_string(attempt) + ".status";
}

long long RecordField(const std::string& record_path, const std::string& key) {
  const std::string text = ReadFile(record_path);
  const size_t at = text.find("\n" + key + "=");
  if (at == std::string::npos) return -1;
  return std::stoll(text.substr(at + key.size() + 2));
}

pid_t WaitShimPid(const TestDaemon& d, const std::string& id) {
  long long shim = -1;
  REQUIRE_MESSAGE(WaitFor([&] { return (shim = RecordField(RecordPath(d, id), "shim_pid")) > 0; }),
                  "no shim named itself in " << RecordPath(d, id));
  return static_cast<pid_t>(shim);
}

std::string BinPath(const std::string& name) {
  return std::string(TQ_BIN_DIR) + "/" + name;
}

// ---------------------------------------------------------------------------------------------
// Process

Process::Process(const std::vector<std::string>& argv, const std::vector<std::string>& extra_env,
                 std::string stdin_data, std::optional<RunAs> run_as)
    : stdin_data_(std::move(stdin_data)) {
  signal(SIGPIPE, SIG_IGN);  // a child that stops reading its stdin must not kill the test
  EnsureStdFds();
  int in[2], out[2], err[2];
  REQUIRE(pipe2(in, O_CLOEXEC) == 0);
  REQUIRE(pipe2(out, O_CLOEXEC) == 0);
  REQUIRE(pipe2(err, O_CLOEXEC) == 0);
  pid_ = Spawn(argv, ChildEnv(extra_env), in[0], out[1], err[1], run_as);
  close(in[0]);
  close(out[1]);
  close(err[1]);
  in_fd_ = in[1];
  out_fd_ = out[0];
  err_fd_ = err[0];
  for (int fd : {in_fd_, out_fd_, err_fd_}) fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
  if (stdin_data_.empty()) CloseFd(in_fd_);
}

Process::~Process() {
  if (!exit_code_ && pid_ > 0) {
    kill(pid_, SIGKILL);
    Reap(/*block=*/true);
  }
  CloseFd(in_fd_);
  CloseFd(out_fd_);
  CloseFd(err_fd_);
}

void Process::Reap(bool block) {
  if (exit_code_) return;
  int status = 0;
  pid_t r;
  do r = waitpid(pid_, &status, block ? 0 : WNOHANG);
  while (r < 0 && errno == EINTR);
  if (r == pid_) exit_code_ = DecodeWaitStatus(status);
}

bool Process::Pump(int timeout_ms) {
  pollfd fds[3] = {{in_fd_, POLLOUT, 0}, {out_fd_, POLLIN, 0}, {err_fd_, POLLIN, 0}};
  if (in_fd_ >= 0 || out_fd_ >= 0 || err_fd_ >= 0) {
    const int n = poll(fds, 3, timeout_ms);
    if (n < 0 && errno != EINTR) FAIL("poll: " << strerror(errno));
  } else if (!exit_code_) {
    Reap(/*block=*/false);
    if (!exit_code_)
      std::this_thread::sleep_for(std::chrono::milliseconds(std::min(timeout_ms, 20)));
  }
  if (in_fd_ >= 0 && fds[0].revents != 0) {
    const ssize_t n =
        write(in_fd_, stdin_data_.data() + stdin_done_, stdin_data_.size() - stdin_done_);
    if (n > 0) stdin_done_ += static_cast<size_t>(n);
    if ((n < 0 && errno != EAGAIN && errno != EINTR) || stdin_done_ == stdin_data_.size())
      CloseFd(in_fd_);
  }
  if (out_fd_ >= 0 && fds[1].revents != 0) Drain(out_fd_, out_);
  if (err_fd_ >= 0 && fds[2].revents != 0) Drain(err_fd_, err_);
  if (out_fd_ < 0 && err_fd_ < 0) Reap(/*block=*/false);
  return exit_code_.has_value() && out_fd_ < 0 && err_fd_ < 0;
}

bool Process::WaitOutput(const std::function<bool(const std::string&)>& pred, double timeout_s) {
  const auto deadline = After(timeout_s);
  for (;;) {
    if (pred(out_)) return true;
    if (Clock::now() >= deadline) return false;
    if (Pump(50)) return pred(out_);
  }
}

RunResult Process::Finish(double timeout_s) {
  const auto deadline = After(timeout_s);
  bool done = false;
  while (!done && SecondsLeft(deadline) > 0) done = Pump(50);
  RunResult r;
  if (!done) {
    kill(pid_, SIGKILL);
    Reap(/*block=*/true);
    while (!Pump(50)) {
    }
    err_ += "\n[test harness: killed after " + std::to_string(timeout_s) + " s]\n";
    exit_code_ = -1;
  }
  r.exit_code = *exit_code_;
  r.out = out_;
  r.err = err_;
  return r;
}

// ---------------------------------------------------------------------------------------------
// TestDaemon

TestDaemon::TestDaemon(const std::string& config_toml, std::vector<std::string> wrapper,
                       std::vector<std::string> extra_args)
    : wrapper_(std::move(wrapper)), extra_args_(std::move(extra_args)) {
  char tmpl[] = "/tmp/tq-it-XXXXXX";
  REQUIRE_MESSAGE(mkdtemp(tmpl) != nullptr, "mkdtemp: " << strerror(errno));
  dir_ = tmpl;
  socket_ = dir_ + "/tq.sock";
  try {
    WriteConfig(config_toml);
    REQUIRE_MESSAGE(mkdir(jobs_dir().c_str(), 0700) == 0, "mkdir: " << strerror(errno));
    Start();
    const bool up = WaitFor(
        [this] { return !Alive() || RunTq(socket_, {"ping"}, {MarkEnv()}).exit_code == 0; }, 20);
    REQUIRE_MESSAGE((up && Alive()), "tqd did not start; its log:\n" << Log());
  } catch (...) {
    Stop();
    KillLeftovers();
    nftw(dir_.c_str(), RemoveEntry, 16, FTW_DEPTH | FTW_PHYS);
    throw;
  }
}

TestDaemon::~TestDaemon() {
  Stop();
  KillLeftovers();
  if (std::getenv("TQ_TEST_KEEP") != nullptr) {
    std::fprintf(stderr, "keeping %s\n", dir_.c_str());
    return;
  }
  nftw(dir_.c_str(), RemoveEntry, 16, FTW_DEPTH | FTW_PHYS);
}

void TestDaemon::WriteConfig(const std::string& config_toml) const {
  // A top-level key goes before any table of the test's own config.
  WriteFile(dir_ + "/tqd.toml", "jobs_dir = " + Quoted(jobs_dir()) + "\n" + config_toml);
}

void TestDaemon::WriteJobFile(const std::string& name, const std::string& toml) const {
  WriteFile(jobs_dir() + "/" + name, toml);
}

void TestDaemon::Start() {
  EnsureStdFds();
  std::vector<std::string> argv = wrapper_;
  argv.insert(argv.end(), {BinPath("tqd"), "-v", "--socket", socket_, "--state", state_dir()});
  if (access((dir_ + "/tqd.toml").c_str(), F_OK) == 0)
    argv.insert(argv.end(), {"--config", dir_ + "/tqd.toml"});
  argv.insert(argv.end(), extra_args_.begin(), extra_args_.end());
  const int log =
      open((dir_ + "/tqd.log").c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
  const int null = open("/dev/null", O_RDONLY | O_CLOEXEC);
  REQUIRE(log >= 0);
  REQUIRE(null >= 0);
  daemon_pid_ = -1;
  pid_ = Spawn(argv, ChildEnv({MarkEnv()}), null, log, log);
  close(log);
  close(null);
}

bool TestDaemon::Alive() {
  if (pid_ <= 0) return false;
  int status = 0;
  const pid_t r = waitpid(pid_, &status, WNOHANG);
  if (r == pid_) {
    pid_ = -1;
    return false;
  }
  return true;
}

void TestDaemon::Restart() {
  Stop();
  Start();
  WaitReady();
}

void TestDaemon::WaitReady() {
  const bool up = WaitFor(
      [this] { return !Alive() || RunTq(socket_, {"ping"}, {MarkEnv()}).exit_code == 0; }, 20);
  REQUIRE_MESSAGE((up && Alive()), "tqd did not start again; its log:\n" << Log());
}

pid_t TestDaemon::DaemonPid() {
  if (wrapper_.empty() || pid_ <= 0) return pid_;
  if (daemon_pid_ > 0) return daemon_pid_;
  // The wrapper forks and then execs tqd: wait for a child of the wrapper that runs tqd.
  const std::string tqd = BinPath("tqd");
  const std::string children_path =
      "/proc/" + std::to_string(pid_) + "/task/" + std::to_string(pid_) + "/children";
  WaitFor([&] {
    char self[4096];
    const std::string self_link = "/proc/" + std::to_string(pid_) + "/exe";
    const ssize_t len = readlink(self_link.c_str(), self, sizeof self - 1);
    if (len > 0 && std::string(self, static_cast<size_t>(len)) == tqd) {
      daemon_pid_ = pid_;  // a wrapper that execs tqd (prlimit) rather than forking it
      return true;
    }
    std::istringstream children(ReadFile(children_path));
    for (long child; children >> child;) {
      char exe[4096];
      const std::string link = "/proc/" + std::to_string(child) + "/exe";
      const ssize_t n = readlink(link.c_str(), exe, sizeof exe - 1);
      if (n > 0 && std::string(exe, static_cast<size_t>(n)) == tqd) {
        daemon_pid_ = static_cast<pid_t>(child);
        return true;
      }
    }
    return !Alive();
  });
  return daemon_pid_;
}

bool TestDaemon::WaitExit(double timeout_s) {
  return WaitFor([this] { return !Alive(); }, timeout_s);
}

void TestDaemon::Stop() {
  if (pid_ <= 0) return;
  const pid_t daemon = DaemonPid();
  kill(daemon > 0 ? daemon : pid_, SIGTERM);
  if (!WaitExit(10)) {
    if (daemon > 0 && daemon != pid_) kill(daemon, SIGKILL);
    kill(pid_, SIGKILL);
    waitpid(pid_, nullptr, 0);
    pid_ = -1;
  }
  daemon_pid_ = -1;
}

void TestDaemon::Kill9() {
  if (pid_ <= 0) return;
  const pid_t daemon = DaemonPid();
  kill(daemon > 0 ? daemon : pid_, SIGKILL);
  if (daemon != pid_) {
    // A wrapper (strace) ends once tqd is gone, unless it still traces shims: then end it too.
    if (!WaitExit(10)) kill(pid_, SIGKILL);
  }
  if (pid_ > 0) waitpid(pid_, nullptr, 0);
  pid_ = -1;
  daemon_pid_ = -1;
}

void TestDaemon::KillLeftovers() const {
  const std::string mark = MarkEnv();
  const pid_t self = getpid();
  // Rounds, because a dying task's parent may fork once more before it is killed.
  WaitFor(
      [&] {
        int found = 0;
        DIR* d = opendir("/proc");
        if (d == nullptr) return true;
        for (dirent* e; (e = readdir(d)) != nullptr;) {
          char* end = nullptr;
          const long pid = std::strtol(e->d_name, &end, 10);
          if (*end != '\0' || pid <= 0 || pid == self) continue;
          const std::string env = ReadFile("/proc/" + std::string(e->d_name) + "/environ");
          const std::string entry = std::string(1, '\0') + mark + '\0';
          if (env.compare(0, mark.size() + 1, mark + '\0') == 0 ||
              env.find(entry) != std::string::npos) {
            kill(static_cast<pid_t>(pid), SIGKILL);
            ++found;
          }
        }
        closedir(d);
        return found == 0;
      },
      10);
}

std::string TestDaemon::Log() const {
  return ReadFile(dir_ + "/tqd.log");
}

// ---------------------------------------------------------------------------------------------
// tq

RunResult RunTq(const std::string& socket, const std::vector<std::string>& args,
                const std::vector<std::string>& extra_env, const std::string& stdin_data) {
  std::vector<std::string> argv = {BinPath("tq"), "--socket", socket};
  argv.insert(argv.end(), args.begin(), args.end());
  Process p(argv, extra_env, stdin_data);
  return p.Finish();
}

RunResult Tq(const TestDaemon& d, const std::vector<std::string>& args,
             const std::string& stdin_data) {
  return RunTq(d.socket(), args, {d.MarkEnv()}, stdin_data);
}

namespace {

// The argv of `tq ARGS` on `d`'s socket for another user: a copy of tq that user may run, in a
// directory whose socket others may reach.
std::vector<std::string> TqArgvForOthers(const TestDaemon& d,
                                         const std::vector<std::string>& args) {
  const std::string copy = d.dir() + "/tq-as-other-user";
  // tq runs the tq-web and tq-full beside it: copied beside the copy.
  for (const auto& [from, to] :
       {std::pair(BinPath("tq"), copy), std::pair(BinPath("tq-web"), d.dir() + "/tq-web"),
        std::pair(BinPath("tq-full"), d.dir() + "/tq-full")}) {
    if (access(to.c_str(), X_OK) == 0) continue;
    WriteFile(to, ReadFile(from));
    REQUIRE(chmod(to.c_str(), 0755) == 0);
  }
  REQUIRE(chmod(d.dir().c_str(), 0711) == 0);  // others may reach the socket, not list files
  std::vector<std::string> argv = {copy, "--socket", d.socket()};
  argv.insert(argv.end(), args.begin(), args.end());
  return argv;
}

}  // namespace

RunResult TqAs(const TestDaemon& d, RunAs who, const std::vector<std::string>& args,
               const std::vector<std::string>& extra_env, const std::string& stdin_data) {
  std::vector<std::string> env = {d.MarkEnv()};
  env.insert(env.end(), extra_env.begin(), extra_env.end());
  Process p(TqArgvForOthers(d, args), env, stdin_data, who);
  return p.Finish();
}

std::unique_ptr<Process> TqBackgroundAs(const TestDaemon& d, RunAs who,
                                        const std::vector<std::string>& args) {
  return std::make_unique<Process>(TqArgvForOthers(d, args), std::vector<std::string>{d.MarkEnv()},
                                   "", who);
}

std::unique_ptr<Process> TqBackground(const TestDaemon& d, const std::vector<std::string>& args) {
  std::vector<std::string> argv = {BinPath("tq"), "--socket", d.socket()};
  argv.insert(argv.end(), args.begin(), args.end());
  return std::make_unique<Process>(argv, std::vector<std::string>{d.MarkEnv()});
}

std::string Submit(const TestDaemon& d, const std::vector<std::string>& args) {
  std::vector<std::string> full = {"submit"};
  full.insert(full.end(), args.begin(), args.end());
  const RunResult r = Tq(d, full);
  REQUIRE_MESSAGE(r.exit_code == 0, "tq submit failed (" << r.exit_code << "): " << r.err);
  REQUIRE_MESSAGE(r.out.size() >= 2, "tq submit printed " << r.out);
  REQUIRE_MESSAGE(r.out.back() == '\n', "tq submit printed " << r.out);
  const std::string id = r.out.substr(0, r.out.size() - 1);
  REQUIRE_MESSAGE(id.find_first_not_of("0123456789") == std::string::npos,
                  "tq submit printed " << r.out);
  return id;
}

nlohmann::json TaskJson(const TestDaemon& d, const std::string& id) {
  const RunResult r = Tq(d, {"status", id, "--json"});
  REQUIRE_MESSAGE(r.exit_code == 0, "tq status " << id << " failed: " << r.err);
  auto j = nlohmann::json::parse(r.out, nullptr, false);
  REQUIRE_MESSAGE(j.is_object(), "tq status --json printed " << r.out);
  return j;
}

std::string TaskState(const TestDaemon& d, const std::string& id) {
  return TaskJson(d, id).value("state", "");
}

bool WaitState(const TestDaemon& d, const std::string& id, const std::string& state,
               double timeout_s) {
  return WaitFor([&] { return TaskState(d, id) == state; }, timeout_s);
}

std::vector<nlohmann::json> ListTasks(const TestDaemon& d, std::vector<std::string> args) {
  args.insert(args.begin(), {"list", "--json", "--limit", "1000000"});
  const RunResult r = Tq(d, args);
  REQUIRE_MESSAGE(r.exit_code == 0, "tq list failed (" << r.exit_code << "): " << r.err);
  return JsonLines(r.out);
}

long long TimeMs(const nlohmann::json& rfc3339) {
  REQUIRE_MESSAGE(rfc3339.is_string(), "not a time: " << rfc3339.dump());
  const std::string s = rfc3339.get<std::string>();
  std::tm tm{};
  const char* rest = strptime(s.c_str(), "%Y-%m-%dT%H:%M:%S", &tm);
  REQUIRE_MESSAGE(rest != nullptr, "not an RFC 3339 time: " << s);
  long long ms = 0;
  if (*rest == '.') {
    int digits = 0;
    for (++rest; *rest >= '0' && *rest <= '9'; ++rest, ++digits)
      if (digits < 3) ms = ms * 10 + (*rest - '0');
    for (; digits < 3; ++digits) ms *= 10;
  }
  REQUIRE_MESSAGE(std::string(rest) == "Z", "not a UTC time: " << s);
  return static_cast<long long>(timegm(&tm)) * 1000 + ms;
}

std::vector<nlohmann::json> JsonLines(const std::string& text) {
  std::vector<nlohmann::json> out;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty()) continue;
    auto j = nlohmann::json::parse(line, nullptr, false);
    REQUIRE_MESSAGE(j.is_object(), "not a JSON object: " << line);
    out.push_back(std::move(j));
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// Files and processes

std::string Quoted(const std::string& s) {
  return "'" + s + "'";
}

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return "";
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::vector<std::string> Lines(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

bool Contains(const std::string& haystack, const std::string& needle) {
  return haystack.find(needle) != std::string::npos;
}

std::vector<std::string> FileLines(const std::string& path) {
  return Lines(ReadFile(path));
}

std::vector<std::string> WordsOfRow(const std::string& table, const std::string& first) {
  std::istringstream lines(table);
  for (std::string line; std::getline(lines, line);) {
    std::istringstream words(line);
    std::vector<std::string> row;
    for (std::string w; words >> w;) row.push_back(w);
    if (!row.empty() && row[0] == first) return row;
  }
  return {};
}

void WriteFile(const std::string& path, const std::string& data) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << data;
  out.close();
  REQUIRE_MESSAGE(out.good(), "cannot write " << path);
}

bool ProcessGone(pid_t pid) {
  if (kill(pid, 0) != 0 && errno == ESRCH) return true;
  const std::string stat = ReadFile("/proc/" + std::to_string(pid) + "/stat");
  const size_t paren = stat.rfind(')');
  if (stat.empty() || paren == std::string::npos) return true;
  return paren + 2 < stat.size() && stat[paren + 2] == 'Z';
}

}  // namespace tqtest
