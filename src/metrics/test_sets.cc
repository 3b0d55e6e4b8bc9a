#include "metrics/test_sets.h"

#include <cstdlib>

#include "metrics/unicode_text.h"

namespace realmt::metrics {

namespace {

// The multi-way WMT news test sets of 2008-2013 (one SGM per language, "-src" in the name even
// for the reference) and the 2014 English-French pair, as sacreBLEU 2.6.0's DATASETS has them.
TestSet multi_way(const std::string& name, const std::string& year_set, const std::string& plain,
                  const std::string& url, bool document_fields) {
  TestSet t{name, "Official evaluation data.", url, document_fields, {}};
  t.pairs.push_back({"en-fr", year_set + "-src.en.sgm", year_set + "-src.fr.sgm", plain});
  t.pairs.push_back({"fr-en", year_set + "-src.fr.sgm", year_set + "-src.en.sgm", plain});
  return t;
}

TestSet wmt14(const std::string& name, const std::string& description, const std::string& url) {
  TestSet t{name, description, url, true, {}};
  t.pairs.push_back({"en-fr", "newstest2014-fren-src.en.sgm", "newstest2014-fren-ref.fr.sgm", "newstest2014"});
  t.pairs.push_back({"fr-en", "newstest2014-fren-src.fr.sgm", "newstest2014-fren-ref.en.sgm", "newstest2014"});
  return t;
}

}  // namespace

const TestSetPair* TestSet::find_pair(std::string_view pair) const {
  for (const auto& p : pairs) {
    if (p.pair == pair) return &p;
  }
  return nullptr;
}

std::vector<std::string> TestSet::fields() const {
  std::vector<std::string> f{"src", "ref"};
  if (document_fields) f.insert(f.end(), {"docid", "genre", "origlang"});
  return f;
}

const std::vector<TestSet>& known_test_sets() {
  // newstest2014 en-fr has one version: the "filtered" (wmt14) and "full" sets coincide.
  static const std::vector<TestSet> all = {
      wmt14("wmt14/full", "Evaluation data released after official evaluation for further research.",
            "https://statmt.org/wmt14/test-full.tgz"),
      wmt14("wmt14", "Official evaluation data.", "https://statmt.org/wmt14/test-filtered.tgz"),
      multi_way("wmt13", "newstest2013", "newstest2013", "https://statmt.org/wmt13/test.tgz", true),
      multi_way("wmt12", "newstest2012", "newstest2012", "https://statmt.org/wmt12/test.tgz", true),
      multi_way("wmt11", "newstest2011", "newstest2011", "https://statmt.org/wmt11/test.tgz", true),
      multi_way("wmt10", "newstest2010", "newstest2010", "https://statmt.org/wmt10/test.tgz", true),
      multi_way("wmt09", "newstest2009", "newstest2009", "https://statmt.org/wmt09/test.tgz", true),
      multi_way("wmt08", "newstest2008", "news-test2008", "https://statmt.org/wmt08/test.tgz", false),
  };
  return all;
}

const TestSet* find_test_set(std::string_view name) {
  for (const auto& t : known_test_sets()) {
    if (t.name == name) return &t;
  }
  return nullptr;
}

std::string sacrebleu_cache_dir() {
  if (const char* dir = std::getenv("SACREBLEU"); dir != nullptr && *dir != '\0') return dir;
  const char* home = std::getenv("HOME");
  return std::string(home != nullptr ? home : ".") + "/.sacrebleu";
}

std::string test_set_file(const std::string& cache, const TestSet& set, const std::string& pair,
                          const std::string& field) {
  std::string file = set.name;
  for (char& c : file) c = c == '/' ? '_' : c;
  std::string f = field;
  for (char& c : f) c = c == ':' ? '-' : c;  // sacreBLEU: "ref:A" is stored as "ref-A"
  return cache + "/" + set.name + "/" + file + "." + pair + "." + f;
}

std::string sacrebleu_clean(std::string_view text) {
  // re.sub(r"\s+", " ", s.strip()) == " ".join(s.split()): Python's \s is str.isspace().
  std::string out;
  collapse_whitespace(text, out);
  return out;
}

std::optional<std::string> sgm_segment_text(std::string_view line) {
  if (line.substr(0, 5) != "<seg ") return std::nullopt;
  if (!line.empty() && line.back() == '\n') line.remove_suffix(1);
  // re.sub(r"<seg.*?>(.*)</seg>.*?", r"\1", line): the text between the first '>' and the last
  // "</seg>", with whatever follows that "</seg>" kept; a line without one stays as it is.
  const size_t open_end = line.find('>', 4);
  const size_t close = line.rfind("</seg>");
  if (open_end == std::string_view::npos || close == std::string_view::npos || close <= open_end) {
    return sacrebleu_clean(line);
  }
  std::string text(line.substr(open_end + 1, close - open_end - 1));
  text += line.substr(close + 6);
  return sacrebleu_clean(text);
}

std::optional<std::string> sgm_doc_attribute(std::string_view line, std::string_view field) {
  // re.search(rf'{field}="(.*?)"', line) on lines starting with "<doc ".
  if (line.substr(0, 5) != "<doc ") return std::nullopt;
  const std::string key = std::string(field) + "=\"";
  const size_t start = line.find(key);
  if (start == std::string_view::npos) return std::nullopt;
  const size_t value = start + key.size();
  const size_t end = line.find('"', value);
  if (end == std::string_view::npos) return std::nullopt;
  // '.' does not match a newline: a value running past the line's end is no match.
  const std::string_view v = line.substr(value, end - value);
  if (v.find('\n') != std::string_view::npos) return std::nullopt;
  return std::string(v);
}

}  // namespace realmt::metrics
