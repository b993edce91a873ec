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
    tree = ast.parse(path.read_text(), str(path))
    for node in tree.body:
        if isinstance(node, ast.ClassDef) and any(
                isinstance(item, ast.FunctionDef) and item.name.startswith("test")
                for item in node.body):
            yield "%s.%s" % (path.stem, node.name)


def main():
    directory = pathlib.Path(sys.argv[1])
    for path in sorted(directory.glob("test_*.py")):
        for name in test_classes(path):
            print(name)


if __name__ == "__main__":
    main()
