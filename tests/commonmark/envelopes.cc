#include "tests/commonmark/envelopes.h"

#include <random>

namespace toolgate {
namespace testutil {
namespace {

std::string Join(const std::vector<const Piece*>& seq,
                 const std::function<std::string()>& ending, bool final_end) {
  std::string out;
  bool first = true;
  for (const Piece* piece : seq) {
    for (const std::string& line : *piece) {
      if (!first) out += ending();
      out += line;
      first = false;
    }
  }
  if (final_end) out += ending();
  return out;
}

void Exhaustive(const std::vector<Piece>& pieces, size_t max_pieces,
                std::vector<const Piece*>* seq,
                const std::function<void(const std::string&)>& visit) {
  if (!seq->empty()) {
    for (const char* ending : {"\n", "\r\n", "\r"}) {
      visit(Join(
          *seq, [ending] { return std::string(ending); }, true));
    }
  }
  if (seq->size() == max_pieces) return;
  for (const Piece& piece : pieces) {
    seq->push_back(&piece);
    Exhaustive(pieces, max_pieces, seq, visit);
    seq->pop_back();
  }
}

}  // namespace

std::vector<Piece> MarkdownPieces(const std::string& a, const std::string& b) {
  return {
      {"Done."},
      {""},
      {"```json", a, "```"},
      {"```json", b, "```"},
      {"~~~", a, "~~~"},
      {"````JSON title", b, "`````"},
      {"```", b, "```"},
      {"``` json", a, "```   "},
      {"```python", "print(1)", "```"},
      {"```jsonc", b, "```"},
      {"~~~&#106;son", b, "~~~"},
      {"    ```json", "    " + b, "    ```"},
      {"   ```json", "   " + b, "   ```"},
      {"\t```json", "\t" + b, "\t```"},
      {"> ```json", "> " + b, "> ```"},
      {"> ```json", b, "```"},
      {"> note"},
      {"- ```json", "  " + b, "  ```"},
      {"- item"},
      {"- [x] checked"},
      {"1. step", "", "   ```json", "   " + b, "   ```"},
      {"  - ```json", "    " + a, "    ```"},
      {"-", "  ```json", "  " + a, "  ```"},
      {"<!--"},
      {"-->"},
      {"<!-- note -->"},
      {"<div>"},
      {"<span>"},
      {"<pre>"},
      {"</pre>"},
      {"<?x"},
      {"<!DOCTYPE html>"},
      {"```"},
      {"~~~"},
      {"````"},
      {"``` x"},
      {"```json", a},
      {"    code"},
      {"Title", "==="},
      {"[r]: /url", "---"},
      {"***"},
      {a},
      {std::string("```json\0", 8), a, "```"},
      {"10) x", "", "    ~~~", "    " + a, "    ~~~"},
  };
}

std::vector<Piece> MarkdownLines(const std::string& a, const std::string& b) {
  std::vector<Piece> out;
  for (const std::string& line : std::vector<std::string>{"```json",
                                                          "```",
                                                          "~~~",
                                                          "````",
                                                          "```python",
                                                          "~~~ json x",
                                                          "   ```",
                                                          "    ```json",
                                                          "\t```",
                                                          " \t```",
                                                          "> ```json",
                                                          "> ```",
                                                          ">",
                                                          "> " + b,
                                                          ">> ~~~",
                                                          "- ```json",
                                                          "-\t```",
                                                          "1. ```json",
                                                          "2) x",
                                                          "  ```",
                                                          "  " + b,
                                                          "   " + a,
                                                          "- x",
                                                          "* * *",
                                                          "  - ```",
                                                          a,
                                                          b,
                                                          "",
                                                          "text",
                                                          "===",
                                                          "---",
                                                          "[r]: /u",
                                                          "<!--",
                                                          "-->",
                                                          "<!-- x -->",
                                                          "<div>",
                                                          "</div>",
                                                          "<span>",
                                                          "<a href=\"x\">",
                                                          "<x-y z=1/>",
                                                          "<pre>",
                                                          "</pre>",
                                                          "<?p",
                                                          "?>",
                                                          "<![CDATA[",
                                                          "]]>",
                                                          "<!X",
                                                          "    " + a,
                                                          "  > ```"}) {
    out.push_back({line});
  }
  return out;
}

void ForEachEnvelope(const std::vector<Piece>& pieces, size_t max_pieces,
                     size_t random_count,
                     const std::function<void(const std::string&)>& visit) {
  std::vector<const Piece*> seq;
  Exhaustive(pieces, max_pieces, &seq, visit);
  std::mt19937 rng(20240601);
  const char* const kEndings[] = {"\n", "\r\n", "\r"};
  for (size_t n = 0; n < random_count; ++n) {
    seq.clear();
    const size_t len = 2 + rng() % 6;
    for (size_t i = 0; i < len; ++i)
      seq.push_back(&pieces[rng() % pieces.size()]);
    std::string text = Join(
        seq, [&rng, &kEndings] { return std::string(kEndings[rng() % 3]); },
        rng() % 4 != 0);
    if (rng() % 10 == 0) text = "\xEF\xBB\xBF" + text;
    visit(text);
  }
}

void ForEachFramedBlock(const std::vector<Piece>& lines,
                        const std::vector<Piece>& blocks, size_t count,
                        const std::function<void(const std::string&)>& visit) {
  std::mt19937 rng(20240602);
  const char* const kEndings[] = {"\n", "\r\n", "\r"};
  std::vector<const Piece*> seq;
  for (size_t n = 0; n < count; ++n) {
    seq.clear();
    for (size_t i = rng() % 5; i > 0; --i) {
      seq.push_back(&lines[rng() % lines.size()]);
    }
    seq.push_back(&blocks[rng() % blocks.size()]);
    for (size_t i = rng() % 4; i > 0; --i) {
      seq.push_back(&lines[rng() % lines.size()]);
    }
    visit(Join(
        seq, [&rng, &kEndings] { return std::string(kEndings[rng() % 3]); },
        rng() % 4 != 0));
  }
}

}  // namespace testutil
}  // namespace toolgate
