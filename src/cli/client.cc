#include "cli/client.h"

#include <poll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <utility>

#include "core/config/paths.h"

namespace tq {

Client::~Client() {
  if (fd_ >= 0) close(fd_);
}

Client::Client(Client&& other) noexcept
    : fd_(std::exchange(other.fd_, -1)),
      path_(std::move(other.path_)),
      decoder_(std::move(other.decoder_)) {}

Client& Client::operator=(Client&& other) noexcept {
  if (this != &other) {
    if (fd_ >= 0) close(fd_);
    fd_ = std::exchange(other.fd_, -1);
    path_ = std::move(other.path_);
    decoder_ = std::move(other.decoder_);
  }
  return *this;
}

Result<Client> Client::Connect(const std::string& socket) {
  const std::vector<std::string> candidates =
      socket.empty() ? ClientSocketCandidates() : std::vector<std::string>{socket};
  std::string tried;
  for (const auto& path : candidates) {
    Client c;
    c.path_ = path;
    sockaddr_un addr{};
    addr.sun_family = AF_UNIX;
    if (path.size() >= sizeof addr.sun_path) {
      tried += (tried.empty() ? "" : ", ") + path + " (path too long)";
      continue;
    }
    std::memcpy(addr.sun_path, path.c_str(), path.size() + 1);
    c.fd_ = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (c.fd_ >= 0 && connect(c.fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0)
      return c;
    tried += (tried.empty() ? "" : ", ") + path + " (" + strerror(errno) + ")";
  }
  return Status(ErrorCode::kUnavailable, "socket",
                "cannot reach tqd at " + tried + "; is the daemon running?");
}

Status Client::Send(const Request& request) {
  std::string payload;
  try {
    payload = EncodeRequest(request, as_user_);
  } catch (const nlohmann::json::exception& e) {
    // A text field that is not UTF-8 and that no check caught: a bug, but never an abort.
    return Status::Internal(std::string("cannot encode the request as JSON: ") + e.what());
  }
  const std::string frame = EncodeFrame(payload);
  size_t done = 0;
  while (done < frame.size()) {
    const ssize_t n = send(fd_, frame.data() + done, frame.size() - done, MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return WriteFailed(errno);
    done += static_cast<size_t>(n);
  }
  return Status::Ok();
}

Status Client::WriteFailed(int error) {
  // tqd refuses a connection (the per-user limit) with an error frame and closes it before it
  // reads a request: the write fails, and the frame waits to be read. The peer is gone, so the
  // read cannot block.
  if (error == EPIPE || error == ECONNRESET) {
    if (auto said = Read(); said.ok()) {
      if (Status refused = ResponseStatus(*said); !refused.ok()) return refused;
    }
  }
  return Status(ErrorCode::kUnavailable, "socket",
                "lost the connection to tqd at " + path_ + ": " + strerror(error));
}

Result<nlohmann::json> Client::Read() {
  auto text = ReadText();
  if (!text.ok()) return text.status();
  auto j = nlohmann::json::parse(*text, nullptr, false);
  if (j.is_discarded()) return Status::Internal("tqd sent a response that is not JSON");
  return j;
}

Result<std::string> Client::ReadText() {
  for (;;) {
    auto frame = decoder_.Next();
    if (!frame.ok()) return frame.status();
    if (frame->has_value()) return std::move(**frame);
    char buf[65536];
    const ssize_t n = read(fd_, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0)
      return Status(ErrorCode::kUnavailable, "socket",
                    "lost the connection to tqd at " + path_ +
                        (n < 0 ? std::string(": ") + strerror(errno) : std::string()));
    decoder_.Feed(std::string_view(buf, static_cast<size_t>(n)));
  }
}

bool Client::Readable(int timeout_ms) {
  if (decoder_.HasFrame()) return true;
  pollfd p{fd_, POLLIN, 0};
  for (;;) {
    const int n = poll(&p, 1, timeout_ms);
    if (n < 0 && errno == EINTR) continue;
    return n != 0;
  }
}

Result<nlohmann::json> Client::Call(const Request& request) {
  Status st = Send(request);
  if (!st.ok()) return st;
  auto response = Read();
  if (!response.ok()) return response;
  st = ResponseStatus(*response);
  if (!st.ok()) return st;
  return response;
}

}  // namespace tq
