#include "graph/parameters.h"

namespace realmt::graph {

bool valid_parameter_name(const std::string& name) {
  if (name.empty() || name.front() == '.' || name.back() == '.') return false;
  char prev = '.';
  for (char c : name) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' || c == '.';
    if (!ok || (c == '.' && prev == '.')) return false;
    prev = c;
  }
  return true;
}

int ParameterSet::add(const std::string& name, const Shape& shape, Initializer init) {
  REALMT_CHECK(!allocated(), "parameter '{}' declared after the parameters were allocated", name);
  REALMT_CHECK(valid_parameter_name(name),
               "bad parameter name '{}' (use dot-separated segments of a-z, 0-9 and _)", name);
  REALMT_CHECK(!contains(name), "parameter '{}' declared twice", name);
  index_[name] = size();
  names_.push_back(name);
  shapes_.push_back(shape);
  inits_.push_back(std::move(init));
  return size() - 1;
}

void ParameterSet::init(Generator& gen) const {
  for (int i = 0; i < size(); ++i) {
    const Tensor value = (*this)[i].value();
    if (inits_[i]) {
      inits_[i](value, gen);
    } else {
      value.zero_();
    }
  }
}

void ParameterSet::allocate(Device device, DType dtype, Gradients gradients,
                            const std::vector<int>& released) {
  REALMT_CHECK(!allocated(), "parameters allocated twice");
  REALMT_CHECK(released.empty() || gradients == Gradients::kNo,
               "only a decoding model (parameters without gradients) releases parameters");
  mark_released(released);
  values_ = std::make_unique<Arena>(arena_shapes(), dtype, device);
  if (gradients == Gradients::kYes) grads_ = std::make_unique<Arena>(shapes_, dtype, device);
  vars_.reserve(names_.size());
  for (int i = 0; i < size(); ++i) {
    vars_.emplace_back((*values_)[i], /*requires_grad=*/grads_ != nullptr);
    if (grads_) vars_.back().bind_grad((*grads_)[i]);
  }
}

void ParameterSet::release(const std::vector<int>& indices) {
  REALMT_CHECK(allocated() && !grads_,
               "only a decoding model (parameters without gradients) releases parameters");
  mark_released(indices);
  // A new arena with empty slots for the released parameters; the kept values move over.
  auto values = std::make_unique<Arena>(arena_shapes(), values_->dtype(), values_->device());
  for (int i = 0; i < size(); ++i) {
    Tensor slot = (*values)[i];
    if (!released(i)) slot.copy_from(vars_[i].value());
    vars_[i] = Var(slot, /*requires_grad=*/false);
  }
  values_ = std::move(values);
}

void ParameterSet::mark_released(const std::vector<int>& indices) {
  if (indices.empty()) return;
  if (released_.empty()) released_.assign(names_.size(), false);
  for (int i : indices) {
    REALMT_CHECK(i >= 0 && i < size(), "parameter index {} out of range ({} parameters)", i,
                 size());
    released_[i] = true;
  }
}

std::vector<Shape> ParameterSet::arena_shapes() const {
  std::vector<Shape> shapes(shapes_);
  for (int i = 0; i < size(); ++i)
    if (released(i)) shapes[i] = Shape{0};
  return shapes;
}

bool ParameterSet::any_released() const {
  for (bool r : released_)
    if (r) return true;
  return false;
}

int ParameterSet::index(const std::string& name) const {
  auto it = index_.find(name);
  REALMT_CHECK(it != index_.end(), "no parameter named '{}'", name);
  return it->second;
}

const Var& ParameterSet::operator[](int i) const {
  REALMT_CHECK(allocated(), "parameters used before allocate()");
  REALMT_CHECK(i >= 0 && i < size(), "parameter index {} out of range ({} parameters)", i, size());
  REALMT_CHECK(!released(i),
               "parameter '{}' was released: this model keeps it quantized and only decodes",
               names_[i]);
  return vars_[i];
}

const Arena& ParameterSet::values() const {
  REALMT_CHECK(allocated(), "parameters used before allocate()");
  return *values_;
}

const Arena& ParameterSet::grads() const {
  REALMT_CHECK(allocated(), "parameters used before allocate()");
  REALMT_CHECK(grads_ != nullptr,
               "these parameters were allocated without gradients (a decoding model)");
  return *grads_;
}

int64_t ParameterSet::numel() const {
  int64_t n = 0;
  for (const Shape& s : shapes_) n += s.numel();
  return n;
}

void ParameterSet::zero_grad() const {
  if (grads_) grads_->flat().zero_();
}

}  // namespace realmt::graph
