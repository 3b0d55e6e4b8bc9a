#!/usr/bin/env python3
"""The repository cites only documents it has: the citations gate (ctest repository_citations).

Flagged, in every text file the repository tracks (sources, scripts, configs, docs, python/):
- the developers' own documents kept outside the repository, in any form: DESIGN.md, STYLE.md,
  PAPERS.md, SACREBLEU.md, DEVELOPERS.md, or their names without ".md" (DESIGN, STYLE, PAPERS,
  DEVELOPERS in capitals; "the SACREBLEU spec/doc/notes"), and phrases that point to them ("the
  design doc", "the style guide", "the house style");
- any path under ../shared/ but the data folder ../shared/data itself (tests read the corpora
  there; its documents are not the repository's);
- any "*.md" path that is not a file of the repository (looked up beside the citing file, at the
  top and in docs/), but for the output files and placeholders in ALLOWED below;
- a section number ("section 4.2", "§4") in a file that names no public source it could be a
  section of (an RFC, FIPS, a paper): such numbers were sections of the outside documents.
A citation of a document a reader cannot open sends them to nothing: say what it says, in the
repository's own words, or point to a file the repository has. Exits 1 and lists the citations.
Usage: check_citations.py [REPO]"""
import os
import re
import subprocess
import sys

# Used when the repository is not a git checkout (a source archive).
SCAN_DIRS = ["src", "apps", "tests", "regression", "bench", "tools", "fuzz", "cmake", "docs", "python",
             "marian-style-configs", ".ci"]
ROOT_FILES = ["CMakeLists.txt", "README.md", "ARCHITECTURE.md", "RESEARCH.md", "Dockerfile",
              "Dockerfile.cuda", "pyproject.toml"]
SKIP = ("fuzz/corpus/", "tests/convert/fixtures/")  # inputs, not prose
CITATION = re.compile(r"(?<![\w/.$}{<>-])((?:\.\./|[\w-]+/)*[\w.-]+\.md)\b")
OUTSIDE_NAMES = re.compile(r"\b(?:DESIGN|STYLE|PAPERS|DEVELOPERS)\b|\bSACREBLEU\.md\b|"
                           r"\bSACREBLEU (?:spec|specification|doc|document|notes)\b")
OUTSIDE_PHRASES = re.compile(r"\b(?:design (?:doc|document|notes)|style guide|house style|"
                             r"(?:the|our) (?:papers|sacrebleu) (?:doc|document|notes|summary))\b", re.I)
SHARED = re.compile(r"\.\./shared/(?!data\b)[\w./-]*|\.\./shared/data/[\w./-]*\.md\b")
SECTION = re.compile(r"\b[Ss]ection \d+(?:\.\d+)*|§ ?\d+(?:\.\d+)*")
PUBLIC_SOURCE = re.compile(r"\bRFC ?\d+|\bFIPS\b|\bpapers?\b|et al\.")
# Files the repository's scripts write (not documents to read) and usage placeholders.
ALLOWED = {"OUT/results.md", "DIR/SOURCE.md", "PAGE.md", "out/research/results.md", "RUN/row.md"}


def files(repo):
    try:
        out = subprocess.run(["git", "-C", repo, "ls-files", "--cached", "--others", "--exclude-standard"],
                             capture_output=True, text=True, check=True).stdout
        names = [n for n in out.splitlines() if os.path.isfile(os.path.join(repo, n))]
    except (OSError, subprocess.CalledProcessError):
        names = [n for n in ROOT_FILES if os.path.isfile(os.path.join(repo, n))]
        for top in SCAN_DIRS:
            for d, dirs, fs in os.walk(os.path.join(repo, top)):
                dirs[:] = [x for x in dirs if x != "__pycache__"]
                names += [os.path.relpath(os.path.join(d, n), repo) for n in fs]
    return sorted(n for n in names if not n.startswith(SKIP))


def resolves(repo, rel, cited):
    here = os.path.dirname(rel)
    for base in (here, "", "docs"):
        path = os.path.normpath(os.path.join(repo, base, cited))
        if path.startswith(os.path.abspath(repo) + os.sep) and os.path.isfile(path):
            return True
    return False


def in_url(line, m):
    """True when the match is inside a URL or is the text of a link to one."""
    start = line.rfind(" ", 0, m.start()) + 1
    if "://" in line[start:m.end()]:
        return True
    rest = line[m.end():]
    return re.match(r"[^\]]*\]\(https?://", rest) is not None


def check_line(repo, rel, line):
    for m in OUTSIDE_NAMES.finditer(line):
        yield f"names {m.group(0)}, a document kept outside the repository"
    for m in OUTSIDE_PHRASES.finditer(line):
        yield f"points to '{m.group(0)}', a document kept outside the repository"
    for m in SHARED.finditer(line):
        yield f"cites {m.group(0)}, outside the repository"
    for m in CITATION.finditer(line):
        cited = m.group(1)
        if cited.startswith("../shared/") or cited in ALLOWED or in_url(line, m):
            continue
        if not resolves(repo, rel, cited):
            yield f"cites {cited}, which the repository does not have"


def main():
    repo = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else ".")
    bad = []
    for rel in files(repo):
        if rel == "tools/check_citations.py":  # it names them to find them
            continue
        try:
            text = open(os.path.join(repo, rel), encoding="utf-8").read()
        except (UnicodeDecodeError, OSError):
            continue
        public = PUBLIC_SOURCE.search(text) is not None
        for n, line in enumerate(text.splitlines(), 1):
            bad += [f"{rel}:{n}: {why}" for why in check_line(repo, rel, line)]
            if not public:
                bad += [f"{rel}:{n}: '{m.group(0)}' of no named public source (an outside document's section?)"
                        for m in SECTION.finditer(line)]
    for b in bad:
        print(b)
    print(f"citations: {len(bad)} of documents the repository does not have")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
