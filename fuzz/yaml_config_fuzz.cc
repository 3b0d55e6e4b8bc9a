// YAML configs as realmt-train reads them (-c FILE): every option type (numbers, booleans,
// durations, lists, choices) through OptionSet::load_yaml_string, then the --dump-config
// round trip (the dump of what was read must read back to the same dump); and the model config
// stored in checkpoints (ModelConfig::from_yaml).
#include "common/options.h"
#include "core/error.h"
#include "fuzz_util.h"
#include "models/model_config.h"
#include "training/train_options.h"

using namespace realmt;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(fuzz::as_text(data, size));
  try {
    training::TrainOptions o;
    OptionSet set("realmt-train", "fuzz");
    o.declare(set);
    set.load_yaml_string(text, "fuzz.yml");
    const std::string dump = set.dump_yaml(false);
    training::TrainOptions o2;
    OptionSet again("realmt-train", "fuzz");
    o2.declare(again);
    again.load_yaml_string(dump, "dump.yml");
    REALMT_FUZZ_CHECK(again.dump_yaml(false) == dump);
  } catch (const Error&) {
  }
  try {
    const models::ModelConfig c = models::ModelConfig::from_yaml(text, "fuzz.yml");
    REALMT_FUZZ_CHECK(models::ModelConfig::from_yaml(c.to_yaml(), "dump.yml").to_yaml() ==
                      c.to_yaml());
  } catch (const Error&) {
  }
  return 0;
}
