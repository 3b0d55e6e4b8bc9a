// realmt-analyze: attention sparsity (entropy) and cross-layer similarity (JSD of vertically
// adjacent heads) of a model on held-out sentence pairs, per chain, layer and head, as the
// RealFormer paper measures them; tables and picture data (src/analysis/analyze_files.h).
#include <iostream>

#include "analysis/analyze_files.h"
#include "common/options.h"
#include "common/program.h"

int main(int argc, char** argv) {
  using namespace realmt;
  return run_program("realmt-analyze", [&] {
    analysis::AnalyzeOptions o;
    OptionSet set("realmt-analyze",
                  "Attention entropy and cross-layer JSD of a model on held-out sentence pairs");
    o.declare(set);
    set.details(
        "Teacher-forces each pair (source, target) through the model and measures, per chain "
        "(encoder, decoder, "
        "cross), layer, head and query token, the entropy in bits of the attention distribution "
        "before dropout "
        "over the visible keys, and its Jensen-Shannon divergence (base 2) to the same head one "
        "layer up. Writes "
        "<output>/attention.tsv and attention.json (median, quartiles, histograms); with "
        "--heatmap-sentence, "
        "heatmap.json. tools/plot-attention <output> draws box/violin plots and heat maps.");
    if (!set.parse(argc, argv, std::cout)) return 0;
    analysis::analyze_files(o, std::cerr);
    return 0;
  });
}
