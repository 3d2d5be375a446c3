// Who opened a connection: the kernel names the user at the other end of a Unix socket and of a
// loopback TCP connection (its socket tables), whatever address family the console listens on.
#include "cli/web/http_peer.h"

#include <arpa/inet.h>
#include <doctest/doctest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstring>

namespace tq {
namespace {

// A connected TCP pair over the loopback of `family`; {accepted, client}.
std::pair<int, int> LoopbackPair(int family) {
  const int listener = socket(family, SOCK_STREAM | SOCK_CLOEXEC, 0);
  REQUIRE(listener >= 0);
  sockaddr_storage addr{};
  socklen_t len = 0;
  if (family == AF_INET) {
    auto& in4 = reinterpret_cast<sockaddr_in&>(addr);
    in4.sin_family = AF_INET;
    in4.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    len = sizeof(in4);
  } else {
    auto& in6 = reinterpret_cast<sockaddr_in6&>(addr);
    in6.sin6_family = AF_INET6;
    in6.sin6_addr = in6addr_loopback;
    len = sizeof(in6);
  }
  REQUIRE(bind(listener, reinterpret_cast<sockaddr*>(&addr), len) == 0);
  REQUIRE(listen(listener, 1) == 0);
  REQUIRE(getsockname(listener, reinterpret_cast<sockaddr*>(&addr), &len) == 0);
  const int client = socket(family, SOCK_STREAM | SOCK_CLOEXEC, 0);
  REQUIRE(connect(client, reinterpret_cast<sockaddr*>(&addr), len) == 0);
  const int accepted = accept4(listener, nullptr, nullptr, SOCK_CLOEXEC);
  REQUIRE(accepted >= 0);
  close(listener);
  return {accepted, client};
}

TEST_CASE("a loopback TCP peer is this machine's, with the user who opened it") {
  for (int family : {AF_INET, AF_INET6}) {
    CAPTURE(family);
    const auto [accepted, client] = LoopbackPair(family);
    const HttpPeer peer = IdentifyPeer(accepted);
    CHECK(peer.local);
    CHECK(peer.uid == geteuid());
    CHECK(peer.address == (family == AF_INET ? "127.0.0.1" : "::1"));
    CHECK(peer.Key() == "uid:" + std::to_string(geteuid()));
    close(accepted);
    close(client);
  }
}

TEST_CASE("a Unix socket's peer is named by its credentials") {
  int pair[2];
  REQUIRE(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, pair) == 0);
  const HttpPeer peer = IdentifyPeer(pair[0]);
  CHECK(peer.local);
  CHECK(peer.uid == geteuid());
  CHECK(peer.address == "unix");
  close(pair[0]);
  close(pair[1]);
  // A descriptor that is no socket is no one's.
  CHECK_FALSE(IdentifyPeer(-1).local);
}

TEST_CASE("a peer is counted by user when local, by address otherwise") {
  HttpPeer remote;
  remote.address = "192.0.2.7";
  CHECK(remote.Key() == "addr:192.0.2.7");
  CHECK(remote.Text() == "address 192.0.2.7");
  HttpPeer local;
  local.local = true;
  local.uid = 1000;
  CHECK(local.Text() == "uid 1000");
}

}  // namespace
}  // namespace tq
