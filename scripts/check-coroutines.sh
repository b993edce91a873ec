#!/usr/bin/env bash
# g++ 12 miscompiles two kinds of temporaries inside a co_await expression (double
# frees, seen in this project): a braced aggregate (`co_await f(x, {})`, `f(Opts{...})`)
# and a ?: that yields a class object. Bind such values to a named local first.
# This finds the one-line forms; see docs/architecture.md.
set -euo pipefail
cd "$(dirname "$0")/.."
pattern='co_await[^;]*([(,][[:space:]]*[A-Za-z_:]*\{|[^?]\?[^?:]+:[^:])'
if hits=$(git ls-files -co --exclude-standard -- '*.cc' '*.h' | xargs -r grep -nE "$pattern"); then
  echo "co_await with a braced or ?: temporary (bind it to a local first):"
  echo "$hits"
  exit 1
fi
