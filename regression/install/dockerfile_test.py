"""Static checks of Dockerfile and Dockerfile.cuda (no container tool needed): every instruction is
known, the base images are named with a tag, every COPY/ADD source exists in the build context
and is not excluded by .dockerignore, the Debian packages come from tools/install-deps, the test
suite (tools/test) runs in the build, with the portable build and the backend the file says,
and the scripts the RUN lines call exist. Usage: dockerfile_test.py REPO"""
import fnmatch
import os
import re
import shlex
import sys

KNOWN = {"FROM", "RUN", "CMD", "LABEL", "EXPOSE", "ENV", "ADD", "COPY", "ENTRYPOINT", "VOLUME", "USER",
         "WORKDIR", "ARG", "ONBUILD", "STOPSIGNAL", "HEALTHCHECK", "SHELL"}
errors = []


def fail(msg):
    errors.append(msg)


def instructions(path):
    """(line number, instruction, arguments) with continuation lines joined and comments dropped."""
    out, buf, start = [], "", 0
    for n, line in enumerate(open(path, encoding="utf-8"), 1):
        s = line.rstrip("\n")
        if not buf and (not s.strip() or s.lstrip().startswith("#")):
            continue
        if buf and s.lstrip().startswith("#"):
            continue
        if not buf:
            start = n
        if s.endswith("\\"):
            buf += s[:-1] + " "
            continue
        buf += s
        word, _, rest = buf.strip().partition(" ")
        out.append((start, word.upper(), rest.strip()))
        buf = ""
    if buf:
        fail(f"{path}: a continuation line runs past the end of the file")
    return out


def ignore_patterns(repo):
    path = os.path.join(repo, ".dockerignore")
    if not os.path.exists(path):
        fail(".dockerignore is missing: the build folders would be sent as build context")
        return []
    pats = [l.strip() for l in open(path) if l.strip() and not l.startswith("#")]
    for must in ("build*/", ".git"):
        if must not in pats:
            fail(f".dockerignore does not exclude {must}")
    return [p.rstrip("/") for p in pats]


def ignored(rel, pats):
    parts = rel.split("/")
    return any(fnmatch.fnmatch("/".join(parts[:i]), p) for p in pats for i in range(1, len(parts) + 1))


def check(repo, name, backend, pats):
    path = os.path.join(repo, name)
    if not os.path.exists(path):
        fail(f"{name} is missing")
        return
    ins = instructions(path)
    if not ins or ins[0][1] != "FROM":
        fail(f"{name}: the first instruction is not FROM")
    runs = []
    for n, word, rest in ins:
        where = f"{name}:{n}"
        if word not in KNOWN:
            fail(f"{where}: unknown instruction {word}")
        if word == "FROM":
            image = rest.split()[0]
            if not re.fullmatch(r"[a-z0-9./_-]+:[A-Za-z0-9._-]+", image) or image.endswith(":latest"):
                fail(f"{where}: base image '{image}' has no pinned tag")
        if word in ("COPY", "ADD"):
            args = [a for a in shlex.split(rest) if not a.startswith("--")]
            if any(a.startswith("--from") for a in shlex.split(rest)):
                continue
            if len(args) < 2:
                fail(f"{where}: {word} needs a source and a destination")
                continue
            for src in args[:-1]:
                if src == ".":
                    continue
                full = os.path.join(repo, src)
                if not os.path.exists(full):
                    fail(f"{where}: {word} source '{src}' does not exist in the build context")
                elif ignored(os.path.normpath(src), pats):
                    fail(f"{where}: {word} source '{src}' is excluded by .dockerignore")
            if len(args) > 2 and not args[-1].endswith("/"):
                fail(f"{where}: {word} of several files needs a destination ending in /")
        if word == "RUN":
            runs.append((where, rest))
            for script in re.findall(r"(?<![\w/.-])(tools/[\w./-]+)", rest):
                if not os.path.exists(os.path.join(repo, script)):
                    fail(f"{where}: RUN calls {script}, which does not exist")
    text = "\n".join(r for _, r in runs)
    if "tools/install-deps" not in text:
        fail(f"{name}: the Debian packages are not installed with tools/install-deps")
    tests = [(w, r) for w, r in runs if re.search(r"(^|[\s;&|])tools/test(\s|$)", r)]
    if not tests:
        fail(f"{name}: no RUN line runs the test suite (tools/test)")
    for w, r in tests:
        if f"REALMT_CUDA={backend}" not in r:
            fail(f"{w}: tools/test runs without REALMT_CUDA={backend}")
        if "REALMT_NATIVE=OFF" not in r:
            fail(f"{w}: tools/test builds for the build machine's CPU (REALMT_NATIVE=OFF missing)")
        if "cmake --install build --prefix" not in r:
            fail(f"{w}: the programs are not installed (cmake --install)")
    # install-deps must be copied in before it runs.
    copied = [n for n, w, r in ins if w == "COPY" and "tools/install-deps" in r or (w == "COPY" and r.startswith(". "))]
    first_use = [n for n, w, r in ins if w == "RUN" and "tools/install-deps" in r]
    if first_use and (not copied or min(copied) > min(first_use)):
        fail(f"{name}: tools/install-deps runs before it is copied in")
    if backend == "ON" and not re.search(r"cuda-toolkit-\d+-\d+", text):
        fail(f"{name}: no CUDA toolkit is installed")


def main():
    repo = os.path.abspath(sys.argv[1])
    pats = ignore_patterns(repo)
    check(repo, "Dockerfile", "OFF", pats)
    check(repo, "Dockerfile.cuda", "ON", pats)
    for e in errors:
        print("FAIL:", e, file=sys.stderr)
    if errors:
        sys.exit(1)
    print("Dockerfiles: OK")


main()
