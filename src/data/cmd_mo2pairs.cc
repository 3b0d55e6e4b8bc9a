// realmt-data mo2pairs: English-French pairs from gettext catalogs.
#include <fstream>
#include <iostream>
#include <map>

#include "common/options.h"
#include "core/error.h"
#include "core/log.h"
#include "data/catalog_groups.h"
#include "data/cli.h"
#include "data/commands.h"
#include "data/hash_set.h"
#include "data/line_reader.h"
#include "data/mo_catalog.h"
#include "data/match_form.h"
#include "data/normalize.h"

namespace realmt::data {

namespace {

// The masked sources (data/match_form.h) of each catalog's kept entries.
std::vector<std::vector<uint64_t>> catalog_keys(const std::vector<std::string>& inputs,
                                                const MoFilterOptions& f) {
  std::vector<std::vector<uint64_t>> keys(inputs.size());
  std::string en, fr;
  for (size_t c = 0; c < inputs.size(); ++c) {
    for (const MoEntry& e : read_mo(inputs[c])) {
      if (clean_mo_entry(e, f, en, fr) == MoVerdict::kKept) {
        keys[c].push_back(hash_text(masked_form(normalize(en, Normalization::kNfc))));
      }
    }
  }
  return keys;
}

// Each catalog's group label (same domain, or most sources shared), logged.
std::vector<std::string> catalog_labels(const std::vector<std::string>& inputs,
                                        const MoFilterOptions& f, const CatalogGroupOptions& g) {
  std::vector<std::string> domains;
  for (const auto& path : inputs) domains.push_back(catalog_domain(path));
  const CatalogGroups groups = group_catalogs(domains, catalog_keys(inputs, f), g);
  log::info(
      "mo2pairs: {} catalogs in {} groups ({} joined a catalog of the same name, {} one sharing at "
      "least "
      "{}% of its sources)",
      inputs.size(), groups.groups, groups.same_domain, groups.copies, int(g.overlap * 100 + 0.5));
  return groups.label;
}

}  // namespace

int run_mo2pairs(const Args& args) {
  std::vector<std::string> inputs, positionals;
  std::string list, src_out, tgt_out, groups_out;
  MoFilterOptions f;
  CatalogGroupOptions g_opt;
  OptionSet set("realmt-data mo2pairs",
                "English-French pairs from gettext .mo catalogs (for tools/fetch-corpus)");
  set.details(
      "e.g. realmt-data mo2pairs CATALOG.mo... [--list FILE] --src-out OUT.en --tgt-out OUT.fr\n"
      "For each entry: context dropped, singular form of plurals kept, markup and\n"
      "keyboard accelerators removed, white space folded, text NFC-normalized. Drops\n"
      "untranslated, multi-line, format-only, over-long and badly proportioned entries\n"
      "and exact duplicate pairs, and prints how many for each reason.\n"
      "--groups-out labels each pair with its catalog's group for realmt-data split\n"
      "--groups: catalogs of one name (one catalog shipped by two packages) form one\n"
      "group, and so do catalogs sharing --copy-overlap of the smaller one's sources\n"
      "(compared masked: numbers, placeholders, case and punctuation ignored; at least\n"
      "20 shared) -- forks and other versions of one catalog.");
  const std::string g = "Options";
  set.add(g, "input", &inputs,
          "French .mo catalogs (msgid English, msgstr French); or give them as the arguments")
      .add(g, "list", &list, "File naming one .mo catalog a line (added to --input)")
      .add(g, "src-out", &src_out, "English side")
      .add(g, "tgt-out", &tgt_out, "French side")
      .add(g, "max-words", &f.max_words, "Drop pairs with a side over this many words")
      .add(g, "min-letters", &f.min_letters,
           "Drop pairs with a side of fewer letters outside format directives")
      .add(g, "max-ratio", &f.max_ratio, "Drop pairs with a character-length ratio beyond this")
      .add(g, "groups-out", &groups_out,
           "Write each kept pair's catalog group label here, a line a pair")
      .add(g, "copy-overlap", &g_opt.overlap,
           "--groups-out: catalogs sharing this share of the smaller one's sources form one group")
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
  REALMT_USAGE_CHECK(!inputs.empty(),
                     "realmt-data mo2pairs: no catalog given (CATALOG.mo... or --list FILE)");
  REALMT_USAGE_CHECK(g_opt.overlap > 0 && g_opt.overlap <= 1,
                     "realmt-data mo2pairs: --copy-overlap must be in (0, 1], got {}",
                     g_opt.overlap);
  const auto labels =
      groups_out.empty() ? std::vector<std::string>{} : catalog_labels(inputs, f, g_opt);
  std::ofstream en_out(src_out, std::ios::binary), fr_out(tgt_out, std::ios::binary), group_out;
  if (!groups_out.empty()) group_out.open(groups_out, std::ios::binary);
  REALMT_CHECK(en_out.good() && fr_out.good() && (groups_out.empty() || group_out.good()),
               "mo2pairs: cannot write {} / {} / {}", src_out, tgt_out, groups_out);
  std::map<std::string, int64_t> dropped;
  int64_t entries = 0, kept = 0;
  HashSet seen;
  std::string en, fr;
  for (size_t c = 0; c < inputs.size(); ++c) {
    for (const MoEntry& e : read_mo(inputs[c])) {
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
      if (!labels.empty()) group_out << labels[c] << '\n';
      ++kept;
    }
  }
  en_out.flush(), fr_out.flush(), group_out.flush();
  REALMT_CHECK(en_out.good() && fr_out.good() && (groups_out.empty() || group_out.good()),
               "mo2pairs: writing {} / {} / {} failed", src_out, tgt_out, groups_out);
  std::string summary =
      format("mo2pairs: {} catalogs, {} entries, kept {}", inputs.size(), entries, kept);
  for (const auto& [reason, n] : dropped) summary += format("; {} {}", reason, n);
  log::info("{}", summary);
  return 0;
}

}  // namespace realmt::data
