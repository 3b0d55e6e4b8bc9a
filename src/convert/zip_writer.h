// Writing a zip archive of stored (uncompressed) members, as numpy's np.savez writes an .npz and
// Marian reads its model files. Members up to 4 GiB each and 65535 in all (no ZIP64).
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace realmt::convert {

// The archive's bytes: each (name, bytes) member stored in the order given, with its CRC-32.
std::string zip_stored(const std::vector<std::pair<std::string, std::string>>& members);

}  // namespace realmt::convert
