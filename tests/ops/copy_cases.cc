#include "case_util.h"
#include "core/runtime.h"
#include "graph/copy.h"
#include "ops/copy.h"

namespace realmt::test {
namespace {

// The other device of a round trip: the GPU when there is one, else the CPU itself.
Device other_device() {
  return device_count(DeviceType::kCuda) > 0 ? Device::cuda(0) : Device::cpu();
}

OpCase copy_case(const std::string& tag, Shape shape, DType dtype) {
  OpCase c;
  c.name = "copy_to/" + tag;
  InputSpec x;
  x.shape = shape;
  c.inputs = {x};
  c.dtype = dtype;
  // x -> other device -> back to x's device: both directions of the transfer.
  c.run = [](const Tensors& in) {
    return Tensors{ops::copy_to(ops::copy_to(in[0], other_device()), in[0].device())};
  };
  c.reference = [](const Tensors& in) { return Tensors{Host(in[0]).tensor()}; };
  c.graph = [](const std::vector<graph::Var>& v) {
    return graph::copy_to(graph::copy_to(v[0], other_device()), v[0].device());
  };
  c.rtol = 0;
  c.atol = 1e-300;  // a copy: exact
  return c;
}

bool register_all() {
  register_case([] { return copy_case("round_trip_f32", {3, 4, 5}, DType::kF32); });
  register_case([] { return copy_case("round_trip_bf16", {7, 9}, DType::kBF16); });
  register_case([] {
    OpCase c = copy_case("empty", {0, 4}, DType::kF32);
    c.graph = nullptr;  // no element to differentiate
    return c;
  });
  return true;
}
[[maybe_unused]] const bool registered = register_all();

}  // namespace
}  // namespace realmt::test
