#include "support/pg_proxy.h"

#include <doctest/doctest.h>
#include <fcntl.h>
#include <poll.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <tuple>
#include <vector>

namespace tq::test {

namespace {

// A Unix socket address for `path`.
sockaddr_un Address(const std::string& path) {
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  REQUIRE(path.size() < sizeof(addr.sun_path));
  std::memcpy(addr.sun_path, path.c_str(), path.size() + 1);
  return addr;
}

// Writes all of `data` to `fd`; false when it cannot.
bool WriteAll(int fd, const char* data, ssize_t size) {
  while (size > 0) {
    const ssize_t n = write(fd, data, static_cast<size_t>(size));
    if (n <= 0) return false;
    data += n;
    size -= n;
  }
  return true;
}

// One relayed connection: the client's end and the server's.
struct Pair {
  int client = -1;
  int server = -1;
  bool frozen = false;  ///< carries nothing either way
  bool deaf = false;    ///< carries nothing from the server
};

}  // namespace

PgProxy::PgProxy(std::string server_socket) : server_socket_(std::move(server_socket)) {
  char tmpl[] = "/tmp/tq-pgproxy-XXXXXX";
  REQUIRE(mkdtemp(tmpl) != nullptr);
  dir_ = tmpl;
  listener_ = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  REQUIRE(listener_ >= 0);
  const sockaddr_un addr = Address(dir_ + "/.s.PGSQL.5432");
  REQUIRE(bind(listener_, reinterpret_cast<const sockaddr*>(&addr), sizeof(addr)) == 0);
  REQUIRE(listen(listener_, 16) == 0);
  REQUIRE(pipe2(wake_, O_CLOEXEC) == 0);
  thread_ = std::thread([this] { Relay(); });
}

std::string PgProxy::Through(std::string uri) const {
  const std::string server_dir = server_socket_.substr(0, server_socket_.rfind('/'));
  const size_t at = uri.find(server_dir);
  if (at != std::string::npos) uri.replace(at, server_dir.size(), dir_);
  return uri;
}

void PgProxy::Ask(char what) {
  const int want = ++asked_;
  REQUIRE(write(wake_[1], &what, 1) == 1);
  while (done_ < want) usleep(1000);
}

PgProxy::~PgProxy() {
  Ask('x');
  thread_.join();
  for (int fd : {listener_, wake_[0], wake_[1]}) close(fd);
  std::filesystem::remove_all(dir_);
}

void PgProxy::Relay() {
  std::vector<Pair> pairs;
  for (;;) {
    std::vector<pollfd> fds = {{wake_[0], POLLIN, 0}, {listener_, POLLIN, 0}};
    for (const Pair& p : pairs) {  // a frozen pair is not polled: not even a hang-up is seen
      fds.push_back({p.frozen ? -1 : p.client, POLLIN, 0});
      fds.push_back({p.frozen || p.deaf ? -1 : p.server, POLLIN, 0});
    }
    if (poll(fds.data(), fds.size(), -1) < 0) continue;
    if (fds[0].revents != 0) {
      char what = 'x';
      if (read(wake_[0], &what, 1) != 1) what = 'x';
      for (Pair& p : pairs) {
        p.frozen = p.frozen || what == 'f';
        p.deaf = p.deaf || what == 'd';
      }
      if (what == 'c' || what == 'x') {
        for (const Pair& p : pairs) {
          close(p.client);
          close(p.server);
        }
        pairs.clear();
      }
      ++done_;
      if (what == 'x') return;
      continue;
    }
    std::vector<Pair> open;  // the pairs relayed from now on
    if (fds[1].revents & POLLIN) {
      const int client = accept4(listener_, nullptr, nullptr, SOCK_CLOEXEC);
      const int server = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
      const sockaddr_un addr = Address(server_socket_);
      if (client >= 0 && server >= 0 && !refuse_ &&
          connect(server, reinterpret_cast<const sockaddr*>(&addr), sizeof(addr)) == 0) {
        open.push_back({client, server, /*frozen=*/hang_.load()});
      } else {
        if (client >= 0) close(client);
        if (server >= 0) close(server);
      }
    }
    for (size_t i = 0; i < pairs.size(); ++i) {
      const Pair& p = pairs[i];
      bool ok = true;
      for (const auto& [from, to, revents] :
           {std::tuple(p.client, p.server, fds[2 + 2 * i].revents),
            std::tuple(p.server, p.client, fds[3 + 2 * i].revents)}) {
        if (!ok || (revents & (POLLIN | POLLHUP | POLLERR)) == 0) continue;
        char buf[65536];
        const ssize_t n = read(from, buf, sizeof buf);
        ok = n > 0 && WriteAll(to, buf, n);
      }
      if (ok) {
        open.push_back(p);
      } else {
        close(p.client);
        close(p.server);
      }
    }
    pairs = std::move(open);
  }
}

}  // namespace tq::test
