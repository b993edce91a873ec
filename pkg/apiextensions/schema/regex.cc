#include "pkg/apiextensions/schema/regex.h"

#include <algorithm>
#include <map>
#include <mutex>
#include <optional>
#include <unordered_map>

#include "pkg/genericserver/apimachinery/validation/go_format.h"

namespace apiextensions::schema {

namespace {

using Ranges = Regex::Ranges;
namespace v = apimachinery::validation;

constexpr char32_t kMaxRune = 0x10FFFF;
constexpr int kMaxRepeat = 1000;        // Go's syntax limit on {n,m}
constexpr int kMaxDepth = 200;          // nesting; Go allows 1000, deeper here would risk the stack
constexpr size_t kMaxProgram = 200000;  // instructions; Go reports "expression too large"

// Empty-width conditions.
constexpr uint32_t kBeginLine = 1;
constexpr uint32_t kEndLine = 2;
constexpr uint32_t kBeginText = 4;
constexpr uint32_t kEndText = 8;
constexpr uint32_t kWordBoundary = 16;
constexpr uint32_t kNoWordBoundary = 32;

// ---------------------------------------------------------------------------------------------
// Character classes.

void Normalize(Ranges& r) {
  std::sort(r.begin(), r.end());
  Ranges out;
  for (const auto& [lo, hi] : r) {
    if (!out.empty() && lo <= out.back().second + 1) {
      out.back().second = std::max(out.back().second, hi);
    } else {
      out.emplace_back(lo, hi);
    }
  }
  r = std::move(out);
}

Ranges Negate(const Ranges& in) {
  Ranges r = in;
  Normalize(r);
  Ranges out;
  char32_t next = 0;
  for (const auto& [lo, hi] : r) {
    if (lo > next) out.emplace_back(next, lo - 1);
    next = hi + 1;
  }
  if (next <= kMaxRune) out.emplace_back(next, kMaxRune);
  return out;
}

// Simple case folding: ranges that map to another range by a constant offset, and singletons.
struct FoldRange {
  char32_t lo, hi;
  int32_t delta;
};
constexpr FoldRange kFoldRanges[] = {
    {'A', 'Z', 32},      {'a', 'z', -32},     {0xC0, 0xD6, 32},   {0xD8, 0xDE, 32},
    {0xE0, 0xF6, -32},   {0xF8, 0xFE, -32},   {0x391, 0x3A1, 32}, {0x3A3, 0x3AB, 32},
    {0x3B1, 0x3C1, -32}, {0x3C3, 0x3CB, -32}, {0x410, 0x42F, 32}, {0x430, 0x44F, -32},
    {0x400, 0x40F, 80},  {0x450, 0x45F, -80},
};
constexpr std::pair<char32_t, char32_t> kFoldPairs[] = {
    {'k', 0x212A}, {'K', 0x212A}, {0x212A, 'k'},  {0x212A, 'K'},  {'s', 0x17F},   {'S', 0x17F},
    {0x17F, 's'},  {0x17F, 'S'},  {0xB5, 0x39C},  {0xB5, 0x3BC},  {0x39C, 0xB5},  {0x3BC, 0xB5},
    {0xFF, 0x178}, {0x178, 0xFF}, {0x3C2, 0x3C3}, {0x3C2, 0x3A3}, {0x3C3, 0x3C2}, {0x3A3, 0x3C2},
};

void AddFolded(Ranges& r, char32_t lo, char32_t hi) {
  r.emplace_back(lo, hi);
  for (const FoldRange& f : kFoldRanges) {
    const char32_t a = std::max(lo, f.lo), b = std::min(hi, f.hi);
    if (a <= b) r.emplace_back(a + f.delta, b + f.delta);
  }
  for (const auto& [from, to] : kFoldPairs) {
    if (from >= lo && from <= hi) r.emplace_back(to, to);
  }
}

using Table = std::vector<std::pair<char32_t, char32_t>>;

// Approximate Unicode tables (exact for ASCII and Latin-1).
const Table kLu = {{'A', 'Z'},       {0xC0, 0xD6},     {0xD8, 0xDE},     {0x391, 0x3A1},
                   {0x3A3, 0x3AB},   {0x400, 0x42F},   {0x531, 0x556},   {0x10A0, 0x10C5},
                   {0x1E00, 0x1E00}, {0x1F08, 0x1F0F}, {0x2C00, 0x2C2F}, {0xFF21, 0xFF3A}};
const Table kLl = {{'a', 'z'},       {0xB5, 0xB5},     {0xDF, 0xF6},    {0xF8, 0xFF},
                   {0x3AC, 0x3CE},   {0x430, 0x45F},   {0x561, 0x587},  {0x1D00, 0x1D2B},
                   {0x1F00, 0x1F07}, {0x2C30, 0x2C5F}, {0xFF41, 0xFF5A}};
const Table kLetters = {
    {'A', 'Z'},       {'a', 'z'},         {0xAA, 0xAA},      {0xB5, 0xB5},     {0xBA, 0xBA},
    {0xC0, 0xD6},     {0xD8, 0xF6},       {0xF8, 0x2C1},     {0x2C6, 0x2D1},   {0x2E0, 0x2E4},
    {0x2EC, 0x2EC},   {0x2EE, 0x2EE},     {0x370, 0x374},    {0x376, 0x377},   {0x37A, 0x37D},
    {0x37F, 0x37F},   {0x386, 0x386},     {0x388, 0x3F5},    {0x3F7, 0x481},   {0x48A, 0x52F},
    {0x531, 0x556},   {0x559, 0x559},     {0x560, 0x588},    {0x5D0, 0x5EA},   {0x5EF, 0x5F2},
    {0x620, 0x64A},   {0x66E, 0x66F},     {0x671, 0x6D3},    {0x6D5, 0x6D5},   {0x6FA, 0x6FC},
    {0x904, 0x939},   {0x93D, 0x93D},     {0x950, 0x950},    {0x958, 0x961},   {0xE01, 0xE30},
    {0xE32, 0xE33},   {0xE40, 0xE46},     {0x10A0, 0x10FF},  {0x1100, 0x1248}, {0x1E00, 0x1FBC},
    {0x1FC2, 0x1FCC}, {0x1FD0, 0x1FDB},   {0x1FE0, 0x1FEC},  {0x1FF2, 0x1FFC}, {0x2071, 0x2071},
    {0x207F, 0x207F}, {0x2090, 0x209C},   {0x2C00, 0x2CE4},  {0x3005, 0x3006}, {0x3031, 0x3035},
    {0x3041, 0x3096}, {0x309D, 0x309F},   {0x30A1, 0x30FA},  {0x30FC, 0x30FF}, {0x3105, 0x312F},
    {0x3131, 0x318E}, {0x31F0, 0x31FF},   {0x3400, 0x4DBF},  {0x4E00, 0x9FFF}, {0xA000, 0xA48C},
    {0xAC00, 0xD7A3}, {0xF900, 0xFAFF},   {0xFB00, 0xFB06},  {0xFF21, 0xFF3A}, {0xFF41, 0xFF5A},
    {0xFF66, 0xFFDC}, {0x10000, 0x1FFFF}, {0x20000, 0x3134A}};
const Table kMarks = {
    {0x300, 0x36F},   {0x483, 0x489},   {0x591, 0x5BD},   {0x5BF, 0x5BF},   {0x5C1, 0x5C2},
    {0x5C4, 0x5C5},   {0x5C7, 0x5C7},   {0x610, 0x61A},   {0x64B, 0x65F},   {0x670, 0x670},
    {0x6D6, 0x6DC},   {0x6DF, 0x6E4},   {0x900, 0x903},   {0x93A, 0x93C},   {0x93E, 0x94F},
    {0xE31, 0xE31},   {0xE34, 0xE3A},   {0xE47, 0xE4E},   {0x1AB0, 0x1AFF}, {0x1DC0, 0x1DFF},
    {0x20D0, 0x20FF}, {0x302A, 0x302F}, {0x3099, 0x309A}, {0xFE00, 0xFE0F}, {0xFE20, 0xFE2F}};
const Table kNd = {{'0', '9'},     {0x660, 0x669},   {0x6F0, 0x6F9},    {0x966, 0x96F},
                   {0xE50, 0xE59}, {0xFF10, 0xFF19}, {0x1D7CE, 0x1D7FF}};
const Table kNlNo = {{0xB2, 0xB3},     {0xB9, 0xB9},     {0xBC, 0xBE},     {0x2070, 0x2070},
                     {0x2074, 0x2079}, {0x2080, 0x2089}, {0x2150, 0x2182}, {0x2185, 0x2189},
                     {0x2460, 0x249B}, {0x24EA, 0x24FF}, {0x2776, 0x2793}, {0x3007, 0x3007},
                     {0x3021, 0x3029}, {0x3038, 0x303A}};
const Table kPunct = {
    {'!', '#'},       {'%', '*'},       {',', '/'},       {':', ';'},       {'?', '@'},
    {'[', ']'},       {'_', '_'},       {'{', '{'},       {'}', '}'},       {0xA1, 0xA1},
    {0xA7, 0xA7},     {0xAB, 0xAB},     {0xB6, 0xB7},     {0xBB, 0xBB},     {0xBF, 0xBF},
    {0x37E, 0x37E},   {0x387, 0x387},   {0x55A, 0x55F},   {0x589, 0x58A},   {0x5BE, 0x5BE},
    {0x60C, 0x60D},   {0x61B, 0x61B},   {0x61D, 0x61F},   {0x66A, 0x66D},   {0x964, 0x965},
    {0xE4F, 0xE4F},   {0xE5A, 0xE5B},   {0x2010, 0x2027}, {0x2030, 0x2043}, {0x2045, 0x2051},
    {0x2053, 0x205E}, {0x207D, 0x207E}, {0x208D, 0x208E}, {0x2308, 0x230B}, {0x2329, 0x232A},
    {0x2768, 0x2775}, {0x27C5, 0x27C6}, {0x27E6, 0x27EF}, {0x2983, 0x2998}, {0x2E00, 0x2E4F},
    {0x3001, 0x3003}, {0x3008, 0x3011}, {0x3014, 0x301F}, {0x3030, 0x3030}, {0x303D, 0x303D},
    {0x30A0, 0x30A0}, {0x30FB, 0x30FB}, {0xFE10, 0xFE19}, {0xFE30, 0xFE52}, {0xFE54, 0xFE61},
    {0xFF01, 0xFF03}, {0xFF05, 0xFF0A}, {0xFF0C, 0xFF0F}, {0xFF1A, 0xFF1B}, {0xFF1F, 0xFF20},
    {0xFF3B, 0xFF3D}, {0xFF3F, 0xFF3F}, {0xFF5B, 0xFF5B}, {0xFF5D, 0xFF5D}, {0xFF5F, 0xFF65}};
const Table kSymbols = {
    {'$', '$'},       {'+', '+'},        {'<', '>'},       {'^', '^'},       {'`', '`'},
    {'|', '|'},       {'~', '~'},        {0xA2, 0xA6},     {0xA8, 0xA9},     {0xAC, 0xAC},
    {0xAE, 0xB1},     {0xB4, 0xB4},      {0xB8, 0xB8},     {0xD7, 0xD7},     {0xF7, 0xF7},
    {0x2C2, 0x2C5},   {0x2D2, 0x2DF},    {0x2E5, 0x2EB},   {0x2ED, 0x2ED},   {0x2EF, 0x2FF},
    {0x375, 0x375},   {0x384, 0x385},    {0x3F6, 0x3F6},   {0x482, 0x482},   {0x606, 0x608},
    {0x60B, 0x60B},   {0x60E, 0x60F},    {0x2044, 0x2044}, {0x2052, 0x2052}, {0x207A, 0x207C},
    {0x208A, 0x208C}, {0x20A0, 0x20C0},  {0x2100, 0x2101}, {0x2103, 0x2106}, {0x2108, 0x2109},
    {0x2114, 0x2114}, {0x2116, 0x2118},  {0x211E, 0x2123}, {0x2125, 0x2125}, {0x2127, 0x2127},
    {0x2129, 0x2129}, {0x212E, 0x212E},  {0x213A, 0x213B}, {0x2140, 0x2144}, {0x214A, 0x214D},
    {0x214F, 0x214F}, {0x218A, 0x218B},  {0x2190, 0x2307}, {0x230C, 0x2328}, {0x232B, 0x2426},
    {0x2440, 0x244A}, {0x249C, 0x24E9},  {0x2500, 0x2767}, {0x2794, 0x27C4}, {0x27C7, 0x27E5},
    {0x27F0, 0x2982}, {0x2999, 0x2B73},  {0x2B76, 0x2BFF}, {0x2CE5, 0x2CEA}, {0x2E80, 0x2FFB},
    {0x3004, 0x3004}, {0x3012, 0x3013},  {0x3020, 0x3020}, {0x3036, 0x3037}, {0x303E, 0x303F},
    {0x309B, 0x309C}, {0x3190, 0x3191},  {0x3196, 0x319F}, {0x31C0, 0x31E3}, {0x3200, 0x321E},
    {0x322A, 0x3247}, {0x3250, 0x3250},  {0x3260, 0x327F}, {0x328A, 0x32B0}, {0x32C0, 0x33FF},
    {0x4DC0, 0x4DFF}, {0xA490, 0xA4C6},  {0xFB29, 0xFB29}, {0xFE62, 0xFE62}, {0xFE64, 0xFE66},
    {0xFE69, 0xFE69}, {0xFF04, 0xFF04},  {0xFF0B, 0xFF0B}, {0xFF1C, 0xFF1E}, {0xFF3E, 0xFF3E},
    {0xFF40, 0xFF40}, {0xFF5C, 0xFF5C},  {0xFF5E, 0xFF5E}, {0xFFE0, 0xFFE6}, {0xFFE8, 0xFFEE},
    {0xFFFC, 0xFFFD}, {0x1F000, 0x1FAFF}};
const Table kSpaces = {{' ', ' '},       {0xA0, 0xA0},     {0x1680, 0x1680}, {0x2000, 0x200A},
                       {0x202F, 0x202F}, {0x205F, 0x205F}, {0x3000, 0x3000}};
const Table kLineParagraph = {{0x2028, 0x2029}};
const Table kCc = {{0, 0x1F}, {0x7F, 0x9F}};
const Table kCf = {{0xAD, 0xAD},     {0x600, 0x605},   {0x61C, 0x61C},     {0x6DD, 0x6DD},
                   {0x200B, 0x200F}, {0x202A, 0x202E}, {0x2060, 0x2064},   {0x2066, 0x206F},
                   {0xFEFF, 0xFEFF}, {0xFFF9, 0xFFFB}, {0xE0001, 0xE0001}, {0xE0020, 0xE007F}};
const Table kCo = {{0xE000, 0xF8FF}, {0xF0000, 0xFFFFD}, {0x100000, 0x10FFFD}};
const Table kCs = {{0xD800, 0xDFFF}};
const Table kLatin = {{'A', 'Z'},       {'a', 'z'},       {0xAA, 0xAA},     {0xBA, 0xBA},
                      {0xC0, 0xD6},     {0xD8, 0xF6},     {0xF8, 0x2B8},    {0x2E0, 0x2E4},
                      {0x1D00, 0x1D25}, {0x1E00, 0x1EFF}, {0x2C60, 0x2C7F}, {0xA722, 0xA7FF},
                      {0xFB00, 0xFB06}, {0xFF21, 0xFF3A}, {0xFF41, 0xFF5A}};
const Table kGreek = {{0x370, 0x373},   {0x375, 0x377},  {0x37A, 0x37D}, {0x37F, 0x37F},
                      {0x384, 0x384},   {0x386, 0x386},  {0x388, 0x38A}, {0x38C, 0x38C},
                      {0x38E, 0x3A1},   {0x3A3, 0x3E1},  {0x3F0, 0x3FF}, {0x1D26, 0x1D2A},
                      {0x1F00, 0x1FFE}, {0x2126, 0x2126}};
const Table kCyrillic = {{0x400, 0x484},   {0x487, 0x52F},   {0x1C80, 0x1C88},
                         {0x1D2B, 0x1D2B}, {0x2DE0, 0x2DFF}, {0xA640, 0xA69F}};
const Table kHan = {{0x2E80, 0x2E99}, {0x2E9B, 0x2EF3}, {0x2F00, 0x2FD5},  {0x3005, 0x3005},
                    {0x3007, 0x3007}, {0x3021, 0x3029}, {0x3038, 0x303B},  {0x3400, 0x4DBF},
                    {0x4E00, 0x9FFF}, {0xF900, 0xFAFF}, {0x20000, 0x3134A}};
const Table kHiragana = {{0x3041, 0x3096}, {0x309D, 0x309F}};
const Table kKatakana = {
    {0x30A1, 0x30FA}, {0x30FD, 0x30FF}, {0x31F0, 0x31FF}, {0xFF66, 0xFF6F}, {0xFF71, 0xFF9D}};
const Table kHangul = {{0x1100, 0x11FF}, {0x3131, 0x318E}, {0xAC00, 0xD7A3}};
const Table kArabic = {{0x600, 0x604}, {0x606, 0x60B}, {0x60D, 0x61A}, {0x61C, 0x61E},
                       {0x620, 0x63F}, {0x641, 0x64A}, {0x656, 0x66F}, {0x671, 0x6DC},
                       {0x6DE, 0x6FF}, {0x750, 0x77F}};
const Table kHebrew = {{0x591, 0x5C7}, {0x5D0, 0x5EA}, {0x5EF, 0x5F4}, {0xFB1D, 0xFB4F}};
const Table kThai = {{0xE01, 0xE3A}, {0xE40, 0xE5B}};

void Append(Ranges& r, const Table& t) { r.insert(r.end(), t.begin(), t.end()); }

// The ranges of a \p{name} class, or nullopt for an unknown name.
std::optional<Ranges> UnicodeClass(std::string_view name) {
  Ranges r;
  if (name == "Any") {
    r.emplace_back(0, kMaxRune);
  } else if (name == "L") {
    Append(r, kLetters);
  } else if (name == "Lu" || name == "Lt") {
    Append(r, kLu);
  } else if (name == "Ll") {
    Append(r, kLl);
  } else if (name == "Lm" || name == "Lo") {
    // Letters that are neither upper nor lower case (approximation).
    Ranges upper_lower;
    Append(upper_lower, kLu);
    Append(upper_lower, kLl);
    Ranges letters;
    Append(letters, kLetters);
    Normalize(letters);
    Ranges others = Negate(upper_lower);
    for (const auto& [lo, hi] : letters) {
      for (const auto& [olo, ohi] : others) {
        const char32_t a = std::max(lo, olo), b = std::min(hi, ohi);
        if (a <= b) r.emplace_back(a, b);
      }
    }
  } else if (name == "M" || name == "Mn" || name == "Mc" || name == "Me") {
    Append(r, kMarks);
  } else if (name == "N") {
    Append(r, kNd);
    Append(r, kNlNo);
  } else if (name == "Nd") {
    Append(r, kNd);
  } else if (name == "Nl" || name == "No") {
    Append(r, kNlNo);
  } else if (name == "P" || name == "Pc" || name == "Pd" || name == "Ps" || name == "Pe" ||
             name == "Pi" || name == "Pf" || name == "Po") {
    Append(r, kPunct);
  } else if (name == "S" || name == "Sm" || name == "Sc" || name == "Sk" || name == "So") {
    Append(r, kSymbols);
  } else if (name == "Z") {
    Append(r, kSpaces);
    Append(r, kLineParagraph);
  } else if (name == "Zs") {
    Append(r, kSpaces);
  } else if (name == "Zl" || name == "Zp") {
    Append(r, kLineParagraph);
  } else if (name == "C") {
    Append(r, kCc);
    Append(r, kCf);
    Append(r, kCo);
    Append(r, kCs);
  } else if (name == "Cc") {
    Append(r, kCc);
  } else if (name == "Cf") {
    Append(r, kCf);
  } else if (name == "Co") {
    Append(r, kCo);
  } else if (name == "Cs") {
    Append(r, kCs);
  } else if (name == "Latin") {
    Append(r, kLatin);
  } else if (name == "Greek") {
    Append(r, kGreek);
  } else if (name == "Cyrillic") {
    Append(r, kCyrillic);
  } else if (name == "Han") {
    Append(r, kHan);
  } else if (name == "Hiragana") {
    Append(r, kHiragana);
  } else if (name == "Katakana") {
    Append(r, kKatakana);
  } else if (name == "Hangul") {
    Append(r, kHangul);
  } else if (name == "Arabic") {
    Append(r, kArabic);
  } else if (name == "Hebrew") {
    Append(r, kHebrew);
  } else if (name == "Thai") {
    Append(r, kThai);
  } else {
    return std::nullopt;
  }
  return r;
}

// POSIX classes ([:alpha:]) as Go defines them (ASCII only).
std::optional<Ranges> PosixClass(std::string_view name) {
  static const std::map<std::string_view, Ranges> kClasses = {
      {"alnum", {{'0', '9'}, {'A', 'Z'}, {'a', 'z'}}},
      {"alpha", {{'A', 'Z'}, {'a', 'z'}}},
      {"ascii", {{0, 0x7F}}},
      {"blank", {{'\t', '\t'}, {' ', ' '}}},
      {"cntrl", {{0, 0x1F}, {0x7F, 0x7F}}},
      {"digit", {{'0', '9'}}},
      {"graph", {{'!', '~'}}},
      {"lower", {{'a', 'z'}}},
      {"print", {{' ', '~'}}},
      {"punct", {{'!', '/'}, {':', '@'}, {'[', '`'}, {'{', '~'}}},
      {"space", {{'\t', '\r'}, {' ', ' '}}},
      {"upper", {{'A', 'Z'}}},
      {"word", {{'0', '9'}, {'A', 'Z'}, {'a', 'z'}, {'_', '_'}}},
      {"xdigit", {{'0', '9'}, {'A', 'F'}, {'a', 'f'}}},
  };
  auto it = kClasses.find(name);
  if (it == kClasses.end()) return std::nullopt;
  return it->second;
}

// Perl classes \d \s \w (ASCII, as Go).
Ranges PerlClass(char c) {
  switch (c) {
    case 'd':
    case 'D':
      return {{'0', '9'}};
    case 's':
    case 'S':
      return {{'\t', '\n'}, {'\f', '\r'}, {' ', ' '}};
    default:
      return {{'0', '9'}, {'A', 'Z'}, {'_', '_'}, {'a', 'z'}};
  }
}

// ---------------------------------------------------------------------------------------------
// Syntax tree.

struct Node {
  enum class Kind { kEmpty, kClass, kAssert, kConcat, kAlternate, kRepeat };
  Kind kind = Kind::kEmpty;
  Ranges ranges;         // kClass
  uint32_t assert = 0;   // kAssert
  int min = 0, max = 0;  // kRepeat; max -1 for unbounded
  std::vector<Node> children;
};

struct Flags {
  bool fold = false;
  bool multiline = false;
  bool dot_nl = false;
  bool ungreedy = false;
};

bool IsAlnum(char32_t c) {
  return (c >= '0' && c <= '9') || (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z');
}

class Parser {
 public:
  explicit Parser(std::string_view pattern) : whole_(pattern), t_(pattern) {}

  std::expected<Node, std::string> Parse() {
    Flags flags;
    auto node = ParseAlternate(flags, 0);
    if (!node) return node;
    if (!t_.empty()) {
      // Only an unmatched ')' stops the top level early.
      return Error("unexpected )", whole_);
    }
    return node;
  }

 private:
  std::unexpected<std::string> Error(std::string_view code, std::string_view expr) {
    return std::unexpected("error parsing regexp: " + std::string(code) + ": `" +
                           std::string(expr) + "`");
  }

  std::expected<char32_t, std::string> NextRune() {
    if (t_.empty()) return Error("missing argument", "");
    const v::DecodedRune r = v::DecodeRune(t_);
    if (r.rune == 0xFFFD && r.size == 1 && static_cast<unsigned char>(t_[0]) >= 0x80) {
      return std::unexpected(std::string("error parsing regexp: invalid UTF-8: `") +
                             std::string(t_) + "`");
    }
    t_.remove_prefix(r.size);
    return r.rune;
  }

  Node Literal(char32_t c, const Flags& flags) {
    Node n;
    n.kind = Node::Kind::kClass;
    if (flags.fold) {
      AddFolded(n.ranges, c, c);
      Normalize(n.ranges);
    } else {
      n.ranges.emplace_back(c, c);
    }
    return n;
  }

  static Node Class(Ranges r) {
    Node n;
    n.kind = Node::Kind::kClass;
    Normalize(r);
    n.ranges = std::move(r);
    return n;
  }

  static Node Assert(uint32_t a) {
    Node n;
    n.kind = Node::Kind::kAssert;
    n.assert = a;
    return n;
  }

  std::expected<Node, std::string> ParseAlternate(Flags& flags, int depth) {
    if (depth > kMaxDepth) return Error("expression nests too deeply", whole_);
    std::vector<Node> branches;
    for (;;) {
      auto concat = ParseConcat(flags, depth);
      if (!concat) return concat;
      branches.push_back(std::move(*concat));
      if (!t_.empty() && t_[0] == '|') {
        t_.remove_prefix(1);
        continue;
      }
      break;
    }
    if (branches.size() == 1) return std::move(branches[0]);
    Node n;
    n.kind = Node::Kind::kAlternate;
    n.children = std::move(branches);
    return n;
  }

  std::expected<Node, std::string> ParseConcat(Flags& flags, int depth) {
    Node n;
    n.kind = Node::Kind::kConcat;
    while (!t_.empty() && t_[0] != '|' && t_[0] != ')') {
      std::optional<Node> atom;
      auto parsed = ParseAtom(flags, depth, atom);
      if (!parsed) return std::unexpected(parsed.error());
      if (!atom) continue;  // a flag group such as (?i)
      // Repetition operators.
      bool repeated = false;
      std::string_view last_op_start;
      while (!t_.empty()) {
        const std::string_view op_start = t_;
        int min = 0, max = 0;
        if (t_[0] == '*') {
          min = 0, max = -1;
          t_.remove_prefix(1);
        } else if (t_[0] == '+') {
          min = 1, max = -1;
          t_.remove_prefix(1);
        } else if (t_[0] == '?') {
          min = 0, max = 1;
          t_.remove_prefix(1);
        } else if (t_[0] == '{') {
          auto counts = ParseRepeat();
          if (!counts) return std::unexpected(counts.error());
          if (!*counts) break;  // not a repetition: a literal '{'
          min = (*counts)->first, max = (*counts)->second;
        } else {
          break;
        }
        if (!t_.empty() && t_[0] == '?') t_.remove_prefix(1);  // lazy: same language
        if (repeated) {
          return Error("invalid nested repetition operator",
                       last_op_start.substr(0, last_op_start.size() - t_.size()));
        }
        repeated = true;
        last_op_start = op_start;
        Node rep;
        rep.kind = Node::Kind::kRepeat;
        rep.min = min;
        rep.max = max;
        rep.children.push_back(std::move(*atom));
        atom = std::move(rep);
      }
      n.children.push_back(std::move(*atom));
    }
    if (n.children.size() == 1) return std::move(n.children[0]);
    if (n.children.empty()) return Node{};
    return n;
  }

  // {n}, {n,}, {n,m}: the counts, or nullopt (and nothing consumed) when the text is not a
  // repetition, which Go then takes literally.
  std::expected<std::optional<std::pair<int, int>>, std::string> ParseRepeat() {
    std::string_view s = t_.substr(1);
    auto number = [&](int& out) {
      size_t i = 0;
      while (i < s.size() && s[i] >= '0' && s[i] <= '9') ++i;
      if (i == 0) return false;
      if (i > 1 && s[0] == '0') return false;  // Go rejects leading zeros here
      long long value = 0;
      for (size_t k = 0; k < i; ++k) {
        value = value * 10 + (s[k] - '0');
        if (value > 100000) value = 100000;
      }
      out = static_cast<int>(value);
      s.remove_prefix(i);
      return true;
    };
    int min = 0, max = 0;
    if (!number(min)) return std::nullopt;
    if (s.empty()) return std::nullopt;
    if (s[0] == ',') {
      s.remove_prefix(1);
      if (s.empty()) return std::nullopt;
      if (s[0] == '}') {
        max = -1;
      } else if (!number(max)) {
        return std::nullopt;
      }
    } else {
      max = min;
    }
    if (s.empty() || s[0] != '}') return std::nullopt;
    s.remove_prefix(1);
    const std::string_view op = t_.substr(0, t_.size() - s.size());
    if (min > kMaxRepeat || max > kMaxRepeat || (max >= 0 && min > max)) {
      return Error("invalid repeat count", op);
    }
    t_ = s;
    return std::optional<std::pair<int, int>>(std::pair<int, int>(min, max));
  }

  std::expected<void, std::string> ParseAtom(Flags& flags, int depth, std::optional<Node>& out) {
    const char c = t_[0];
    switch (c) {
      case '*':
      case '+':
      case '?':
        return Error("missing argument to repetition operator", t_.substr(0, 1));
      case '{': {
        // A valid repetition with nothing before it is an error; otherwise a literal.
        auto counts = ParseRepeat();
        if (!counts) return std::unexpected(counts.error());
        if (*counts) return Error("missing argument to repetition operator", "{");
        t_.remove_prefix(1);
        out = Literal('{', flags);
        return {};
      }
      case '(':
        return ParseGroup(flags, depth, out);
      case '[': {
        auto cls = ParseClass(flags);
        if (!cls) return std::unexpected(cls.error());
        out = std::move(*cls);
        return {};
      }
      case '.': {
        t_.remove_prefix(1);
        out = flags.dot_nl ? Class({{0, kMaxRune}}) : Class({{0, '\n' - 1}, {'\n' + 1, kMaxRune}});
        return {};
      }
      case '^':
        t_.remove_prefix(1);
        out = Assert(flags.multiline ? kBeginLine : kBeginText);
        return {};
      case '$':
        t_.remove_prefix(1);
        out = Assert(flags.multiline ? kEndLine : kEndText);
        return {};
      case '\\':
        return ParseEscapeAtom(flags, out);
      default: {
        auto r = NextRune();
        if (!r) return std::unexpected(r.error());
        out = Literal(*r, flags);
        return {};
      }
    }
  }

  std::expected<void, std::string> ParseGroup(Flags& flags, int depth, std::optional<Node>& out) {
    const std::string_view start = t_;
    t_.remove_prefix(1);  // '('
    Flags inner = flags;
    if (t_.size() >= 1 && t_[0] == '?') {
      // Named captures.
      if (t_.starts_with("?P<") || t_.starts_with("?<")) {
        const size_t open = t_.find('<');
        const size_t close = t_.find('>');
        if (close == std::string_view::npos) {
          return Error("invalid named capture", start);
        }
        const std::string_view name = t_.substr(open + 1, close - open - 1);
        bool ok = !name.empty();
        for (char ch : name) ok = ok && (IsAlnum(static_cast<unsigned char>(ch)) || ch == '_');
        if (!ok) return Error("invalid named capture", start.substr(0, close + 2));
        t_.remove_prefix(close + 1);
      } else {
        // Flags: (?flags) or (?flags:re).
        size_t i = 1;
        bool negated = false, any = false;
        Flags next = flags;
        for (;;) {
          if (i >= t_.size()) return Error("missing closing )", whole_);
          const char f = t_[i];
          if (f == 'i') {
            next.fold = !negated;
          } else if (f == 'm') {
            next.multiline = !negated;
          } else if (f == 's') {
            next.dot_nl = !negated;
          } else if (f == 'U') {
            next.ungreedy = !negated;
          } else if (f == '-' && !negated) {
            negated = true;
            any = false;
            ++i;
            continue;
          } else if (f == ')' || f == ':') {
            if (negated && !any) {
              return Error("invalid or unsupported Perl syntax", start.substr(0, i + 2));
            }
            break;
          } else {
            return Error("invalid or unsupported Perl syntax", start.substr(0, i + 2));
          }
          any = true;
          ++i;
        }
        if (t_[i] == ')') {
          // Applies to the rest of the enclosing group.
          t_.remove_prefix(i + 1);
          flags = next;
          return {};
        }
        t_.remove_prefix(i + 1);
        inner = next;
      }
    }
    auto body = ParseAlternate(inner, depth + 1);
    if (!body) return std::unexpected(body.error());
    if (t_.empty() || t_[0] != ')') return Error("missing closing )", whole_);
    t_.remove_prefix(1);
    out = std::move(*body);
    return {};
  }

  // After a backslash outside a class.
  std::expected<void, std::string> ParseEscapeAtom(Flags& flags, std::optional<Node>& out) {
    if (t_.size() < 2) return Error("trailing backslash at end of expression", "");
    const char c = t_[1];
    switch (c) {
      case 'A':
        t_.remove_prefix(2);
        out = Assert(kBeginText);
        return {};
      case 'z':
        t_.remove_prefix(2);
        out = Assert(kEndText);
        return {};
      case 'b':
        t_.remove_prefix(2);
        out = Assert(kWordBoundary);
        return {};
      case 'B':
        t_.remove_prefix(2);
        out = Assert(kNoWordBoundary);
        return {};
      case 'Q': {
        t_.remove_prefix(2);
        size_t end = t_.find("\\E");
        std::string_view lit = end == std::string_view::npos ? t_ : t_.substr(0, end);
        t_.remove_prefix(end == std::string_view::npos ? t_.size() : end + 2);
        Node n;
        n.kind = Node::Kind::kConcat;
        while (!lit.empty()) {
          const v::DecodedRune r = v::DecodeRune(lit);
          lit.remove_prefix(r.size);
          n.children.push_back(Literal(r.rune, flags));
        }
        if (n.children.size() == 1) {
          out = std::move(n.children[0]);
        } else {
          out = std::move(n);
        }
        return {};
      }
      default:
        break;
    }
    Ranges ranges;
    auto single = ParseEscape(flags, ranges);
    if (!single) return std::unexpected(single.error());
    if (*single) {
      out = Literal(**single, flags);
    } else {
      out = Class(std::move(ranges));
    }
    return {};
  }

  // An escape in or out of a class: either one rune, or a class written into `ranges` (nullopt).
  std::expected<std::optional<char32_t>, std::string> ParseEscape(const Flags& flags,
                                                                  Ranges& ranges) {
    const std::string_view start = t_;
    t_.remove_prefix(1);  // backslash
    if (t_.empty()) return Error("trailing backslash at end of expression", "");
    const char c = t_[0];
    switch (c) {
      case 'd':
      case 's':
      case 'w':
      case 'D':
      case 'S':
      case 'W': {
        t_.remove_prefix(1);
        Ranges r = PerlClass(c);
        if (flags.fold) {
          Ranges folded;
          for (const auto& [lo, hi] : r) AddFolded(folded, lo, hi);
          r = std::move(folded);
        }
        if (c == 'D' || c == 'S' || c == 'W') r = Negate(r);
        ranges.insert(ranges.end(), r.begin(), r.end());
        return std::nullopt;
      }
      case 'p':
      case 'P': {
        t_.remove_prefix(1);
        if (t_.empty()) return Error("invalid character class range", start);
        std::string_view name;
        if (t_[0] == '{') {
          const size_t close = t_.find('}');
          if (close == std::string_view::npos) {
            return Error("invalid character class range", start);
          }
          name = t_.substr(1, close - 1);
          t_.remove_prefix(close + 1);
        } else {
          const v::DecodedRune r = v::DecodeRune(t_);
          name = t_.substr(0, r.size);
          t_.remove_prefix(r.size);
        }
        bool negate = c == 'P';
        if (!name.empty() && name[0] == '^') {
          negate = !negate;
          name.remove_prefix(1);
        }
        auto cls = UnicodeClass(name);
        if (!cls) {
          return Error("invalid character class range", start.substr(0, start.size() - t_.size()));
        }
        Ranges r = std::move(*cls);
        if (flags.fold) {
          Ranges folded;
          for (const auto& [lo, hi] : r) AddFolded(folded, lo, hi);
          r = std::move(folded);
        }
        if (negate) r = Negate(r);
        ranges.insert(ranges.end(), r.begin(), r.end());
        return std::nullopt;
      }
      case 'a':
        t_.remove_prefix(1);
        return char32_t{'\a'};
      case 'f':
        t_.remove_prefix(1);
        return char32_t{'\f'};
      case 't':
        t_.remove_prefix(1);
        return char32_t{'\t'};
      case 'n':
        t_.remove_prefix(1);
        return char32_t{'\n'};
      case 'r':
        t_.remove_prefix(1);
        return char32_t{'\r'};
      case 'v':
        t_.remove_prefix(1);
        return char32_t{'\v'};
      case 'x': {
        t_.remove_prefix(1);
        auto hex = [](char h) -> int {
          if (h >= '0' && h <= '9') return h - '0';
          if (h >= 'a' && h <= 'f') return h - 'a' + 10;
          if (h >= 'A' && h <= 'F') return h - 'A' + 10;
          return -1;
        };
        if (!t_.empty() && t_[0] == '{') {
          size_t i = 1;
          uint32_t value = 0;
          int digits = 0;
          while (i < t_.size() && hex(t_[i]) >= 0) {
            value = value * 16 + static_cast<uint32_t>(hex(t_[i]));
            if (value > kMaxRune) return Error("invalid escape sequence", start.substr(0, i + 2));
            ++i, ++digits;
          }
          if (digits == 0 || i >= t_.size() || t_[i] != '}') {
            return Error("invalid escape sequence", start.substr(0, std::min(start.size(), i + 2)));
          }
          t_.remove_prefix(i + 1);
          return static_cast<char32_t>(value);
        }
        if (t_.size() < 2 || hex(t_[0]) < 0 || hex(t_[1]) < 0) {
          return Error("invalid escape sequence",
                       start.substr(0, std::min<size_t>(start.size(), 4)));
        }
        const char32_t value = static_cast<char32_t>(hex(t_[0]) * 16 + hex(t_[1]));
        t_.remove_prefix(2);
        return value;
      }
      case '1':
      case '2':
      case '3':
      case '4':
      case '5':
      case '6':
      case '7':
        // A single non-zero digit is a backreference, which Go does not support.
        if (t_.size() < 2 || t_[1] < '0' || t_[1] > '7') {
          return Error("invalid escape sequence", start.substr(0, 2));
        }
        [[fallthrough]];
      case '0': {
        char32_t value = 0;
        size_t i = 0;
        while (i < 3 && i < t_.size() && t_[i] >= '0' && t_[i] <= '7') {
          value = value * 8 + static_cast<char32_t>(t_[i] - '0');
          ++i;
        }
        t_.remove_prefix(i);
        return value;
      }
      default:
        break;
    }
    const auto uc = static_cast<unsigned char>(c);
    if (uc < 0x80 && !IsAlnum(uc)) {
      t_.remove_prefix(1);
      return char32_t{uc};
    }
    const v::DecodedRune r = v::DecodeRune(t_);
    return Error("invalid escape sequence", start.substr(0, 1 + r.size));
  }

  std::expected<Node, std::string> ParseClass(const Flags& flags) {
    const std::string_view start = t_;
    t_.remove_prefix(1);  // '['
    bool negate = false;
    if (!t_.empty() && t_[0] == '^') {
      negate = true;
      t_.remove_prefix(1);
    }
    Ranges ranges;
    bool first = true;
    while (t_.empty() || t_[0] != ']' || first) {
      if (t_.empty()) return Error("missing closing ]", start);
      first = false;
      // POSIX classes.
      if (t_.size() > 2 && t_[0] == '[' && t_[1] == ':') {
        const size_t close = t_.find(":]", 2);
        if (close != std::string_view::npos) {
          std::string_view name = t_.substr(2, close - 2);
          bool neg = false;
          if (!name.empty() && name[0] == '^') {
            neg = true;
            name.remove_prefix(1);
          }
          auto cls = PosixClass(name);
          if (!cls) return Error("invalid character class range", t_.substr(0, close + 2));
          Ranges r = std::move(*cls);
          if (flags.fold) {
            Ranges folded;
            for (const auto& [lo, hi] : r) AddFolded(folded, lo, hi);
            r = std::move(folded);
          }
          if (neg) r = Negate(r);
          ranges.insert(ranges.end(), r.begin(), r.end());
          t_.remove_prefix(close + 2);
          continue;
        }
      }
      const std::string_view item_start = t_;
      auto lo = ClassChar(flags, ranges);
      if (!lo) return std::unexpected(lo.error());
      if (!*lo) continue;  // a class escape was added
      char32_t hi = **lo;
      if (t_.size() >= 2 && t_[0] == '-' && t_[1] != ']') {
        t_.remove_prefix(1);
        Ranges scratch;
        auto h = ClassChar(flags, scratch);
        if (!h) return std::unexpected(h.error());
        if (!*h) {
          return Error("invalid character class range",
                       item_start.substr(0, item_start.size() - t_.size()));
        }
        hi = **h;
        if (hi < **lo) {
          return Error("invalid character class range",
                       item_start.substr(0, item_start.size() - t_.size()));
        }
      }
      if (flags.fold) {
        AddFolded(ranges, **lo, hi);
      } else {
        ranges.emplace_back(**lo, hi);
      }
    }
    t_.remove_prefix(1);  // ']'
    Normalize(ranges);
    if (negate) ranges = Negate(ranges);
    return Class(std::move(ranges));
  }

  // One class member: a rune, or (nullopt) a class escape added to `ranges`.
  std::expected<std::optional<char32_t>, std::string> ClassChar(const Flags& flags,
                                                                Ranges& ranges) {
    if (t_.empty()) return Error("missing closing ]", whole_);
    if (t_[0] == '\\') {
      Ranges r;
      auto e = ParseEscape(flags, r);
      if (!e) return std::unexpected(e.error());
      if (!*e) {
        ranges.insert(ranges.end(), r.begin(), r.end());
        return std::nullopt;
      }
      return e;
    }
    auto r = NextRune();
    if (!r) return std::unexpected(r.error());
    return std::optional<char32_t>(*r);
  }

  std::string_view whole_;
  std::string_view t_;
};

// ---------------------------------------------------------------------------------------------
// Compilation (Thompson).

struct Hole {
  uint32_t inst;
  bool second;
};

struct Frag {
  uint32_t start = 0;
  std::vector<Hole> out;
};

class Compiler {
 public:
  explicit Compiler(Regex& re) : re_(re) {}

  std::expected<void, std::string> Compile(const Node& root) {
    auto f = Emit(root);
    if (!f) return std::unexpected(f.error());
    const uint32_t match = Add(Regex::Op::kMatch);
    Patch(f->out, match);
    re_.start_ = f->start;
    return {};
  }

 private:
  uint32_t Add(Regex::Op op) {
    Regex::Inst inst;
    inst.op = op;
    re_.program_.push_back(inst);
    return static_cast<uint32_t>(re_.program_.size() - 1);
  }

  void Patch(const std::vector<Hole>& holes, uint32_t target) {
    for (const Hole& h : holes) {
      if (h.second) {
        re_.program_[h.inst].out1 = target;
      } else {
        re_.program_[h.inst].out = target;
      }
    }
  }

  std::expected<Frag, std::string> Emit(const Node& n) {
    if (re_.program_.size() > kMaxProgram) {
      return std::unexpected("error parsing regexp: expression too large");
    }
    switch (n.kind) {
      case Node::Kind::kEmpty: {
        const uint32_t i = Add(Regex::Op::kJmp);
        return Frag{i, {{i, false}}};
      }
      case Node::Kind::kClass: {
        const uint32_t i = Add(Regex::Op::kRange);
        re_.program_[i].ranges = static_cast<uint32_t>(re_.ranges_.size());
        re_.ranges_.push_back(n.ranges);
        return Frag{i, {{i, false}}};
      }
      case Node::Kind::kAssert: {
        const uint32_t i = Add(Regex::Op::kAssert);
        re_.program_[i].assert = n.assert;
        return Frag{i, {{i, false}}};
      }
      case Node::Kind::kConcat: {
        std::optional<Frag> result;
        for (const Node& child : n.children) {
          auto f = Emit(child);
          if (!f) return f;
          if (!result) {
            result = std::move(*f);
          } else {
            Patch(result->out, f->start);
            result->out = std::move(f->out);
          }
        }
        if (!result) return Emit(Node{});
        return std::move(*result);
      }
      case Node::Kind::kAlternate: {
        // split(c0, split(c1, ... cn))
        Frag result;
        std::vector<Hole> outs;
        std::optional<uint32_t> pending_split;
        for (size_t k = 0; k < n.children.size(); ++k) {
          const bool last = k + 1 == n.children.size();
          std::optional<uint32_t> split;
          if (!last) split = Add(Regex::Op::kSplit);
          auto f = Emit(n.children[k]);
          if (!f) return f;
          const uint32_t entry = split ? *split : f->start;
          if (split) re_.program_[*split].out = f->start;
          if (pending_split) {
            re_.program_[*pending_split].out1 = entry;
          } else {
            result.start = entry;
          }
          pending_split = split;
          outs.insert(outs.end(), f->out.begin(), f->out.end());
        }
        result.out = std::move(outs);
        return result;
      }
      case Node::Kind::kRepeat:
        return EmitRepeat(n.children[0], n.min, n.max);
    }
    return Emit(Node{});
  }

  std::expected<Frag, std::string> Star(const Node& child) {
    const uint32_t split = Add(Regex::Op::kSplit);
    auto body = Emit(child);
    if (!body) return body;
    re_.program_[split].out = body->start;
    Patch(body->out, split);
    return Frag{split, {{split, true}}};
  }

  std::expected<Frag, std::string> Quest(const Node& child) {
    const uint32_t split = Add(Regex::Op::kSplit);
    auto body = Emit(child);
    if (!body) return body;
    re_.program_[split].out = body->start;
    Frag f{split, std::move(body->out)};
    f.out.push_back({split, true});
    return f;
  }

  std::expected<Frag, std::string> EmitRepeat(const Node& child, int min, int max) {
    std::optional<Frag> result;
    auto append = [&](std::expected<Frag, std::string> f) -> std::expected<void, std::string> {
      if (!f) return std::unexpected(f.error());
      if (!result) {
        result = std::move(*f);
      } else {
        Patch(result->out, f->start);
        result->out = std::move(f->out);
      }
      return {};
    };
    if (max < 0) {
      // x{n,}: n-1 copies then x+, or x* when n is 0.
      for (int k = 0; k + 1 < min; ++k) {
        if (auto r = append(Emit(child)); !r) return std::unexpected(r.error());
      }
      if (min == 0) {
        if (auto r = append(Star(child)); !r) return std::unexpected(r.error());
      } else {
        auto body = Emit(child);
        if (!body) return body;
        const uint32_t split = Add(Regex::Op::kSplit);
        re_.program_[split].out = body->start;
        Patch(body->out, split);
        if (auto r = append(Frag{body->start, {{split, true}}}); !r) {
          return std::unexpected(r.error());
        }
      }
      return std::move(*result);
    }
    for (int k = 0; k < min; ++k) {
      if (auto r = append(Emit(child)); !r) return std::unexpected(r.error());
    }
    for (int k = min; k < max; ++k) {
      if (auto r = append(Quest(child)); !r) return std::unexpected(r.error());
    }
    if (!result) return Emit(Node{});
    return std::move(*result);
  }

  Regex& re_;
};

// ---------------------------------------------------------------------------------------------
// Simulation.

class SparseSet {
 public:
  explicit SparseSet(size_t n) : sparse_(n), dense_(n) {}
  bool Contains(uint32_t v) const { return sparse_[v] < size_ && dense_[sparse_[v]] == v; }
  void Insert(uint32_t v) {
    sparse_[v] = static_cast<uint32_t>(size_);
    dense_[size_++] = v;
  }
  void Clear() { size_ = 0; }
  size_t Size() const { return size_; }
  uint32_t At(size_t i) const { return dense_[i]; }

 private:
  std::vector<uint32_t> sparse_;
  std::vector<uint32_t> dense_;
  size_t size_ = 0;
};

bool IsWordChar(char32_t c) { return IsAlnum(c) || c == '_'; }

bool InRanges(const Ranges& r, char32_t c) {
  auto it = std::upper_bound(r.begin(), r.end(), c,
                             [](char32_t value, const auto& range) { return value < range.first; });
  if (it == r.begin()) return false;
  --it;
  return c >= it->first && c <= it->second;
}

}  // namespace

std::expected<std::shared_ptr<const Regex>, std::string> Regex::Compile(std::string_view pattern) {
  Parser parser(pattern);
  auto tree = parser.Parse();
  if (!tree) return std::unexpected(tree.error());
  auto re = std::make_shared<Regex>();
  Compiler compiler(*re);
  if (auto ok = compiler.Compile(*tree); !ok) return std::unexpected(ok.error());
  return std::shared_ptr<const Regex>(std::move(re));
}

std::expected<std::shared_ptr<const Regex>, std::string> Regex::CompileCached(
    std::string_view pattern) {
  static std::mutex mu;
  static std::unordered_map<std::string, std::expected<std::shared_ptr<const Regex>, std::string>>
      cache;
  constexpr size_t kMaxEntries = 512;
  {
    std::lock_guard lock(mu);
    auto it = cache.find(std::string(pattern));
    if (it != cache.end()) return it->second;
  }
  auto compiled = Compile(pattern);
  std::lock_guard lock(mu);
  if (cache.size() >= kMaxEntries) cache.clear();
  cache.emplace(std::string(pattern), compiled);
  return compiled;
}

bool Regex::MatchString(std::string_view text) const {
  const size_t n = program_.size();
  SparseSet current(n);
  std::vector<uint32_t> stack;
  std::vector<uint32_t> pending;
  bool matched = false;

  // The empty-width conditions that hold at byte offset pos.
  auto context = [&](size_t pos, char32_t prev, bool has_prev) {
    uint32_t flags = 0;
    char32_t following = 0;
    const bool has_next = pos < text.size();
    if (has_next) following = v::DecodeRune(text.substr(pos)).rune;
    if (!has_prev) flags |= kBeginText | kBeginLine;
    if (has_prev && prev == '\n') flags |= kBeginLine;
    if (!has_next) flags |= kEndText | kEndLine;
    if (has_next && following == '\n') flags |= kEndLine;
    const bool w1 = has_prev && IsWordChar(prev);
    const bool w2 = has_next && IsWordChar(following);
    flags |= w1 != w2 ? kWordBoundary : kNoWordBoundary;
    return flags;
  };

  auto add = [&](SparseSet& set, uint32_t pc, uint32_t ctx) {
    stack.push_back(pc);
    while (!stack.empty()) {
      const uint32_t p = stack.back();
      stack.pop_back();
      if (set.Contains(p)) continue;
      set.Insert(p);
      const Inst& inst = program_[p];
      switch (inst.op) {
        case Op::kJmp:
          stack.push_back(inst.out);
          break;
        case Op::kSplit:
          stack.push_back(inst.out1);
          stack.push_back(inst.out);
          break;
        case Op::kAssert:
          if ((inst.assert& ctx) == inst.assert) stack.push_back(inst.out);
          break;
        case Op::kMatch:
          matched = true;
          break;
        case Op::kRange:
          break;
      }
    }
  };

  size_t pos = 0;
  char32_t prev = 0;
  bool has_prev = false;
  for (;;) {
    const uint32_t ctx = context(pos, prev, has_prev);
    current.Clear();
    for (uint32_t pc : pending) add(current, pc, ctx);
    add(current, start_, ctx);
    if (matched) return true;
    if (pos >= text.size()) return false;
    const v::DecodedRune r = v::DecodeRune(text.substr(pos));
    pending.clear();
    for (size_t i = 0; i < current.Size(); ++i) {
      const Inst& inst = program_[current.At(i)];
      if (inst.op == Op::kRange && InRanges(ranges_[inst.ranges], r.rune)) {
        pending.push_back(inst.out);
      }
    }
    prev = r.rune;
    has_prev = true;
    pos += r.size;
  }
}

}  // namespace apiextensions::schema
