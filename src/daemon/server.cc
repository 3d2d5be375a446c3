#include "daemon/server.h"

#include <fcntl.h>
#include <pwd.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include <spdlog/spdlog.h>

#include "core/protocol.h"

namespace tq {

/// One client: its peer, its input decoder and its pending output.
struct Server::Connection {
  ConnId id = 0;
  int fd = -1;
  Owner peer;
  FrameDecoder decoder;
  std::string out;
  size_t out_offset = 0;
  bool close_after_flush = false;
  bool busy = false;
  bool watching_out = false;
  bool frames_deferred = false;  ///< a HandleFrames turn is queued on the loop
  EventLoop::TimerId idle_timer = 0;
};

namespace {
std::string UserName(uid_t uid) {
  passwd pw{};
  passwd* result = nullptr;
  char buf[4096];
  if (getpwuid_r(uid, &pw, buf, sizeof buf, &result) == 0 && result) return pw.pw_name;
  return std::to_string(uid);
}

bool SocketAnswers(const sockaddr_un& addr) {
  int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return false;
  const bool answers = connect(fd, reinterpret_cast<const sockaddr*>(&addr), sizeof addr) == 0;
  close(fd);
  return answers;
}
}  // namespace

Server::Server(EventLoop& loop, const Clock& clock, ServerLimits limits)
    : loop_(loop), clock_(clock), limits_(limits) {}

Server::~Server() {
  Shutdown();
}

Status Server::Listen(const std::string& path, unsigned mode) {
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  if (path.size() >= sizeof addr.sun_path)
    return Status(ErrorCode::kConfig, "socket", "socket: path \"" + path + "\" is too long");
  std::memcpy(addr.sun_path, path.c_str(), path.size() + 1);
  struct stat st {};
  if (lstat(path.c_str(), &st) == 0) {
    if (!S_ISSOCK(st.st_mode))
      return Status(ErrorCode::kConfig, "socket",
                    "socket: \"" + path + "\" exists and is not a socket");
    if (SocketAnswers(addr))
      return Status(ErrorCode::kConfig, "socket",
                    "socket: another daemon is already listening on " + path);
    unlink(path.c_str());
  }
  listen_fd_ = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (listen_fd_ < 0) return Status::Internal(std::string("socket: ") + strerror(errno));
  const mode_t old_mask = umask(077);
  const int rc = bind(listen_fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr);
  umask(old_mask);
  if (rc != 0 || chmod(path.c_str(), mode) != 0 || listen(listen_fd_, 512) != 0) {
    const std::string why = strerror(errno);
    close(listen_fd_);
    listen_fd_ = -1;
    return Status(ErrorCode::kConfig, "socket", "socket: cannot listen on " + path + ": " + why);
  }
  path_ = path;
  loop_.Watch(listen_fd_, EPOLLIN, [this](uint32_t) { Accept(); });
  return Status::Ok();
}

void Server::Shutdown() {
  if (listen_fd_ >= 0) {
    loop_.Unwatch(listen_fd_);
    close(listen_fd_);
    listen_fd_ = -1;
    unlink(path_.c_str());
  }
  while (!connections_.empty()) Close(connections_.begin()->first);
}

void Server::Accept() {
  for (;;) {
    const int fd = accept4(listen_fd_, nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC);
    if (fd < 0) {
      if (errno != EAGAIN && errno != EINTR && errno != ECONNABORTED)
        spdlog::warn("accept failed: {}", strerror(errno));
      return;
    }
    ucred cred{};
    socklen_t len = sizeof cred;
    if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) != 0) {
      close(fd);
      continue;
    }
    if (connections_.size() >= limits_.max_connections) {
      spdlog::warn("refusing a connection from uid {}: {} connections are open", cred.uid,
                   connections_.size());
      const std::string frame = EncodeFrame(
          ErrorResponse(Status(ErrorCode::kLimit, "connections",
                               "connections: the daemon already serves " +
                                   std::to_string(limits_.max_connections) + " clients"))
              .dump());
      [[maybe_unused]] ssize_t n = write(fd, frame.data(), frame.size());
      close(fd);
      continue;
    }
    auto c = std::make_unique<Connection>();
    c->id = next_id_++;
    c->fd = fd;
    c->peer = Owner{cred.uid, cred.gid, UserName(cred.uid)};
    Connection& ref = *c;
    connections_.emplace(c->id, std::move(c));
    const ConnId id = ref.id;
    loop_.Watch(fd, EPOLLIN, [this, id](uint32_t events) {
      auto it = connections_.find(id);
      if (it == connections_.end()) return;
      if (events & EPOLLOUT) Flush(*it->second);
      it = connections_.find(id);
      if (it != connections_.end() && (events & (EPOLLIN | EPOLLHUP | EPOLLERR)))
        OnReadable(*it->second);
    });
    ArmIdleTimer(ref);
  }
}

void Server::ArmIdleTimer(Connection& c) {
  if (c.idle_timer) loop_.CancelTimer(c.idle_timer);
  c.idle_timer = 0;
  if (c.busy) return;
  const ConnId id = c.id;
  c.idle_timer = loop_.AddTimer(clock_.MonoNow() + limits_.idle_ms, [this, id] {
    auto it = connections_.find(id);
    if (it == connections_.end()) return;
    it->second->idle_timer = 0;
    spdlog::debug("closing idle connection {}", id);
    Close(id);
  });
}

void Server::OnReadable(Connection& c) {
  const ConnId id = c.id;
  char buf[65536];
  // Read ahead only so far: a client that floods requests waits for its turn instead of
  // growing the daemon's memory. A frame still incomplete is always read to its end.
  while (!c.decoder.HasFrame() || c.decoder.buffered() < limits_.max_input_buffer) {
    const ssize_t n = read(c.fd, buf, sizeof buf);
    if (n > 0) {
      c.decoder.Feed(std::string_view(buf, static_cast<size_t>(n)));
      if (static_cast<size_t>(n) < sizeof buf) break;
      continue;
    }
    if (n < 0 && (errno == EAGAIN || errno == EINTR)) break;
    Close(id);  // EOF or a hard error: the peer is gone
    return;
  }
  ArmIdleTimer(c);
  if (!c.frames_deferred) HandleFrames(id);
}

void Server::HandleFrames(ConnId id) {
  for (int i = 0; i < limits_.frames_per_turn; ++i) {
    auto it = connections_.find(id);  // a handler may have closed it
    if (it == connections_.end() || it->second->close_after_flush) return;
    Connection& c = *it->second;
    auto frame = c.decoder.Next();
    if (!frame.ok()) {
      SendAndClose(id, ErrorResponse(frame.status()));
      return;
    }
    if (!frame->has_value()) return;
    on_frame_(id, c.peer, std::move(**frame));
  }
  // More may be buffered: give every other client a turn first.
  auto it = connections_.find(id);
  if (it == connections_.end()) return;
  it->second->frames_deferred = true;
  loop_.Defer(nullptr, [this, id] {
    auto c = connections_.find(id);
    if (c == connections_.end()) return;
    c->second->frames_deferred = false;
    HandleFrames(id);
  });
}

void Server::Send(ConnId id, const nlohmann::json& message) {
  auto it = connections_.find(id);
  if (it == connections_.end()) return;
  Connection& c = *it->second;
  if (c.close_after_flush) return;
  c.out += EncodeFrame(message.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
  if (c.out.size() - c.out_offset > limits_.max_output_buffer) {
    spdlog::warn("dropping connection {} of uid {}: it does not read its responses", id,
                 c.peer.uid);
    Close(id);
    return;
  }
  Flush(c);
}

void Server::SendAndClose(ConnId id, const nlohmann::json& message) {
  Send(id, message);
  auto it = connections_.find(id);
  if (it == connections_.end()) return;
  it->second->close_after_flush = true;
  Flush(*it->second);
}

void Server::SetBusy(ConnId id, bool busy) {
  auto it = connections_.find(id);
  if (it == connections_.end()) return;
  it->second->busy = busy;
  ArmIdleTimer(*it->second);
}

void Server::Flush(Connection& c) {
  while (c.out_offset < c.out.size()) {
    const ssize_t n = send(c.fd, c.out.data() + c.out_offset, c.out.size() - c.out_offset,
                           MSG_NOSIGNAL | MSG_DONTWAIT);
    if (n > 0) {
      c.out_offset += static_cast<size_t>(n);
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && errno == EAGAIN) {
      if (!c.watching_out) {
        loop_.Modify(c.fd, EPOLLIN | EPOLLOUT);
        c.watching_out = true;
      }
      return;
    }
    Close(c.id);
    return;
  }
  c.out.clear();
  c.out_offset = 0;
  if (c.watching_out) {
    loop_.Modify(c.fd, EPOLLIN);
    c.watching_out = false;
  }
  if (c.close_after_flush) Close(c.id);
}

void Server::Close(ConnId id) {
  auto it = connections_.find(id);
  if (it == connections_.end()) return;
  std::unique_ptr<Connection> c = std::move(it->second);
  connections_.erase(it);
  if (c->idle_timer) loop_.CancelTimer(c->idle_timer);
  loop_.Unwatch(c->fd);
  close(c->fd);
  if (on_close_) on_close_(id);
}

}  // namespace tq
