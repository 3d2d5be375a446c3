#include "cli/web/http_server.h"

#include <microhttpd.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <exception>

namespace tq {

namespace {

// Headers every answer carries: nothing is cached or framed, nothing leaks through a Referer
// (a login URL holds the token), scripts and styles come from the console itself only.
constexpr std::pair<const char*, const char*> kDefaultHeaders[] = {
    {"Cache-Control", "no-store"},
    {"X-Content-Type-Options", "nosniff"},
    {"X-Frame-Options", "DENY"},
    {"Referrer-Policy", "no-referrer"},
    {"Content-Security-Policy",
     "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; "
     "connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'"},
};

std::string Lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

// Adds every (name, value) of one kind to the map `cls`, names lower-cased when asked.
template <bool kLowerNames>
MHD_Result Collect(void* cls, MHD_ValueKind, const char* key, const char* value) {
  auto* into = static_cast<std::map<std::string, std::string>*>(cls);
  std::string name = key != nullptr ? key : "";
  if constexpr (kLowerNames) name = Lower(std::move(name));
  into->emplace(std::move(name), value != nullptr ? value : "");
  return MHD_YES;
}

// libmicrohttpd's own messages (such as one per connection refused at its limit): a line at
// most every 10 s.
void LogQuietly(void* cls, const char* format, va_list args) {
  char line[512];
  std::vsnprintf(line, sizeof(line), format, args);
  static_cast<QuietLog*>(cls)->Note(std::string("http: ") + line);
}

QuietLog& HttpLibraryLog() {
  static QuietLog log;
  return log;
}

// The guard's record of the connection `conn`.
ConnectionGuard::Open* OpenOf(MHD_Connection* conn) {
  const MHD_ConnectionInfo* info =
      MHD_get_connection_info(conn, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
  return info != nullptr ? static_cast<ConnectionGuard::Open*>(info->socket_context) : nullptr;
}

HttpResponse Plain(int status, std::string text) {
  HttpResponse r;
  r.status = status;
  r.content_type = "text/plain; charset=utf-8";
  r.body = std::move(text);
  return r;
}

// What a streamed answer has produced and not yet sent.
struct StreamState {
  HttpStream next;
  const std::atomic<bool>* stopping;
  std::string pending;
  size_t sent = 0;  // bytes of `pending` already given to MHD
};

ssize_t ReadStream(void* cls, uint64_t, char* buf, size_t max) {
  auto* s = static_cast<StreamState*>(cls);
  while (s->sent == s->pending.size()) {
    std::optional<std::string> piece;
    try {
      piece = s->next(*s->stopping);
    } catch (const std::exception& e) {
      std::fprintf(stderr, "tq web: a stream failed: %s\n", e.what());
      return MHD_CONTENT_READER_END_WITH_ERROR;
    }
    if (!piece || s->stopping->load()) return MHD_CONTENT_READER_END_OF_STREAM;
    s->pending = std::move(*piece);
    s->sent = 0;
  }
  const size_t n = std::min(max, s->pending.size() - s->sent);
  std::copy_n(s->pending.data() + s->sent, n, buf);
  s->sent += n;
  return static_cast<ssize_t>(n);
}

void FreeStream(void* cls) {
  delete static_cast<StreamState*>(cls);
}

}  // namespace

struct HttpServer::Connection {
  std::string body;
};

// The C callbacks of libmicrohttpd, with access to the server's insides.
struct HttpServerCallbacks {
  static MHD_Result Queue(HttpServer& server, MHD_Connection* conn, const HttpResponse& r) {
    MHD_Response* response = nullptr;
    if (r.stream) {
      auto* state = new StreamState{r.stream, &server.stopping_, {}, 0};
      response = MHD_create_response_from_callback(MHD_SIZE_UNKNOWN, 4096, &ReadStream, state,
                                                   &FreeStream);
      if (response == nullptr) delete state;
    } else {
      response = MHD_create_response_from_buffer(r.body.size(), const_cast<char*>(r.body.data()),
                                                 MHD_RESPMEM_MUST_COPY);
    }
    if (response == nullptr) return MHD_NO;
    MHD_add_response_header(response, "Content-Type", r.content_type.c_str());
    for (const auto& [name, value] : kDefaultHeaders)
      MHD_add_response_header(response, name, value);
    for (const auto& [name, value] : r.headers)
      MHD_add_response_header(response, name.c_str(), value.c_str());
    const MHD_Result queued = MHD_queue_response(conn, static_cast<unsigned>(r.status), response);
    MHD_destroy_response(response);
    return queued;
  }

  static MHD_Result Access(void* cls, MHD_Connection* conn, const char* url, const char* method,
                           const char*, const char* upload_data, size_t* upload_data_size,
                           void** req_cls) {
    auto& server = *static_cast<HttpServer*>(cls);
    auto* c = static_cast<HttpServer::Connection*>(*req_cls);
    if (c == nullptr) {
      // The first call has the headers only: a body announced too large is refused before it
      // is read.
      const char* length = MHD_lookup_connection_value(conn, MHD_HEADER_KIND, "Content-Length");
      if (length != nullptr && std::strtoull(length, nullptr, 10) > server.limits_.body_bytes)
        return Queue(server, conn, TooLarge(server));
      *req_cls = new HttpServer::Connection;
      return MHD_YES;
    }
    if (*upload_data_size > 0) {
      if (c->body.size() + *upload_data_size > server.limits_.body_bytes)
        return Queue(server, conn, TooLarge(server));
      c->body.append(upload_data, *upload_data_size);
      *upload_data_size = 0;
      return MHD_YES;
    }
    ConnectionGuard::Open* open = OpenOf(conn);
    if (open == nullptr || !open->counted) return MHD_NO;  // refused at accept
    server.guard_.RequestRead(open);
    HttpRequest request;
    request.peer = open->peer;
    request.method = method != nullptr ? method : "";
    request.path = url != nullptr ? url : "";
    request.body = std::move(c->body);
    MHD_get_connection_values(conn, MHD_HEADER_KIND, &Collect<true>, &request.headers);
    MHD_get_connection_values(conn, MHD_GET_ARGUMENT_KIND, &Collect<false>, &request.query);
    MHD_get_connection_values(conn, MHD_COOKIE_KIND, &Collect<false>, &request.cookies);
    HttpResponse response;
    try {
      response = server.handler_(request);
    } catch (const std::exception& e) {
      std::fprintf(stderr, "tq web: %s %s failed: %s\n", request.method.c_str(),
                   request.path.c_str(), e.what());
      response = Plain(500, "internal error\n");
    }
    return Queue(server, conn, response);
  }

  static HttpResponse TooLarge(const HttpServer& server) {
    return Plain(413,
                 "request body over " + std::to_string(server.limits_.body_bytes) + " bytes\n");
  }

  static void Completed(void* cls, MHD_Connection* conn, void** req_cls,
                        MHD_RequestTerminationCode) {
    delete static_cast<HttpServer::Connection*>(*req_cls);
    *req_cls = nullptr;
    if (ConnectionGuard::Open* open = OpenOf(conn))
      static_cast<HttpServer*>(cls)->guard_.RequestEnded(open);
  }

  static void Notify(void* cls, MHD_Connection* conn, void** socket_context,
                     MHD_ConnectionNotificationCode code) {
    auto& guard = static_cast<HttpServer*>(cls)->guard_;
    if (code == MHD_CONNECTION_NOTIFY_STARTED) {
      const MHD_ConnectionInfo* info =
          MHD_get_connection_info(conn, MHD_CONNECTION_INFO_CONNECTION_FD);
      *socket_context = info != nullptr ? guard.Admit(info->connect_fd) : nullptr;
    } else if (*socket_context != nullptr) {
      guard.Closed(static_cast<ConnectionGuard::Open*>(*socket_context));
      *socket_context = nullptr;
    }
  }
};

HttpServer::HttpServer(const HttpLimits& limits, HttpHandler handler, PeerHasSession has_session)
    : limits_(limits), handler_(std::move(handler)), guard_(limits.guard, std::move(has_session)) {}

Result<std::unique_ptr<HttpServer>> HttpServer::Start(int listen_fd, const HttpLimits& limits,
                                                      HttpHandler handler,
                                                      PeerHasSession has_session) {
  HttpLimits bounds = limits;
  sockaddr_storage bound{};
  socklen_t len = sizeof(bound);
  if (getsockname(listen_fd, reinterpret_cast<sockaddr*>(&bound), &len) == 0 &&
      bound.ss_family == AF_UNIX)
    bounds.guard.per_peer = 0;  // every request comes through the proxy
  std::unique_ptr<HttpServer> server(
      new HttpServer(bounds, std::move(handler), std::move(has_session)));
  const unsigned flags = MHD_USE_THREAD_PER_CONNECTION | MHD_USE_INTERNAL_POLLING_THREAD |
                         MHD_USE_POLL | MHD_USE_ERROR_LOG;
  server->daemon_ = MHD_start_daemon(
      flags, 0, nullptr, nullptr, &HttpServerCallbacks::Access, server.get(),
      MHD_OPTION_EXTERNAL_LOGGER, &LogQuietly, &HttpLibraryLog(), MHD_OPTION_LISTEN_SOCKET,
      listen_fd, MHD_OPTION_CONNECTION_LIMIT, bounds.guard.total + 1, MHD_OPTION_CONNECTION_TIMEOUT,
      bounds.idle_timeout_s, MHD_OPTION_CONNECTION_MEMORY_LIMIT, bounds.header_bytes,
      MHD_OPTION_NOTIFY_COMPLETED, &HttpServerCallbacks::Completed, server.get(),
      MHD_OPTION_NOTIFY_CONNECTION, &HttpServerCallbacks::Notify, server.get(), MHD_OPTION_END);
  if (server->daemon_ == nullptr) {
    close(listen_fd);
    return Status::Internal("cannot start the HTTP server (libmicrohttpd refused its options)");
  }
  return server;
}

void HttpServer::Stop() {
  if (daemon_ == nullptr) return;
  stopping_ = true;
  MHD_stop_daemon(daemon_);  // joins every connection's thread; streams see stopping_
  daemon_ = nullptr;
}

HttpServer::~HttpServer() {
  Stop();
}

}  // namespace tq
