#include "analysis/analyze_files.h"

#include <algorithm>
#include <filesystem>

#include "analysis/analysis_report.h"
#include "analysis/attention_stats.h"
#include "common/options.h"
#include "core/cpu_isa.h"
#include "core/error.h"
#include "core/parallel.h"
#include "data/line_reader.h"
#include "data/vocab.h"
#include "search/model_loader.h"
#include "search/vocab_checks.h"

namespace realmt::analysis {

void AnalyzeOptions::declare(OptionSet& o) {
  o.add("Model", "models", &models, "The model checkpoint (.safetensors)");
  o.add("Model", "vocabs", &vocabs,
        "Its joint SentencePiece vocabulary (.spm): once, or once a side");
  o.add("Input/output", "train-sets", &train_sets,
        "Held-out source file and target file (teacher-forced)");
  o.add("Input/output", "output", &output,
        "Folder for attention.tsv, attention.json and heatmap.json (created; tools/plot-attention "
        "draws them)");
  o.add("Input/output", "quiet", &quiet, "Nothing on stderr");
  o.add("Analysis", "max-sentences", &max_sentences, "Analyse the first N pairs (0: all)");
  o.add("Analysis", "max-length", &max_length,
        "Skip pairs with a side longer than this many subwords (eos counted)");
  o.add("Analysis", "heatmap-sentence", &heatmap_sentence,
        "Also write every layer's and head's attention of this pair (1-based line; 0: none)");
  o.add("Hardware", "devices", &devices, "GPU to run on (e.g. 0 or cuda:0); empty or cpu: the CPU");
  o.add("Hardware", "cpu-threads", &cpu_threads, "CPU threads (0: all cores)");
  o.add("Batching", "mini-batch", &mini_batch, "Sentence pairs a forward pass");
  o.short_name("models", 'm')
      .short_name("vocabs", 'v')
      .short_name("train-sets", 't')
      .short_name("output", 'o');
  o.short_name("devices", 'd');
  o.version_line([] { return "cpu kernels: " + cpu_isa_summary(); });
  o.on_parsed([this](const OptionSet&) { validate(); });
}

void AnalyzeOptions::validate() const {
  REALMT_CHECK(models.size() == 1, "models: give one checkpoint (-m model.safetensors), got {}",
               models.size());
  REALMT_CHECK(!vocabs.empty() && vocabs.size() <= 2 && vocabs.back() == vocabs[0],
               "vocabs: give the model's joint vocabulary once or once a side (-v vocab.spm)");
  REALMT_CHECK(train_sets.size() == 2, "train-sets: give a source file and a target file (got {})",
               train_sets.size());
  REALMT_CHECK(!output.empty(), "output: give a folder");
  REALMT_CHECK(max_sentences >= 0, "max-sentences must be >= 0, got {}", max_sentences);
  REALMT_CHECK(max_length >= 2, "max-length must be at least 2 (a subword and eos), got {}",
               max_length);
  REALMT_CHECK(mini_batch >= 1, "mini-batch must be at least 1, got {}", mini_batch);
  REALMT_CHECK(heatmap_sentence >= 0, "heatmap-sentence must be >= 0, got {}", heatmap_sentence);
  REALMT_CHECK(cpu_threads >= 0, "cpu-threads must be >= 0, got {}", cpu_threads);
}

namespace {

struct Pair {
  int64_t line;  // 1-based
  std::vector<int32_t> src, tgt;
};

}  // namespace

AnalyzeResult analyze_files(const AnalyzeOptions& o, std::ostream& log) {
  o.validate();
  if (o.cpu_threads > 0) set_num_threads(o.cpu_threads);
  const auto model = search::load_model(o.models[0], search::parse_decode_device(o.devices));
  const data::Vocab vocab(o.vocabs[0]);
  search::check_vocab_matches(vocab, *model, o.models[0]);
  const std::vector<std::string> src_lines = data::read_lines(o.train_sets[0]);
  const std::vector<std::string> tgt_lines = data::read_lines(o.train_sets[1]);
  REALMT_CHECK(src_lines.size() == tgt_lines.size(), "train-sets: {} has {} lines but {} has {}",
               o.train_sets[0], src_lines.size(), o.train_sets[1], tgt_lines.size());
  const auto total = static_cast<int64_t>(src_lines.size());
  const int64_t n = o.max_sentences > 0 ? std::min(o.max_sentences, total) : total;
  REALMT_CHECK(o.heatmap_sentence <= n,
               "heatmap-sentence: line {} is not among the {} pairs analysed", o.heatmap_sentence,
               n);
  AnalyzeResult result;
  std::vector<Pair> pairs;
  for (int64_t i = 0; i < n; ++i) {
    Pair p{i + 1, vocab.encode(src_lines[i]), vocab.encode(tgt_lines[i])};
    const bool too_long =
        static_cast<int64_t>(std::max(p.src.size(), p.tgt.size())) + 1 > o.max_length;
    REALMT_CHECK(!too_long || p.line != o.heatmap_sentence,
                 "heatmap-sentence: line {} of {} is longer than max-length {}", p.line,
                 o.train_sets[0], o.max_length);
    if (too_long)
      ++result.skipped;
    else
      pairs.push_back(std::move(p));
  }
  const models::ModelConfig& c = model->config();
  AttentionStats stats(c.enc_depth, c.dec_depth, static_cast<int>(c.heads));
  const Pair* shown = nullptr;
  graph::NoGradGuard no_grad;
  for (size_t begin = 0; begin < pairs.size(); begin += static_cast<size_t>(o.mini_batch)) {
    const size_t end = std::min(pairs.size(), begin + static_cast<size_t>(o.mini_batch));
    const auto b = static_cast<int64_t>(end - begin);
    int64_t S = 0, T = 0;
    for (size_t i = begin; i < end; ++i) {
      S = std::max<int64_t>(S, static_cast<int64_t>(pairs[i].src.size()) + 1);
      T = std::max<int64_t>(T, static_cast<int64_t>(pairs[i].tgt.size()) + 1);
    }
    // Source: pieces, eos; decoder input: <s>, pieces (teacher forcing); padding 0.
    std::vector<int32_t> src(b * S, data::kPadId), in(b * T, data::kPadId);
    std::vector<int64_t> src_len, tgt_len;
    std::vector<bool> keep;
    for (int64_t r = 0; r < b; ++r) {
      const Pair& p = pairs[begin + static_cast<size_t>(r)];
      std::copy(p.src.begin(), p.src.end(), src.begin() + r * S);
      src[r * S + static_cast<int64_t>(p.src.size())] = data::kEosId;
      in[r * T] = data::kBosId;
      std::copy(p.tgt.begin(), p.tgt.end(), in.begin() + r * T + 1);
      src_len.push_back(static_cast<int64_t>(p.src.size()) + 1);
      tgt_len.push_back(static_cast<int64_t>(p.tgt.size()) + 1);
      keep.push_back(p.line == o.heatmap_sentence);
      if (keep.back()) shown = &p;
    }
    stats.begin_batch(src_len, tgt_len, keep);
    models::ForwardContext ctx;
    ctx.attention = &stats;
    const models::Encoded enc = model->encode(Tensor::from_vector(src, {b, S}), ctx);
    model->decode(enc, Tensor::from_vector(in, {b, T}), ctx);
    result.sentences += b;
    if (!o.quiet && (end == pairs.size() || (begin / o.mini_batch) % 20 == 19))
      log << "realmt-analyze: " << result.sentences << " of " << pairs.size() << " pairs\n";
  }
  std::filesystem::create_directories(o.output);
  ReportInfo info{o.models[0], o.train_sets, result.sentences, result.skipped};
  write_tables(stats, o.output, info);
  if (shown) {
    std::vector<std::string> src_pieces, tgt_pieces{vocab.piece(data::kBosId)};
    for (int32_t id : shown->src) src_pieces.push_back(vocab.piece(id));
    src_pieces.push_back(vocab.piece(data::kEosId));
    for (int32_t id : shown->tgt) tgt_pieces.push_back(vocab.piece(id));
    write_heatmap(stats, o.output + "/heatmap.json", shown->line, src_pieces, tgt_pieces);
  }
  if (!o.quiet)
    log << "realmt-analyze: " << result.sentences << " pairs analysed, " << result.skipped
        << " skipped (over max-length); wrote " << o.output << "/attention.tsv and attention.json"
        << (shown ? " and heatmap.json" : "") << "\n";
  return result;
}

}  // namespace realmt::analysis
