#include "pkg/genericserver/apimachinery/regex/compiler.h"

#include <optional>
#include <unordered_map>
#include <vector>

namespace apimachinery::regex::internal {

namespace {

using Op = Regex::Op;

// An instruction's unpatched exit: its out, or its out1 (second).
struct Hole {
  uint32_t inst;
  bool second;
};

// A compiled piece: its entry, its exits, and whether it can match the empty string.
struct Frag {
  uint32_t start = 0;
  std::vector<Hole> out;
  bool nullable = false;
};

// Go's compiler (regexp/syntax compile.go) over the tree as Go's Simplify leaves it:
// x{n,m} is n copies of x then m-n nested optional ones, x{n,} is n-1 copies then x+.
class Compiler {
 public:
  Compiler(Regex::Program& program, std::string_view pattern) : p_(program), pattern_(pattern) {}

  std::expected<void, std::string> Compile(const Node& root) {
    auto f = Emit(root);
    if (!f) return std::unexpected(f.error());
    Patch(f->out, Add(Op::kMatch));
    p_.start = f->start;
    // Whether every path from the start passes \A (or ^ without (?m)) before anything else.
    uint32_t pc = p_.start;
    for (size_t steps = 0; steps < p_.insts.size(); ++steps) {
      const Regex::Inst& inst = p_.insts[pc];
      if (inst.op == Op::kAssert && (inst.arg & kBeginText) != 0) {
        p_.anchored = true;
        break;
      }
      if (inst.op != Op::kJmp && inst.op != Op::kAssert) break;
      pc = inst.out;
    }
    return {};
  }

 private:
  uint32_t Add(Op op, uint32_t arg = 0) {
    Regex::Inst inst;
    inst.op = op;
    inst.arg = arg;
    p_.insts.push_back(inst);
    return static_cast<uint32_t>(p_.insts.size() - 1);
  }

  void Patch(const std::vector<Hole>& holes, uint32_t target) {
    for (const Hole& h : holes) (h.second ? p_.insts[h.inst].out1 : p_.insts[h.inst].out) = target;
  }

  // A kSplit whose preferred branch (out) is `first` when greedy, else the exit; the other
  // branch is left as a hole.
  Hole Split(uint32_t split, uint32_t body, bool greedy) {
    if (greedy) {
      p_.insts[split].out = body;
      return {split, true};
    }
    p_.insts[split].out1 = body;
    return {split, false};
  }

  Frag Cat(Frag a, Frag b) {
    Patch(a.out, b.start);
    return Frag{a.start, std::move(b.out), a.nullable && b.nullable};
  }

  // x*: L: split(x, exit); x -> L.
  Frag Loop(Frag body, bool greedy) {
    const uint32_t split = Add(Op::kSplit);
    Frag f{split, {Split(split, body.start, greedy)}, true};
    Patch(body.out, split);
    return f;
  }

  Frag Quest(Frag body, bool greedy) {
    const uint32_t split = Add(Op::kSplit);
    Frag f{split, std::move(body.out), true};
    f.out.push_back(Split(split, body.start, greedy));
    return f;
  }

  Frag Plus(Frag body, bool greedy) {
    const uint32_t start = body.start;
    const bool nullable = body.nullable;
    return Frag{start, Loop(std::move(body), greedy).out, nullable};
  }

  Frag Star(Frag body, bool greedy) {
    // (x+)? when x can match empty, for Go's priorities (golang.org/issue/46123).
    if (body.nullable) return Quest(Plus(std::move(body), greedy), greedy);
    return Loop(std::move(body), greedy);
  }

  std::expected<Frag, std::string> Emit(const Node& n) {
    if (p_.insts.size() > kMaxProgram) {
      return std::unexpected("error parsing regexp: expression too large: `" +
                             std::string(pattern_) + "`");
    }
    switch (n.kind) {
      case Node::Kind::kEmpty:
        break;
      case Node::Kind::kClass: {
        auto [it, added] = range_index_.try_emplace(&n, p_.ranges.size());
        if (added) p_.ranges.push_back(n.ranges);
        const uint32_t i = Add(Op::kRange, static_cast<uint32_t>(it->second));
        return Frag{i, {{i, false}}, false};
      }
      case Node::Kind::kAssert: {
        const uint32_t i = Add(Op::kAssert, n.assert);
        return Frag{i, {{i, false}}, true};
      }
      case Node::Kind::kConcat:
      case Node::Kind::kAlternate: {
        std::optional<Frag> result;
        for (const Node& child : n.children) {
          auto f = Emit(child);
          if (!f) return f;
          if (!result) {
            result = std::move(*f);
          } else if (n.kind == Node::Kind::kConcat) {
            result = Cat(std::move(*result), std::move(*f));
          } else {
            // Alternatives in order of preference: split(earlier, later).
            const uint32_t split = Add(Op::kSplit);
            p_.insts[split].out = result->start;
            p_.insts[split].out1 = f->start;
            result->start = split;
            result->out.insert(result->out.end(), f->out.begin(), f->out.end());
            result->nullable = result->nullable || f->nullable;
          }
        }
        if (result) return std::move(*result);
        break;
      }
      case Node::Kind::kRepeat:
        return EmitRepeat(n);
    }
    const uint32_t i = Add(Op::kJmp);
    return Frag{i, {{i, false}}, true};
  }

  std::expected<Frag, std::string> EmitRepeat(const Node& n) {
    const Node& x = n.children[0];
    std::optional<Frag> result;
    auto append = [&](Frag f) {
      result = result ? Cat(std::move(*result), std::move(f)) : std::move(f);
    };
    // The fixed copies: x{n} and the n-1 before x+ in x{n,}.
    const int copies = n.max < 0 ? n.min - 1 : n.min;
    for (int k = 0; k < copies; ++k) {
      auto f = Emit(x);
      if (!f) return f;
      append(std::move(*f));
    }
    if (n.max < 0) {
      auto f = Emit(x);
      if (!f) return f;
      append(n.min == 0 ? Star(std::move(*f), n.greedy) : Plus(std::move(*f), n.greedy));
    } else if (n.max > n.min) {
      // (x(x(x)?)?)?: declining any copy leaves the whole repetition.
      std::vector<Hole> exits;
      std::optional<std::vector<Hole>> previous;
      for (int k = n.min; k < n.max; ++k) {
        auto f = Emit(x);
        if (!f) return f;
        const uint32_t split = Add(Op::kSplit);
        exits.push_back(Split(split, f->start, n.greedy));
        if (previous) {
          Patch(*previous, split);
        } else {
          append(Frag{split, {}, true});
        }
        previous = std::move(f->out);
      }
      exits.insert(exits.end(), previous->begin(), previous->end());
      result->out.insert(result->out.end(), exits.begin(), exits.end());
    }
    if (result) return std::move(*result);
    return Emit(Node{});  // x{0}
  }

  Regex::Program& p_;
  std::string_view pattern_;
  std::unordered_map<const Node*, size_t> range_index_;  // copies of a class share its ranges
};

}  // namespace

std::expected<void, std::string> CompileProgram(const Node& root, std::string_view pattern,
                                                Regex::Program& program) {
  return Compiler(program, pattern).Compile(root);
}

}  // namespace apimachinery::regex::internal
