// realmt-train: train a Transformer (RealFormer residual attention, ADMIN) from YAML configs
// (-c a.yml -c b.yml) and command-line options; resumes from the state beside --model.
#include <iostream>

#include "common/options.h"
#include "common/program.h"
#include "common/stop_signal.h"
#include "core/error.h"
#include "core/log.h"
#include "training/trainer.h"

int main(int argc, char** argv) {
  using namespace realmt;
  return run_program("realmt-train", [&] {
    training::TrainOptions options;
    OptionSet set("realmt-train",
                  "Train a Transformer encoder-decoder (RealFormer on ADMIN) from YAML configs");
    options.declare(set);
    if (!set.parse(argc, argv, std::cout)) return 0;
    if (options.sigterm == training::SigtermAction::kSaveAndExit) install_stop_signal_handlers();
    training::Trainer trainer(options);
    const training::TrainResult r = trainer.run();
    log::info("realmt-train: stopped ({}) after {} updates, {} completed epochs",
              enum_name(r.stop_reason), r.updates, r.epochs);
    return 0;
  });
}
