#include "cli/web/listen_address.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <cstring>

#include "core/model/quote.h"

namespace tq {

namespace {

constexpr const char* kAllowed =
    "allowed: HOST:PORT with a numeric IPv4 address or a bracketed IPv6 one ([::1]:8377), "
    "localhost:PORT, or unix:/absolute/path";

Status Refuse(const std::string& text, const std::string& why) {
  return Status::Invalid("--listen", "--listen: " + Quote(text) + ": " + why + "; " + kAllowed);
}

// The socket address of a TCP `a`; its length.
socklen_t TcpAddress(const ListenAddress& a, sockaddr_storage* out) {
  std::memset(out, 0, sizeof(*out));
  if (a.host.find(':') != std::string::npos) {
    auto* in6 = reinterpret_cast<sockaddr_in6*>(out);
    in6->sin6_family = AF_INET6;
    in6->sin6_port = htons(static_cast<uint16_t>(a.port));
    inet_pton(AF_INET6, a.host.c_str(), &in6->sin6_addr);
    return sizeof(sockaddr_in6);
  }
  auto* in4 = reinterpret_cast<sockaddr_in*>(out);
  in4->sin_family = AF_INET;
  in4->sin_port = htons(static_cast<uint16_t>(a.port));
  inet_pton(AF_INET, a.host.c_str(), &in4->sin_addr);
  return sizeof(sockaddr_in);
}

// The port `fd` is bound to.
int BoundPort(int fd) {
  sockaddr_storage bound{};
  socklen_t len = sizeof(bound);
  if (getsockname(fd, reinterpret_cast<sockaddr*>(&bound), &len) != 0) return 0;
  if (bound.ss_family == AF_INET6) return ntohs(reinterpret_cast<sockaddr_in6*>(&bound)->sin6_port);
  return ntohs(reinterpret_cast<sockaddr_in*>(&bound)->sin_port);
}

// Whether something accepts connections on the Unix socket `path`.
bool UnixSocketLive(const sockaddr_un& addr) {
  const int probe = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (probe < 0) return false;
  const bool live = connect(probe, reinterpret_cast<const sockaddr*>(&addr), sizeof(addr)) == 0;
  close(probe);
  return live;
}

}  // namespace

bool ListenAddress::Local() const {
  if (unix_socket) return true;
  if (host.find(':') != std::string::npos) return host == "::1";
  return host.rfind("127.", 0) == 0;
}

std::string ListenAddress::Text() const {
  if (unix_socket) return "unix:" + path;
  const std::string h = host.find(':') != std::string::npos ? "[" + host + "]" : host;
  return h + ":" + std::to_string(port);
}

ListenAddress DefaultListenAddress() {
  ListenAddress a;
  a.host = "127.0.0.1";
  a.port = 8377;
  return a;
}

Result<ListenAddress> ParseListenAddress(const std::string& text) {
  ListenAddress a;
  if (text.rfind("unix:", 0) == 0) {
    a.unix_socket = true;
    a.path = text.substr(5);
    if (a.path.empty() || a.path[0] != '/') return Refuse(text, "a socket path must be absolute");
    if (a.path.size() >= sizeof(sockaddr_un{}.sun_path))
      return Refuse(text, "a socket path is at most " +
                              std::to_string(sizeof(sockaddr_un{}.sun_path) - 1) + " bytes");
    return a;
  }
  const size_t colon = text.rfind(':');
  if (colon == std::string::npos) return Refuse(text, "no port");
  std::string host = text.substr(0, colon);
  const std::string port = text.substr(colon + 1);
  const char* end = port.data() + port.size();
  if (port.empty() || std::from_chars(port.data(), end, a.port).ptr != end || a.port < 0 ||
      a.port > 65535)
    return Refuse(text, "the port is a number from 0 to 65535");
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']') {
    host = host.substr(1, host.size() - 2);
    in6_addr v6{};
    if (inet_pton(AF_INET6, host.c_str(), &v6) != 1) return Refuse(text, "not an IPv6 address");
  } else {
    if (host == "localhost") host = "127.0.0.1";
    in_addr v4{};
    if (inet_pton(AF_INET, host.c_str(), &v4) != 1)
      return Refuse(text, host.find(':') != std::string::npos ? "an IPv6 address goes in brackets"
                                                              : "not a numeric IPv4 address");
  }
  a.host = host;
  return a;
}

Result<int> OpenListener(ListenAddress& a) {
  const auto failed = [&](const std::string& what) {
    return Status(ErrorCode::kInternal, "--listen",
                  "cannot " + what + " " + a.Text() + ": " + std::strerror(errno));
  };
  if (a.unix_socket) {
    sockaddr_un addr{};
    addr.sun_family = AF_UNIX;
    std::memcpy(addr.sun_path, a.path.c_str(), a.path.size() + 1);
    struct stat st {};
    if (lstat(a.path.c_str(), &st) == 0) {
      if (!S_ISSOCK(st.st_mode))
        return Status::Invalid("--listen", "--listen: " + a.path + " exists and is not a socket");
      if (UnixSocketLive(addr))
        return Status(ErrorCode::kInternal, "--listen",
                      a.Text() + ": another server is listening there");
      unlink(a.path.c_str());  // left by a server that died
    }
    const int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) return failed("make a socket for");
    const mode_t old = umask(0117);  // the socket file is 0660: its group may connect
    const int bound = bind(fd, reinterpret_cast<const sockaddr*>(&addr), sizeof(addr));
    umask(old);
    if (bound != 0 || listen(fd, 64) != 0) {
      const Status st = failed("listen on");
      close(fd);
      return st;
    }
    return fd;
  }
  sockaddr_storage addr{};
  const socklen_t len = TcpAddress(a, &addr);
  const int fd = socket(addr.ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return failed("make a socket for");
  const int one = 1;
  setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
  if (bind(fd, reinterpret_cast<const sockaddr*>(&addr), len) != 0 || listen(fd, 64) != 0) {
    const Status st = failed("listen on");
    close(fd);
    return st;
  }
  a.port = BoundPort(fd);
  return fd;
}

}  // namespace tq
