#!/usr/bin/env python3
"""Lists the C++/CUDA function definitions longer than a limit (default 80 lines).

  tools/long_functions.py [--max N] [PATH...]      (default paths: src apps)

A function's length runs from the line of its name to the line of its closing brace. The scan
is textual: comments, string and character literals are blanked, then braces are matched. A
brace opened at namespace or class scope starts a function body when the text before it ends in a
parameter list (with qualifiers, a trailing return type or a constructor's initializer list);
lambdas and local classes count as part of the function around them. Output, longest first:
"path:line  lines  name"; the exit status is 0 either way (a list to read, not a gate).
"""
import argparse
import os
import re
import sys

EXTENSIONS = (".cc", ".h", ".cu", ".cuh", ".cpp", ".hpp")
QUALIFIERS = {"const", "noexcept", "override", "final", "mutable", "volatile", "try"}


def blank_comments_and_literals(text):
    """The text with comments, strings and character literals replaced by spaces (newlines kept)."""
    out = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            out.append(" " * (j - i))
            i = j
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append(re.sub(r"[^\n]", " ", text[i:j]))
            i = j
        elif c == "R" and text.startswith('R"', i) and (i == 0 or not (text[i - 1].isalnum() or text[i - 1] == "_")):
            m = re.match(r'R"([^(\s]*)\(', text[i:])
            if not m:
                out.append(c)
                i += 1
                continue
            end = text.find(")" + m.group(1) + '"', i)
            j = n if end < 0 else end + len(m.group(1)) + 2
            out.append(re.sub(r"[^\n]", " ", text[i:j]))
            i = j
        elif c in "\"'":
            # A digit separator (1'000) is not a character literal.
            if c == "'" and i > 0 and text[i - 1].isalnum() and i + 1 < n and text[i + 1].isalnum():
                out.append(" ")
                i += 1
                continue
            j = i + 1
            while j < n and text[j] != c and text[j] != "\n":
                j += 2 if text[j] == "\\" else 1
            j = min(j + 1, n)
            out.append(c + " " * (j - i - 2) + c if j - i >= 2 else " " * (j - i))
            i = j
        elif c == "#" and (i == 0 or text[i - 1] == "\n" or text[:i].rsplit("\n", 1)[-1].strip() == ""):
            # A preprocessor line (with its continuations): no braces of its own count.
            j = i
            while True:
                k = text.find("\n", j)
                if k < 0:
                    k = n
                    break
                if text[k - 1] != "\\":
                    break
                j = k + 1
            out.append(re.sub(r"[^\n]", " ", text[i:k]))
            i = k
        else:
            out.append(c)
            i += 1
    return "".join(out)


def matching(text, open_at, opening="{", closing="}"):
    """Index of the bracket closing the one at open_at (the end of the text if none does)."""
    depth = 0
    for k in range(open_at, len(text)):
        if text[k] == opening:
            depth += 1
        elif text[k] == closing:
            depth -= 1
            if depth == 0:
                return k
    return len(text) - 1


def split_parens(header):
    """(text before the first top-level '(' , text after its matching ')') or None."""
    start = header.find("(")
    if start < 0:
        return None
    end = matching(header, start, "(", ")")
    if header[end] != ")":
        return None
    return header[:start], header[end + 1 :]


def function_name(before):
    before = before.strip()
    m = re.search(r"(operator\s*[^\w\s]+|operator\s+\w[\w:<>\s*&]*|[~\w][\w:<>,~]*)\s*$", before)
    return re.sub(r"\s+", " ", m.group(1)) if m else before.split()[-1] if before else "?"


def classify(header):
    """'namespace', 'type', 'function' (with its name) or 'other' for the text before a '{'."""
    h = header.strip()
    if re.match(r"^(inline\s+)?namespace\b", h) or re.match(r'^extern\s+"', h):
        return "namespace", None
    parts = split_parens(h)
    if re.search(r"\b(class|struct|union|enum)\b", h.split("(")[0]) and not (parts and "=" not in parts[0] and
                                                                           re.search(r"\)\s*$", h)):
        return "type", None
    if parts is None:
        return "other", None
    before, after = parts
    if re.search(r"(^|[^=!<>])=($|[^=])", before.replace("operator=", "").replace("operator==", "")):
        return "other", None  # an initializer (a lambda or a table at namespace scope)
    if re.search(r"\b(if|for|while|switch|catch|return)\s*$", before):
        return "other", None
    rest = after.strip()
    # A constructor's initializer list: everything after ':' is member initializers.
    rest = re.sub(r"^:.*$", "", rest, flags=re.S).strip()
    rest = re.sub(r"->.*$", "", rest, flags=re.S).strip()  # trailing return type
    rest = re.sub(r"\bnoexcept\s*\(.*\)", "", rest).strip()
    rest = re.sub(r"\brequires\b.*$", "", rest, flags=re.S).strip()
    rest = re.sub(r"__attribute__\s*\(\(.*\)\)", "", rest).strip()
    if all(w in QUALIFIERS or w in ("&", "&&") for w in rest.split()):
        return "function", function_name(before)
    return "other", None


def header_before(text, brace):
    """The text of the declaration that the brace at `brace` opens, and where it starts."""
    k = brace - 1
    paren = 0
    while k >= 0:
        c = text[k]
        if c == ")":
            paren += 1
        elif c == "(":
            paren -= 1
        elif paren == 0 and c in ";{}":
            break
        k -= 1
    return text[k + 1 : brace], k + 1


def scan(path):
    text = blank_comments_and_literals(open(path, encoding="utf-8", errors="replace").read())
    found = []
    i, n = 0, len(text)
    while i < n:
        if text[i] == "}":
            i += 1
            continue
        if text[i] != "{":
            i += 1
            continue
        header, start = header_before(text, i)
        # A constructor's member initialised with braces (x_{1}): the body is a later brace.
        ctor = split_parens(header)
        if ctor and re.match(r"^\s*:", ctor[1]) and re.search(r"[\w>]\s*$", header) and \
                header.strip().split()[-1] not in QUALIFIERS:
            end = matching(text, i)
            j = end + 1
            while j < n and text[j] in " \t\n,":
                j += 1
            # Continue to the body's brace: the next '{' not preceded by a member name.
            k = j
            while k < n:
                if text[k] == "{":
                    pre = text[start:k]
                    if not re.search(r"[\w>]\s*$", pre) or pre.strip().split()[-1] in QUALIFIERS:
                        break
                    k = matching(text, k) + 1
                    continue
                k += 1
            if k >= n:
                break
            kind, name = "function", function_name(ctor[0])
            body = k
        else:
            kind, name = classify(header)
            body = i
        if kind in ("namespace", "type"):
            i += 1  # descend: definitions inside are found on the way
            continue
        end = matching(text, body)
        if kind == "function":
            name_at = start + len(header) - len(header.lstrip())
            first = text.count("\n", 0, name_at) + 1
            last = text.count("\n", 0, end) + 1
            found.append((last - first + 1, first, name))
        i = end + 1
    return found


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--max", type=int, default=80, help="report functions longer than this (lines)")
    ap.add_argument("paths", nargs="*", default=["src", "apps"])
    args = ap.parse_args()
    rows = []
    for p in args.paths:
        files = [p] if os.path.isfile(p) else [
            os.path.join(d, f) for d, _, fs in os.walk(p) for f in fs if f.endswith(EXTENSIONS)]
        for f in sorted(files):
            rows += [(lines, f, line, name) for lines, line, name in scan(f) if lines > args.max]
    for lines, f, line, name in sorted(rows, key=lambda r: (-r[0], r[1], r[2])):
        print(f"{f}:{line}  {lines}  {name}")
    if not rows:
        print(f"no function over {args.max} lines", file=sys.stderr)


if __name__ == "__main__":
    main()
