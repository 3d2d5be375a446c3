#include "core/proto/framing.h"

#include <algorithm>
#include <cstdint>

namespace tq {

std::string EncodeFrame(std::string_view payload) {
  const auto n = static_cast<uint32_t>(payload.size());
  std::string out;
  out.reserve(payload.size() + 4);
  out += static_cast<char>((n >> 24) & 0xFF);
  out += static_cast<char>((n >> 16) & 0xFF);
  out += static_cast<char>((n >> 8) & 0xFF);
  out += static_cast<char>(n & 0xFF);
  out.append(payload);
  return out;
}

void EmptyBuffer(std::string& buffer) {
  if (buffer.capacity() > kKeepBufferBytes) {
    std::string().swap(buffer);
  } else {
    buffer.clear();
  }
}

namespace {
// The length announced by the 4 bytes at `p`.
size_t ReadLength(const char* bytes) {
  const auto* p = reinterpret_cast<const uint8_t*>(bytes);
  return (size_t{p[0]} << 24) | (size_t{p[1]} << 16) | (size_t{p[2]} << 8) | p[3];
}
}  // namespace

void FrameDecoder::Feed(std::string_view bytes) {
  const size_t size = buffered() + bytes.size();
  if (offset_ + size > buffer_.capacity()) {
    // A new buffer of exactly the size chosen (std::string's own growth may double past it),
    // without the bytes already taken.
    size_t want = std::max(size, 2 * buffered());
    const size_t frame = frame_bytes();
    if (frame != 0 && size <= frame) want = std::min(want, frame);
    std::string grown;
    grown.reserve(want);
    grown.append(buffer_, offset_);
    buffer_.swap(grown);
    offset_ = 0;
  }
  buffer_.append(bytes);
}

size_t FrameDecoder::frame_bytes() const {
  if (buffered() < 4) return 0;
  const size_t len = ReadLength(buffer_.data() + offset_);
  return len > max_frame_ ? 0 : 4 + len;
}

bool FrameDecoder::HasFrame() const {
  if (buffered() < 4) return false;
  const size_t len = ReadLength(buffer_.data() + offset_);
  return len > max_frame_ || buffered() >= 4 + len;
}

Result<std::optional<std::string>> FrameDecoder::Next() {
  if (buffered() < 4) return std::optional<std::string>();
  const size_t len = ReadLength(buffer_.data() + offset_);
  if (len > max_frame_) {
    return Status(ErrorCode::kLimit, "frame",
                  "frame of " + std::to_string(len) + " bytes is larger than the maximum " +
                      std::to_string(max_frame_));
  }
  if (buffered() < 4 + len) return std::optional<std::string>();
  std::string payload = buffer_.substr(offset_ + 4, len);
  offset_ += 4 + len;
  if (offset_ == buffer_.size()) {
    EmptyBuffer(buffer_);
    offset_ = 0;
  } else if (offset_ > kKeepBufferBytes && offset_ * 2 > buffer_.size()) {
    buffer_ = buffer_.substr(offset_);  // a buffer of the rest's size: the large one is freed
    offset_ = 0;
  }
  return std::optional<std::string>(std::move(payload));
}

void FrameDecoder::PutBack(std::string_view payload) {
  std::string buffer = EncodeFrame(payload);
  buffer.append(buffer_, offset_);
  buffer_ = std::move(buffer);
  offset_ = 0;
}

}  // namespace tq
