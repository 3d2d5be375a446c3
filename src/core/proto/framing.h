// Frames on the socket: a 4-byte big-endian length, then that many bytes of JSON.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

#include "core/model/status.h"

namespace tq {

/// The largest frame either side accepts (a stdin payload of 8 MiB grows by a third in b64).
constexpr size_t kMaxFrameBytes = 16u << 20;

/// `payload` with its length prefix.
std::string EncodeFrame(std::string_view payload);

/// A frame buffer larger than this is freed once emptied, so an idle client keeps no large one.
constexpr size_t kKeepBufferBytes = 64u << 10;
/// Empties a frame buffer, freeing its memory when it grew past kKeepBufferBytes.
void EmptyBuffer(std::string& buffer);

/// Splits a byte stream into frames. Feed it what the socket gave, then take frames until
/// none is complete. After an error (an oversized length) the stream is unusable.
class FrameDecoder {
 public:
  explicit FrameDecoder(size_t max_frame = kMaxFrameBytes) : max_frame_(max_frame) {}

  /// Appends bytes read from the peer. The buffer grows by doubling, but never past the end of
  /// the frame it is reading, so a whole frame of 16 MiB holds 16 MiB, not 32.
  void Feed(std::string_view bytes);
  /// The next complete payload, nullopt when more bytes are needed, or kLimit when the
  /// announced length is larger than the maximum.
  Result<std::optional<std::string>> Next();
  /// Puts `payload`, a frame Next gave, back in front of what is buffered: Next gives it again.
  void PutBack(std::string_view payload);
  /// True when a whole frame (or an oversized length) is waiting to be taken by Next.
  bool HasFrame() const;
  /// Bytes received but not yet returned as a frame.
  size_t buffered() const { return buffer_.size() - offset_; }
  /// The first frame's size with its length prefix, once its length came (buffered() reaches it
  /// when the frame is whole); 0 before that and when the length is over the maximum.
  size_t frame_bytes() const;

 private:
  size_t max_frame_;
  std::string buffer_;
  size_t offset_ = 0;
};

}  // namespace tq
