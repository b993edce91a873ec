#!/usr/bin/env bash
# Fails when a C++ source is not formatted as .clang-format says (fix: add --fix).
set -euo pipefail
cd "$(dirname "$0")/.."
mode=(--dry-run --Werror)
[[ "${1:-}" == "--fix" ]] && mode=(-i)
git ls-files -co --exclude-standard -- '*.cc' '*.h' | xargs -r clang-format "${mode[@]}"
