// The limits of a submit_batch request, and how a batch resolves into its submit requests:
// what tqd checks of a batch and where tq cuts a long batch into requests tqd accepts.
#pragma once

#include <cstddef>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/model/status.h"
#include "core/proto/requests/submit.h"

namespace tq {

/// The limits of one submit_batch request, checked on its wire form before any task is
/// decoded: at most kMaxBatchTasks tasks and kMaxBatchBytes of merged argv, env, shell and
/// stdin, so that a small element over a large common part cannot multiply it past them.
Status CheckBatchLimits(const nlohmann::json& common, const std::vector<nlohmann::json>& tasks);
/// The submit requests a batch stands for: `common` with each element of `tasks` laid over it,
/// each checked as a submit; a refusal names the element ("tasks[N]: ...") in field "index:N".
/// Nothing is copied. (DecodeRequest checks a request's batch limits before it resolves.)
Result<std::vector<SubmitRequest>> ResolveBatch(const nlohmann::json& common,
                                                const std::vector<nlohmann::json>& tasks);
/// Where a client cuts a batch into requests the daemon accepts: the end index of each request,
/// each holding at most kMaxBatchTasks tasks, kMaxBatchBytes of SubmitPayloadBytes and half of
/// kMaxJsonValues (a single task over that still goes alone, to be refused by name).
std::vector<size_t> BatchChunkEnds(const std::vector<SubmitRequest>& tasks);

}  // namespace tq
