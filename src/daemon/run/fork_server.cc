#include "daemon/run/fork_server.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "daemon/host/log.h"
#include "daemon/run/spawner.h"
#include "daemon/shim/shim_record.h"

namespace tq {

namespace {

// How long tqd waits for the server's first message or a shim's pid: the server clones at once,
// so anything longer is a stopped or stuck server, replaced.
constexpr int kAnswerMs = 1000;
// After a server that would not start, how long tqd starts the shims itself before it tries again.
constexpr long long kRetryStartMs = 10000;

long long MonoNowMs() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1000LL + ts.tv_nsec / 1000000;
}

// Reads an int from `fd` within kAnswerMs: 1 when read, 0 at its end, -1 on silence or an error.
int ReadInt(int fd, int* value) {
  const long long until = MonoNowMs() + kAnswerMs;
  for (;;) {
    pollfd p = {fd, POLLIN, 0};
    const long long left = until - MonoNowMs();
    const int ready = poll(&p, 1, left < 0 ? 0 : static_cast<int>(left));
    if (ready < 0 && errno == EINTR) continue;
    if (ready <= 0) return -1;
    const ssize_t n = read(fd, value, sizeof *value);
    if (n < 0 && errno == EINTR) continue;
    if (n == 0) return 0;
    return n == static_cast<ssize_t>(sizeof *value) ? 1 : -1;
  }
}

}  // namespace

ForkServer::~ForkServer() {
  if (sock_ >= 0) Stop();
}

bool ForkServer::Start() {
  int pair[2];
  if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, pair) != 0) return false;
  // The server's end as descriptor 3; stdin and stdout /dev/null, stderr tqd's (the shims log
  // there); an empty environment and default signals, in a session of its own, as a shim.
  char* argv[] = {const_cast<char*>("tq-shim"), const_cast<char*>(TQ_FORK_SERVER_ARG),
                  const_cast<char*>("3"), nullptr};
  pid_t pid = 0;
  const int rc = SpawnAsShim(shim_fd_, argv, {pair[1]}, &pid);
  close(pair[1]);
  if (rc != 0) {
    close(pair[0]);
    LogWarn("the shims' fork server could not start: {}", strerror(rc));
    return false;
  }
  sock_ = pair[0];
  pid_ = pid;
  int ready = -1;
  if (ReadInt(sock_, &ready) != 1 || ready != TQ_FORK_SERVER_READY) {
    LogWarn("the shims' fork server (pid {}) did not start; tqd starts each shim itself", pid_);
    Stop();
    return false;
  }
  LogDebug("the shims' fork server runs (pid {})", pid_);
  return true;
}

void ForkServer::Stop() {
  kill(pid_, SIGKILL);
  close(sock_);
  while (waitpid(pid_, nullptr, 0) < 0 && errno == EINTR) {
  }
  sock_ = -1;
  pid_ = 0;
}

pid_t ForkServer::Make(const std::vector<std::string>& args, int status_fd, int env_fd) {
  std::string message;
  for (const std::string& a : args) message.append(a).push_back('\0');
  if (message.size() > TQ_FORK_SERVER_MAX_BYTES || args.size() >= TQ_FORK_SERVER_MAX_ARGS) return 0;
  if (sock_ < 0) {
    if (MonoNowMs() < retry_at_ms_) return 0;
    if (!Start()) {
      retry_at_ms_ = MonoNowMs() + kRetryStartMs;
      return 0;
    }
  }
  int told[2];  // the shim writes its pid to told[1]
  if (pipe2(told, O_CLOEXEC) != 0) return 0;
  iovec iov = {message.data(), message.size()};
  alignas(cmsghdr) char control[CMSG_SPACE(3 * sizeof(int))] = {};
  msghdr msg = {};
  msg.msg_iov = &iov;
  msg.msg_iovlen = 1;
  msg.msg_control = control;
  msg.msg_controllen = sizeof control;
  cmsghdr* c = CMSG_FIRSTHDR(&msg);
  c->cmsg_level = SOL_SOCKET;
  c->cmsg_type = SCM_RIGHTS;
  c->cmsg_len = CMSG_LEN(3 * sizeof(int));
  const int fds[3] = {status_fd, env_fd, told[1]};
  std::memcpy(CMSG_DATA(c), fds, sizeof fds);
  ssize_t sent;
  do sent = sendmsg(sock_, &msg, MSG_NOSIGNAL);
  while (sent < 0 && errno == EINTR);
  close(told[1]);  // from here the pipe ends when neither the server nor a shim holds it
  if (sent < 0) {
    LogWarn("the shims' fork server (pid {}) took no request: {}; a new one starts", pid_,
            strerror(errno));
    close(told[0]);
    Stop();
    return 0;
  }
  int pid = 0;
  int got = ReadInt(told[0], &pid);
  if (got < 0) {
    // A stopped or stuck server: once it is gone, its copy of the pipe is too, and a shim it
    // made has said so.
    LogWarn("the shims' fork server (pid {}) did not answer; a new one starts", pid_);
    Stop();
    got = ReadInt(told[0], &pid);
  }
  close(told[0]);
  if (got != 1 || pid <= 0) {
    if (got == 0) LogWarn("the shims' fork server made no shim; tqd starts it itself");
    return 0;
  }
  return static_cast<pid_t>(pid);
}

}  // namespace tq
