#include "pkg/genericserver/apimachinery/yaml/key_order.h"

#include <algorithm>
#include <cstdint>
#include <string>

#include "pkg/genericserver/apimachinery/yaml/utf8.h"

namespace apimachinery::yaml::internal {

namespace {

std::u32string Runes(std::string_view s) {
  std::u32string out;
  for (std::size_t i = 0; i < s.size(); i += RuneWidth(static_cast<unsigned char>(s[i]))) {
    out.push_back(DecodeRuneAt(s, i));
  }
  return out;
}

bool IsDigit(char32_t r) { return r >= '0' && r <= '9'; }

// unicode.IsLetter for ASCII; beyond it, the letter blocks of the common scripts (an
// approximation: Go consults the full Unicode tables).
bool IsLetter(char32_t r) {
  if (r < 0x80) return (r >= 'a' && r <= 'z') || (r >= 'A' && r <= 'Z');
  if (r == 0xAA || r == 0xB5 || r == 0xBA) return true;
  if (r < 0xC0 || r == 0xD7 || r == 0xF7) return false;
  struct Range {
    char32_t first, last;
  };
  static constexpr Range kLetters[] = {
      {0x00C0, 0x02C1}, {0x0370, 0x0373}, {0x0376, 0x03FF}, {0x0400, 0x0481},   {0x048A, 0x052F},
      {0x0531, 0x0556}, {0x0561, 0x0587}, {0x05D0, 0x05EA}, {0x0620, 0x064A},   {0x0671, 0x06D3},
      {0x0904, 0x0939}, {0x0E01, 0x0E30}, {0x10A0, 0x10FF}, {0x1100, 0x11FF},   {0x1E00, 0x1FBC},
      {0x3041, 0x3096}, {0x30A1, 0x30FA}, {0x3400, 0x4DBF}, {0x4E00, 0x9FFF},   {0xAC00, 0xD7A3},
      {0xF900, 0xFAFF}, {0xFF21, 0xFF3A}, {0xFF41, 0xFF5A}, {0x20000, 0x3134F},
  };
  for (const Range& range : kLetters) {
    if (r >= range.first && r <= range.last) return true;
  }
  return false;
}

bool RuneLess(const std::u32string& a, const std::u32string& b) {
  for (std::size_t i = 0; i < a.size() && i < b.size(); ++i) {
    if (a[i] == b[i]) continue;
    const bool al = IsLetter(a[i]);
    const bool bl = IsLetter(b[i]);
    if (al && bl) return a[i] < b[i];
    if (al || bl) return bl;
    // Compare the runs of digits that start here by value (Go's int64 arithmetic wraps).
    std::uint64_t an = 0;
    std::uint64_t bn = 0;
    if (a[i] == '0' || b[i] == '0') {
      for (std::size_t j = i; j-- > 0 && IsDigit(a[j]);) {
        if (a[j] != '0') {
          an = 1;
          bn = 1;
          break;
        }
      }
    }
    std::size_t ai = i;
    for (; ai < a.size() && IsDigit(a[ai]); ++ai) an = an * 10 + (a[ai] - '0');
    std::size_t bi = i;
    for (; bi < b.size() && IsDigit(b[bi]); ++bi) bn = bn * 10 + (b[bi] - '0');
    if (an != bn) return static_cast<std::int64_t>(an) < static_cast<std::int64_t>(bn);
    if (ai != bi) return ai < bi;
    return a[i] < b[i];
  }
  return a.size() < b.size();
}

}  // namespace

bool GoKeyLess(std::string_view a, std::string_view b) { return RuneLess(Runes(a), Runes(b)); }

std::vector<std::size_t> KeyOrder(const std::vector<std::string_view>& keys) {
  struct Item {
    std::size_t position;
    std::u32string runes;
  };
  std::vector<Item> items;
  items.reserve(keys.size());
  for (std::size_t i = 0; i < keys.size(); ++i) items.push_back({i, Runes(keys[i])});
  // Bottom-up merge sort: stable, and never reads out of range whatever the comparison says.
  std::vector<Item> buffer(items.size());
  for (std::size_t width = 1; width < items.size(); width *= 2) {
    for (std::size_t lo = 0; lo < items.size(); lo += 2 * width) {
      const std::size_t mid = std::min(lo + width, items.size());
      const std::size_t hi = std::min(lo + 2 * width, items.size());
      std::size_t i = lo;
      std::size_t j = mid;
      std::size_t k = lo;
      while (i < mid && j < hi) {
        buffer[k++] = std::move(RuneLess(items[j].runes, items[i].runes) ? items[j++] : items[i++]);
      }
      while (i < mid) buffer[k++] = std::move(items[i++]);
      while (j < hi) buffer[k++] = std::move(items[j++]);
    }
    items.swap(buffer);
  }
  std::vector<std::size_t> order;
  order.reserve(items.size());
  for (const Item& item : items) order.push_back(item.position);
  return order;
}

}  // namespace apimachinery::yaml::internal
