#include "cli/web/web_access.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstring>

#include "core/model/quote.h"
#include "core/model/user_rules.h"

namespace tq {

namespace {

// At most this many users behind a proxy keep a CSRF token (the oldest are forgotten first: their
// pages then ask them to reload).
constexpr size_t kMostProxyUsers = 4096;
// A token from a file must hold at least this many bits, counted from its characters.
constexpr double kMinTokenBits = 96;

bool TokenChar(char c) {
  return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '.' ||
         c == '_' || c == '~' || c == '-';
}

std::string Lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

// The bits `token` holds by its characters' counts (Shannon's estimate times its length):
// "aaaaaaaaaaaaaaaa" holds none, 64 random hex digits about 240.
double TokenBits(const std::string& token) {
  size_t counts[256] = {};
  for (unsigned char c : token) ++counts[c];
  double bits = 0;
  for (size_t n : counts) {
    if (n == 0) continue;
    const double p = static_cast<double>(n) / static_cast<double>(token.size());
    bits -= static_cast<double>(n) * std::log2(p);
  }
  return bits;
}

// A short name for the socket at `path`: FNV-1a, 32 bits in hex.
std::string PathHash(const std::string& path) {
  uint32_t h = 2166136261U;
  for (unsigned char c : path) h = (h ^ c) * 16777619U;
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  for (int shift = 28; shift >= 0; shift -= 4) out += kHex[(h >> shift) & 15];
  return out;
}

// Whether `host` (a Host header without its port) is a numeric IPv4 address or a bracketed
// IPv6 one.
bool NumericHost(const std::string& host) {
  in_addr v4{};
  in6_addr v6{};
  if (host.size() > 2 && host.front() == '[' && host.back() == ']')
    return inet_pton(AF_INET6, host.substr(1, host.size() - 2).c_str(), &v6) == 1;
  return inet_pton(AF_INET, host.c_str(), &v4) == 1;
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
  // Another account's file would let that account choose this console's token.
  if (st.st_uid != geteuid()) {
    close(fd);
    return refuse("owned by uid " + std::to_string(st.st_uid) + ", not by uid " +
                  std::to_string(geteuid()) + " who runs tq web (chown it)");
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
  if (TokenBits(token) < kMinTokenBits)
    return refuse("the token is too easy to guess (about " +
                  std::to_string(static_cast<int>(TokenBits(token))) +
                  " bits by its characters, at least 96 needed): make one with "
                  "head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \\n'");
  return token;
}

Result<std::unique_ptr<WebAccess>> WebAccess::Make(
    std::string login, const ListenAddress& address, bool single_use,
    std::function<void(const std::string&)> on_new_login) {
  std::unique_ptr<WebAccess> a(new WebAccess);
  a->login_ = std::move(login);
  a->single_use_ = single_use;
  a->on_new_login_ = std::move(on_new_login);
  a->unix_socket_ = address.unix_socket;
  a->port_ = address.port;
  a->cookie_name_ =
      "tq_session_" + (address.unix_socket ? PathHash(address.path) : std::to_string(address.port));
  if (!address.unix_socket) {
    const std::string port = ":" + std::to_string(address.port);
    a->hosts_.push_back(Lower(address.Text()));
    if (address.Local()) a->hosts_.push_back("localhost" + port);
    const bool wildcard = address.host == "0.0.0.0" || address.host == "::";
    a->any_numeric_host_ = wildcard;
    char name[256] = {};
    if (!address.Local() && gethostname(name, sizeof(name) - 1) == 0 && name[0] != '\0')
      a->hosts_.push_back(Lower(name) + port);
    if (address.port == 80) {
      const size_t n = a->hosts_.size();
      for (size_t i = 0; i < n; ++i)
        a->hosts_.push_back(a->hosts_[i].substr(0, a->hosts_[i].size() - port.size()));
    }
  }
  return a;
}

Result<std::unique_ptr<WebAccess>> WebAccess::BehindProxy(const std::string& header,
                                                          const ListenAddress& address) {
  bool ok = !header.empty() && header.size() <= 64;
  for (char c : header) ok = ok && (std::isalnum(static_cast<unsigned char>(c)) || c == '-');
  if (!ok)
    return Status::Invalid("--trust-user-header",
                           "--trust-user-header: " + Quote(header) +
                               " is not a header name (1 to 64 of A-Z a-z 0-9 -)");
  if (!address.unix_socket)
    return Status::Invalid(
        "--trust-user-header",
        "--trust-user-header: " + address.Text() +
            " is a TCP address, which every account of this machine can reach and so name any "
            "user, root included; listen on unix:PATH in a directory only the proxy may enter");
  std::unique_ptr<WebAccess> a(new WebAccess);
  a->proxy_header_ = header;
  a->unix_socket_ = true;
  return a;
}

std::optional<std::string> WebAccess::ProxyUser(const HttpRequest& request) const {
  const auto it = request.headers.find(Lower(proxy_header_));
  if (it == request.headers.end() || !ValidAccountName(it->second)) return std::nullopt;
  return it->second;
}

Result<std::string> WebAccess::ProxyCsrf(const std::string& user) {
  const std::lock_guard lock(mutex_);
  if (const auto it = proxy_csrf_.find(user); it != proxy_csrf_.end()) return it->second;
  auto csrf = RandomToken();
  if (!csrf.ok()) return csrf.status();
  if (proxy_csrf_.size() >= kMostProxyUsers) proxy_csrf_.erase(proxy_csrf_.begin());
  proxy_csrf_.emplace(user, *csrf);
  return *csrf;
}

std::optional<WebSession> WebAccess::SignIn(const std::string& token, const HttpPeer& peer) {
  std::string next;
  {
    const std::lock_guard lock(mutex_);
    if (login_.empty() || !SameSecret(token, login_)) return std::nullopt;
    if (single_use_) {
      auto made = RandomToken();
      if (!made.ok()) return std::nullopt;
      login_ = next = *made;
    }
  }
  if (!next.empty() && on_new_login_) on_new_login_(next);
  auto session = sessions_.Create(peer, WebSessions::Clock::now());
  if (!session.ok()) return std::nullopt;
  return *session;
}

std::optional<WebSession> WebAccess::SessionOf(const HttpRequest& request) {
  const auto it = request.cookies.find(cookie_name_);
  if (it == request.cookies.end() || BehindProxy()) return std::nullopt;
  return sessions_.Find(it->second, request.peer, WebSessions::Clock::now());
}

void WebAccess::SignOut(const HttpRequest& request) {
  if (const std::optional<WebSession> session = SessionOf(request)) sessions_.End(session->id);
}

bool WebAccess::PeerHasSession(const HttpPeer& peer) {
  return sessions_.Holds(peer, WebSessions::Clock::now());
}

std::string WebAccess::SessionCookie(const WebSession& session) const {
  const auto left =
      std::chrono::ceil<std::chrono::seconds>(session.expires - WebSessions::Clock::now());
  return cookie_name_ + "=" + session.id + "; Path=/; Max-Age=" + std::to_string(left.count()) +
         "; HttpOnly; SameSite=Strict";
}

std::string WebAccess::ClearedCookie() const {
  return cookie_name_ + "=; Path=/; Max-Age=0; HttpOnly; SameSite=Strict";
}

std::string WebAccess::login() const {
  const std::lock_guard lock(mutex_);
  return login_;
}

bool WebAccess::HostAllowed(const HttpRequest& request) const {
  if (unix_socket_) return true;
  const auto it = request.headers.find("host");
  if (it == request.headers.end()) return false;
  const std::string host = Lower(it->second);
  for (const std::string& allowed : hosts_)
    if (host == allowed) return true;
  if (!any_numeric_host_) return false;
  const std::string port = ":" + std::to_string(port_);
  if (host.size() > port.size() && host.ends_with(port))
    return NumericHost(host.substr(0, host.size() - port.size()));
  return port_ == 80 && NumericHost(host);
}

}  // namespace tq
