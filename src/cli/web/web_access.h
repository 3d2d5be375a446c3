// Who may use `tq web`: the sign-in token printed at start (single-use: each sign-in prints the
// next) or read from --token-file; the sessions sign-ins make, each bound to the local user (or
// the other machine) that signed in, with its own CSRF token; or, behind a proxy on a Unix
// socket, the user the proxy names in a header (--trust-user-header). And the Host every
// request must name (no DNS rebinding).
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "cli/web/http_server.h"
#include "cli/web/listen_address.h"
#include "cli/web/web_sessions.h"
#include "core/model/status.h"

namespace tq {

/// The secrets of one console, made at start and kept in memory only.
class WebAccess {
 public:
  /// A console with a sign-in token `login` listening at `address`. `single_use`: the token is
  /// replaced at each sign-in and the new one told to `on_new_login` (a printed token); else it
  /// stays (--token-file).
  static Result<std::unique_ptr<WebAccess>> Make(
      std::string login, const ListenAddress& address, bool single_use,
      std::function<void(const std::string&)> on_new_login = nullptr);
  /// A console behind a proxy on the Unix socket `address` that signs users in and names each
  /// in the header `header` (--trust-user-header): no login, no session; kInvalid for a header
  /// name that is not one, or for an address that is not a Unix socket.
  static Result<std::unique_ptr<WebAccess>> BehindProxy(const std::string& header,
                                                        const ListenAddress& address);

  /// 32 random bytes (getrandom) as 64 hex digits.
  static Result<std::string> RandomToken();
  /// The sign-in token kept in `path` (--token-file): its first line, 16 to 256 characters of
  /// A-Z a-z 0-9 . _ ~ - holding at least 96 bits by its characters' counts; a file that is not
  /// this user's own, or that others may read, is refused.
  static Result<std::string> TokenFromFile(const std::string& path);

  /// A new session for `peer` when `token` is the sign-in token (compared in constant time).
  std::optional<WebSession> SignIn(const std::string& token, const HttpPeer& peer);
  /// The live session `request`'s cookie names, when its peer may use it.
  std::optional<WebSession> SessionOf(const HttpRequest& request);
  /// Ends the session `request`'s cookie names.
  void SignOut(const HttpRequest& request);
  /// Whether `peer` holds a live session.
  bool PeerHasSession(const HttpPeer& peer);
  /// The Set-Cookie value that signs a browser into `session`: HttpOnly, SameSite=Strict,
  /// Max-Age its lifetime, named for this console's address.
  std::string SessionCookie(const WebSession& session) const;
  /// The Set-Cookie value that removes the session cookie.
  std::string ClearedCookie() const;
  /// The sign-in token now (the fuzzer and the tests sign in with it).
  std::string login() const;

  /// Whether `request`'s Host header names this console: its address, "localhost" for a
  /// loopback one, this machine's name or any numeric address for an address others reach; any
  /// Host on a Unix socket, where the proxy in front checks it.
  bool HostAllowed(const HttpRequest& request) const;

  /// Whether users are named by a proxy's header instead of a login.
  bool BehindProxy() const { return !proxy_header_.empty(); }
  /// The user the proxy's header names in `request`; nullopt without one, or for a value that
  /// is not a user name.
  std::optional<std::string> ProxyUser(const HttpRequest& request) const;
  /// The header that names the user, as given (for messages).
  const std::string& proxy_header() const { return proxy_header_; }
  /// The CSRF token of the user `user` behind the proxy (made at their first page).
  Result<std::string> ProxyCsrf(const std::string& user);

 private:
  WebAccess() = default;

  mutable std::mutex mutex_;  ///< guards login_ and proxy_csrf_
  std::string login_;
  bool single_use_ = false;
  std::function<void(const std::string&)> on_new_login_;
  WebSessions sessions_;
  std::string cookie_name_;  ///< tq_session_PORT, or tq_session_ and a hash of the socket's path
  std::vector<std::string> hosts_;  ///< Host values that name this console (lower case)
  bool any_numeric_host_ = false;   ///< a wildcard address: any numeric Host with the port
  int port_ = 0;
  bool unix_socket_ = false;
  std::string proxy_header_;  ///< --trust-user-header; "" for a console with a login
  std::map<std::string, std::string> proxy_csrf_;  ///< by user, behind a proxy
};

/// Whether `a` and `b` are equal, in a time that does not depend on where they differ.
bool SameSecret(const std::string& a, const std::string& b);

}  // namespace tq
