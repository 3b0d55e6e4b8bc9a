#include "convert/convert_options.h"

#include "common/options.h"
#include "convert/converted_model.h"
#include "convert/ct2_export.h"
#include "convert/hf_import.h"
#include "convert/marian_export.h"
#include "convert/marian_import.h"
#include "core/error.h"
#include "models/safetensors.h"

namespace realmt::convert {

void ConvertOptions::declare(OptionSet& o) {
  const std::string g = "Convert";
  o.add(g, "from", &from,
        "FORMAT PATH of the model to read: hf DIR (a Hugging Face MarianMTModel directory), marian "
        "MODEL.npz, "
        "or realmt CHECKPOINT")
      .add_choice(g, "to", &to, {"realmt", "ctranslate2", "marian"},
                  "What to write: realmt (a checkpoint), ctranslate2 (a CTranslate2 model "
                  "directory) or marian (a "
                  "Marian MODEL.npz, its vocabulary and MODEL.npz.decoder.yml)")
      .add(g, "output", &output,
           "The checkpoint file (realmt), directory (ctranslate2) or MODEL.npz (marian) to write")
      .add(g, "vocabs", &vocabs,
           "marian: the model's .spm or .yml vocabularies (once, or source and target); realmt -> "
           "ctranslate2 or marian: "
           "the .spm a realmt-trained model was trained with")
      .add(g, "max-positions", &max_positions,
           "ctranslate2: positions the exported position tables cover")
      .short_name("output", 'o')
      .short_name("vocabs", 'v');
}

void ConvertOptions::validate() const {
  REALMT_USAGE_CHECK(from.size() == 2,
                     "from: give the format and the path (--from hf opus-mt-en-fr/), got {} values",
                     from.size());
  REALMT_USAGE_CHECK(from[0] == "hf" || from[0] == "marian" || from[0] == "realmt",
                     "from: format '{}' (hf, marian or realmt)", from[0]);
  REALMT_USAGE_CHECK(!output.empty(), "output: give the file or directory to write (-o)");
  REALMT_USAGE_CHECK(
      from[0] != "marian" || !vocabs.empty(),
      "vocabs: a Marian model needs its vocabularies (--vocabs vocab.spm, or opus.vocab.yml)");
  REALMT_USAGE_CHECK(from[0] != "realmt" || to != "realmt",
                     "--from realmt needs --to ctranslate2 or marian");
  REALMT_USAGE_CHECK(
      to != "marian" || (output.size() > 4 && output.compare(output.size() - 4, 4, ".npz") == 0),
      "output: a Marian model is written as MODEL.npz, got '{}'", output);
  REALMT_USAGE_CHECK(max_positions >= 1, "max-positions must be positive, got {}", max_positions);
}

std::string run_conversion(const ConvertOptions& o) {
  ConvertedModel m;
  if (o.format() == "hf")
    m = import_hf(o.input());
  else if (o.format() == "marian")
    m = import_marian(o.input(), o.vocabs);
  else
    m = read_realmt(o.input(), o.vocabs.empty() ? "" : o.vocabs.front());
  const models::ModelConfig& c = m.config;
  const std::string shape =
      format("{} encoder and {} decoder layers, dim {}, {} heads, vocabularies {} and {}",
             c.enc_depth, c.dec_depth, c.dim_emb, c.heads, c.vocab_size, c.target_vocab());
  if (o.to == "marian") {
    MarianExportOptions mo;
    if (o.format() == "realmt" && !o.vocabs.empty()) mo.spm = o.vocabs.front();
    const std::vector<std::string> vocabs = write_marian(m, o.output, mo);
    std::string list;
    for (const std::string& v : vocabs) list += " " + v;
    return format("{} ({}) -> Marian model {}, vocabulary{}, decoder config {}.decoder.yml",
                  m.origin, shape, o.output, list, o.output);
  }
  if (o.to == "ctranslate2") {
    Ct2Options co;
    co.max_positions = o.max_positions;
    write_ctranslate2(m, o.output, co);
    return format("{} ({}) -> CTranslate2 model directory {}", m.origin, shape, o.output);
  }
  write_realmt(m, o.output);
  return format("{} ({}) -> {}", m.origin, shape, models::checkpoint_file(o.output));
}

}  // namespace realmt::convert
