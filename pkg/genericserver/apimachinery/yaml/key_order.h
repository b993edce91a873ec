#pragma once
// The order go-yaml v2 writes map keys in (its keyList sort), which JSONToYAML output follows:
// at the first difference, non-letters sort before letters, letters by code point, and runs
// of digits by their numeric value ("a2" before "a10"). Internal to apimachinery/yaml.

#include <cstddef>
#include <string_view>
#include <vector>

namespace apimachinery::yaml::internal {

bool GoKeyLess(std::string_view a, std::string_view b);

// The positions of keys in GoKeyLess order (a stable merge sort, safe even where that order is
// not a strict weak ordering).
std::vector<std::size_t> KeyOrder(const std::vector<std::string_view>& keys);

}  // namespace apimachinery::yaml::internal
