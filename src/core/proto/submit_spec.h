// What tqd accepts as a task: a submit's fields read and checked against SPEC 2 and the limits,
// the same for a submit request and for each element of a batch.
#pragma once

#include <cstddef>
#include <string>

#include "core/model/status.h"
#include "core/proto/json_read.h"
#include "core/proto/requests/submit.h"

namespace tq {

/// The submit request `j` stands for, every field read and checked.
Result<SubmitRequest> SubmitFromJson(const Fields& j);
/// The checks tqd makes of a submit request (its wire form, decoded as tqd decodes it), for tq
/// to make before it sends; a refusal names the field as tqd's would.
Status CheckSubmit(const SubmitRequest& request);
/// The argv, env, shell and stdin bytes of one task, as counted against kMaxBatchBytes.
size_t SubmitPayloadBytes(const SubmitRequest& request);
/// `n` as a refusal shows a size: "N bytes".
std::string SizeText(size_t n);

}  // namespace tq
