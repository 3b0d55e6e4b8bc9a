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

int ParameterSet::add(const std::string& name, const Shape& shape) {
  REALMT_CHECK(!allocated(), "parameter '{}' declared after the parameters were allocated", name);
  REALMT_CHECK(valid_parameter_name(name),
               "bad parameter name '{}' (use dot-separated segments of a-z, 0-9 and _)", name);
  REALMT_CHECK(!contains(name), "parameter '{}' declared twice", name);
  index_[name] = size();
  names_.push_back(name);
  shapes_.push_back(shape);
  return size() - 1;
}

void ParameterSet::allocate(Device device, DType dtype) {
  REALMT_CHECK(!allocated(), "parameters allocated twice");
  values_ = std::make_unique<Arena>(shapes_, dtype, device);
  grads_ = std::make_unique<Arena>(shapes_, dtype, device);
  vars_.reserve(names_.size());
  for (int i = 0; i < size(); ++i) {
    vars_.emplace_back((*values_)[i], /*requires_grad=*/true);
    vars_.back().bind_grad((*grads_)[i]);
  }
}

int ParameterSet::index(const std::string& name) const {
  auto it = index_.find(name);
  REALMT_CHECK(it != index_.end(), "no parameter named '{}'", name);
  return it->second;
}

const Var& ParameterSet::operator[](int i) const {
  REALMT_CHECK(allocated(), "parameters used before allocate()");
  REALMT_CHECK(i >= 0 && i < size(), "parameter index {} out of range ({} parameters)", i, size());
  return vars_[i];
}

const Arena& ParameterSet::values() const {
  REALMT_CHECK(allocated(), "parameters used before allocate()");
  return *values_;
}

const Arena& ParameterSet::grads() const {
  REALMT_CHECK(allocated(), "parameters used before allocate()");
  return *grads_;
}

int64_t ParameterSet::numel() const {
  int64_t n = 0;
  for (const Shape& s : shapes_) n += s.numel();
  return n;
}

void ParameterSet::zero_grad() const {
  if (allocated()) grads_->flat().zero_();
}

}  // namespace realmt::graph
