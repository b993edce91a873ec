#!/usr/bin/env python3
"""Finds temporaries that g++ 12 miscompiles inside a co_await expression.

Seen in this project as double frees (docs/architecture.md): a braced aggregate
(`co_await f(x, {})`, `f(Options{...})`), a lambda with captures
(`co_await f([s] {...})`), and a ?: yielding a class object. Bind such a value to a
named local first. Exits 1 listing every hit.
"""
import re
import subprocess
import sys
from pathlib import Path

root = Path(__file__).resolve().parent.parent
files = subprocess.run(["git", "ls-files", "-co", "--exclude-standard", "--", "*.cc", "*.h"],
                       cwd=root, capture_output=True, text=True, check=True).stdout.split()
files = [f for f in files if (root / f).exists()]  # tracked but deleted in the working tree


def strip(text):
    """Blanks out comments and string/char literals, keeping offsets and newlines."""
    out, i, n = [], 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            out.append(" " * (j - i)); i = j
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append("".join("\n" if ch == "\n" else " " for ch in text[i:j])); i = j
        elif text.startswith('R"', i):
            m = re.match(r'R"([^(]*)\(', text[i:])
            end = text.find(")" + m.group(1) + '"', i) if m else -1
            j = n if end < 0 else end + len(m.group(1)) + 2
            out.append("".join("\n" if ch == "\n" else " " for ch in text[i:j])); i = j
        elif c in "\"'":
            j = i + 1
            while j < n and text[j] != c:
                j += 2 if text[j] == "\\" else 1
            out.append(c + " " * (j - i - 1) + c); i = j + 1
        else:
            out.append(c); i += 1
    return "".join(out)


hits = []
for name in files:
    text = strip((root / name).read_text(errors="replace"))
    for m in re.finditer(r"\bco_await\b", text):
        depth, j, args_depth_start = 0, m.end(), None
        while j < len(text):
            ch = text[j]
            if ch in "([{":
                depth += 1
            elif ch in ")]}":
                depth -= 1
                if depth < 0:
                    break
            elif ch == ";" and depth == 0:
                break
            j += 1
        expr = text[m.end():j]
        problems = []
        if re.search(r"[(,]\s*\[[^\]]*[=&\w][^\]]*\]", expr):
            problems.append("lambda with captures")
        if re.search(r"[(,]\s*\{|[\w>]\{", expr):
            problems.append("braced temporary")
        if re.search(r"\?(?!\?)", expr):
            problems.append("?: temporary")
        if problems:
            line = text.count("\n", 0, m.start()) + 1
            hits.append(f"{name}:{line}: co_await with a {', '.join(problems)}")

if hits:
    print("Temporaries g++ 12 miscompiles in co_await (bind them to a local first):")
    print("\n".join(hits))
    sys.exit(1)
