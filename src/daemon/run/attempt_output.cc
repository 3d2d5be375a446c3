#include "daemon/run/attempt_output.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <utility>
#include <vector>

#include "core/model/output_order.h"

namespace tq {

namespace {

// The most of an order file read (a switch is a line of a few bytes); the rest counts as "end".
constexpr size_t kMaxOrderBytes = 16u << 20;

// Opens `path` to read, and its size; -1 when it does not exist.
int OpenOutput(const std::string& path, int64_t* size) {
  const int fd = open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
  struct stat st {};
  *size = fd >= 0 && fstat(fd, &st) == 0 ? st.st_size : 0;
  return fd;
}

// Appends up to `max` bytes of the file `fd` of `size` bytes from `offset` to `out`.
size_t PreadInto(int fd, int64_t size, std::string& out, int64_t offset, size_t max) {
  if (fd < 0 || offset >= size || max == 0) return 0;
  const size_t want = std::min<size_t>(max, static_cast<size_t>(size - offset));
  const size_t at = out.size();
  out.resize(at + want);
  const ssize_t n = pread(fd, out.data() + at, want, offset);
  out.resize(at + (n > 0 ? static_cast<size_t>(n) : 0));
  return n > 0 ? static_cast<size_t>(n) : 0;
}

}  // namespace

AttemptOutput::AttemptOutput(const TaskFiles& files, TaskId id, int attempt) {
  if (attempt == 0) return;
  // The order first, then the streams: what they hold beyond it was written after, so a merged
  // read of a running attempt never names bytes past what it measured.
  int64_t order_size = 0;
  const int order_fd = OpenOutput(files.Order(id, attempt), &order_size);
  PreadInto(order_fd, order_size, order_, 0, kMaxOrderBytes);
  if (order_fd >= 0) close(order_fd);
  out_fd_ = OpenOutput(files.Stdout(id, attempt), &out_size_);
  err_fd_ = OpenOutput(files.Stderr(id, attempt), &err_size_);
}

AttemptOutput::AttemptOutput(StoredOutput kept)
    : out_size_(static_cast<int64_t>(kept.stdout_bytes.size())),
      err_size_(static_cast<int64_t>(kept.stderr_bytes.size())),
      order_(std::move(kept.order)),
      kept_(std::move(kept)),
      from_store_(true) {}

AttemptOutput::AttemptOutput(AttemptOutput&& other) noexcept
    : out_fd_(std::exchange(other.out_fd_, -1)),
      err_fd_(std::exchange(other.err_fd_, -1)),
      out_size_(other.out_size_),
      err_size_(other.err_size_),
      order_(std::move(other.order_)),
      kept_(std::move(other.kept_)),
      from_store_(other.from_store_),
      cuts_(std::move(other.cuts_)) {}

AttemptOutput::~AttemptOutput() {
  if (out_fd_ >= 0) close(out_fd_);
  if (err_fd_ >= 0) close(err_fd_);
}

size_t AttemptOutput::ReadInto(bool stderr_stream, std::string& out, int64_t offset,
                               size_t max) const {
  if (!from_store_)
    return PreadInto(stderr_stream ? err_fd_ : out_fd_, Size(stderr_stream), out, offset, max);
  const std::string& bytes = stderr_stream ? kept_.stderr_bytes : kept_.stdout_bytes;
  if (offset < 0 || offset >= static_cast<int64_t>(bytes.size())) return 0;
  const size_t n = std::min(max, bytes.size() - static_cast<size_t>(offset));
  out.append(bytes, static_cast<size_t>(offset), n);
  return n;
}

OutputChunk AttemptOutput::Read(bool stderr_stream, bool merged, bool over, int64_t offset,
                                size_t max) const {
  OutputChunk chunk;
  if (!merged) {
    ReadInto(stderr_stream, chunk.data, offset, max);
    chunk.available = Size(stderr_stream);
  } else {
    const std::vector<OutputSegment> segments = MergedSegments(order_, out_size_, err_size_, over);
    chunk.available = SegmentsSize(segments);
    int64_t start = 0;  // where the segment begins in the merged output
    for (const OutputSegment& s : segments) {
      const int64_t length = s.end - s.begin;
      if (offset < start + length && chunk.data.size() < max) {
        const int64_t from = s.begin + std::max<int64_t>(0, offset - start);
        const size_t room = std::min<size_t>(max - chunk.data.size(), s.end - from);
        ReadInto(s.stderr_stream, chunk.data, from, room);
      }
      start += length;
    }
  }
  // The markers come after every byte kept: the part of them the chunk reaches.
  const std::string markers = Markers(stderr_stream, merged);
  const int64_t end = offset + static_cast<int64_t>(chunk.data.size());
  if (!markers.empty() && end >= chunk.available && chunk.data.size() < max) {
    const size_t from = static_cast<size_t>(std::max<int64_t>(0, offset - chunk.available));
    if (from < markers.size()) chunk.data.append(markers, from, max - chunk.data.size());
  }
  chunk.available += static_cast<int64_t>(markers.size());
  chunk.next = offset + static_cast<int64_t>(chunk.data.size());
  return chunk;
}

std::string AttemptOutput::Markers(bool stderr_stream, bool merged) const {
  std::string markers;
  for (const bool stream : {false, true})
    for (const OutputCut& cut : cuts_)
      if (cut.stderr_stream == stream && (merged || stream == stderr_stream))
        markers += OutputCutMarker(cut, merged);
  return markers;
}

StoredOutput AttemptOutput::Whole() const {
  if (from_store_) return kept_;
  StoredOutput whole;
  ReadInto(false, whole.stdout_bytes, 0, static_cast<size_t>(out_size_));
  ReadInto(true, whole.stderr_bytes, 0, static_cast<size_t>(err_size_));
  whole.order = order_;
  return whole;
}

}  // namespace tq
