#include "core/jobs/overlap.h"

namespace tq {

OverlapDecision DecideOverlap(Overlap overlap, int pending, int running, bool force) {
  if (force || overlap == Overlap::kAllow) return {OverlapAction::kCreate, false};
  const bool busy = pending > 0 || running > 0;
  switch (overlap) {
    case Overlap::kSkip:
      if (busy) return {OverlapAction::kSkip, true};
      break;
    case Overlap::kQueue:
      // One run may wait behind the running one (the store holds it while that one runs).
      if (pending > 0) return {OverlapAction::kCoalesce, true};
      break;
    case Overlap::kReplace:
      if (busy) return {OverlapAction::kReplace, true};
      break;
    case Overlap::kAllow:
      break;
  }
  return {OverlapAction::kCreate, true};
}

OverlapDecision DecideCatchUp(Overlap overlap) {
  return {OverlapAction::kCreate, overlap != Overlap::kAllow};
}

const char* OverlapActionName(OverlapAction action) {
  switch (action) {
    case OverlapAction::kCreate:
      return "create";
    case OverlapAction::kSkip:
      return "skip";
    case OverlapAction::kCoalesce:
      return "coalesce";
    case OverlapAction::kReplace:
      return "replace";
  }
  return "create";
}

}  // namespace tq
