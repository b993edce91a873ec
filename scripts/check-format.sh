#!/usr/bin/env bash
# Fails when a C++ source is not formatted as .clang-format says (fix: add --fix).
set -euo pipefail
cd "$(dirname "$0")/.."
mode=(--dry-run --Werror)
[[ "${1:-}" == "--fix" ]] && mode=(-i)
# (files deleted in the working tree but still tracked are left out)
git ls-files -co --exclude-standard -- '*.cc' '*.h' | while read -r f; do [[ -e "$f" ]] && echo "$f"; done |
  xargs -r clang-format "${mode[@]}"
