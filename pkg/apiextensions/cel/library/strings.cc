// The strings libraries: CEL's standard string functions, cel-go's strings extension (v2) and
// Kubernetes' regex library (find, findAll).

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "pkg/apiextensions/cel/library/internal.h"
#include "pkg/genericserver/apimachinery/regex/regex.h"

namespace apiextensions::cel::internal {

namespace {

using apimachinery::regex::Regex;

// Byte offsets of each code point start, plus the end.
std::vector<size_t> CpOffsets(std::string_view s) {
  std::vector<size_t> out;
  for (size_t i = 0; i < s.size();) {
    out.push_back(i);
    i += std::min(CpLen(static_cast<unsigned char>(s[i])), s.size() - i);
  }
  out.push_back(s.size());
  return out;
}

std::string TrimSpaceUnicode(std::string_view s) {
  auto is_space_at = [&](size_t i, size_t* len) {
    auto c = static_cast<unsigned char>(s[i]);
    if (c == ' ' || (c >= '\t' && c <= '\r')) {
      *len = 1;
      return true;
    }
    if (c == 0xC2 && i + 1 < s.size() &&
        (static_cast<unsigned char>(s[i + 1]) == 0x85 ||
         static_cast<unsigned char>(s[i + 1]) == 0xA0)) {
      *len = 2;
      return true;
    }
    if (c == 0xE2 && i + 2 < s.size()) {
      auto c1 = static_cast<unsigned char>(s[i + 1]), c2 = static_cast<unsigned char>(s[i + 2]);
      if (c1 == 0x80 && ((c2 >= 0x80 && c2 <= 0x8A) || c2 == 0xA8 || c2 == 0xA9 || c2 == 0xAF)) {
        *len = 3;
        return true;
      }
      if (c1 == 0x81 && c2 == 0x9F) {
        *len = 3;
        return true;
      }
    }
    if (c == 0xE3 && i + 2 < s.size() && static_cast<unsigned char>(s[i + 1]) == 0x80 &&
        static_cast<unsigned char>(s[i + 2]) == 0x80) {
      *len = 3;
      return true;
    }
    if (c == 0xE1 && i + 2 < s.size() && static_cast<unsigned char>(s[i + 1]) == 0x9A &&
        static_cast<unsigned char>(s[i + 2]) == 0x80) {
      *len = 3;
      return true;
    }
    return false;
  };
  size_t start = 0;
  size_t len;
  while (start < s.size() && is_space_at(start, &len)) start += len;
  size_t end = s.size();
  while (end > start) {
    // Find the start of the last code point.
    size_t q = end - 1;
    while (q > start && (static_cast<unsigned char>(s[q]) & 0xC0) == 0x80) --q;
    if (is_space_at(q, &len) && q + len == end) {
      end = q;
    } else {
      break;
    }
  }
  return std::string(s.substr(start, end - start));
}

// Go's strings.Replace(s, old, new, n).
std::string Replace(std::string_view s, std::string_view from, std::string_view to, int64_t n) {
  if (n == 0 || (from == to)) return std::string(s);
  std::string out;
  size_t pos = 0;
  int64_t done = 0;
  if (from.empty()) {
    // Inserts `to` before every code point and at the end.
    auto offs = CpOffsets(s);
    for (size_t k = 0; k + 1 < offs.size(); ++k) {
      if (n < 0 || done < n) {
        out += to;
        ++done;
      }
      out.append(s.substr(offs[k], offs[k + 1] - offs[k]));
    }
    if (n < 0 || done < n) out += to;
    return out;
  }
  while (n < 0 || done < n) {
    size_t at = s.find(from, pos);
    if (at == std::string_view::npos) break;
    out.append(s.substr(pos, at - pos));
    out += to;
    pos = at + from.size();
    ++done;
  }
  out.append(s.substr(pos));
  return out;
}

// Go's strings.SplitN(s, sep, n).
std::vector<Value> Split(std::string_view s, std::string_view sep, int64_t n) {
  std::vector<Value> out;
  if (n == 0) return out;
  if (sep.empty()) {
    auto offs = CpOffsets(s);
    size_t count = offs.size() - 1;
    for (size_t k = 0; k < count; ++k) {
      if (n > 0 && static_cast<int64_t>(out.size()) == n - 1) {
        out.push_back(Value::String(std::string(s.substr(offs[k]))));
        return out;
      }
      out.push_back(Value::String(std::string(s.substr(offs[k], offs[k + 1] - offs[k]))));
    }
    return out;
  }
  size_t pos = 0;
  while (true) {
    if (n > 0 && static_cast<int64_t>(out.size()) == n - 1) break;
    size_t at = s.find(sep, pos);
    if (at == std::string_view::npos) break;
    out.push_back(Value::String(std::string(s.substr(pos, at - pos))));
    pos = at + sep.size();
  }
  out.push_back(Value::String(std::string(s.substr(pos))));
  return out;
}

int64_t RegexCost(size_t str_len, size_t pattern_len) {
  auto str_cost = static_cast<int64_t>(std::ceil((1.0 + static_cast<double>(str_len)) * 0.1));
  auto re_cost = static_cast<int64_t>(std::ceil(static_cast<double>(pattern_len) * 0.25));
  return std::max<int64_t>(1, str_cost * std::max<int64_t>(1, re_cost));
}

}  // namespace

std::string Quote(std::string_view s) {
  std::string out = "\"";
  for (size_t i = 0; i < s.size();) {
    auto c = static_cast<unsigned char>(s[i]);
    switch (c) {
      case '\a':
        out += "\\a";
        break;
      case '\b':
        out += "\\b";
        break;
      case '\f':
        out += "\\f";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\r':
        out += "\\r";
        break;
      case '\t':
        out += "\\t";
        break;
      case '\v':
        out += "\\v";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '"':
        out += "\\\"";
        break;
      default: {
        size_t len = CpLen(c);
        if (i + len > s.size() || !ValidUtf8(s.substr(i, len))) {
          out += "\xEF\xBF\xBD";
          ++i;
          continue;
        }
        out.append(s.substr(i, len));
        i += len;
        continue;
      }
    }
    ++i;
  }
  return out + "\"";
}

void RegisterStrings(Builder& b) {
  auto I = IntType(), S = StringType(), B = BoolType();
  auto LS = ListOf(S);

  b.Member("contains", {S, S}, B, [](EvalContext& ctx, const Args& a) {
    ctx.AddCost(StrCost(a[0].str().size()));
    return Value::Bool(a[0].str().find(a[1].str()) != std::string::npos);
  });
  b.Member("startsWith", {S, S}, B, [](EvalContext& ctx, const Args& a) {
    ctx.AddCost(StrCost(a[1].str().size()));
    return Value::Bool(a[0].str().starts_with(a[1].str()));
  });
  b.Member("endsWith", {S, S}, B, [](EvalContext& ctx, const Args& a) {
    ctx.AddCost(StrCost(a[1].str().size()));
    return Value::Bool(a[0].str().ends_with(a[1].str()));
  });
  auto matches = [](EvalContext& ctx, const Args& a) {
    ctx.AddCost(RegexCost(a[0].str().size(), a[1].str().size()));
    auto re = Regex::CompileCached(a[1].str());
    if (!re) return Value::Error(re.error());
    return Value::Bool((*re)->MatchString(a[0].str()));
  };
  b.Member("matches", {S, S}, B, matches);
  b.Global("matches", {S, S}, B, matches);
  b.Member("find", {S, S}, S, [](EvalContext& ctx, const Args& a) {
    ctx.AddCost(RegexCost(a[0].str().size(), a[1].str().size()));
    auto re = Regex::CompileCached(a[1].str());
    if (!re) return Value::Error(re.error());
    auto m = (*re)->Find(a[0].str());
    return Value::String(m ? a[0].str().substr(m->start, m->end - m->start) : "");
  });
  auto find_all = [](EvalContext& ctx, const Args& a) {
    ctx.AddCost(RegexCost(a[0].str().size(), a[1].str().size()));
    int64_t limit = a.size() > 2 ? a[2].i : -1;
    auto re = Regex::CompileCached(a[1].str());
    if (!re) return Value::Error(re.error());
    std::vector<Value> out;
    const std::string& s = a[0].str();
    size_t from = 0;
    size_t prev_end = std::string::npos;
    while (limit < 0 || static_cast<int64_t>(out.size()) < limit) {
      if (from > s.size()) break;
      auto m = (*re)->Find(s, from);
      if (!m) break;
      if (m->start == m->end && m->start == prev_end) {
        // Go skips an empty match right after the previous match.
        from = m->start +
               std::max<size_t>(
                   1, CpLen(static_cast<unsigned char>(m->start < s.size() ? s[m->start] : 0)));
        continue;
      }
      out.push_back(Value::String(s.substr(m->start, m->end - m->start)));
      prev_end = m->end;
      from = m->end > m->start
                 ? m->end
                 : m->end + std::max<size_t>(1, m->end < s.size()
                                                    ? CpLen(static_cast<unsigned char>(s[m->end]))
                                                    : 1);
      ctx.AddCost(1);
    }
    return Value::List(std::move(out));
  };
  b.Member("findAll", {S, S}, LS, find_all);
  b.Member("findAll", {S, S, I}, LS, find_all);

  b.Member("charAt", {S, I}, S, [](EvalContext& ctx, const Args& a) {
    auto offs = CpOffsets(a[0].str());
    ctx.AddCost(StrCost(a[0].str().size()));
    int64_t n = static_cast<int64_t>(offs.size()) - 1;
    if (a[1].i < 0 || a[1].i > n)
      return Value::Error("index out of range: " + std::to_string(a[1].i));
    if (a[1].i == n) return Value::String("");
    auto k = static_cast<size_t>(a[1].i);
    return Value::String(a[0].str().substr(offs[k], offs[k + 1] - offs[k]));
  });
  auto index_of = [](EvalContext& ctx, const Args& a) {
    const std::string& s = a[0].str();
    const std::string& sub = a[1].str();
    ctx.AddCost(StrCost(s.size()));
    auto offs = CpOffsets(s);
    int64_t n = static_cast<int64_t>(offs.size()) - 1;
    int64_t start = a.size() > 2 ? a[2].i : 0;
    if (start < 0 || start > n) return Value::Error("index out of range: " + std::to_string(start));
    size_t at = s.find(sub, offs[static_cast<size_t>(start)]);
    if (at == std::string::npos) return Value::Int(-1);
    return Value::Int(CpCount(std::string_view(s).substr(0, at)));
  };
  b.Member("indexOf", {S, S}, I, index_of);
  b.Member("indexOf", {S, S, I}, I, index_of);
  auto last_index_of = [](EvalContext& ctx, const Args& a) {
    const std::string& s = a[0].str();
    const std::string& sub = a[1].str();
    ctx.AddCost(StrCost(s.size()));
    auto offs = CpOffsets(s);
    int64_t n = static_cast<int64_t>(offs.size()) - 1;
    int64_t last = a.size() > 2 ? a[2].i : n;
    if (last < 0 || last > n) return Value::Error("index out of range: " + std::to_string(last));
    if (sub.empty()) return Value::Int(last);
    size_t at = s.rfind(sub, offs[static_cast<size_t>(last)]);
    if (at == std::string::npos) return Value::Int(-1);
    return Value::Int(CpCount(std::string_view(s).substr(0, at)));
  };
  b.Member("lastIndexOf", {S, S}, I, last_index_of);
  b.Member("lastIndexOf", {S, S, I}, I, last_index_of);
  b.Member("lowerAscii", {S}, S, [](EvalContext& ctx, const Args& a) {
    ctx.AddCost(StrCost(a[0].str().size()));
    std::string s = a[0].str();
    for (auto& c : s) {
      if (c >= 'A' && c <= 'Z') c = static_cast<char>(c + 32);
    }
    return Value::String(std::move(s));
  });
  b.Member("upperAscii", {S}, S, [](EvalContext& ctx, const Args& a) {
    ctx.AddCost(StrCost(a[0].str().size()));
    std::string s = a[0].str();
    for (auto& c : s) {
      if (c >= 'a' && c <= 'z') c = static_cast<char>(c - 32);
    }
    return Value::String(std::move(s));
  });
  auto replace = [](EvalContext& ctx, const Args& a) {
    int64_t n = a.size() > 3 ? a[3].i : -1;
    const std::string& s = a[0].str();
    const std::string& from = a[1].str();
    const std::string& to = a[2].str();
    // Charge for the result before building it, so that no replacement can grow a string
    // past what the cost limit allows.
    size_t count = 0;
    if (from.empty()) {
      count = static_cast<size_t>(CpCount(s)) + 1;
    } else if (to.size() > from.size()) {
      for (size_t at = s.find(from); at != std::string::npos; at = s.find(from, at + from.size()))
        ++count;
    }
    if (n >= 0) count = std::min(count, static_cast<size_t>(n));
    ctx.AddCost(StrCost(s.size() + count * to.size()));
    return Value::String(Replace(s, from, to, n));
  };
  b.Member("replace", {S, S, S}, S, replace);
  b.Member("replace", {S, S, S, I}, S, replace);
  auto split = [](EvalContext& ctx, const Args& a) {
    int64_t n = a.size() > 2 ? a[2].i : -1;
    ctx.AddCost(StrCost(a[0].str().size()));
    auto parts = Split(a[0].str(), a[1].str(), n);
    ctx.AddCost(static_cast<int64_t>(parts.size()));
    return Value::List(std::move(parts));
  };
  b.Member("split", {S, S}, LS, split);
  b.Member("split", {S, S, I}, LS, split);
  auto substring = [](EvalContext& ctx, const Args& a) {
    const std::string& s = a[0].str();
    ctx.AddCost(StrCost(s.size()));
    auto offs = CpOffsets(s);
    int64_t n = static_cast<int64_t>(offs.size()) - 1;
    int64_t start = a[1].i;
    int64_t end = a.size() > 2 ? a[2].i : n;
    if (start < 0 || start > n) return Value::Error("index out of range: " + std::to_string(start));
    if (end < 0 || end > n) return Value::Error("index out of range: " + std::to_string(end));
    if (start > end) {
      return Value::Error("invalid substring range. start: " + std::to_string(start) +
                          ", end: " + std::to_string(end));
    }
    return Value::String(
        s.substr(offs[static_cast<size_t>(start)],
                 offs[static_cast<size_t>(end)] - offs[static_cast<size_t>(start)]));
  };
  b.Member("substring", {S, I}, S, substring);
  b.Member("substring", {S, I, I}, S, substring);
  b.Member("trim", {S}, S, [](EvalContext& ctx, const Args& a) {
    ctx.AddCost(StrCost(a[0].str().size()));
    return Value::String(TrimSpaceUnicode(a[0].str()));
  });
  auto join = [](EvalContext& ctx, const Args& a) {
    std::string sep = a.size() > 1 ? a[1].str() : "";
    std::string out;
    bool first = true;
    for (const auto& v : a[0].items()) {
      if (v.kind != Kind::kString) return Value::NoSuchOverload();
      if (!first) out += sep;
      first = false;
      out += v.str();
      ctx.AddCost(1 + StrCost(v.str().size() + sep.size()));
    }
    return Value::String(std::move(out));
  };
  b.Member("join", {LS}, S, join);
  b.Member("join", {LS, S}, S, join);
  b.Member("format", {S, ListOf(DynType())}, S,
           [](EvalContext& ctx, const Args& a) { return Format(ctx, a[0].str(), a[1]); });
  b.Global("strings.quote", {S}, S, [](EvalContext& ctx, const Args& a) {
    ctx.AddCost(StrCost(a[0].str().size()));
    return Value::String(Quote(a[0].str()));
  });
}

}  // namespace apiextensions::cel::internal
