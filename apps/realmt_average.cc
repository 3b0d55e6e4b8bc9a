// realmt-average: element-wise average of N checkpoints of one architecture
// (realmt-average -m a.safetensors b.safetensors -o avg.safetensors).
#include <iostream>

#include "common/options.h"
#include "common/program.h"
#include "core/error.h"
#include "core/log.h"
#include "models/average.h"

int main(int argc, char** argv) {
  using namespace realmt;
  return run_program("realmt-average", [&] {
    std::vector<std::string> models;
    std::string output;
    OptionSet set("realmt-average", "Average model checkpoints of one architecture element-wise");
    set.add("Average", "models", &models, "Checkpoints to average (.safetensors)")
        .add("Average", "output", &output, "Where the averaged checkpoint goes")
        .short_name("models", 'm')
        .short_name("output", 'o');
    if (!set.parse(argc, argv, std::cout)) return 0;
    REALMT_USAGE_CHECK(
        !models.empty(),
        "models: give the checkpoints to average (-m a.safetensors b.safetensors ...)");
    REALMT_USAGE_CHECK(!output.empty(), "output: give the file to write (-o average.safetensors)");
    const models::AverageReport r = models::average_checkpoints(models, output);
    log::info("realmt-average: averaged {} checkpoints ({} tensors, {} values) into {}",
              r.checkpoints, r.tensors, r.elements, output);
    return 0;
  });
}
