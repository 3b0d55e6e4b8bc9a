// The Moses tokenizer (mosesdecoder scripts/tokenizer/tokenizer.perl, the default mode:
// no -penn, no -protected, no -x), rule for rule, for the tokenized BLEU that the RealFormer,
// ADMIN and fairseq papers report. Output equals the Perl
// script's line without its newline, byte for byte (the tests check it against the script).
//
// Character classes are Perl's Unicode properties, taken from ICU: IsAlnum = Alphabetic or
// Nd, IsAlpha = Alphabetic, IsN = general category N, IsLower = Lowercase, \s = White_Space.
// The rules, in order, on " line ":
//   whitespace runs -> one space; control characters U+0000-001F removed; trim
//   every character that is not IsAlnum, whitespace, . ' ` , - gets a space on each side
//   -a (aggressive): an IsAlnum '-' IsAlnum hyphen becomes " @-@ "
//   runs of two or more dots stay one token (the DOTMULTI placeholders)
//   ',' is split off unless it sits between digits (IsN); final "N," is split (see below)
//   apostrophes by language: en splits right (it 's), fr/it/ga/ca left (l' avion), so/tdt
//     keep glottals, others isolate every '
//   a word ending in '.' is split ("word .") unless its stem holds a '.' and a letter, is a
//     non-breaking prefix, or the next word starts lower-case; a numeric-only prefix stays
//     before a number; the last word of the line is always split (see below)
//   a final ".'" is split; & | < > ' " [ ] are escaped as &amp; &#124; &lt; &gt; &apos;
//     &quot; &#91; &#93; (unless escape is off: -no-escape)
// A line that is empty or all whitespace comes back unchanged, as the script prints it.
//
// final_dot_rules: mosesdecoder master's three end-of-line rules (the last word's final dot
// split unconditionally, pull request 204 of November 2018; "N," and ".'" at the end split),
// which the prepare scripts of fairseq and ADMIN got when they cloned the repository. Off:
// the 2016 script that the mosestokenizer package on PyPI carries (tokenizer-v1.1.perl).
#pragma once

#include <istream>
#include <string>
#include <string_view>
#include <unordered_map>

namespace realmt::metrics {

// A language's non-breaking prefixes (nonbreaking_prefix.<lang>): 1 = always, 2 = only
// before a number (#NUMERIC_ONLY#).
struct NonbreakingPrefixes {
  std::unordered_map<std::string, int> kind;
  int get(const std::string& word) const {
    const auto it = kind.find(word);
    return it == kind.end() ? 0 : it->second;
  }
};

// Parses a nonbreaking_prefix file as the script reads it: '#' lines and empty lines skipped,
// "X #NUMERIC_ONLY#" marks X numeric-only, any other line is a prefix as it stands.
NonbreakingPrefixes parse_nonbreaking_prefixes(std::istream& in);
// dir/nonbreaking_prefix.<lang>; throws naming the file when it is missing.
NonbreakingPrefixes load_nonbreaking_prefixes(const std::string& dir, const std::string& lang);

struct MosesTokenizerOptions {
  std::string lang = "en";      // -l
  bool aggressive = false;      // -a: split hyphens between letters/digits as @-@
  bool escape = true;           // false: -no-escape
  bool final_dot_rules = true;  // mosesdecoder master's end-of-line rules (above)
};

class MosesTokenizer {
 public:
  MosesTokenizer(MosesTokenizerOptions options, NonbreakingPrefixes prefixes);
  // One line (no newline) of valid UTF-8 -> the script's output line without its newline.
  std::string tokenize(std::string_view line) const;
  const MosesTokenizerOptions& options() const { return options_; }

 private:
  MosesTokenizerOptions options_;
  NonbreakingPrefixes prefixes_;
};

}  // namespace realmt::metrics
