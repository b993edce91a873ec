// The matcher: a Pike VM over the program. Threads are kept in priority order and each
// program counter runs at most once per text position, so time is linear in the text times
// the program size; the start of each thread's match rides along, and a thread that matches
// cuts off the lower-priority ones (Go's leftmost-first semantics).

#include <vector>

#include "pkg/genericserver/apimachinery/regex/charclass.h"
#include "pkg/genericserver/apimachinery/regex/parser.h"
#include "pkg/genericserver/apimachinery/regex/regex.h"
#include "pkg/genericserver/apimachinery/validation/go_format.h"

namespace apimachinery::regex {

namespace {

using internal::IsWordChar;
namespace v = apimachinery::validation;

constexpr char32_t kNoRune = 0xFFFFFFFF;  // before the start or past the end of the text

// The empty-width conditions that hold between runes `before` and `after` (Go's
// EmptyOpContext).
uint32_t Context(char32_t before, char32_t after) {
  uint32_t flags = 0;
  if (before == kNoRune) flags |= internal::kBeginText | internal::kBeginLine;
  if (before == '\n') flags |= internal::kBeginLine;
  if (after == kNoRune) flags |= internal::kEndText | internal::kEndLine;
  if (after == '\n') flags |= internal::kEndLine;
  const bool w1 = before != kNoRune && IsWordChar(before);
  const bool w2 = after != kNoRune && IsWordChar(after);
  flags |= w1 != w2 ? internal::kWordBoundary : internal::kNoWordBoundary;
  return flags;
}

class SparseSet {
 public:
  explicit SparseSet(size_t n) : sparse_(n), dense_(n) {}
  // Inserts v; false when it was there already.
  bool Insert(uint32_t v) {
    if (sparse_[v] < size_ && dense_[sparse_[v]] == v) return false;
    sparse_[v] = static_cast<uint32_t>(size_);
    dense_[size_++] = v;
    return true;
  }
  void Clear() { size_ = 0; }

 private:
  std::vector<uint32_t> sparse_;
  std::vector<uint32_t> dense_;
  size_t size_ = 0;
};

struct Thread {
  uint32_t pc;
  size_t start;  // where its match began
};

}  // namespace

bool Regex::MatchString(std::string_view text) const { return Run(text, 0, true).has_value(); }

std::optional<Regex::Match> Regex::Find(std::string_view text, size_t from) const {
  if (from > text.size()) return std::nullopt;
  return Run(text, from, false);
}

// With `earliest`, stops at the first match reached (its position is then not Go's).
std::optional<Regex::Match> Regex::Run(std::string_view text, size_t from, bool earliest) const {
  const std::vector<Inst>& insts = prog_.insts;
  SparseSet visited(insts.size());
  std::vector<Thread> current, next;  // the threads at this position, and stepped past it
  std::vector<uint32_t> stack;
  std::optional<Match> found;

  // Adds the thread at pc and those its empty-width transitions reach, in priority order, to
  // `current`; true when one of them matches.
  auto add = [&](uint32_t pc, size_t start, uint32_t context) {
    stack.push_back(pc);
    bool matched = false;
    while (!stack.empty()) {
      const uint32_t p = stack.back();
      stack.pop_back();
      if (!visited.Insert(p)) continue;
      const Inst& inst = insts[p];
      switch (inst.op) {
        case Op::kJmp:
          stack.push_back(inst.out);
          break;
        case Op::kSplit:
          stack.push_back(inst.out1);
          stack.push_back(inst.out);
          break;
        case Op::kAssert:
          if ((inst.arg & context) == inst.arg) stack.push_back(inst.out);
          break;
        case Op::kMatch:
          matched = true;
          [[fallthrough]];
        case Op::kRange:
          current.push_back({p, start});
          break;
      }
    }
    return matched;
  };

  // The rune before `from` (only whether it is a word character or a newline matters).
  char32_t before = kNoRune;
  if (from > 0) {
    const auto c = static_cast<unsigned char>(text[from - 1]);
    before = c < 0x80 ? c : 0xFFFD;
  }
  size_t pos = from;
  for (;;) {
    const v::DecodedRune r =
        pos < text.size() ? v::DecodeRune(text.substr(pos)) : v::DecodedRune{kNoRune, 0};
    const uint32_t context = Context(before, r.rune);
    current.clear();
    visited.Clear();
    bool matched = false;
    for (const Thread& t : next) matched = add(t.pc, t.start, context) || matched;
    // A match starting here ranks below those already under way.
    if (!found && (!prog_.anchored || pos == 0))
      matched = add(prog_.start, pos, context) || matched;
    if (matched && earliest) return Match{pos, pos};
    next.clear();
    for (const Thread& t : current) {
      const Inst& inst = insts[t.pc];
      if (inst.op == Op::kMatch) {
        found = Match{t.start, pos};
        break;  // lower-priority threads lose
      }
      if (r.size > 0 && internal::InRanges(prog_.ranges[inst.arg], r.rune)) {
        next.push_back({inst.out, t.start});
      }
    }
    if (r.size == 0 || (next.empty() && (found || prog_.anchored))) break;
    before = r.rune;
    pos += r.size;
  }
  return found;
}

}  // namespace apimachinery::regex
