#include "cli/web/http_peer.h"

#include <arpa/inet.h>
#include <linux/inet_diag.h>
#include <linux/netlink.h>
#include <linux/sock_diag.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <optional>

namespace tq {

namespace {

// A socket address reduced to what sock_diag matches on.
struct Endpoint {
  int family = AF_UNSPEC;  // AF_INET or AF_INET6 (a v4-mapped IPv6 address becomes AF_INET)
  uint16_t port = 0;       // network byte order
  uint32_t addr[4] = {};   // network byte order; IPv4 in addr[0]
};

Endpoint EndpointOf(const sockaddr_storage& s) {
  Endpoint e;
  if (s.ss_family == AF_INET) {
    const auto& in4 = reinterpret_cast<const sockaddr_in&>(s);
    e.family = AF_INET;
    e.port = in4.sin_port;
    std::memcpy(&e.addr[0], &in4.sin_addr, 4);
  } else if (s.ss_family == AF_INET6) {
    const auto& in6 = reinterpret_cast<const sockaddr_in6&>(s);
    e.port = in6.sin6_port;
    if (IN6_IS_ADDR_V4MAPPED(&in6.sin6_addr)) {
      e.family = AF_INET;
      std::memcpy(&e.addr[0], in6.sin6_addr.s6_addr + 12, 4);
    } else {
      e.family = AF_INET6;
      std::memcpy(e.addr, &in6.sin6_addr, 16);
    }
  }
  return e;
}

std::string AddressText(const Endpoint& e) {
  char text[INET6_ADDRSTRLEN] = "?";
  inet_ntop(e.family, e.addr, text, sizeof(text));
  return text;
}

// The owner of the TCP socket whose own end is `source` and whose other end is `dest`, as the
// kernel's socket tables hold it; nullopt when they hold no such socket here.
std::optional<uid_t> TcpSocketOwner(const Endpoint& source, const Endpoint& dest) {
  const int nl = socket(AF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC, NETLINK_SOCK_DIAG);
  if (nl < 0) return std::nullopt;
  struct {
    nlmsghdr header;
    inet_diag_req_v2 request;
  } ask{};
  ask.header.nlmsg_len = sizeof(ask);
  ask.header.nlmsg_type = SOCK_DIAG_BY_FAMILY;
  ask.header.nlmsg_flags = NLM_F_REQUEST;
  ask.request.sdiag_family = static_cast<uint8_t>(source.family);
  ask.request.sdiag_protocol = IPPROTO_TCP;
  ask.request.idiag_states = ~0U;
  ask.request.id.idiag_sport = source.port;
  ask.request.id.idiag_dport = dest.port;
  std::memcpy(ask.request.id.idiag_src, source.addr, sizeof(source.addr));
  std::memcpy(ask.request.id.idiag_dst, dest.addr, sizeof(dest.addr));
  ask.request.id.idiag_cookie[0] = INET_DIAG_NOCOOKIE;
  ask.request.id.idiag_cookie[1] = INET_DIAG_NOCOOKIE;
  sockaddr_nl kernel{};
  kernel.nl_family = AF_NETLINK;
  std::optional<uid_t> owner;
  if (sendto(nl, &ask, sizeof(ask), 0, reinterpret_cast<sockaddr*>(&kernel), sizeof(kernel)) ==
      static_cast<ssize_t>(sizeof(ask))) {
    alignas(nlmsghdr) char answer[8192];
    ssize_t n = -1;
    do n = recv(nl, answer, sizeof(answer), 0);
    while (n < 0 && errno == EINTR);
    const auto* h = reinterpret_cast<const nlmsghdr*>(answer);
    if (n > 0 && NLMSG_OK(h, static_cast<size_t>(n)) && h->nlmsg_type == SOCK_DIAG_BY_FAMILY &&
        h->nlmsg_len >= NLMSG_LENGTH(sizeof(inet_diag_msg)))
      owner = static_cast<const inet_diag_msg*>(NLMSG_DATA(h))->idiag_uid;
  }
  close(nl);
  return owner;
}

}  // namespace

std::string HttpPeer::Key() const {
  return local ? "uid:" + std::to_string(uid) : "addr:" + address;
}

std::string HttpPeer::Text() const {
  return local ? "uid " + std::to_string(uid) : "address " + address;
}

HttpPeer IdentifyPeer(int fd) {
  HttpPeer peer;
  sockaddr_storage mine{}, theirs{};
  socklen_t mine_len = sizeof(mine), theirs_len = sizeof(theirs);
  if (getsockname(fd, reinterpret_cast<sockaddr*>(&mine), &mine_len) != 0 ||
      getpeername(fd, reinterpret_cast<sockaddr*>(&theirs), &theirs_len) != 0)
    return peer;
  if (mine.ss_family == AF_UNIX) {
    peer.address = "unix";
    ucred cred{};
    socklen_t len = sizeof(cred);
    if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) == 0) {
      peer.local = true;
      peer.uid = cred.uid;
    }
    return peer;
  }
  const Endpoint own = EndpointOf(mine), other = EndpointOf(theirs);
  peer.address = AddressText(other);
  // The other end's socket has the peer's address as its source and ours as its destination.
  if (const std::optional<uid_t> owner = TcpSocketOwner(other, own)) {
    peer.local = true;
    peer.uid = *owner;
  }
  return peer;
}

}  // namespace tq
