// Where `tq web` listens (--listen): a TCP address and port, or a Unix socket path for a
// reverse proxy in front.
#pragma once

#include <string>

#include "core/model/status.h"

namespace tq {

/// A parsed --listen value.
struct ListenAddress {
  bool unix_socket = false;  ///< a Unix socket at `path`, else TCP at `host`:`port`
  std::string host;          ///< a numeric IPv4 or IPv6 address (no brackets)
  int port = 0;              ///< 0: any free port (the bound one is printed)
  std::string path;

  /// Whether only this machine can connect: a loopback address or a Unix socket.
  bool Local() const;
  /// As --listen spells it: "127.0.0.1:8377", "[::1]:8377", "unix:/run/tq-web.sock".
  std::string Text() const;
};

/// The default: the IPv4 loopback, port 8377.
ListenAddress DefaultListenAddress();

/// Reads "HOST:PORT" (HOST a numeric IPv4 address, or an IPv6 one in brackets; "localhost"
/// is 127.0.0.1) or "unix:PATH" (an absolute path); a refusal names --listen, the value and
/// what is allowed.
Result<ListenAddress> ParseListenAddress(const std::string& text);

/// A socket bound and listening at `address` (close-on-exec); `address` gets the port bound
/// when it asked for 0. A Unix socket's file is made 0660 after an old one left by a dead
/// server is removed (a live one is refused).
Result<int> OpenListener(ListenAddress& address);

}  // namespace tq
