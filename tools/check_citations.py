#!/usr/bin/env python3
"""The repository cites only documents it has. Flagged, in its sources, scripts, configs and docs:
the project documents kept outside the repository (the design, style, papers and sacreBLEU
specifications the developers work from, by name), any document under ../shared/, and paths into
the repository's own folders (docs/, src/, bench/, ...) that do not exist. A citation of a
document a reader cannot open sends them to nothing: say what it says, in the repository's own
words, or point to a file the repository has. Exits 1 and lists the citations.
Usage: check_citations.py [REPO]"""
import os
import re
import sys

SCAN_DIRS = ["src", "apps", "tests", "regression", "bench", "tools", "fuzz", "cmake", "docs",
             "marian-style-configs", ".ci"]
ROOT_FILES = ["CMakeLists.txt", "README.md", "ARCHITECTURE.md", "RESEARCH.md", "Dockerfile",
              "Dockerfile.cuda"]
SUFFIXES = (".cc", ".h", ".cu", ".cuh", ".py", ".sh", ".txt", ".cmake", ".md", ".yml", ".yaml")
CITATION = re.compile(r"(?<![\w/.$}{-])((?:\.\./|[\w-]+/)*[\w.-]+\.md)\b")
# The developers' documents that live beside the repository, not in it.
OUTSIDE = {"DESIGN.md", "SACREBLEU.md", "PAPERS.md", "STYLE.md", "DEVELOPERS.md"}
OWN_FOLDERS = tuple(d + "/" for d in SCAN_DIRS if not d.startswith("."))


def files(repo):
    for name in ROOT_FILES:
        if os.path.isfile(os.path.join(repo, name)):
            yield name
    for top in SCAN_DIRS:
        for d, dirs, names in os.walk(os.path.join(repo, top)):
            dirs[:] = [x for x in dirs if x not in ("corpus", "__pycache__")]
            for n in names:
                if n.endswith(SUFFIXES) or os.path.basename(d) == "tools":
                    yield os.path.relpath(os.path.join(d, n), repo)


def resolves(repo, rel, cited):
    here = os.path.dirname(rel)
    for base in (here, "", "docs"):
        path = os.path.normpath(os.path.join(repo, base, cited))
        if path.startswith(os.path.abspath(repo) + os.sep) and os.path.isfile(path):
            return True
    return False


def main():
    repo = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else ".")
    bad = []
    for rel in sorted(set(files(repo)) - {"tools/check_citations.py"}):  # it names them to find them
        try:
            text = open(os.path.join(repo, rel), encoding="utf-8").read()
        except (UnicodeDecodeError, OSError):
            continue
        for n, line in enumerate(text.splitlines(), 1):
            for m in CITATION.finditer(line):
                cited = m.group(1)
                suspect = (os.path.basename(cited) in OUTSIDE or cited.startswith("../shared/") or
                           cited.startswith(OWN_FOLDERS))
                if not suspect or resolves(repo, rel, cited):
                    continue
                bad.append(f"{rel}:{n}: cites {cited}, which the repository does not have")
    for b in bad:
        print(b)
    print(f"citations: {len(bad)} of documents the repository does not have")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
