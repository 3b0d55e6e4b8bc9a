// realmt-init: the ADMIN initializer. Builds the model from the config, initialises it, runs the
// profiling pass on the first training batch (admin-init profile) or sets the closed form, and
// writes the initial checkpoint (--model) and the profile table (<model>.admin-profile.txt).
// Train from it with realmt-train --pretrained-model <model>.
#include <iostream>

#include "common/atomic_file.h"
#include "common/options.h"
#include "common/program.h"
#include "core/error.h"
#include "core/log.h"
#include "data/vocab.h"
#include "models/checkpoint_record.h"
#include "models/transformer.h"
#include "training/admin_profile.h"
#include "training/train_options.h"
#include "training/vocab_setup.h"

int main(int argc, char** argv) {
  using namespace realmt;
  return run_program("realmt-init", [&] {
    training::TrainOptions o;
    OptionSet set(
        "realmt-init",
        "ADMIN initialisation: profile omega on a real training batch, write the checkpoint");
    o.declare(set);
    if (!set.parse(argc, argv, std::cout)) return 0;
    training::create_missing_vocabs(
        o);  // as realmt-train: a missing --vocabs file is created first
    const data::Vocab vocab = data::Vocab::pair(o.vocabs.front(), o.vocabs.back());
    o.model_config.vocab_size = vocab.size();
    o.model_config.target_vocab_size = vocab.is_pair() ? vocab.target_size() : 0;
    models::Transformer model(o.model_config);
    model.allocate(Device::cpu());
    model.init(static_cast<uint64_t>(o.seed));
    std::string table;
    if (o.model_config.admin_init == models::AdminInit::kProfile) {
      table = training::profile_admin_on_first_batch(model, o.loader_options(),
                                                     static_cast<uint64_t>(o.seed));
    } else {
      table = std::string("admin-init ") + enum_name(o.model_config.admin_init) +
              ": no profiling pass\n";
    }
    models::ModelMetadata meta;
    meta.config = model.config().to_yaml();
    meta.vocab = vocab.fingerprint();
    models::save_parameters(o.model, model.params(), models::model_metadata_text(meta));
    const std::string table_path = o.model + ".admin-profile.txt";
    write_file_atomic(table_path, table);
    std::cout << table;
    log::info("realmt-init: wrote {} and {}", o.model, table_path);
    return 0;
  });
}
