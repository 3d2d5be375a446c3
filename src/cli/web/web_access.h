// Who may use `tq web`: the login token printed at start (or read from --token-file) and the
// session cookie a login leaves, or the user a proxy in front names in a header
// (--trust-user-header); and the CSRF token every change must carry.
#pragma once

#include <optional>
#include <string>

#include "cli/web/http_server.h"
#include "core/model/status.h"

namespace tq {

/// The secrets of one console, made at start and kept in memory only.
class WebAccess {
 public:
  /// `login` is what /login?token= must match; the session and CSRF values are made here.
  static Result<WebAccess> Make(std::string login, int port);
  /// A console behind a proxy that signs users in and names each in the header `header`
  /// (--trust-user-header): no login, no session; kInvalid for a header name that is not one.
  static Result<WebAccess> BehindProxy(const std::string& header);

  /// 32 random bytes (getrandom) as 64 hex digits.
  static Result<std::string> RandomToken();
  /// The login token kept in `path` (--token-file): its first line, 16 to 256 characters of
  /// A-Z a-z 0-9 . _ ~ -; a file others may read is refused.
  static Result<std::string> TokenFromFile(const std::string& path);

  /// Whether `token` is the login token (compared in constant time).
  bool LoginMatches(const std::string& token) const;
  /// Whether `request` carries the session cookie.
  bool SignedIn(const HttpRequest& request) const;
  /// Whether users are named by a proxy's header instead of a login.
  bool BehindProxy() const { return !proxy_header_.empty(); }
  /// The user the proxy's header names in `request`; nullopt without one, or for a value that
  /// is not a user name.
  std::optional<std::string> ProxyUser(const HttpRequest& request) const;
  /// The header that names the user, as given (for messages).
  const std::string& proxy_header() const { return proxy_header_; }
  /// Whether `request` (a change) carries the CSRF token in its X-CSRF-Token header.
  bool CsrfMatches(const HttpRequest& request) const;
  /// The Set-Cookie value that signs a browser in: HttpOnly, SameSite=Strict, for this port.
  std::string SessionCookie() const;
  /// The CSRF token pages hand to their script.
  const std::string& csrf() const { return csrf_; }

 private:
  std::string login_, session_, csrf_;
  std::string cookie_name_;   ///< tq_session_PORT: consoles on other ports keep their own
  std::string proxy_header_;  ///< --trust-user-header; "" for a console with a login
};

/// Whether `a` and `b` are equal, in a time that does not depend on where they differ.
bool SameSecret(const std::string& a, const std::string& b);

}  // namespace tq
