// The client side of the socket: finds the daemon, sends requests, reads responses.
#pragma once

#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "core/model/status.h"
#include "core/proto/framing.h"
#include "core/proto/protocol.h"

namespace tq {

/// One connection to tqd.
class Client {
 public:
  Client() = default;
  ~Client();
  Client(Client&& other) noexcept;
  Client& operator=(Client&& other) noexcept;
  Client(const Client&) = delete;
  Client& operator=(const Client&) = delete;

  /// Connects to `socket` when given (--socket), else to $TQ_SOCKET, the user socket or the
  /// system socket. kUnavailable names the path(s) tried.
  static Result<Client> Connect(const std::string& socket);

  /// Sends one request; kInternal if it cannot be encoded, kUnavailable if the daemon went away,
  /// or the error tqd answered with before it closed the connection (the per-user limit).
  Status Send(const Request& request);
  /// Reads the next response frame; kUnavailable if the daemon went away.
  Result<nlohmann::json> Read();
  /// Reads the next response frame as its text, unparsed; as Read.
  Result<std::string> ReadText();
  /// Waits at most `timeout_ms` (-1: without end) until there is something to read: a whole
  /// frame already buffered, bytes, or the end of the connection; false on timeout.
  bool Readable(int timeout_ms);
  /// Sends a request and reads its response; an error response becomes its Status.
  Result<nlohmann::json> Call(const Request& request);

  /// The socket this client is connected to.
  const std::string& path() const { return path_; }
  /// Sends every request from now on for `user` ("as_user"; tqd takes it from root only).
  void ActAs(std::optional<std::string> user) { as_user_ = std::move(user); }

 private:
  /// What a write that failed with `error` means: the error frame tqd sent before it closed the
  /// connection when there is one, else kUnavailable naming `error`.
  Status WriteFailed(int error);

  int fd_ = -1;
  std::string path_;
  FrameDecoder decoder_;
  std::optional<std::string> as_user_;
};

}  // namespace tq
