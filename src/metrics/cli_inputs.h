// realmt-bleu's inputs (part of cli.cc's program logic): the test sets of -t, --list and
// --echo, the references (files, tab-separated fields with --num-refs, or a cached test set) and
// the systems (-i files or tab-separated standard input). Errors throw CliExit with sacreBLEU's
// exit code and message.
#pragma once

#include <istream>
#include <ostream>
#include <string>
#include <vector>

#include "metrics/cli_options.h"
#include "metrics/test_sets.h"

namespace realmt::metrics {

// The hypotheses of each system, with the names sacreBLEU prints.
struct Systems {
  std::vector<std::string> names;
  std::vector<std::vector<std::string>> hyps;
};

// The sets of -t (comma-separated: concatenated) as found in the cache (test_sets.h), checked in
// sacreBLEU's order and with its messages (a set or pair not in the cache is sacreBLEU's unknown
// set or pair, exit 1); empty without -t.
std::vector<CachedTestSet> selected_test_sets(const CliOptions& o);
// One vector of lines per reference: the -t sets' reference fields, or the reference files.
std::vector<std::vector<std::string>> read_references(const CliOptions& o,
                                                      const std::vector<CachedTestSet>& sets);
// The -i files, or the tab-separated columns of `in`; `paired` names the first the baseline.
Systems read_systems(const CliOptions& o, std::istream& in, bool paired);
// --list: sacreBLEU's layout, over the test sets in the cache.
void list_test_sets(const CliOptions& o, std::ostream& out);
// --echo: the requested fields of each test set, tab-separated, line by line.
void echo_test_sets(const CliOptions& o, const std::vector<CachedTestSet>& sets, std::ostream& out);

}  // namespace realmt::metrics
