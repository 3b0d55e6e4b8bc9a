// Every key of a Marian model's configuration (the npz's special:model.yml), classified: read by
// the importer (marian_import.h), a no-op for a transformer's translations (with the reason), or
// refused unless it has the value realmt implements (with the reason). A key outside the table is
// refused too: none is ignored.
#pragma once

#include <string>
#include <vector>

namespace YAML {
class Node;
}

namespace realmt::convert {

enum class MarianKeyUse { kRead, kNoOp, kRefused };

struct MarianKey {
  std::string name;
  MarianKeyUse use;
  std::string reason;  // no-op: why; refused: what realmt lacks (kRead: empty)
};

// The table (for the documentation and the tests).
const std::vector<MarianKey>& marian_keys();

// Throws naming `where`, the key, its value and the reason for the first key that is unknown or
// refused with its value.
void check_marian_keys(const YAML::Node& config, const std::string& where);

}  // namespace realmt::convert
