// Who opened a connection to `tq web`: a process of this machine, named by the kernel (the peer
// credentials of a Unix socket; for TCP, the owner of the other end in the kernel's socket
// tables), or another machine, known only by its address.
#pragma once

#include <sys/types.h>

#include <string>

namespace tq {

/// The other end of one accepted connection.
struct HttpPeer {
  bool local = false;   ///< a process of this machine (and network namespace) holds the other end
  uid_t uid = 0;        ///< that process's user, when `local`
  std::string address;  ///< "unix", or the peer's numeric address without its port

  /// What a cap of connections per peer counts by: "uid:N" for a local peer, "addr:A" otherwise.
  std::string Key() const;
  /// For messages: "uid 1000" or "address 192.0.2.7".
  std::string Text() const;
};

/// The peer of the connected socket `fd` (AF_UNIX, AF_INET or AF_INET6). A TCP peer the kernel's
/// socket tables (sock_diag) do not hold is another machine's: `local` is false.
HttpPeer IdentifyPeer(int fd);

}  // namespace tq
