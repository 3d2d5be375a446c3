#include "daemon/serve/server.h"

#include <fcntl.h>
#include <sys/epoll.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <vector>

#include "core/proto/protocol.h"
#include "daemon/host/log.h"

namespace tq {

/// One client: its peer, its input decoder and its pending output.
struct Server::Connection {
  ConnId id = 0;
  int fd = -1;
  Owner peer;  ///< the name is looked up with the first frame, never on accept
  FrameDecoder decoder;
  std::string out;
  size_t out_offset = 0;
  bool closing = false;  ///< its last frame is queued: input is ignored, it closes once sent
  bool busy = false;
  bool frames_deferred = false;  ///< a HandleFrames turn is queued on the loop
  bool handling = false;         ///< one of its frames is being handled (HandleFrames)
  bool input_held = false;       ///< HoldFrame: neither read nor handed on until released
  uint32_t events = EPOLLIN;     ///< what the loop watches on fd
  EventLoop::TimerId idle_timer = 0;
  EventLoop::TimerId frame_timer = 0;  ///< armed while a frame is incomplete and read
  bool frame_timed = false;            ///< such a frame's time runs...
  MonoMs frame_start = 0;              ///< ...since then
  MonoMs frame_deadline = 0;           ///< when frame_timer fires
  size_t input_charge = 0;   ///< counted in the budget for input: what it holds and room to read
  size_t output_charge = 0;  ///< counted in the budget for unsent responses: their buffer
  EventLoop::TimerId closing_timer = 0;  ///< armed once closing
};

namespace {
// Connections accepted in one turn before the other descriptors get theirs.
constexpr int kAcceptsPerTurn = 64;
// The most one read takes from a client.
constexpr size_t kReadBytes = 65536;

size_t Pending(const std::string& out, size_t offset) {
  return out.size() - offset;
}

// The memory a connection's unsent responses hold: their whole buffer while any wait.
size_t OutputHeld(const std::string& out, size_t offset) {
  return Pending(out, offset) == 0 ? 0 : out.capacity();
}

// The input a connection holds: what it buffered, or the whole frame being read once its
// length came (it is read to its end without waiting for room again).
size_t InputDemand(const FrameDecoder& d) {
  return std::max(d.buffered(), d.frame_bytes());
}

// The room a connection's input needs before one more read.
size_t InputNeed(const FrameDecoder& d) {
  return std::max(d.buffered() + kReadBytes, d.frame_bytes());
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
    : loop_(loop),
      clock_(clock),
      limits_(limits),
      slots_(limits.max_connections, limits.max_per_uid, limits.owner_reserve, geteuid()),
      budget_(limits.max_buffered, limits.max_buffered_per_uid, limits.buffered_owner_reserve,
              geteuid()),
      names_(clock, limits.user_name_ttl_ms),
      accept_log_(clock, limits.log_interval_ms),
      refuse_log_(clock, limits.log_interval_ms),
      full_log_(clock, limits.log_interval_ms),
      drop_log_(clock, limits.log_interval_ms),
      wait_log_(clock, limits.log_interval_ms),
      budget_log_(clock, limits.log_interval_ms) {}

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
  // Never through a symbolic link, even one swapped in after the bind.
  if (rc != 0 || fchmodat(AT_FDCWD, path.c_str(), mode, AT_SYMLINK_NOFOLLOW) != 0 ||
      listen(listen_fd_, 512) != 0) {
    const std::string why = strerror(errno);
    close(listen_fd_);
    listen_fd_ = -1;
    return Status(ErrorCode::kConfig, "socket", "socket: cannot listen on " + path + ": " + why);
  }
  path_ = path;
  UpdateAccepting();
  return Status::Ok();
}

void Server::Shutdown() {
  if (accept_retry_) loop_.CancelTimer(accept_retry_);
  accept_retry_ = 0;
  if (listen_fd_ >= 0) {
    if (accepting_) loop_.Unwatch(listen_fd_);
    accepting_ = false;
    close(listen_fd_);
    listen_fd_ = -1;
    unlink(path_.c_str());
  }
  budget_waiters_.clear();  // nothing is to be looked at again once all are closed
  while (!connections_.empty()) Close(connections_.begin()->first);
}

void Server::Accept() {
  for (int i = 0; i < kAcceptsPerTurn && !slots_.Full(); ++i) {
    const int fd = accept4(listen_fd_, nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC);
    if (fd < 0) {
      if (errno == EINTR || errno == ECONNABORTED) continue;
      if (errno == EAGAIN || errno == EWOULDBLOCK) return;
      // Out of descriptors or memory: accepting again at once would fail the same way, in a
      // loop. Wait until a connection closes or the retry time passed.
      accept_log_.Log(LogLevel::kWarn, std::string("accept failed: ") + strerror(errno));
      PauseAccepting();
      return;
    }
    ucred cred{};
    socklen_t len = sizeof cred;
    if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) != 0) {
      close(fd);
      continue;
    }
    if (Status admitted = slots_.Admit(cred.uid); !admitted.ok()) {
      Refuse(fd, cred.uid, admitted);
      continue;
    }
    auto c = std::make_unique<Connection>();
    c->id = next_id_++;
    c->fd = fd;
    c->peer = Owner{cred.uid, cred.gid, ""};
    Connection& ref = *c;
    connections_.emplace(c->id, std::move(c));
    const ConnId id = ref.id;
    loop_.Watch(
        fd, EPOLLIN, [this, id](uint32_t events) { OnEvents(id, events); },
        EventLoop::DuringWaits::kYes);
    ArmIdleTimer(ref);
  }
  UpdateAccepting();
}

void Server::Refuse(int fd, uint32_t uid, const Status& why) {
  refuse_log_.Log(LogLevel::kWarn,
                  "refusing a connection from uid " + std::to_string(uid) + ": " + why.message());
  const std::string frame = EncodeFrame(ErrorResponse(why).dump());
  [[maybe_unused]] ssize_t n = send(fd, frame.data(), frame.size(), MSG_NOSIGNAL | MSG_DONTWAIT);
  close(fd);
}

void Server::UpdateAccepting() {
  const bool want = listen_fd_ >= 0 && !slots_.Full() && accept_retry_ == 0;
  if (want == accepting_) return;
  accepting_ = want;
  if (want) {
    loop_.Watch(
        listen_fd_, EPOLLIN, [this](uint32_t) { Accept(); }, EventLoop::DuringWaits::kYes);
    return;
  }
  loop_.Unwatch(listen_fd_);
  if (slots_.Full())
    full_log_.Log(LogLevel::kWarn,
                  "not accepting connections until one closes: " + std::to_string(slots_.open()) +
                      " are open (at most " + std::to_string(limits_.max_connections) + ")");
}

void Server::PauseAccepting() {
  if (accept_retry_) return;
  accept_retry_ = loop_.AddTimer(clock_.MonoNow() + limits_.accept_retry_ms, [this] {
    accept_retry_ = 0;
    UpdateAccepting();
  });
  UpdateAccepting();
}

void Server::OnEvents(ConnId id, uint32_t events) {
  auto it = connections_.find(id);
  if (it == connections_.end()) return;
  Connection& c = *it->second;
  if (events & EPOLLOUT) {
    Flush(c);
    if (!IsOpen(id)) return;
  }
  if (!(events & (EPOLLIN | EPOLLHUP | EPOLLERR))) return;
  if (c.events & EPOLLIN) {
    OnReadable(c);
  } else if (events & (EPOLLHUP | EPOLLERR)) {
    Close(id);  // not reading it (closing, or waiting for it to read): the peer is gone
  }
}

void Server::ArmIdleTimer(Connection& c) {
  if (c.idle_timer) loop_.CancelTimer(c.idle_timer);
  c.idle_timer = 0;
  if (c.busy || c.closing || c.input_held) return;  // a held request is no idle client
  const ConnId id = c.id;
  c.idle_timer = loop_.AddTimer(clock_.MonoNow() + limits_.idle_ms, [this, id] {
    auto it = connections_.find(id);
    if (it == connections_.end()) return;
    it->second->idle_timer = 0;
    LogDebug("closing idle connection {}", id);
    Close(id);
  });
}

bool Server::ReadsAhead(const Connection& c) const {
  if (c.closing || c.input_held || Pending(c.out, c.out_offset) > limits_.output_pause)
    return false;
  // Read ahead only so far: a client that floods requests waits for its turn instead of
  // growing the daemon's memory. A frame still incomplete is read to its end.
  return !c.decoder.HasFrame() || c.decoder.buffered() < limits_.max_input_buffer;
}

bool Server::HasRoom(const Connection& c) const {
  const size_t need = InputNeed(c.decoder);
  return need <= c.input_charge || budget_.Fits(c.peer.uid, need - c.input_charge);
}

bool Server::WantsInput(const Connection& c) const {
  return ReadsAhead(c) && HasRoom(c);
}

// Watches for input only when it would be read and for output only when some waits, so a level-
// triggered event never fires for a connection that cannot make progress; gives back room taken
// for a read and not used; and keeps the frame deadline armed while a frame is incomplete and
// being read (a frame waiting for room, or for its client to read, is not late).
void Server::Update(Connection& c) {
  const size_t demand = InputDemand(c.decoder);
  if (c.input_charge > demand) ChargeInput(c, demand);
  const bool reads_ahead = ReadsAhead(c);
  const bool wants = reads_ahead && HasRoom(c);
  if (reads_ahead && !wants) {
    if (budget_waiters_.insert(c.id).second)
      wait_log_.Log(LogLevel::kWarn,
                    "not reading connection " + std::to_string(c.id) + " of uid " +
                        std::to_string(c.peer.uid) + " until buffers are freed: its user's " +
                        "clients hold " + std::to_string(budget_.HeldBy(c.peer.uid)) +
                        " bytes, all clients " + std::to_string(budget_.held()) + " (at most " +
                        std::to_string(budget_.per_uid()) + " per user, " +
                        std::to_string(budget_.total()) + " in all)");
  } else {
    budget_waiters_.erase(c.id);
  }
  const uint32_t events =
      (wants ? EPOLLIN : 0u) | (Pending(c.out, c.out_offset) > 0 ? EPOLLOUT : 0u);
  if (events != c.events) {
    loop_.Modify(c.fd, events);
    c.events = events;
  }
  const bool partial = wants && c.decoder.buffered() > 0 && !c.decoder.HasFrame();
  if (!partial) {
    if (c.frame_timer) loop_.CancelTimer(c.frame_timer);
    c.frame_timer = 0;
    c.frame_timed = false;
    return;
  }
  if (!c.frame_timed) {
    c.frame_timed = true;
    c.frame_start = clock_.MonoNow();
  }
  const MonoMs deadline = FrameDeadline(limits_.frame_pace, c.frame_start, c.decoder.frame_bytes(),
                                        c.decoder.buffered());
  // A timer due no later looks again when it fires (more bytes only move the deadline later);
  // one due later is brought forward (the length just came and names a large frame).
  if (c.frame_timer && c.frame_deadline <= deadline) return;
  ArmFrameTimer(c, deadline);
}

void Server::ArmFrameTimer(Connection& c, MonoMs when) {
  if (c.frame_timer) loop_.CancelTimer(c.frame_timer);
  c.frame_deadline = when;
  const ConnId id = c.id;
  c.frame_timer = loop_.AddTimer(when, [this, id] { FrameTimerFired(id); });
}

void Server::FrameTimerFired(ConnId id) {
  auto it = connections_.find(id);
  if (it == connections_.end()) return;
  Connection& c = *it->second;
  c.frame_timer = 0;
  // Bytes that came and were not read yet count: the daemon was busy, not the client slow. Once
  // they are read the timer is set again (due at once if the frame is late all the same).
  int waiting = 0;
  if (ioctl(c.fd, FIONREAD, &waiting) == 0 && waiting > 0) {
    OnReadable(c);
    return;
  }
  const FramePace& pace = limits_.frame_pace;
  const size_t frame = c.decoder.frame_bytes();
  const size_t received = c.decoder.buffered();
  const MonoMs now = clock_.MonoNow();
  const MonoMs deadline = FrameDeadline(pace, c.frame_start, frame, received);
  if (now < deadline) {
    ArmFrameTimer(c, deadline);  // more came since the timer was set
    return;
  }
  const std::string why =
      deadline < c.frame_start + pace.whole_ms
          ? "frame: a request of " + std::to_string(frame) + " bytes must keep arriving at " +
                std::to_string(pace.min_rate) + " bytes a second; " + std::to_string(received) +
                " bytes came in " + std::to_string(now - c.frame_start) + " ms"
          : "frame: a request must arrive whole within " + std::to_string(pace.whole_ms) + " ms; " +
                std::to_string(received) + " bytes came";
  drop_log_.Log(LogLevel::kWarn, "dropping connection " + std::to_string(id) + " of uid " +
                                     std::to_string(c.peer.uid) + ": " + why);
  SendAndClose(id, ErrorResponse(Status(ErrorCode::kLimit, "frame", why)));
}

void Server::Charge(Connection& c, BufferBudget::Kind kind, size_t bytes) {
  size_t& charged = kind == BufferBudget::Kind::kInput ? c.input_charge : c.output_charge;
  if (bytes > charged) {
    budget_.Add(c.peer.uid, kind, bytes - charged);
  } else if (bytes < charged) {
    budget_.Release(c.peer.uid, kind, charged - bytes);
    Released();
  }
  charged = bytes;
}

void Server::ChargeInput(Connection& c, size_t bytes) {
  Charge(c, BufferBudget::Kind::kInput, bytes);
}

void Server::ChargeOutput(Connection& c) {
  Charge(c, BufferBudget::Kind::kOutput, OutputHeld(c.out, c.out_offset));
}

// Bytes were released: the connections waiting for room look again once this turn is done,
// oldest first (the first to read takes the room; the others wait again).
void Server::Released() {
  if (budget_waiters_.empty()) return;
  loop_.Defer(&budget_waiters_, [this] {
    const std::vector<ConnId> waiting(budget_waiters_.begin(), budget_waiters_.end());
    for (ConnId id : waiting) {
      auto it = connections_.find(id);
      if (it == connections_.end()) {
        budget_waiters_.erase(id);
        continue;
      }
      Update(*it->second);
    }
  });
}

// Unsent responses never keep input out; once they take a user, or everyone, past a bound, the
// connection with the most of them (of that user, or of anyone past the total) is cut off at
// once, its responses freed, and closed after this turn (the handler sending now may be walking
// connections, as the events feed does; the reader now may be the one cut off).
void Server::EnforceBudget(uint32_t uid) {
  for (;;) {
    const BufferBudget::Excess excess = budget_.Over(uid);
    if (excess == BufferBudget::Excess::kNone) return;
    Connection* victim = nullptr;
    for (auto& [id, conn] : connections_) {
      if (excess == BufferBudget::Excess::kUser && conn->peer.uid != uid) continue;
      if (conn->output_charge == 0) continue;
      if (!victim || conn->output_charge > victim->output_charge) victim = conn.get();
    }
    if (!victim) return;
    const std::string held = excess == BufferBudget::Excess::kUser
                                 ? "the clients of uid " + std::to_string(uid) + " hold " +
                                       std::to_string(budget_.HeldBy(uid)) + " bytes (at most " +
                                       std::to_string(budget_.per_uid()) + " per user)"
                                 : "all clients hold " + std::to_string(budget_.held()) +
                                       " bytes (at most " + std::to_string(budget_.total()) + ")";
    budget_log_.Log(LogLevel::kWarn, "dropping connection " + std::to_string(victim->id) +
                                         " of uid " + std::to_string(victim->peer.uid) +
                                         ": it does not read its responses (" +
                                         std::to_string(Pending(victim->out, victim->out_offset)) +
                                         " bytes wait) and " + held);
    Discard(*victim);
  }
}

void Server::Discard(Connection& c) {
  std::string().swap(c.out);
  c.out_offset = 0;
  ChargeOutput(c);
  BeginClosing(c);
  const ConnId id = c.id;
  loop_.Defer(nullptr, [this, id] { Close(id); });
}

void Server::OnReadable(Connection& c) {
  const ConnId id = c.id;
  char buf[kReadBytes];
  while (WantsInput(c)) {
    ChargeInput(c, std::max(c.input_charge, InputNeed(c.decoder)));
    EnforceBudget(c.peer.uid);
    if (!WantsInput(c)) break;  // it was the one cut off
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
  if (c.frames_deferred) {
    Update(c);
    return;
  }
  HandleFrames(id);
}

void Server::HandleFrames(ConnId id) {
  for (int i = 0; i < limits_.frames_per_turn; ++i) {
    auto it = connections_.find(id);  // a handler may have closed it
    if (it == connections_.end() || it->second->closing) return;
    Connection& c = *it->second;
    // Held, or called again while a frame of it is handled (read during a wait for the store):
    // its frames keep their order, the call on the stack goes on with them.
    if (c.input_held || c.handling) {
      Update(c);
      return;
    }
    if (Pending(c.out, c.out_offset) > limits_.output_pause) {
      Update(c);  // Flush resumes once the client has read enough
      return;
    }
    auto frame = c.decoder.Next();
    if (!frame.ok()) {
      SendAndClose(id, ErrorResponse(frame.status()));
      return;
    }
    if (!frame->has_value()) {
      Update(c);
      return;
    }
    if (c.peer.name.empty()) c.peer.name = names_.Name(c.peer.uid);
    const Owner peer = c.peer;  // the handler may close the connection
    c.handling = true;
    on_frame_(id, peer, std::move(**frame));
    if (auto after = connections_.find(id); after != connections_.end())
      after->second->handling = false;
  }
  // More may be buffered: give every other client a turn first.
  auto it = connections_.find(id);
  if (it == connections_.end() || it->second->closing) return;
  ScheduleFrames(*it->second);
  Update(*it->second);
}

void Server::ScheduleFrames(Connection& c) {
  if (c.frames_deferred) return;
  c.frames_deferred = true;
  const ConnId id = c.id;
  loop_.Defer(nullptr, [this, id] {
    auto it = connections_.find(id);
    if (it == connections_.end()) return;
    it->second->frames_deferred = false;
    HandleFrames(id);
  });
}

void Server::Send(ConnId id, const nlohmann::json& message) {
  SendText(id, WireText(message));
}

void Server::SendText(ConnId id, std::string_view text) {
  auto it = connections_.find(id);
  if (it == connections_.end()) return;
  Connection& c = *it->second;
  if (c.closing) return;
  c.out += EncodeFrame(text);
  ChargeOutput(c);
  if (Pending(c.out, c.out_offset) > limits_.max_output_buffer) {
    drop_log_.Log(LogLevel::kWarn, "dropping connection " + std::to_string(id) + " of uid " +
                                       std::to_string(c.peer.uid) +
                                       ": it does not read its responses");
    Close(id);
    return;
  }
  const uint32_t uid = c.peer.uid;
  Flush(c);  // may close it
  EnforceBudget(uid);
}

void Server::SendAndClose(ConnId id, const nlohmann::json& message) {
  Send(id, message);
  auto it = connections_.find(id);
  if (it == connections_.end()) return;
  BeginClosing(*it->second);
  Flush(*it->second);
}

// From now on the connection only sends what it has queued: its input is dropped and no longer
// read (a peer that keeps writing cannot wake the loop), and a peer that does not read gets
// closing_ms to take the last frame.
void Server::BeginClosing(Connection& c) {
  if (c.closing) return;
  c.closing = true;
  c.decoder = FrameDecoder();
  if (c.idle_timer) loop_.CancelTimer(c.idle_timer);
  c.idle_timer = 0;
  const ConnId id = c.id;
  c.closing_timer = loop_.AddTimer(clock_.MonoNow() + limits_.closing_ms, [this, id] {
    auto it = connections_.find(id);
    if (it == connections_.end()) return;
    it->second->closing_timer = 0;
    LogDebug("closing connection {}: its last frame was not read in time", id);
    Close(id);
  });
  Update(c);
}

void Server::SetBusy(ConnId id, bool busy) {
  auto it = connections_.find(id);
  if (it == connections_.end()) return;
  it->second->busy = busy;
  ArmIdleTimer(*it->second);
}

void Server::HoldFrame(ConnId id, std::string_view payload) {
  auto it = connections_.find(id);
  if (it == connections_.end() || it->second->closing) return;
  Connection& c = *it->second;
  c.decoder.PutBack(payload);
  c.input_held = true;
  ArmIdleTimer(c);
  Update(c);
}

void Server::ReleaseInput(ConnId id) {
  auto it = connections_.find(id);
  if (it == connections_.end() || !it->second->input_held) return;
  Connection& c = *it->second;
  c.input_held = false;
  ArmIdleTimer(c);
  if (c.decoder.HasFrame()) ScheduleFrames(c);
  Update(c);
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
    if (n < 0 && errno == EAGAIN) break;
    Close(c.id);
    return;
  }
  ChargeOutput(c);
  if (c.out_offset == c.out.size()) {
    EmptyBuffer(c.out);
    c.out_offset = 0;
    if (c.closing) {
      Close(c.id);
      return;
    }
  } else if (c.out_offset > c.out.size() / 2) {
    c.out.erase(0, c.out_offset);  // what was sent must not pile up behind a slow reader
    c.out_offset = 0;
  }
  // Requests that waited for the client to read its responses get their turn again.
  if (!c.closing && Pending(c.out, c.out_offset) <= limits_.output_pause && c.decoder.HasFrame())
    ScheduleFrames(c);
  Update(c);
}

void Server::Close(ConnId id) {
  auto it = connections_.find(id);
  if (it == connections_.end()) return;
  std::unique_ptr<Connection> c = std::move(it->second);
  connections_.erase(it);
  for (EventLoop::TimerId t : {c->idle_timer, c->frame_timer, c->closing_timer})
    if (t) loop_.CancelTimer(t);
  loop_.Unwatch(c->fd);
  close(c->fd);
  slots_.Release(c->peer.uid);
  budget_.Release(c->peer.uid, BufferBudget::Kind::kInput, c->input_charge);
  budget_.Release(c->peer.uid, BufferBudget::Kind::kOutput, c->output_charge);
  budget_waiters_.erase(id);
  Released();
  // A slot is free, and descriptors too: accept again without waiting out a retry.
  if (accept_retry_) loop_.CancelTimer(accept_retry_);
  accept_retry_ = 0;
  UpdateAccepting();
  if (!on_close_) return;
  // During a wait for the store, the one who waits may be in the middle of what the handler
  // drops (a waiter, a subscriber): it hears of the close after.
  if (loop_.waiting()) {
    loop_.Defer(nullptr, [this, id] { on_close_(id); });
  } else {
    on_close_(id);
  }
}

}  // namespace tq
