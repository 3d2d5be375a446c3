#include "cli/web/web_access.h"

#include <fcntl.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <cstring>

#include "core/model/quote.h"
#include "core/model/user_rules.h"

namespace tq {

namespace {

bool TokenChar(char c) {
  return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '.' ||
         c == '_' || c == '~' || c == '-';
}

}  // namespace

bool SameSecret(const std::string& a, const std::string& b) {
  if (a.size() != b.size()) return false;
  unsigned char diff = 0;
  for (size_t i = 0; i < a.size(); ++i)
    diff |= static_cast<unsigned char>(a[i]) ^ static_cast<unsigned char>(b[i]);
  return diff == 0;
}

Result<std::string> WebAccess::RandomToken() {
  unsigned char bytes[32];
  size_t got = 0;
  while (got < sizeof(bytes)) {
    const ssize_t n = getrandom(bytes + got, sizeof(bytes) - got, 0);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return Status::Internal(std::string("getrandom: ") + std::strerror(errno));
    got += static_cast<size_t>(n);
  }
  static constexpr char kHex[] = "0123456789abcdef";
  std::string token;
  for (unsigned char b : bytes) {
    token += kHex[b >> 4];
    token += kHex[b & 15];
  }
  return token;
}

Result<std::string> WebAccess::TokenFromFile(const std::string& path) {
  const auto refuse = [&](const std::string& why) {
    return Status::Invalid("--token-file", "--token-file: " + Quote(path) + ": " + why);
  };
  const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
  if (fd < 0) return refuse(std::strerror(errno));
  struct stat st {};
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    close(fd);
    return refuse("not a regular file");
  }
  if ((st.st_mode & 0077) != 0) {
    close(fd);
    return refuse("others may read or change it (chmod 600 it)");
  }
  char buf[512];
  const ssize_t n = read(fd, buf, sizeof(buf));
  close(fd);
  if (n < 0) return refuse(std::strerror(errno));
  std::string token(buf, static_cast<size_t>(n));
  token = token.substr(0, token.find('\n'));
  if (!token.empty() && token.back() == '\r') token.pop_back();
  bool ok = token.size() >= 16 && token.size() <= 256;
  for (char c : token) ok = ok && TokenChar(c);
  if (!ok) return refuse("its first line must be 16 to 256 characters of A-Z a-z 0-9 . _ ~ -");
  return token;
}

Result<WebAccess> WebAccess::Make(std::string login, int port) {
  WebAccess a;
  a.login_ = std::move(login);
  auto session = RandomToken();
  if (!session.ok()) return session.status();
  auto csrf = RandomToken();
  if (!csrf.ok()) return csrf.status();
  a.session_ = *session;
  a.csrf_ = *csrf;
  a.cookie_name_ = "tq_session_" + std::to_string(port);
  return a;
}

Result<WebAccess> WebAccess::BehindProxy(const std::string& header) {
  bool ok = !header.empty() && header.size() <= 64;
  for (char c : header) ok = ok && (std::isalnum(static_cast<unsigned char>(c)) || c == '-');
  if (!ok)
    return Status::Invalid("--trust-user-header",
                           "--trust-user-header: " + Quote(header) +
                               " is not a header name (1 to 64 of A-Z a-z 0-9 -)");
  auto csrf = RandomToken();
  if (!csrf.ok()) return csrf.status();
  WebAccess a;
  a.csrf_ = *csrf;
  a.proxy_header_ = header;
  return a;
}

std::optional<std::string> WebAccess::ProxyUser(const HttpRequest& request) const {
  std::string key = proxy_header_;
  for (char& c : key) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  const auto it = request.headers.find(key);
  if (it == request.headers.end() || !ValidAccountName(it->second)) return std::nullopt;
  return it->second;
}

bool WebAccess::LoginMatches(const std::string& token) const {
  return !login_.empty() && SameSecret(token, login_);
}

bool WebAccess::SignedIn(const HttpRequest& request) const {
  const auto it = request.cookies.find(cookie_name_);
  return !session_.empty() && it != request.cookies.end() && SameSecret(it->second, session_);
}

bool WebAccess::CsrfMatches(const HttpRequest& request) const {
  const auto it = request.headers.find("x-csrf-token");
  return it != request.headers.end() && SameSecret(it->second, csrf_);
}

std::string WebAccess::SessionCookie() const {
  return cookie_name_ + "=" + session_ + "; Path=/; HttpOnly; SameSite=Strict";
}

}  // namespace tq
