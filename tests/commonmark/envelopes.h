// Envelope generator for the CommonMark differential tests: model output
// built from markdown pieces (fences of every length, character and info
// string, indented code, block quotes, list items, HTML blocks and
// comments, headings, link reference definitions, tabs, a BOM, NUL) joined
// by "\n", "\r\n", "\r" or a mix.
#ifndef TOOLGATE_TESTS_COMMONMARK_ENVELOPES_H_
#define TOOLGATE_TESTS_COMMONMARK_ENVELOPES_H_

#include <cstddef>
#include <functional>
#include <string>
#include <vector>

namespace toolgate {
namespace testutil {

using Piece = std::vector<std::string>;  // Lines.

// Pieces around two JSON payloads `a` and `b` (each one line): fenced
// blocks holding them in and out of containers and HTML, and everything
// that may decide whether such a block is a block.
std::vector<Piece> MarkdownPieces(const std::string& a, const std::string& b);

// Single lines (fence openers and closers of each kind, container
// markers, HTML starts and ends, JSON lines, blanks, prose) to combine
// freely, as one-line pieces.
std::vector<Piece> MarkdownLines(const std::string& a, const std::string& b);

// Calls `visit` with every sequence of up to `max_pieces` pieces joined by
// each of "\n", "\r\n" and "\r", then with `random_count` random sequences
// of 2 to 7 pieces (fixed seed) joined by a random ending per line, some
// starting with a BOM or ending without a line ending.
void ForEachEnvelope(const std::vector<Piece>& pieces, size_t max_pieces,
                     size_t random_count,
                     const std::function<void(const std::string&)>& visit);

// Calls `visit` with `count` random envelopes (fixed seed): 0 to 4 random
// `lines`, one of `blocks`, then 0 to 3 random `lines`, joined by a random
// ending per line.
void ForEachFramedBlock(const std::vector<Piece>& lines,
                        const std::vector<Piece>& blocks, size_t count,
                        const std::function<void(const std::string&)>& visit);

}  // namespace testutil
}  // namespace toolgate

#endif  // TOOLGATE_TESTS_COMMONMARK_ENVELOPES_H_
