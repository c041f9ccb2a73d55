// Stages "extract candidates" and "parse": from the model's output to the
// calls it asks for, before any tool or schema is looked at.
//
// ExtractCandidates (text output in no declared format) finds the
// authoritative candidate calls in the text (core/extract: the last
// candidate, or the run of tags it ends) and leaves them in
// call.candidates; an output too large, cut off, without a call or ending
// in an unread code block is left there as its error.
//
// ParseCalls reads each authoritative candidate as a call: its JSON parsed
// strictly, or under SYNTAX_REPAIR rewritten and parsed strictly again
// (core/repair: repair only runs on what the strict parse refused), then
// its shape checked. Text in a declared format (call.text_format) is read
// by that family's reader alone (core/extract/formats), never by the
// candidates' reading. Native output is one strict JSON document read by
// core/gate/calls.h, never repaired. Fills call.calls; every failure to
// read is call.calls.error (or a call's error), a value the gate turns
// into a REJECT: nothing unreadable becomes an empty call.
#ifndef TOOLGATE_CORE_PIPELINE_READ_CALLS_H_
#define TOOLGATE_CORE_PIPELINE_READ_CALLS_H_

#include "absl/status/status.h"
#include "core/pipeline/call_context.h"

namespace toolgate {
namespace pipeline {

// Streamed output (OutputKind::kStream): the request's events assembled
// (core/stream), or its assembly taken as given. A completed stream becomes
// the native or text output the next stages read, as if sent whole; a
// refused one (cut off, stopped for length, a provider error, malformed,
// too large) is call.calls.error with the stream's code, and nothing of it
// is read.
absl::Status AssembleStream(CallContext& call);
absl::Status ExtractCandidates(CallContext& call);
absl::Status ParseCalls(CallContext& call);

}  // namespace pipeline
}  // namespace toolgate

#endif  // TOOLGATE_CORE_PIPELINE_READ_CALLS_H_
