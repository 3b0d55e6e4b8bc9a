// realmt-translate: batched beam search over a text file or stdin; output in input order,
// optionally as an n-best list and with alignments. Marian's decoder options and log lines
// (search/decode_options.h, search/translate_files.h).
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <utility>
#include <vector>

#include "common/options.h"
#include "common/program.h"
#include "core/error.h"
#include "core/log.h"
#include "core/parallel.h"
#include "core/profile.h"
#include "search/decode_options.h"
#include "search/model_loader.h"
#include "search/translate_files.h"
#include "search/translator.h"

namespace {

// --profile: where the decoding's time went, by kind of op and by kernel (main-thread time inside
// kernel calls, core/profile.h), as a share of the decoding's wall time, on stderr.
void print_profile(const realmt::ProfileTotals& p, double wall) {
  using namespace realmt;
  char line[160];
  std::snprintf(line, sizeof line,
                "%.2f s in kernels of %.2f s decoding (wall, model load excluded)", p.total(),
                wall);
  log::info("profile: {}", line);
  for (int k = 0; k < static_cast<int>(ProfileCategory::kCount); ++k) {
    if (p.calls[k] == 0) continue;
    std::snprintf(line, sizeof line, "%-14s %8.3f s %5.1f%% %9llu calls",
                  profile_category_name(static_cast<ProfileCategory>(k)), p.seconds[k],
                  100 * p.seconds[k] / wall, static_cast<unsigned long long>(p.calls[k]));
    log::info("profile: {}", line);
  }
  std::vector<std::pair<double, std::string>> kernels;
  for (const auto& [name, seconds] : p.by_name) kernels.emplace_back(seconds, name);
  std::sort(kernels.rbegin(), kernels.rend());
  for (size_t i = 0; i < kernels.size() && i < 12; ++i) {
    std::snprintf(line, sizeof line, "kernel %-32s %8.3f s %5.1f%%", kernels[i].second.c_str(),
                  kernels[i].first, 100 * kernels[i].first / wall);
    log::info("profile: {}", line);
  }
}

}  // namespace

int main(int argc, char** argv) {
  using namespace realmt;
  return run_program("realmt-translate", [&] {
    search::TranslateOptions o;
    OptionSet set("realmt-translate",
                  "Translate text with a realmt model (or an ensemble) by batched beam search");
    o.declare(set);
    bool profile = false;
    set.add("Input/output", "profile", &profile,
            "After decoding, print where its time went by kind of op and by kernel (stderr)");
    if (!set.parse(argc, argv, std::cout)) return 0;
    if (o.model.cpu_threads > 0) set_num_threads(o.model.cpu_threads);
    search::Translator translator =
        search::Translator::load(o.model.models, o.model.vocabs,
                                 search::parse_decode_device(o.model.devices), o.model.quantize);
    translator.use_shortlist(search::load_shortlist(o.shortlist, translator));
    std::ofstream file;
    if (!search::is_stdout(o.output)) {
      file.open(o.output, std::ios::binary);
      REALMT_CHECK(file.good(), "output: cannot write {}", o.output);
    }
    profile_enable(profile);
    const auto start = std::chrono::steady_clock::now();
    search::translate_stream(o, translator, search::is_stdout(o.output) ? std::cout : file);
    if (profile)
      print_profile(
          profile_snapshot(),
          std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
    if (translator.shortlist() && !o.quiet)
      log::info("{}", search::shortlist_usage(*translator.shortlist()));
    return 0;
  });
}
