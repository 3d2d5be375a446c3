#include "daemon/host/proc.h"

#include <signal.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <fstream>
#include <sstream>

namespace tq {

std::string CurrentBootId() {
  std::ifstream in("/proc/sys/kernel/random/boot_id");
  std::string id;
  std::getline(in, id);
  return id;
}

namespace {
// Fields 3.. of /proc/PID/stat (state first), or nullopt. The command name (field 2) may hold
// spaces and ')'; the fields after the last ')' are fixed.
std::optional<std::string> StatAfterName(int pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::string stat;
  if (!std::getline(in, stat)) return std::nullopt;
  const size_t close = stat.rfind(')');
  if (close == std::string::npos) return std::nullopt;
  return stat.substr(close + 1);
}
}  // namespace

std::optional<unsigned long long> ProcessStartTime(int pid) {
  auto fields = StatAfterName(pid);
  if (!fields) return std::nullopt;
  std::istringstream rest(*fields);
  std::string field;
  for (int i = 3; i <= 22; ++i)
    if (!(rest >> field)) return std::nullopt;
  try {
    return std::stoull(field);
  } catch (...) {
    return std::nullopt;
  }
}

bool ProcessRunning(int pid) {
  auto fields = StatAfterName(pid);
  if (!fields) return false;
  std::istringstream rest(*fields);
  std::string state;
  return (rest >> state) && state != "Z";
}

bool StillRunsProcess(int pid, unsigned long long start_time) {
  if (pid <= 0 || pid == getpid() || pid == getpgrp() || pid == getsid(0) || pid == getppid())
    return false;
  return ProcessStartTime(pid) == start_time && ProcessRunning(pid);
}

// glibc 2.36's <sys/pidfd.h> lacks C++ linkage, so call the kernel directly.
int PidfdOpen(int pid) {
  return static_cast<int>(syscall(SYS_pidfd_open, pid, 0));
}

int PidfdSendSignal(int pidfd, int sig) {
  return static_cast<int>(syscall(SYS_pidfd_send_signal, pidfd, sig, nullptr, 0));
}

int PidfdSendSignalValue(int pidfd, int sig, int value) {
  siginfo_t info{};
  info.si_signo = sig;
  info.si_code = SI_QUEUE;
  info.si_pid = getpid();
  info.si_uid = getuid();
  info.si_value.sival_int = value;
  return static_cast<int>(syscall(SYS_pidfd_send_signal, pidfd, sig, &info, 0));
}

}  // namespace tq
