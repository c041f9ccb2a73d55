// The block readers of core/extract/formats, one per family (internal).
// Each reads from `begin` (where the frame found the block: its marker, or
// for Llama 3 JSON and pythonic possibly the first byte of the calls) and
// returns the calls and where the block ends, or the error refusing the
// output (frame.h).
#ifndef TOOLGATE_CORE_EXTRACT_FORMATS_FORMATS_INTERNAL_H_
#define TOOLGATE_CORE_EXTRACT_FORMATS_FORMATS_INTERNAL_H_

#include <cstddef>

#include "absl/strings/string_view.h"
#include "core/extract/formats/frame.h"

namespace toolgate {
namespace extract {
namespace formats {

Block ReadHermesBlock(absl::string_view text, size_t begin,
                      const ReadOptions& options);
Block ReadMistralBlock(absl::string_view text, size_t begin,
                       const ReadOptions& options);
Block ReadLlamaBlock(absl::string_view text, size_t begin,
                     const ReadOptions& options);
Block ReadPythonicBlock(absl::string_view text, size_t begin,
                        const ReadOptions& options);
Block ReadGraniteBlock(absl::string_view text, size_t begin,
                       const ReadOptions& options);
Block ReadDeepSeekBlock(absl::string_view text, size_t begin,
                        const ReadOptions& options);

}  // namespace formats
}  // namespace extract
}  // namespace toolgate

#endif  // TOOLGATE_CORE_EXTRACT_FORMATS_FORMATS_INTERNAL_H_
