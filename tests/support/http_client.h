// A small HTTP/1.0 client for the tests of `tq web`: one request per connection, the answer
// read to the end; and an open stream read as it comes (server-sent events). Connections are
// opened by the test itself, or by a process of another account (so the console sees that
// account at the other end), to a loopback port or a Unix socket.
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "support/test_daemon.h"

namespace tqtest {

/// Where a console listens, and who connects to it.
struct HttpPeerSpec {
  int port = 0;             ///< 127.0.0.1:port, unless `unix_path` is set
  std::string unix_path;    ///< a Unix socket
  std::optional<RunAs> as;  ///< the account whose process opens the connection
};

/// A connection to `to`, opened by a process of `to.as` when set (the descriptor handed back);
/// REQUIREs success.
int HttpConnect(const HttpPeerSpec& to);

/// An answer: status, headers by lower-case name (a repeated one keeps the last), body.
struct HttpReply {
  int status = 0;
  std::map<std::string, std::string> headers;
  std::string body;
};

/// Sends `method target` to 127.0.0.1:`port` with `headers` ("Name: value"; a Host header of
/// its own replaces "Host: 127.0.0.1:PORT") and `body`, and reads the whole answer; REQUIREs
/// one within the call timeout.
HttpReply HttpCall(int port, const std::string& method, const std::string& target,
                   const std::vector<std::string>& headers = {}, const std::string& body = "");
/// The same, to `to`.
HttpReply HttpCall(const HttpPeerSpec& to, const std::string& method, const std::string& target,
                   const std::vector<std::string>& headers = {}, const std::string& body = "");

/// A GET left open: what has come so far is read by WaitFor.
class HttpStream {
 public:
  HttpStream(int port, const std::string& target, const std::vector<std::string>& headers);
  ~HttpStream();
  HttpStream(const HttpStream&) = delete;
  HttpStream& operator=(const HttpStream&) = delete;

  /// Reads until `pred(everything received)` holds; false on timeout or when the server closed
  /// the stream first.
  bool WaitFor(const std::function<bool(const std::string&)>& pred);
  const std::string& received() const { return received_; }

 private:
  int fd_ = -1;
  std::string received_;
};

}  // namespace tqtest
