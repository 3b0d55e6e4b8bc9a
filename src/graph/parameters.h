// Named trainable parameters in two contiguous arenas (values and gradients), so that an
// optimizer step, the gradient norm and an all-reduce each touch one buffer. Names follow
// checkpoints: dot-separated lower-case segments, e.g. "encoder.layers.3.self_attn.q.weight".
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "core/arena.h"
#include "core/rng.h"
#include "graph/var.h"

namespace realmt::graph {

// How a parameter starts (Marian's registerParameterLazy(weight, shape, init)): fills the value,
// drawing from the generator when it is random (layers/init.h has the usual ones).
using Initializer = std::function<void(const Tensor& value, Generator& gen)>;

// Whether allocate() makes the gradient arena: training needs it; decoding does not (it would
// double the model's memory).
enum class Gradients { kYes, kNo };

class ParameterSet {
 public:
  // Declares a parameter before allocate(), with the initializer init() runs for it (none: zero);
  // returns its index. Throws on a bad or repeated name.
  int add(const std::string& name, const Shape& shape, Initializer init = nullptr);
  // Creates the value arena (zero-filled) and, with Gradients::kYes, the gradient arena, binding
  // every parameter's gradient to its slot. With kNo the parameters are constants
  // (requires_grad false) and grads() is an error. `released`: parameters that get no slot at all,
  // as if release() had been called at once (a decoding model that holds them in another form
  // from the start, e.g. int8 weights quantized while the checkpoint is read); needs kNo.
  void allocate(Device device, DType dtype = DType::kF32, Gradients gradients = Gradients::kYes,
                const std::vector<int>& released = {});
  // Runs every parameter's initializer in declaration order with the one generator, so the draws
  // follow the order the layers declared their parameters in.
  void init(Generator& gen) const;
  // Frees the values of parameters that a decoding model keeps in another form (int8 weights):
  // the value arena is rebuilt without them. Their operator[] is then an error, and so is
  // saving the set. Needs a set without gradients.
  void release(const std::vector<int>& indices);
  bool released(int i) const { return !released_.empty() && released_.at(i); }
  bool any_released() const;

  bool allocated() const { return values_ != nullptr; }
  bool has_gradients() const { return grads_ != nullptr; }
  int size() const { return static_cast<int>(names_.size()); }
  const std::vector<std::string>& names() const { return names_; }
  const std::vector<Shape>& shapes() const { return shapes_; }
  bool contains(const std::string& name) const { return index_.count(name) > 0; }
  int index(const std::string& name) const;
  const Var& operator[](int i) const;
  const Var& operator[](const std::string& name) const { return (*this)[index(name)]; }
  const Arena& values() const;
  const Arena& grads() const;
  int64_t numel() const;   // parameters, without arena padding
  void zero_grad() const;  // one memset over the gradient arena

 private:
  std::vector<std::string> names_;
  std::vector<Shape> shapes_;
  std::vector<Initializer> inits_;
  std::unordered_map<std::string, int> index_;
  std::unique_ptr<Arena> values_, grads_;
  std::vector<Var> vars_;
  std::vector<bool> released_;  // empty until a parameter is released

  void mark_released(const std::vector<int>& indices);
  std::vector<Shape> arena_shapes() const;  // shapes_, with Shape{0} for released parameters
};

// Checks a parameter name: non-empty segments of [a-z0-9_] separated by single dots.
bool valid_parameter_name(const std::string& name);

}  // namespace realmt::graph
