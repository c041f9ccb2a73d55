// The repair prompt: a compact JSON envelope an agent hands back to the
// model after a REJECT, so it can fix the call in one turn.
//
// It echoes only the model's own values (pointer, expected, received) and
// toolgate's words; never tool output or anything from the run's context.
#ifndef TOOLGATE_CORE_PIPELINE_REPAIR_PROMPT_H_
#define TOOLGATE_CORE_PIPELINE_REPAIR_PROMPT_H_

#include <string>
#include <vector>

#include "core/extract/text_format.h"
#include "core/gate/gate_result.h"

namespace toolgate {

// `max_attempts` 0 (stateless mode) leaves out the attempt counter. For
// text in a declared format, the prompt also names the format and shows a
// call written in the model family's own syntax ("syntax": the first
// violation's tool, or "tool_name", with its arguments left as a
// placeholder), so the model is not steered to another family's shape.
std::string BuildRepairPrompt(
    const std::vector<Violation>& violations, int attempt, int max_attempts,
    extract::TextFormat format = extract::TextFormat::kUnspecified);

}  // namespace toolgate

#endif  // TOOLGATE_CORE_PIPELINE_REPAIR_PROMPT_H_
