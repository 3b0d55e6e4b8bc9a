// sacreBLEU's test-set cache: CACHE/<set>/<set with '/' as '_'>.<pair>.<field>, CACHE being
// $SACREBLEU or ~/.sacrebleu, the layout sacreBLEU 2.6.0 writes after a download. realmt-bleu -t
// reads any set and pair found there (CachedTestSet); the WMT English-French news test sets
// 2008-2014 are also known by their source files (TestSet), so that realmt-data testsets can fill
// the cache without sacreBLEU. The cache text is what sacreBLEU writes from the official SGM files
// (each <seg> line's text with whitespace stripped and runs of Python whitespace collapsed to one
// space), so a cache filled by either tool serves both.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace realmt::metrics {

struct TestSetPair {
  std::string pair;     // "en-fr"
  std::string src_sgm;  // basename of the source SGM in the WMT archive (the docid/genre/origlang
                        // come from it)
  std::string ref_sgm;  // basename of the reference SGM
  std::string plain;    // basename of the plain-text release: PLAIN.<lang> (e.g. newstest2014.en)
};

struct TestSet {
  std::string name;         // sacreBLEU's name: "wmt14", "wmt14/full"
  std::string description;  // sacreBLEU's description (printed by --list)
  std::string
      url;  // the archive sacreBLEU downloads (tools/prepare-wmt14-enfr fetches the same files)
  bool document_fields = true;  // docid, genre and origlang fields (all but wmt08)
  std::vector<TestSetPair> pairs;

  const TestSetPair* find_pair(std::string_view pair) const;
  // sacreBLEU's field names for a pair: src, ref, then docid, genre, origlang.
  std::vector<std::string> fields() const;
};

// The known test sets, in sacreBLEU's --list order (names sorted in reverse).
const std::vector<TestSet>& known_test_sets();
const TestSet* find_test_set(std::string_view name);

// One test set as found in the cache, with the fields of each language pair present.
struct CachedTestSet {
  std::string name;  // "wmt14", "wmt14/full"
  std::string dir;   // CACHE/<name>
  // pair -> field names in sacreBLEU's order: src, the references (ref, or ref:0 ref:1 ..., or
  // ref:<translator>), docid, genre, origlang, then the others (domain, system outputs) sorted.
  std::map<std::string, std::vector<std::string>> fields;

  std::vector<std::string> pairs() const;  // sorted
  std::string file(const std::string& pair, const std::string& field) const;
  // The references sacreBLEU scores against: every ref field, except for its 2021+ XML sets
  // (wmt21 ... wmt24), where its table picks one translator (or two) per set and pair.
  std::vector<std::string> reference_fields(const std::string& pair) const;
};

// The set `name` under `cache`: nullopt when no file of it is there.
std::optional<CachedTestSet> find_cached_test_set(const std::string& cache,
                                                  const std::string& name);
// The names of every set in the cache (folders holding such files), sorted.
std::vector<std::string> cached_test_set_names(const std::string& cache);

// $SACREBLEU (set, even empty, as sacreBLEU reads it: empty is the working folder), else
// $HOME/.sacrebleu (sacreBLEU's SACREBLEU_DIR).
std::string sacrebleu_cache_dir();
// CACHE/<set>/<set as file name>.<pair>.<field>.
std::string test_set_file(const std::string& cache, const TestSet& set, const std::string& pair,
                          const std::string& field);

// sacreBLEU's Dataset._clean: strip, then every run of Python whitespace (NBSP included) -> ' '.
std::string sacrebleu_clean(std::string_view text);
// sacreBLEU's FakeSGMLDataset._convert_format for one line of an SGM file: the cleaned text of a
// line starting with "<seg ", nullopt for any other line.
std::optional<std::string> sgm_segment_text(std::string_view line);
// The value of attribute `field` (docid, genre, origlang) in a "<doc " line, or nullopt.
std::optional<std::string> sgm_doc_attribute(std::string_view line, std::string_view field);

}  // namespace realmt::metrics
