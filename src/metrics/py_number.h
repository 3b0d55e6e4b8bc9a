// A number as Python sees it while sacreBLEU scores bootstrap resamples under NumPy >= 2:
// either a Python float (double) or a numpy.float32 scalar. NEP 50 promotion: an operation
// with at least one float32 operand converts the Python operand to float32 and computes in
// float32; otherwise it computes in double. Used to reproduce sacreBLEU's bootstrap scores
// bit for bit (the installed NumPy 2.x is the judge).
#pragma once

namespace realmt::metrics {

struct PyNum {
  double v = 0.0;
  bool f32 = false;

  static PyNum py(double x) { return {x, false}; }
  static PyNum np32(float x) { return {static_cast<double>(x), true}; }
};

#define REALMT_PYNUM_OP(op)                                                  \
  inline PyNum operator op(PyNum a, PyNum b) {                               \
    if (a.f32 || b.f32) {                                                    \
      volatile float r = static_cast<float>(a.v) op static_cast<float>(b.v); \
      return PyNum::np32(r);                                                 \
    }                                                                        \
    return PyNum::py(a.v op b.v);                                            \
  }                                                                          \
  inline PyNum operator op(PyNum a, double b) { return a op PyNum::py(b); }  \
  inline PyNum operator op(double a, PyNum b) { return PyNum::py(a) op b; }
REALMT_PYNUM_OP(+)
REALMT_PYNUM_OP(-)
REALMT_PYNUM_OP(*)
REALMT_PYNUM_OP(/)
#undef REALMT_PYNUM_OP

}  // namespace realmt::metrics
