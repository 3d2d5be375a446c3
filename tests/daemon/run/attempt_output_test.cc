// An attempt's output as `tq logs` reads it: a stream its supervisor cut ends with a marker saying
// where and why, after the bytes kept, however the reads are chunked.
#include "daemon/run/attempt_output.h"

#include <doctest/doctest.h>

#include <string>

namespace tq {
namespace {

// Everything `read` returns from offset 0 on, `max` bytes at a time.
template <typename Read>
std::string ReadAll(Read read, size_t max) {
  std::string all;
  for (int64_t offset = 0;;) {
    const OutputChunk chunk = read(offset, max);
    all += chunk.data;
    offset = chunk.next;
    if (chunk.next >= chunk.available) return all;
    REQUIRE(!chunk.data.empty());
  }
}

TEST_CASE("attempt output: a cut stream ends with its marker, whole or in chunks") {
  AttemptOutput output(StoredOutput{"abcdef", "err\n", ""});
  const OutputCut cut{false, 6, "No space left on device"};
  output.MarkCuts({cut});
  const std::string stdout_whole = "abcdef" + OutputCutMarker(cut, false);
  for (size_t max : {1000u, 4u, 1u}) {
    INFO("max " << max);
    CHECK(ReadAll([&](int64_t at, size_t n) { return output.Read(false, false, true, at, n); },
                  max) == stdout_whole);
    CHECK(ReadAll([&](int64_t at, size_t n) { return output.Read(true, false, true, at, n); },
                  max) == "err\n");
    CHECK(ReadAll([&](int64_t at, size_t n) { return output.Read(false, true, true, at, n); },
                  max) == "abcdeferr\n" + OutputCutMarker(cut, true));
  }
  const OutputChunk whole = output.Read(false, false, true, 0, 1000);
  CHECK(whole.available == static_cast<int64_t>(stdout_whole.size()));
  CHECK(whole.next == whole.available);
}

TEST_CASE("attempt output: nothing cut, nothing added") {
  AttemptOutput output(StoredOutput{"abc", "", ""});
  const OutputChunk chunk = output.Read(false, false, true, 0, 1000);
  CHECK(chunk.data == "abc");
  CHECK(chunk.available == 3);
}

}  // namespace
}  // namespace tq
