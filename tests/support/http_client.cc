#include "support/http_client.h"

#include <doctest/doctest.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cctype>
#include <chrono>

#include "support/test_daemon.h"

namespace tqtest {

namespace {

// A connection to 127.0.0.1:`port`; REQUIREs success.
int Connect(int port) {
  const int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  REQUIRE(fd >= 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<uint16_t>(port));
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  REQUIRE_MESSAGE(connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) == 0,
                  "connect to port " << port);
  return fd;
}

void SendRequest(int fd, const std::string& method, const std::string& target,
                 const std::vector<std::string>& headers, const std::string& body) {
  std::string text = method + " " + target + " HTTP/1.0\r\nHost: 127.0.0.1\r\n";
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

std::string Lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

}  // namespace

HttpReply HttpCall(int port, const std::string& method, const std::string& target,
                   const std::vector<std::string>& headers, const std::string& body) {
  const int fd = Connect(port);
  SendRequest(fd, method, target, headers, body);
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
    : fd_(Connect(port)) {
  SendRequest(fd_, "GET", target, headers, "");
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
