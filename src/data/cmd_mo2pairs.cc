// realmt-data mo2pairs: English-French pairs from gettext catalogs.
#include <fstream>
#include <iostream>
#include <map>

#include "common/options.h"
#include "core/error.h"
#include "core/log.h"
#include "data/cli.h"
#include "data/commands.h"
#include "data/hash_set.h"
#include "data/line_reader.h"
#include "data/mo_catalog.h"
#include "data/normalize.h"

namespace realmt::data {

int run_mo2pairs(const Args& args) {
  std::vector<std::string> inputs, positionals;
  std::string list, src_out, tgt_out;
  MoFilterOptions f;
  OptionSet set("realmt-data mo2pairs", "English-French pairs from gettext .mo catalogs (for tools/fetch-corpus)");
  set.details("e.g. realmt-data mo2pairs CATALOG.mo... [--list FILE] --src-out OUT.en --tgt-out OUT.fr\n"
              "For each entry: context dropped, singular form of plurals kept, markup and\n"
              "keyboard accelerators removed, white space folded, text NFC-normalized. Drops\n"
              "untranslated, multi-line, format-only, over-long and badly proportioned entries\n"
              "and exact duplicate pairs, and prints how many for each reason.");
  const std::string g = "Options";
  set.add(g, "input", &inputs, "French .mo catalogs (msgid English, msgstr French); or give them as the arguments")
      .add(g, "list", &list, "File naming one .mo catalog a line (added to --input)")
      .add(g, "src-out", &src_out, "English side")
      .add(g, "tgt-out", &tgt_out, "French side")
      .add(g, "max-words", &f.max_words, "Drop pairs with a side over this many words")
      .add(g, "min-letters", &f.min_letters, "Drop pairs with a side of fewer letters outside format directives")
      .add(g, "max-ratio", &f.max_ratio, "Drop pairs with a character-length ratio beyond this")
      .short_name("input", 'i')
      .required("src-out")
      .required("tgt-out")
      .positional("CATALOG.mo", &positionals, "French .mo catalogs");
  if (!cli::parse(set, args)) return 0;
  inputs.insert(inputs.end(), positionals.begin(), positionals.end());
  if (!list.empty()) {
    for (const auto& line : read_lines(list)) {
      if (!line.empty()) inputs.push_back(line);
    }
  }
  REALMT_USAGE_CHECK(!inputs.empty(), "realmt-data mo2pairs: no catalog given (CATALOG.mo... or --list FILE)");
  std::ofstream en_out(src_out, std::ios::binary), fr_out(tgt_out, std::ios::binary);
  REALMT_CHECK(en_out.good() && fr_out.good(), "mo2pairs: cannot write {} / {}", src_out, tgt_out);
  std::map<std::string, int64_t> dropped;
  int64_t entries = 0, kept = 0;
  HashSet seen;
  std::string en, fr;
  for (const auto& path : inputs) {
    for (const MoEntry& e : read_mo(path)) {
      ++entries;
      MoVerdict v = clean_mo_entry(e, f, en, fr);
      if (v != MoVerdict::kKept) {
        ++dropped[verdict_name(v)];
        continue;
      }
      en = normalize(en, Normalization::kNfc);
      fr = normalize(fr, Normalization::kNfc);
      if (!seen.insert(hash_text(fr, hash_text(en) ^ 0x9E3779B97F4A7C15ULL))) {
        ++dropped["duplicate"];
        continue;
      }
      en_out << en << '\n';
      fr_out << fr << '\n';
      ++kept;
    }
  }
  en_out.flush(), fr_out.flush();
  REALMT_CHECK(en_out.good() && fr_out.good(), "mo2pairs: writing {} / {} failed", src_out, tgt_out);
  std::string summary = format("mo2pairs: {} catalogs, {} entries, kept {}", inputs.size(), entries, kept);
  for (const auto& [reason, n] : dropped) summary += format("; {} {}", reason, n);
  log::info("{}", summary);
  return 0;
}

}  // namespace realmt::data
