#include "support/http_client.h"

#include <doctest/doctest.h>
#include <grp.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cctype>
#include <chrono>
#include <cstdio>
#include <cstring>

#include "support/test_daemon.h"

namespace tqtest {

namespace {

std::string Lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

// A connected socket to `to`, made by this process; -1 on failure.
int ConnectHere(const HttpPeerSpec& to) {
  sockaddr_storage addr{};
  socklen_t len = 0;
  if (!to.unix_path.empty()) {
    auto& un = reinterpret_cast<sockaddr_un&>(addr);
    un.sun_family = AF_UNIX;
    std::snprintf(un.sun_path, sizeof(un.sun_path), "%s", to.unix_path.c_str());
    len = sizeof(un);
  } else {
    auto& in4 = reinterpret_cast<sockaddr_in&>(addr);
    in4.sin_family = AF_INET;
    in4.sin_port = htons(static_cast<uint16_t>(to.port));
    in4.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    len = sizeof(in4);
  }
  const int fd = socket(addr.ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return -1;
  if (connect(fd, reinterpret_cast<sockaddr*>(&addr), len) != 0) {
    close(fd);
    return -1;
  }
  return fd;
}

// One byte with room for one descriptor beside it (SCM_RIGHTS), for sendmsg and recvmsg.
struct FdMessage {
  char byte = 1;
  iovec iov{&byte, 1};
  alignas(cmsghdr) char control[CMSG_SPACE(sizeof(int))] = {};
  msghdr msg{};
  FdMessage() {
    msg.msg_iov = &iov;
    msg.msg_iovlen = 1;
    msg.msg_control = control;
    msg.msg_controllen = sizeof(control);
  }
  FdMessage(const FdMessage&) = delete;
  FdMessage& operator=(const FdMessage&) = delete;
};

// A connected socket to `to` that a child process running as `who` made, passed back over a
// socket pair; -1 on failure.
int ConnectAs(const HttpPeerSpec& to, const RunAs& who) {
  int pair[2];
  if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, pair) != 0) return -1;
  const pid_t child = fork();
  if (child == 0) {
    close(pair[0]);
    if (setgroups(0, nullptr) != 0 || setgid(who.gid) != 0 || setuid(who.uid) != 0) _exit(1);
    const int fd = ConnectHere(to);
    if (fd < 0) _exit(1);
    FdMessage m;
    cmsghdr* c = CMSG_FIRSTHDR(&m.msg);
    c->cmsg_level = SOL_SOCKET;
    c->cmsg_type = SCM_RIGHTS;
    c->cmsg_len = CMSG_LEN(sizeof(int));
    std::memcpy(CMSG_DATA(c), &fd, sizeof(int));
    _exit(sendmsg(pair[1], &m.msg, 0) == 1 ? 0 : 1);
  }
  close(pair[1]);
  int fd = -1;
  if (child > 0) {
    FdMessage m;
    if (recvmsg(pair[0], &m.msg, MSG_CMSG_CLOEXEC) == 1) {
      const cmsghdr* c = CMSG_FIRSTHDR(&m.msg);
      if (c != nullptr && c->cmsg_type == SCM_RIGHTS) std::memcpy(&fd, CMSG_DATA(c), sizeof(int));
    }
    int status = 0;
    waitpid(child, &status, 0);
  }
  close(pair[0]);
  return fd;
}

void SendRequest(int fd, const HttpPeerSpec& to, const std::string& method,
                 const std::string& target, const std::vector<std::string>& headers,
                 const std::string& body) {
  bool own_host = false;
  for (const std::string& h : headers) own_host = own_host || Lower(h.substr(0, 5)) == "host:";
  std::string text = method + " " + target + " HTTP/1.0\r\n";
  if (!own_host)
    text += to.unix_path.empty() ? "Host: 127.0.0.1:" + std::to_string(to.port) + "\r\n"
                                 : std::string("Host: localhost\r\n");
  for (const std::string& h : headers) text += h + "\r\n";
  if (!body.empty() || method == "POST")
    text += "Content-Length: " + std::to_string(body.size()) + "\r\n";
  text += "\r\n" + body;
  for (size_t sent = 0; sent < text.size();) {
    const ssize_t n = send(fd, text.data() + sent, text.size() - sent, MSG_NOSIGNAL);
    if (n <= 0) break;  // the server may answer (413) and close before reading it all
    sent += static_cast<size_t>(n);
  }
}

}  // namespace

int HttpConnect(const HttpPeerSpec& to) {
  const int fd = to.as ? ConnectAs(to, *to.as) : ConnectHere(to);
  REQUIRE_MESSAGE(fd >= 0,
                  "connect to " << (to.unix_path.empty() ? std::to_string(to.port) : to.unix_path));
  return fd;
}

HttpReply HttpCall(int port, const std::string& method, const std::string& target,
                   const std::vector<std::string>& headers, const std::string& body) {
  return HttpCall(HttpPeerSpec{port, "", std::nullopt}, method, target, headers, body);
}

HttpReply HttpCall(const HttpPeerSpec& to, const std::string& method, const std::string& target,
                   const std::vector<std::string>& headers, const std::string& body) {
  const int fd = HttpConnect(to);
  SendRequest(fd, to, method, target, headers, body);
  std::string raw;
  const auto deadline =
      std::chrono::steady_clock::now() + std::chrono::duration<double>(kCallTimeoutS);
  // HTTP/1.0: the server closes the connection after the answer.
  while (std::chrono::steady_clock::now() < deadline) {
    pollfd p{fd, POLLIN, 0};
    if (poll(&p, 1, 200) <= 0) continue;
    char buf[8192];
    const ssize_t n = read(fd, buf, sizeof(buf));
    if (n <= 0) break;
    raw.append(buf, static_cast<size_t>(n));
  }
  close(fd);
  HttpReply reply;
  const size_t head_end = raw.find("\r\n\r\n");
  REQUIRE_MESSAGE(head_end != std::string::npos,
                  "no HTTP answer to " << method << " " << target << ": " << raw);
  const std::string head = raw.substr(0, head_end);
  reply.body = raw.substr(head_end + 4);
  size_t line_end = head.find("\r\n");
  const std::string status_line = head.substr(0, line_end);
  REQUIRE(status_line.size() >= 12);
  reply.status = std::stoi(status_line.substr(9, 3));
  while (line_end != std::string::npos) {
    const size_t start = line_end + 2;
    line_end = head.find("\r\n", start);
    const std::string line =
        head.substr(start, line_end == std::string::npos ? std::string::npos : line_end - start);
    const size_t colon = line.find(':');
    if (colon == std::string::npos) continue;
    std::string value = line.substr(colon + 1);
    while (!value.empty() && value.front() == ' ') value.erase(0, 1);
    reply.headers[Lower(line.substr(0, colon))] = value;
  }
  return reply;
}

HttpStream::HttpStream(int port, const std::string& target, const std::vector<std::string>& headers)
    : fd_(HttpConnect(HttpPeerSpec{port, "", std::nullopt})) {
  SendRequest(fd_, HttpPeerSpec{port, "", std::nullopt}, "GET", target, headers, "");
}

HttpStream::~HttpStream() {
  close(fd_);
}

bool HttpStream::WaitFor(const std::function<bool(const std::string&)>& pred) {
  const auto deadline =
      std::chrono::steady_clock::now() + std::chrono::duration<double>(kWaitTimeoutS);
  while (!pred(received_)) {
    if (std::chrono::steady_clock::now() >= deadline) return false;
    pollfd p{fd_, POLLIN, 0};
    if (poll(&p, 1, 200) <= 0) continue;
    char buf[8192];
    const ssize_t n = read(fd_, buf, sizeof(buf));
    if (n <= 0) return pred(received_);
    received_.append(buf, static_cast<size_t>(n));
  }
  return true;
}

}  // namespace tqtest
