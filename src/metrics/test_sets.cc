#include "metrics/test_sets.h"

#include <algorithm>
#include <cstdlib>
#include <filesystem>

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
  t.pairs.push_back(
      {"en-fr", "newstest2014-fren-src.en.sgm", "newstest2014-fren-ref.fr.sgm", "newstest2014"});
  t.pairs.push_back(
      {"fr-en", "newstest2014-fren-src.fr.sgm", "newstest2014-fren-ref.en.sgm", "newstest2014"});
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
      wmt14("wmt14/full",
            "Evaluation data released after official evaluation for further research.",
            "https://statmt.org/wmt14/test-full.tgz"),
      wmt14("wmt14", "Official evaluation data.", "https://statmt.org/wmt14/test-filtered.tgz"),
      multi_way("wmt13", "newstest2013", "newstest2013", "https://statmt.org/wmt13/test.tgz", true),
      multi_way("wmt12", "newstest2012", "newstest2012", "https://statmt.org/wmt12/test.tgz", true),
      multi_way("wmt11", "newstest2011", "newstest2011", "https://statmt.org/wmt11/test.tgz", true),
      multi_way("wmt10", "newstest2010", "newstest2010", "https://statmt.org/wmt10/test.tgz", true),
      multi_way("wmt09", "newstest2009", "newstest2009", "https://statmt.org/wmt09/test.tgz", true),
      multi_way("wmt08", "newstest2008", "news-test2008", "https://statmt.org/wmt08/test.tgz",
                false),
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
  // os.path.join("", name) is the relative name: "." says the same.
  if (const char* dir = std::getenv("SACREBLEU"); dir != nullptr) return *dir != '\0' ? dir : ".";
  const char* home = std::getenv("HOME");
  return std::string(home != nullptr ? home : ".") + "/.sacrebleu";
}

std::string test_set_file(const std::string& cache, const TestSet& set, const std::string& pair,
                          const std::string& field) {
  return CachedTestSet{set.name, cache + "/" + set.name, {}}.file(pair, field);
}

namespace {

namespace fs = std::filesystem;

std::string file_stem(const std::string& set_name) {
  std::string stem = set_name;
  std::replace(stem.begin(), stem.end(), '/', '_');
  return stem + ".";
}

// sacreBLEU's order of fields: src, references, docid, genre, origlang, the rest.
int field_rank(const std::string& f) {
  if (f == "src") return 0;
  if (f == "ref" || f.starts_with("ref:")) return 1;
  if (f == "docid") return 2;
  if (f == "genre") return 3;
  return f == "origlang" ? 4 : 5;
}

bool all_digits(std::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

// ref before ref:0 ref:1 ... ref:10 (numbers by value), then the translators by name.
bool field_before(const std::string& a, const std::string& b) {
  if (field_rank(a) != field_rank(b)) return field_rank(a) < field_rank(b);
  if (field_rank(a) == 1 && a.size() > 4 && b.size() > 4) {
    const std::string_view x = std::string_view(a).substr(4), y = std::string_view(b).substr(4);
    if (all_digits(x) && all_digits(y) && x.size() != y.size()) return x.size() < y.size();
  }
  return a < b;
}

// A name that stays inside the cache: no empty, "." or ".." part.
bool safe_set_name(const std::string& name) {
  if (name.empty() || name.front() == '/' || name.back() == '/') return false;
  size_t start = 0;
  for (;;) {
    const size_t slash = std::min(name.find('/', start), name.size());
    const std::string part = name.substr(start, slash - start);
    if (part.empty() || part == "." || part == "..") return false;
    if (slash == name.size()) return true;
    start = slash + 1;
  }
}

// The translators sacreBLEU 2.6.0 scores against in its 2021+ XML sets ("" is the field "ref").
std::optional<std::vector<std::string>> xml_translators(const std::string& set,
                                                        const std::string& pair) {
  using V = std::vector<std::string>;
  if (set == "wmt24") return V{"refA"};
  if (set == "wmt23") return pair == "en-he" || pair == "he-en" ? V{"refB"} : V{"refA"};
  if (set == "wmt22") {
    if (pair == "cs-en" || pair == "en-cs") return V{"B"};
    return pair == "liv-en" || pair == "ru-sah" ? V{""} : V{"A"};
  }
  static const std::map<std::string, V> wmt21 = {
      {"wmt21", {"A"}},   {"wmt21/systems", {"A"}}, {"wmt21/B", {"B"}}, {"wmt21/AB", {"A", "B"}},
      {"wmt21/C", {"C"}}, {"wmt21/AC", {"A", "C"}}, {"wmt21/D", {"D"}}, {"wmt21/dev", {"A", ""}}};
  if (const auto it = wmt21.find(set); it != wmt21.end()) return it->second;
  return std::nullopt;
}

}  // namespace

std::vector<std::string> CachedTestSet::pairs() const {
  std::vector<std::string> out;
  for (const auto& [pair, f] : fields) out.push_back(pair);
  return out;
}

std::string CachedTestSet::file(const std::string& pair, const std::string& field) const {
  std::string f = field;
  std::replace(f.begin(), f.end(), ':', '-');  // sacreBLEU: "ref:A" is stored as "ref-A"
  return dir + "/" + file_stem(name) + pair + "." + f;
}

std::vector<std::string> CachedTestSet::reference_fields(const std::string& pair) const {
  std::vector<std::string> refs;
  const auto it = fields.find(pair);
  if (it == fields.end()) return refs;
  const auto chosen = xml_translators(name, pair);
  for (const auto& f : it->second) {
    if (field_rank(f) != 1) continue;
    const std::string translator = f == "ref" ? "" : f.substr(4);
    if (!chosen || std::find(chosen->begin(), chosen->end(), translator) != chosen->end())
      refs.push_back(f);
  }
  return refs;
}

std::optional<CachedTestSet> find_cached_test_set(const std::string& cache,
                                                  const std::string& name) {
  if (!safe_set_name(name)) return std::nullopt;
  CachedTestSet set{name, cache + "/" + name, {}};
  const std::string stem = file_stem(name);
  std::error_code ec;
  for (fs::directory_iterator it(set.dir, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string file = it->path().filename().string();
    const size_t dot = file.find('.', stem.size());
    if (!file.starts_with(stem) || dot == std::string::npos || dot == stem.size() ||
        dot + 1 == file.size() || !it->is_regular_file(ec)) {
      continue;
    }
    std::string field = file.substr(dot + 1);
    if (field.starts_with("ref-")) field[3] = ':';
    set.fields[file.substr(stem.size(), dot - stem.size())].push_back(field);
  }
  if (set.fields.empty()) return std::nullopt;
  for (auto& [pair, f] : set.fields) std::sort(f.begin(), f.end(), field_before);
  return set;
}

std::vector<std::string> cached_test_set_names(const std::string& cache) {
  std::vector<std::string> names;
  std::error_code ec;
  for (fs::recursive_directory_iterator it(cache, ec), end; !ec && it != end; it.increment(ec)) {
    if (!it->is_directory(ec)) continue;
    if (it->path().filename() == "raw") {
      it.disable_recursion_pending();  // sacreBLEU's downloads
      continue;
    }
    const std::string name = fs::relative(it->path(), cache, ec).generic_string();
    if (!ec && find_cached_test_set(cache, name)) names.push_back(name);
  }
  std::sort(names.begin(), names.end());
  return names;
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
