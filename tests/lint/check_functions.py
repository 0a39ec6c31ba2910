#!/usr/bin/python3
"""No function in src/ is longer than 80 lines, nor in tools/ than 100, unless a comment in it says why.

Checked by ctest as lint.function_length. A C/C++ function is found the way the house style
writes it (clang-format): its opening brace alone on a line at column 0, its closing brace
alone at column 0; the signature lines above the brace count. A Python function is measured
with the ast module. A function may be longer when a comment inside it (or just above it)
contains "long function:" followed by the reason.

Usage: check_functions.py <source root> [limit]   (limit: tools/'s, 100 unless given; src/'s is
SRC_LIMIT, 80, issue 45)
"""
import ast
import pathlib
import re
import sys

root = pathlib.Path(sys.argv[1])
limit = int(sys.argv[2]) if len(sys.argv) > 2 else 100
SRC_LIMIT = 80
REASON = re.compile(r"long function:\s*\S")


def c_functions(text):
    lines = text.split("\n")
    i = 0
    while i < len(lines):
        if lines[i] == "{" and i > 0:
            j = i - 1
            while j > 0 and lines[j - 1].strip() and not lines[j - 1].rstrip().endswith((";", "}", "*/")) \
                    and not lines[j - 1].startswith("#"):
                j -= 1
            k = i + 1
            while k < len(lines) and lines[k] != "}":
                k += 1
            m = re.search(r"(\w+)\s*\(", " ".join(lines[j:i]))
            above = "\n".join(lines[max(0, j - 5):j])
            yield (m.group(1) if m else "?"), j + 1, k - j + 1, above + "\n".join(lines[j:k + 1])
            i = k
        i += 1


def py_functions(text, rel):
    lines = text.split("\n")
    try:
        tree = ast.parse(text)
    except SyntaxError as e:
        yield f"(the file does not parse: {e.msg}, line {e.lineno})", e.lineno or 0, limit + 1, ""
        return
    for n in ast.walk(tree):
        if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)):
            body = "\n".join(lines[max(0, n.lineno - 4):n.end_lineno])
            yield n.name, n.lineno, n.end_lineno - n.lineno + 1, body


status = 0
for top in ("src", "tools"):
    top_limit = SRC_LIMIT if top == "src" else limit
    for path in sorted((root / top).rglob("*")):
        rel = path.relative_to(root).as_posix()
        if path.suffix in (".c", ".h", ".cpp"):
            funcs = c_functions(path.read_text(errors="replace"))
        elif path.suffix == ".py":
            funcs = py_functions(path.read_text(errors="replace"), rel)
        else:
            continue
        for name, line, n, text in funcs:
            if n <= top_limit or REASON.search(text):
                continue
            if name.startswith("(the file does not parse"):
                print(f"{rel}:{line}: {name[1:-1]}")
                status = 1
                continue
            print(f"{rel}:{line}: {name} is {n} lines, more than {top_limit}: split it into named steps, "
                  f"or say why in a 'long function: <why>' comment")
            status = 1
if status == 0:
    print(f"src/: no function longer than {SRC_LIMIT} lines; tools/: none longer than {limit}")
sys.exit(status)
