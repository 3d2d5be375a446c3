#include "daemon/notify/hook_runner.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/epoll.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <set>

#include "core/model/quote.h"
#include "core/model/saturating.h"
#include "daemon/host/log.h"
#include "daemon/host/log_setup.h"
#include "daemon/host/private_files.h"
#include "daemon/host/proc.h"
#include "daemon/run/shim_args.h"
#include "daemon/run/shim_record.h"
#include "daemon/shim/shim_record.h"

namespace tq {

namespace {
// A hook's output is read only for the log: the start of its stderr.
constexpr int64_t kHookOutputMax = 64 * 1024;
constexpr size_t kLoggedErrorBytes = 200;
// How often hooks dropped for want of room are said again.
constexpr int64_t kDroppedLogMs = 10 * 1000;
// How often the cgroup of an ended hook that still held processes is tried again.
constexpr int64_t kEndCgroupRetryMs = 100;

// What `hook` holds in memory while it waits.
size_t BytesOf(const HookLaunch& hook) {
  size_t n = hook.what.size() + hook.cwd.size() + hook.input.size();
  for (const std::vector<std::string>* list : {&hook.argv, &hook.env})
    for (const std::string& s : *list) n += s.size();
  return n;
}

// The first line of what `path` holds, at most kLoggedErrorBytes, quoted for the log.
std::string FirstLine(const std::string& path) {
  std::ifstream in(path);
  std::string line;
  std::getline(in, line);
  if (line.size() > kLoggedErrorBytes) line.resize(kLoggedErrorBytes);
  return line.empty() ? "" : ": " + Quote(line);
}
}  // namespace

HookRunner::HookRunner(EventLoop& loop, const Clock& clock, Spawner& spawner, std::string dir,
                       const ConfigPtr& config, const TaskCgroups* cgroups)
    : loop_(loop),
      clock_(clock),
      spawner_(spawner),
      dir_(std::move(dir)),
      config_(config),
      cgroups_(cgroups),
      dropped_log_(clock, kDroppedLogMs) {}

HookRunner::~HookRunner() {
  if (ending_timer_) loop_.CancelTimer(ending_timer_);
  // The shims run on: a stopping daemon never touches what it started.
  for (auto& [seq, r] : running_) {
    for (EventLoop::TimerId t : {r.timeout_timer, r.kill_timer})
      if (t) loop_.CancelTimer(t);
    loop_.Unwatch(r.pidfd);
    close(r.pidfd);
  }
}

Status HookRunner::Open() {
  Status st = MakePrivateDir(dir_);
  if (!st.ok()) return st;
  std::error_code ec;
  std::set<uint64_t> seqs;
  for (const auto& entry : std::filesystem::directory_iterator(dir_, ec)) {
    const std::string name = entry.path().filename().string();
    const size_t dot = name.find('.');
    uint64_t seq = 0;
    if (dot == std::string::npos || dot == 0 ||
        std::from_chars(name.data(), name.data() + dot, seq).ptr != name.data() + dot) {
      std::filesystem::remove(entry.path(), ec);
      continue;
    }
    seqs.insert(seq);
  }
  if (ec) LogWarn("cannot clear {}: {}", dir_, ec.message());
  for (uint64_t seq : seqs) {
    next_seq_ = std::max(next_seq_, seq + 1);
    if (!Adopt(seq)) RemoveFiles(seq);
  }
  if (cgroups_ != nullptr)
    for (uint64_t seq : cgroups_->HookSeqs()) {
      next_seq_ = std::max(next_seq_, seq + 1);  // a number whose cgroup lingers is not reused
      if (running_.count(seq) == 0) EndCgroup(seq);
    }
  return Status::Ok();
}

// A hook an earlier daemon started whose shim still runs: watched again, and stopped when what
// was left of its hook_timeout runs out. False when there is none to adopt.
bool HookRunner::Adopt(uint64_t seq) {
  std::ifstream facts(PathOf(seq, ".hook"));
  int64_t deadline = 0;
  Running r;
  if (!(facts >> deadline >> r.owner) || !std::getline(facts >> std::ws, r.what)) return false;
  const std::string status = PathOf(seq, ".status");
  auto record = ReadShimRecord(status);
  if (!ShimRecordLocked(status) || !record.ok() || record->finished || record->shim_pid <= 0)
    return false;
  r.shim_pid = record->shim_pid;
  r.pidfd = PidfdOpen(r.shim_pid);
  // The start time is checked after the pidfd exists: it then names the same process.
  if (r.pidfd < 0 || ProcessStartTime(r.shim_pid) != record->shim_start_time ||
      !ShimRecordLocked(status)) {
    if (r.pidfd >= 0) close(r.pidfd);
    return false;
  }
  const int64_t left = std::max<int64_t>(0, deadline - clock_.WallNow());
  LogInfo("{}: still running from before the restart (shim pid {}); stopped in {} ms", r.what,
          r.shim_pid, left);
  const int pidfd = r.pidfd;
  running_.emplace(seq, std::move(r));
  ArmTimeout(seq, left);
  loop_.Watch(pidfd, EPOLLIN, [this, seq](uint32_t) { OnExit(seq); });
  return true;
}

void HookRunner::ArmTimeout(uint64_t seq, int64_t after_ms) {
  running_.at(seq).timeout_timer =
      loop_.AddTimer(SaturatingAdd(clock_.MonoNow(), after_ms), [this, seq] {
        auto it = running_.find(seq);
        if (it == running_.end()) return;
        Running& hr = it->second;
        hr.timeout_timer = 0;
        hr.timed_out = true;
        LogWarn("{}: timed out after {} ms; stopping it", hr.what, config_->hook_timeout_ms);
        PidfdSendSignal(hr.pidfd, TQ_SHIM_SIG_TERMINATE);
        hr.kill_timer =
            loop_.AddTimer(SaturatingAdd(clock_.MonoNow(), config_->kill_grace_ms), [this, seq] {
              auto found = running_.find(seq);
              if (found == running_.end()) return;
              found->second.kill_timer = 0;
              PidfdSendSignal(found->second.pidfd, TQ_SHIM_SIG_KILL);
            });
      });
}

void HookRunner::Run(HookLaunch hook) {
  size_t own = 0, bytes = 0, own_bytes = 0;
  for (const HookLaunch& h : waiting_) {
    const size_t n = BytesOf(h);
    bytes += n;
    if (h.owner != hook.owner) continue;
    ++own;
    own_bytes += n;
  }
  const size_t size = BytesOf(hook);
  if (waiting_.size() >= kMaxWaiting || own >= kMaxWaitingPerOwner ||
      bytes + size > kMaxWaitingBytes || own_bytes + size > kMaxWaitingBytesPerOwner) {
    ++counts_.dropped;
    dropped_log_.Log(LogLevel::kWarn, hook.what + ": not run, " + std::to_string(waiting_.size()) +
                                          " hooks are already waiting with " +
                                          std::to_string(bytes) + " bytes (" + std::to_string(own) +
                                          " with " + std::to_string(own_bytes) + " bytes of uid " +
                                          std::to_string(hook.owner) + ")");
    return;
  }
  waiting_.push_back(std::move(hook));
  StartWaiting();
}

void HookRunner::StartWaiting() {
  for (auto it = waiting_.begin(); it != waiting_.end() && running_.size() < kMaxRunning;) {
    const bool share_used = RunningOf(it->owner) >= kMaxRunningPerOwner;
    const bool only_kept_left = !it->admin && running_.size() >= kMaxRunning - kKeptForAdmins;
    if (share_used || only_kept_left) {
      ++it;  // its owner has its share running, or only admins' slots are left: others may start
      continue;
    }
    HookLaunch hook = std::move(*it);
    it = waiting_.erase(it);
    const uint64_t seq = next_seq_++;
    if (!Start(seq, hook)) {
      ++counts_.failed;
      RemoveFiles(seq);
    }
  }
}

size_t HookRunner::RunningOf(uint32_t owner) const {
  return std::count_if(running_.begin(), running_.end(),
                       [owner](const auto& entry) { return entry.second.owner == owner; });
}

bool HookRunner::Start(uint64_t seq, const HookLaunch& hook) {
  const std::string input = PathOf(seq, ".in");
  const std::string status = PathOf(seq, ".status");
  // Owned by the hook's user, so the hook can open it again by its /dev/stdin.
  Status st = WritePrivateFile(input, hook.input, hook.account);
  if (st.ok()) {  // what a daemon started after this one needs to adopt it (Adopt)
    std::ofstream facts(PathOf(seq, ".hook"), std::ios::trunc);
    facts << SaturatingAdd(clock_.WallNow(), config_->hook_timeout_ms) << ' ' << hook.owner << ' '
          << hook.what << '\n';
    if (!facts.flush()) st = Status::Internal("cannot write " + PathOf(seq, ".hook"));
  }
  auto locked = st.ok() ? LockedStatusRecord(status) : Result<int>(st);
  if (!locked.ok()) {
    LogError("{}: cannot start: {}", hook.what, locked.status().message());
    return false;
  }
  const Config& config = *config_;
  std::vector<std::string> args = {
      "--status",     status,
      "--status-fd",  std::to_string(TQ_SHIM_STATUS_FD),
      "--stdout",     PathOf(seq, ".out"),
      "--stderr",     PathOf(seq, ".err"),
      "--output-max", std::to_string(std::min(config.output_max, kHookOutputMax)),
      "--kill-grace", std::to_string(config.kill_grace_ms),
      "--stdin",      input};
  if (!hook.cwd.empty()) args.insert(args.end(), {"--cwd", hook.cwd, "--cwd-fallback", "/"});
  if (cgroups_ != nullptr) args.insert(args.end(), {"--cgroup", cgroups_->HookPathOf(seq)});
  const std::vector<std::string> resources = ResourceArgs(hook.resources);
  args.insert(args.end(), resources.begin(), resources.end());
  const std::vector<std::string> identity =
      IdentityArgs(hook.account, hook.pam_service, hook.pam_dir);
  args.insert(args.end(), identity.begin(), identity.end());
  args.insert(args.end(), {"--env-fd", std::to_string(TQ_SHIM_ENV_FD), "--log-name", hook.what,
                           "--log-style", StderrIsJournal() ? "journal" : "plain", "--"});
  args.insert(args.end(), hook.argv.begin(), hook.argv.end());
  auto env = EnvironmentFd(hook.env);
  Result<int> pid =
      env.ok() ? spawner_.Spawn(args, *locked, *env, hook.account && !hook.pam_service.empty())
               : Result<int>(env.status());
  if (env.ok()) close(*env);
  close(*locked);  // the shim's copy keeps the lock
  if (!pid.ok()) {
    LogError("{}: cannot start: {}", hook.what, pid.status().message());
    return false;
  }
  Running r;
  r.what = hook.what;
  r.owner = hook.owner;
  r.shim_pid = *pid;
  r.pidfd = PidfdOpen(*pid);
  if (r.pidfd < 0) {
    LogError("{}: pidfd_open of its shim failed: {}", hook.what, strerror(errno));
    kill(*pid, SIGKILL);
    waitpid(*pid, nullptr, 0);
    return false;
  }
  LogDebug("{}: started (shim pid {})", hook.what, *pid);
  const int pidfd = r.pidfd;
  running_.emplace(seq, std::move(r));
  ArmTimeout(seq, config.hook_timeout_ms);
  loop_.Watch(pidfd, EPOLLIN, [this, seq](uint32_t) { OnExit(seq); });
  return true;
}

void HookRunner::OnExit(uint64_t seq) {
  auto it = running_.find(seq);
  if (it == running_.end()) return;
  Running r = std::move(it->second);
  running_.erase(it);
  loop_.Unwatch(r.pidfd);
  close(r.pidfd);
  for (EventLoop::TimerId t : {r.timeout_timer, r.kill_timer})
    if (t) loop_.CancelTimer(t);
  while (waitpid(r.shim_pid, nullptr, 0) < 0 && errno == EINTR) {
  }
  auto record = ReadShimRecord(PathOf(seq, ".status"));
  if (!record.ok() || !record->finished) {
    ++counts_.failed;
    LogWarn("{}: its supervisor ended without a result", r.what);
  } else if (record->spawn_errno != 0) {
    ++counts_.failed;
    LogWarn("{}: could not start ({}: {})", r.what, record->spawn_step,
            strerror(record->spawn_errno));
  } else if (record->exit_code == 0 && !r.timed_out) {
    ++counts_.succeeded;
    LogInfo("{}: done", r.what);
  } else {
    ++counts_.failed;
    const std::string how = r.timed_out ? "timed out"
                            : record->exit_code >= 0
                                ? "exited " + std::to_string(record->exit_code)
                                : "killed by signal " + std::to_string(record->signal);
    LogWarn("{}: {}{}", r.what, how, FirstLine(PathOf(seq, ".err")));
  }
  RemoveFiles(seq);
  // The shim removes its cgroup; one whose shim died still holds what the hook started.
  if (cgroups_ != nullptr) EndCgroup(seq);
  StartWaiting();
}

void HookRunner::EndCgroup(uint64_t seq) {
  if (cgroups_->EndHook(seq)) return;
  ending_.insert(seq);
  if (ending_timer_ != 0) return;
  ending_timer_ = loop_.AddTimer(SaturatingAdd(clock_.MonoNow(), kEndCgroupRetryMs), [this] {
    ending_timer_ = 0;
    std::set<uint64_t> still;
    still.swap(ending_);
    for (uint64_t seq : still) EndCgroup(seq);
  });
}

std::string HookRunner::PathOf(uint64_t seq, const char* suffix) const {
  return dir_ + "/" + std::to_string(seq) + suffix;
}

void HookRunner::RemoveFiles(uint64_t seq) const {
  for (const char* suffix : {".in", ".out", ".err", ".status", ".hook"})
    unlink(PathOf(seq, suffix).c_str());
}

}  // namespace tq
