#!/usr/bin/env python3
"""Lists the integration test classes, one `module.Class` per line, for CMake.

Each class that defines test methods becomes one ctest entry (test/CMakeLists.txt), so
`ctest -j2` runs them in parallel and a failure names its class. Read with `ast`, not
imported, so listing needs nothing beyond the standard library.
"""
import ast
import pathlib
import sys


def test_classes(path):
    """Classes that define test methods or inherit them from a class of the same file; not
    those named with a leading underscore (mixins of tests, not test cases themselves)."""
    tree = ast.parse(path.read_text(), str(path))
    with_tests = set()
    for node in tree.body:
        if not isinstance(node, ast.ClassDef):
            continue
        own = any(isinstance(item, ast.FunctionDef) and item.name.startswith("test")
                  for item in node.body)
        inherited = any(isinstance(b, ast.Name) and b.id in with_tests for b in node.bases)
        if own or inherited:
            with_tests.add(node.name)
            if not node.name.startswith("_"):
                yield "%s.%s" % (path.stem, node.name)


def main():
    directory = pathlib.Path(sys.argv[1])
    for path in sorted(directory.glob("test_*.py")):
        for name in test_classes(path):
            print(name)


if __name__ == "__main__":
    main()
