#include "core/model/resources.h"

namespace tq {

namespace {
// ioprio_set(2)'s classes and where the class sits in the value.
constexpr int kClassRealtime = 1, kClassBestEffort = 2, kClassIdle = 3, kClassShift = 13;
constexpr int kDefaultLevel = 4;  // the kernel's own level for a class given without one
}  // namespace

Resources Resources::With(const Resources& over) const {
  Resources r = *this;
  if (over.nice) r.nice = over.nice;
  if (over.ionice) r.ionice = over.ionice;
  if (over.nofile) r.nofile = over.nofile;
  if (over.nproc) r.nproc = over.nproc;
  if (over.core) r.core = over.core;
  if (over.memory_max) r.memory_max = over.memory_max;
  if (over.cpu_weight) r.cpu_weight = over.cpu_weight;
  if (over.pids_max) r.pids_max = over.pids_max;
  return r;
}

Resources Resources::Narrowed(const Resources& over) const {
  Resources r = *this;
  const auto stricter = [](std::optional<int64_t>& mine, const std::optional<int64_t>& theirs) {
    if (theirs && (!mine || *theirs < *mine)) mine = theirs;
  };
  if (over.nice && *over.nice >= nice.value_or(0)) r.nice = over.nice;
  const int io_now =
      ionice ? IoPriority(*ionice).value_or(0) : kClassBestEffort << kClassShift | kDefaultLevel;
  if (over.ionice && IoPriority(*over.ionice).value_or(0) >= io_now) r.ionice = over.ionice;
  stricter(r.memory_max, over.memory_max);
  stricter(r.pids_max, over.pids_max);
  if (over.cpu_weight && *over.cpu_weight < cpu_weight.value_or(kEvenCpuWeight))
    r.cpu_weight = over.cpu_weight;
  return r;
}

bool IsResourceKey(std::string_view key) {
  for (std::string_view k :
       {"nice", "ionice", "nofile", "nproc", "core", "memory_max", "cpu_weight", "pids_max"})
    if (key == k) return true;
  return false;
}

std::optional<int> IoPriority(std::string_view ionice) {
  if (ionice == "idle") return kClassIdle << kClassShift;
  const size_t colon = ionice.find(':');
  const std::string_view name = ionice.substr(0, colon);
  int cls = 0;
  if (name == "best-effort") cls = kClassBestEffort;
  if (name == "realtime") cls = kClassRealtime;
  if (cls == 0) return std::nullopt;
  int level = kDefaultLevel;
  if (colon != std::string_view::npos) {
    const std::string_view digits = ionice.substr(colon + 1);
    if (digits.size() != 1 || digits[0] < '0' || digits[0] > '7') return std::nullopt;
    level = digits[0] - '0';
  }
  return cls << kClassShift | level;
}

}  // namespace tq
