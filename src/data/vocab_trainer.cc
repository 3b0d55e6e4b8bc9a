#include "data/vocab_trainer.h"

#include <sentencepiece_processor.h>
#include <sentencepiece_trainer.h>

#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>
#include <unordered_map>

#include "core/error.h"
#include "core/log.h"
#include "data/line_reader.h"
#include "data/rng.h"
#include "data/vocab.h"

namespace realmt::data {

namespace {

// Feeds the trainer from our readers, so gzip input, UTF-8 checks and error messages naming the
// file and line behave as everywhere else.
class FileIterator : public sentencepiece::SentenceIterator {
 public:
  FileIterator(const std::vector<std::string>& files, VocabTrainReport& report)
      : files_(files), report_(report) {
    advance();
  }
  bool done() const override { return done_; }
  void Next() override { advance(); }
  const std::string& value() const override { return line_; }
  sentencepiece::util::Status status() const override { return {}; }

 private:
  void advance() {
    for (;;) {
      if (!reader_) {
        if (next_file_ == files_.size()) {
          done_ = true;
          return;
        }
        reader_ = std::make_unique<LineReader>(files_[next_file_++]);
      }
      if (!reader_->next(line_)) {
        reader_.reset();
        continue;
      }
      if (line_.empty()) {
        ++report_.empty_lines;
        continue;
      }
      ++report_.lines_read;
      return;
    }
  }

  const std::vector<std::string>& files_;
  VocabTrainReport& report_;
  size_t next_file_ = 0;
  std::unique_ptr<LineReader> reader_;
  std::string line_;
  bool done_ = false;
};

// Feeds the trainer a sample held in memory.
class SampleIterator : public sentencepiece::SentenceIterator {
 public:
  explicit SampleIterator(const std::vector<std::string>& lines) : lines_(lines) {}
  bool done() const override { return i_ >= lines_.size(); }
  void Next() override { ++i_; }
  const std::string& value() const override { return lines_[i_]; }
  sentencepiece::util::Status status() const override { return {}; }

 private:
  const std::vector<std::string>& lines_;
  size_t i_ = 0;
};

// At most n of the iterator's lines, each line as likely as any other (reservoir sampling, as
// Marian samples sentencepiece-max-lines; SentencePiece's own sampling needs n > 100).
std::vector<std::string> sample_lines(FileIterator& it, int64_t n, uint64_t seed) {
  std::vector<std::string> sample;
  Rng rng(seed);
  for (uint64_t seen = 0; !it.done(); it.Next(), ++seen) {
    if (static_cast<int64_t>(sample.size()) < n) {
      sample.push_back(it.value());
    } else if (const uint64_t k = rng.below(seen + 1); k < static_cast<uint64_t>(n)) {
      sample[k] = it.value();
    }
  }
  return sample;
}

std::string join(const std::vector<std::string>& v) {
  std::string s;
  for (const auto& x : v) s += (s.empty() ? "" : ",") + x;
  return s;
}

}  // namespace

std::vector<std::pair<std::string, std::string>> parse_spm_flags(const std::string& text,
                                                                 const std::string& option) {
  std::vector<std::pair<std::string, std::string>> flags;
  std::istringstream words(text);
  std::string w;
  while (words >> w) {
    REALMT_CHECK(
        w.starts_with("--") && w.size() > 2,
        "{} '{}': '{}' is not a SentencePiece training flag (write --name=value, as spm_train's)",
        option, text, w);
    const size_t eq = w.find('=');
    if (eq == std::string::npos)
      flags.emplace_back(w.substr(2), "true");
    else
      flags.emplace_back(w.substr(2, eq - 2), w.substr(eq + 1));
  }
  return flags;
}

namespace {

// The trainer's flags: realmt's choices, then the caller's flags (which win).
std::unordered_map<std::string, std::string> trainer_args(const VocabTrainOptions& o) {
  std::unordered_map<std::string, std::string> args = {
      {"model_type", o.model_type},
      {"vocab_size", std::to_string(o.vocab_size)},
      {"character_coverage", std::to_string(o.character_coverage)},
      {"input_sentence_size", "0"},  // sampled here (sample_lines)
      {"normalization_rule_name", o.normalization},
      {"num_threads", std::to_string(o.threads)},
      {"pad_id", std::to_string(o.marian_ids ? -1 : kPadId)},
      {"unk_id", std::to_string(kUnkId)},
      {"bos_id", std::to_string(o.marian_ids ? -1 : kBosId)},
      {"eos_id", std::to_string(o.marian_ids ? 0 : kEosId)},
      {"pad_piece", kPadPiece},
      {"unk_piece", kUnkPiece},
      {"bos_piece", kBosPiece},
      {"eos_piece", kEosPiece},
      {"minloglevel", "1"},
  };
  if (!o.user_symbols.empty()) args["user_defined_symbols"] = join(o.user_symbols);
  for (const auto& [key, value] : o.flags) args[key] = value;
  return args;
}

}  // namespace

VocabTrainReport train_vocab(const VocabTrainOptions& o) {
  REALMT_CHECK(!o.inputs.empty(), "vocab: no input files given (--input FILE...)");
  REALMT_CHECK(!o.output.empty(), "vocab: no output model given (--output FILE.spm)");
  REALMT_CHECK(o.vocab_size > 4 + int(o.user_symbols.size()),
               "vocab: vocab size {} leaves no room beside the 4 special symbols", o.vocab_size);
  REALMT_CHECK(o.character_coverage > 0 && o.character_coverage <= 1,
               "vocab: character coverage must be in (0, 1], got {}", o.character_coverage);
  for (const auto& s : o.user_symbols) {
    REALMT_CHECK(s.find(',') == std::string::npos && !s.empty(),
                 "vocab: special symbol '{}' must be non-empty and contain no comma", s);
  }
  VocabTrainReport report;
  FileIterator it(o.inputs, report);
  const std::unordered_map<std::string, std::string> args = trainer_args(o);
  sentencepiece::SetRandomGeneratorSeed(o.seed);
  std::string model;
  std::vector<std::string> sample;
  if (o.sampled_lines > 0) sample = sample_lines(it, o.sampled_lines, o.seed);
  SampleIterator sampled(sample);
  sentencepiece::SentenceIterator* lines = &it;
  if (o.sampled_lines > 0) lines = &sampled;
  const auto status = sentencepiece::SentencePieceTrainer::Train(args, lines, &model);
  REALMT_CHECK(status.ok(), "vocab: SentencePiece training on {} failed: {}", join(o.inputs),
               status.ToString());
  REALMT_CHECK(report.lines_read > 0, "vocab: the inputs {} hold no non-empty line",
               join(o.inputs));

  // Write atomically: a crash never leaves a half-written model under the final name.
  const std::string tmp = o.output + ".tmp";
  {
    std::ofstream out(tmp, std::ios::binary);
    REALMT_CHECK(out.good(), "vocab: cannot write {}", tmp);
    out.write(model.data(), std::streamsize(model.size()));
    out.flush();
    REALMT_CHECK(out.good(), "vocab: writing {} failed (disk full?)", tmp);
  }
  std::filesystem::rename(tmp, o.output);

  sentencepiece::SentencePieceProcessor sp;
  REALMT_CHECK(sp.LoadFromSerializedProto(model).ok(), "vocab: the trained model does not load");
  report.vocab_size = sp.GetPieceSize();
  report.lines_sampled =
      o.sampled_lines > 0 ? static_cast<int64_t>(sample.size()) : report.lines_read;
  log::info("vocab: {} pieces from {} of {} lines ({} empty skipped) -> {}", report.vocab_size,
            report.lines_sampled, report.lines_read, report.empty_lines, o.output);
  if (!o.listing) return report;
  std::filesystem::path listing(o.output);
  listing.replace_extension(".vocab");
  std::ofstream vocab_out(listing);
  REALMT_CHECK(vocab_out.good(), "vocab: cannot write {}", listing.string());
  for (int i = 0; i < sp.GetPieceSize(); ++i)
    vocab_out << sp.IdToPiece(i) << '\t' << sp.GetScore(i) << '\n';
  return report;
}

}  // namespace realmt::data
