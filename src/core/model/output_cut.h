// Output the supervisor could not keep: a stream whose file could not be written (a full disk,
// a quota, an I/O error) is cut where the file ends. The cut cannot be marked in the file (the
// disk that refused the output would refuse the marker too), so the attempt keeps it and the
// marker is added where the output is read.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace tq {

/// Where one stream of an attempt's output was cut, and why.
struct OutputCut {
  bool stderr_stream = false;
  int64_t at = 0;      ///< the bytes kept: the stream's file ends there
  std::string reason;  ///< the error, as strerror says it ("No space left on device")
  bool operator==(const OutputCut&) const = default;
};

/// The text the store keeps for `cuts`: a line "stdout AT REASON" (or "stderr ...") each; ""
/// for none.
std::string EncodeOutputCuts(const std::vector<OutputCut>& cuts);
/// The cuts EncodeOutputCuts wrote; a line it cannot read is left out.
std::vector<OutputCut> DecodeOutputCuts(std::string_view text);

/// What follows a cut stream's bytes where `tq logs` reads them: read alone,
/// "\n[tq: output cut here at N bytes: REASON]\n"; merged with the other stream, the stream is
/// named instead ("[tq: stdout cut at N bytes: REASON]"), as its bytes may not be the last.
std::string OutputCutMarker(const OutputCut& cut, bool merged);
/// Words for `tq status`: "stdout cut at 11 MiB: No space left on device".
std::string OutputCutSummary(const OutputCut& cut);

}  // namespace tq
