// The Unix socket server: accepts clients, learns who they are from SO_PEERCRED, splits their
// bytes into frames, and queues responses without ever blocking on a slow peer. It also serves
// while a call waits on the loop for the store (EventLoop::WaitFor): its frame handler then
// answers what needs no store and holds the rest (HoldFrame).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <set>
#include <string>
#include <string_view>
#include <unordered_map>

#include <nlohmann/json.hpp>

#include "core/model/status.h"
#include "core/model/task.h"
#include "core/proto/framing.h"
#include "daemon/host/event_loop.h"
#include "daemon/host/log_throttle.h"
#include "daemon/serve/buffer_budget.h"
#include "daemon/serve/connection_slots.h"
#include "daemon/serve/frame_pace.h"
#include "daemon/users/user_names.h"

namespace tq {

/// Identifies a connection; stays unique for the daemon's lifetime, so a stale id is harmless.
using ConnId = uint64_t;

/// Limits that keep one client from hurting the others.
struct ServerLimits {
  size_t max_connections = 1024;  ///< main derives it from the descriptor limit (fd_limits.h)
  size_t max_per_uid = 64;        ///< for every uid but root and the daemon's own
  size_t owner_reserve = 16;      ///< last slots only root and the daemon's own uid may take
  /// Unsent responses past which a client is dropped: one whole frame and a margin (the
  /// responses pushed to a `logs -f` or `wait` client that stopped reading).
  size_t max_output_buffer = kMaxFrameBytes + (1u << 20);
  /// Unsent responses past which a client's further requests wait until it reads.
  size_t output_pause = 1u << 20;
  size_t max_input_buffer = 1u << 20;  ///< unhandled input read ahead from one client
  /// Bytes buffered for all clients together (BufferBudget): input being read (a frame counts
  /// whole once its length came) is read only while all input fits in this less the owner's
  /// reserve; unsent responses never keep input out, but past this the client with the most of
  /// them is dropped. Four times a user's bound: a crowd of users is needed to fill it.
  size_t max_buffered = 256u << 20;
  /// The same for each uid but root and the daemon's own: its input is read only while it fits
  /// (a frame that does not waits, without its time running, until room is freed), and once
  /// its input and unsent responses are past this, its client with the most of them is dropped.
  size_t max_buffered_per_uid = 64u << 20;
  size_t buffered_owner_reserve = 32u << 20;  ///< two whole frames only root and the owner take
  int frames_per_turn = 16;        ///< frames of one client handled before others get a turn
  int64_t idle_ms = 60000;         ///< a connection with nothing in flight is closed after this
  FramePace frame_pace;            ///< whole within 10 s of its first byte; past 64 KiB, at 1 MiB/s
  int64_t closing_ms = 5000;       ///< a closing connection gets this long to take its last frame
  int64_t accept_retry_ms = 1000;  ///< after accept failed for want of descriptors
  int64_t log_interval_ms = 10000;   ///< a repeated warning is logged once per interval
  int64_t user_name_ttl_ms = 60000;  ///< how long a looked-up user name is reused
};

/// Serves the listening socket. Frames go to the handler; responses come back through Send.
class Server {
 public:
  /// Called for each complete frame with the connection and its peer.
  using FrameHandler = std::function<void(ConnId, const Owner& peer, std::string payload)>;
  /// Called when a connection closes, so pending work for it can be dropped.
  using CloseHandler = std::function<void(ConnId)>;

  Server(EventLoop& loop, const Clock& clock, ServerLimits limits);
  ~Server();

  /// Binds `path` with `mode` permissions (an existing socket nobody answers on is replaced;
  /// one that answers is an error naming it) and starts accepting.
  Status Listen(const std::string& path, unsigned mode);
  /// Stops accepting and closes every connection.
  void Shutdown();

  void OnFrame(FrameHandler handler) { on_frame_ = std::move(handler); }
  void OnClose(CloseHandler handler) { on_close_ = std::move(handler); }

  /// Queues one frame for `conn`; ignored when the connection is gone.
  void Send(ConnId conn, const nlohmann::json& message);
  /// Queues one frame of `text`, a message already encoded (WireText); as Send.
  void SendText(ConnId conn, std::string_view text);
  /// Sends a final frame, then closes the connection once it is written.
  void SendAndClose(ConnId conn, const nlohmann::json& message);
  /// Marks `conn` as having a request in flight (exempt from the idle limit) or not.
  void SetBusy(ConnId conn, bool busy);
  /// Puts `payload`, the frame of `conn` just handed on, back in front of its input, and stops
  /// reading and handing on its frames until ReleaseInput: a request that waits for the store
  /// waits in its connection, counted in its user's buffers, and its answers keep their order.
  void HoldFrame(ConnId conn, std::string_view payload);
  /// Reads and hands on the frames of `conn` again, the one held first.
  void ReleaseInput(ConnId conn);
  /// True while `conn` is open.
  bool IsOpen(ConnId conn) const { return connections_.count(conn) != 0; }

 private:
  struct Connection;

  void Accept();
  void Refuse(int fd, uint32_t uid, const Status& why);
  void UpdateAccepting();
  void PauseAccepting();
  void OnEvents(ConnId id, uint32_t events);
  void OnReadable(Connection& c);
  void HandleFrames(ConnId id);
  void ScheduleFrames(Connection& c);
  void Flush(Connection& c);
  void BeginClosing(Connection& c);
  void Close(ConnId id);
  void ArmIdleTimer(Connection& c);
  void ArmFrameTimer(Connection& c, MonoMs when);
  void FrameTimerFired(ConnId id);
  void Update(Connection& c);
  bool ReadsAhead(const Connection& c) const;
  bool HasRoom(const Connection& c) const;
  bool WantsInput(const Connection& c) const;
  /// Brings what `c` has charged to the budget as `kind` to `bytes`.
  void Charge(Connection& c, BufferBudget::Kind kind, size_t bytes);
  void ChargeInput(Connection& c, size_t bytes);
  void ChargeOutput(Connection& c);
  void Released();
  void EnforceBudget(uint32_t uid);
  void Discard(Connection& c);

  EventLoop& loop_;
  const Clock& clock_;
  ServerLimits limits_;
  ConnectionSlots slots_;
  BufferBudget budget_;
  UserNameCache names_;
  LogThrottle accept_log_, refuse_log_, full_log_, drop_log_, wait_log_, budget_log_;
  int listen_fd_ = -1;
  bool accepting_ = false;               ///< the listening socket is watched
  EventLoop::TimerId accept_retry_ = 0;  ///< set while accepting waits out a failure
  std::string path_;
  ConnId next_id_ = 1;
  std::unordered_map<ConnId, std::unique_ptr<Connection>> connections_;
  /// Connections that would read but whose user (or everyone) has no room: looked at again,
  /// oldest first, after bytes are released.
  std::set<ConnId> budget_waiters_;
  FrameHandler on_frame_;
  CloseHandler on_close_;
};

}  // namespace tq
