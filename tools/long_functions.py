#!/usr/bin/env python3
"""The function-length gate: C++/CUDA function definitions over 80 lines fail unless allowed.

  tools/long_functions.py [--max N] [--allow FILE] [--list] [PATH...]   (default paths: src apps python)

ctest `long_functions` runs it with no arguments. Every function longer than --max lines (80) must
have a line in the allow-list (--allow, default tools/long_functions_allow.txt: "PATH FUNCTION
REASON", PATH relative to the repository, FUNCTION as this script names it, a reason a reviewer
can judge); one that has none fails, and so does a line of the list whose function is gone (renamed
or split since: delete the line); a listed function within the limit is only noted. --list prints every long function, allowed or not, and
always exits 0.

A function's length runs from the line of its name to the line of its closing brace. The scan
is textual: comments, string and character literals are blanked, then braces are matched. A
brace opened at namespace or class scope starts a function body when the text before it ends in a
parameter list (with qualifiers, a trailing return type or a constructor's initializer list);
lambdas and local classes count as part of the function around them. Output, longest first:
"path:line  lines  name". Exit status 1 when a long function is not allowed or an allow-list line
is stale, 2 on a malformed allow-list line.
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


def read_allow(path):
    """{(path, function): reason} from the allow-list; exits 2 on a line without a reason."""
    allowed = {}
    with open(path, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            parts = line.split(None, 2)
            if len(parts) < 3:
                print(f"{path}:{n}: want 'PATH FUNCTION REASON', got '{line}'", file=sys.stderr)
                sys.exit(2)
            allowed[(parts[0], parts[1])] = parts[2]
    return allowed


def main():
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--max", type=int, default=80, help="report functions longer than this (lines)")
    ap.add_argument("--allow", default=os.path.join(root, "tools", "long_functions_allow.txt"),
                    help="the allow-list (PATH FUNCTION REASON a line)")
    ap.add_argument("--list", action="store_true", help="print every long function and exit 0")
    ap.add_argument("paths", nargs="*")
    args = ap.parse_args()
    if not args.paths:
        os.chdir(root)  # the allow-list's paths are relative to the repository
        args.paths = ["src", "apps", "python"]
    rows = []
    for p in args.paths:
        files = [p] if os.path.isfile(p) else [
            os.path.join(d, f) for d, _, fs in os.walk(p) for f in fs if f.endswith(EXTENSIONS)]
        for f in sorted(files):
            rows += [(lines, os.path.normpath(f), line, name) for lines, line, name in scan(f) if lines > args.max]
    rows.sort(key=lambda r: (-r[0], r[1], r[2]))
    if args.list:
        for lines, f, line, name in rows:
            print(f"{f}:{line}  {lines}  {name}")
        return 0
    allowed = read_allow(args.allow)
    bad = [r for r in rows if (r[1], r[3]) not in allowed]
    for lines, f, line, name in bad:
        print(f"{f}:{line}  {lines}  {name}: over {args.max} lines and not in {os.path.relpath(args.allow)}")
    long_ones = {(r[1], r[3]) for r in rows}
    scanned = tuple(os.path.normpath(p) for p in args.paths)
    listed = [k for k in allowed if k[0].startswith(scanned)]
    present = set()
    for path in {k[0] for k in listed if os.path.isfile(k[0])}:
        present |= {(path, name) for _, _, name in scan(path)}
    stale = [k for k in listed if k not in present]
    for path, name in stale:
        print(f"{os.path.relpath(args.allow)}: {path} has no function {name} any more: delete its line")
    # A listed function now within the limit is only noted: wrapping lines (tools/format --fix)
    # moves some functions across it and back.
    for path, name in (k for k in listed if k in present and k not in long_ones):
        print(f"note: {path} {name} is within {args.max} lines now: its allow-list line can go")
    print(f"long functions: {len(rows)} over {args.max} lines, {len(rows) - len(bad)} allowed, "
          f"{len(bad)} not allowed, {len(stale)} stale allow-list lines")
    return 1 if bad or stale else 0


if __name__ == "__main__":
    sys.exit(main())
