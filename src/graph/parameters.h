// Named trainable parameters in two contiguous arenas (values and gradients), so that an
// optimizer step, the gradient norm and an all-reduce each touch one buffer. Names follow
// checkpoints: dot-separated lower-case segments, e.g. "encoder.layers.3.self_attn.q.weight".
#pragma once

#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "core/arena.h"
#include "graph/var.h"

namespace realmt::graph {

class ParameterSet {
 public:
  // Declares a parameter before allocate(); returns its index. Throws on a bad or repeated name.
  int add(const std::string& name, const Shape& shape);
  // Creates both arenas (zero-filled) and binds every parameter's gradient to its slot.
  void allocate(Device device, DType dtype = DType::kF32);

  bool allocated() const { return values_ != nullptr; }
  int size() const { return static_cast<int>(names_.size()); }
  const std::vector<std::string>& names() const { return names_; }
  const std::vector<Shape>& shapes() const { return shapes_; }
  bool contains(const std::string& name) const { return index_.count(name) > 0; }
  int index(const std::string& name) const;
  const Var& operator[](int i) const;
  const Var& operator[](const std::string& name) const { return (*this)[index(name)]; }
  const Arena& values() const;
  const Arena& grads() const;
  int64_t numel() const;  // parameters, without arena padding
  void zero_grad() const;  // one memset over the gradient arena

 private:
  std::vector<std::string> names_;
  std::vector<Shape> shapes_;
  std::unordered_map<std::string, int> index_;
  std::unique_ptr<Arena> values_, grads_;
  std::vector<Var> vars_;
};

// Checks a parameter name: non-empty segments of [a-z0-9_] separated by single dots.
bool valid_parameter_name(const std::string& name);

}  // namespace realmt::graph
