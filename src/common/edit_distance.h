// Edit distance for "did you mean" messages: misspelled option names and commands, tensor names a
// checkpoint lacks.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace realmt {

// Optimal-string-alignment distance: insertions, deletions, substitutions and swaps of two
// adjacent characters each cost 1 ("enc-dpeth" is 1 away from "enc-depth").
size_t edit_distance(const std::string& a, const std::string& b);

// The name in `valid` nearest to `wrong` by edit_distance; ties go to the earlier name.
// Returns "" when `valid` is empty.
std::string closest_name(const std::string& wrong, const std::vector<std::string>& valid);

}  // namespace realmt
