#!/usr/bin/env python3
"""Samples of a translated test set for tools/quickstart: plain sentences, sentences with format
placeholders and long sentences, each with a line saying whether it matches the reference.

  tools/data/samples.py SOURCE HYPOTHESES REFERENCE [--each N]
"""
import argparse
import re
from collections import Counter

# printf (%s %5.2f %lld %1$s), Python %(name)s, Qt %1, brace {0} {name}: what realmt-data split masks.
PLACEHOLDER = re.compile(r"%(?:\([^) ]*\))?[0-9$\-+#'.*]*[hlLqjzt]*[A-Za-z@]|%[0-9]+|\{[^} {]+\}")
LONG_WORDS = 15


def loose(text):
    return " ".join(re.findall(r"\w+", text.casefold()))


def verdict(src, hyp, ref):
    if hyp == ref:
        line = "matches the reference exactly"
    elif loose(hyp) == loose(ref):
        line = "matches the reference but for case, punctuation or spacing"
    else:
        ref_words, hyp_words = Counter(loose(ref).split()), Counter(loose(hyp).split())
        found = sum((ref_words & hyp_words).values())
        line = f"differs from the reference ({found} of {sum(ref_words.values())} reference words found)"
    wanted = Counter(PLACEHOLDER.findall(src))
    if wanted:
        lost = wanted - Counter(PLACEHOLDER.findall(hyp))
        line += "; placeholders " + ("kept" if not lost else "lost: " + " ".join(sorted(lost.elements())))
    return line


def pick(src, each):
    placeholders = [i for i, s in enumerate(src) if PLACEHOLDER.search(s)][:each]
    long = [i for i, s in enumerate(src) if len(s.split()) >= LONG_WORDS and i not in placeholders][:each]
    taken = set(placeholders + long)
    plain = [i for i in range(len(src)) if i not in taken][:each]
    return [("plain", plain), ("placeholders", placeholders), (f"long: {LONG_WORDS}+ words", long)]


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("source")
    ap.add_argument("hypotheses")
    ap.add_argument("reference")
    ap.add_argument("--each", type=int, default=2, help="samples of each kind")
    a = ap.parse_args()
    src, hyp, ref = ([l.rstrip("\n") for l in open(p, encoding="utf-8")] for p in (a.source, a.hypotheses, a.reference))
    if not len(src) == len(hyp) == len(ref):
        raise SystemExit(f"samples: {len(src)} sources, {len(hyp)} translations, {len(ref)} references")
    for kind, lines in pick(src, a.each):
        for i in lines:
            print(f"  [{kind}, test line {i + 1}]")
            print(f"  source:    {src[i]}\n  realmt:    {hyp[i]}\n  reference: {ref[i]}")
            print(f"  match:     {verdict(src[i], hyp[i], ref[i])}\n")


if __name__ == "__main__":
    main()
