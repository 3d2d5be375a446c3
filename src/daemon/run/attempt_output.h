// An attempt's captured output, to read: its files on the host that ran it, or the copy the
// store keeps for every host (SPEC 12), which that host saves from its files when the attempt
// ends.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/model/task.h"
#include "core/store/store.h"
#include "daemon/run/task_files.h"

namespace tq {

/// Some of an attempt's output: the bytes, the offset after them, and the size of all there is
/// to read now (so the caller knows whether it has it all).
struct OutputChunk {
  std::string data;
  int64_t next = 0;
  int64_t available = 0;
};

/// One attempt's output: open files on this host, or bytes the store kept.
class AttemptOutput {
 public:
  /// The files of attempt `attempt` of task `id` on this host (those missing read as empty).
  AttemptOutput(const TaskFiles& files, TaskId id, int attempt);
  /// The copy the store kept.
  explicit AttemptOutput(StoredOutput kept);
  ~AttemptOutput();
  AttemptOutput(AttemptOutput&& other) noexcept;
  AttemptOutput(const AttemptOutput&) = delete;
  AttemptOutput& operator=(const AttemptOutput&) = delete;
  AttemptOutput& operator=(AttemptOutput&&) = delete;

  /// Tells where the attempt's supervisor cut its output (a full disk...; Attempt::output_cuts):
  /// each read then ends with a marker saying so, after the bytes kept. The marker lives here,
  /// not in the file, because the disk that refused the output would refuse the marker too.
  void MarkCuts(std::vector<OutputCut> cuts) { cuts_ = std::move(cuts); }
  /// Whether this host holds any file of the attempt's output.
  bool OnThisHost() const { return out_fd_ >= 0 || err_fd_ >= 0; }
  /// Up to `max` bytes from `offset`: one stream, or with `merged` both in the order written
  /// (`over`: the attempt has ended, so its output is whole), followed by the cut markers.
  OutputChunk Read(bool stderr_stream, bool merged, bool over, int64_t offset, size_t max) const;
  /// All of it, as the store keeps it.
  StoredOutput Whole() const;

 private:
  /// Appends up to `max` bytes of one stream from `offset` to `out`; how many it appended.
  size_t ReadInto(bool stderr_stream, std::string& out, int64_t offset, size_t max) const;
  int64_t Size(bool stderr_stream) const { return stderr_stream ? err_size_ : out_size_; }
  /// What a read of one stream, or of both `merged`, shows after the bytes kept: its markers.
  std::string Markers(bool stderr_stream, bool merged) const;

  int out_fd_ = -1, err_fd_ = -1;  ///< the files here; -1 for a missing one or a kept copy
  int64_t out_size_ = 0, err_size_ = 0;
  std::string order_;  ///< the order the streams were written in (output_order.h)
  StoredOutput kept_;  ///< the bytes of a kept copy
  bool from_store_ = false;
  std::vector<OutputCut> cuts_;  ///< where the supervisor cut the streams
};

}  // namespace tq
