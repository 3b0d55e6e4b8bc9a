// _realmt: the extension module. realmt::UsageError becomes realmt.UsageError (also a
// ValueError), any other realmt::Error realmt.Error (a RuntimeError), with realmt's message.
#include <pybind11/pybind11.h>

#include "bindings.h"
#include "core/cpu_isa.h"
#include "core/error.h"

PYBIND11_MODULE(_realmt, m) {
  namespace py = pybind11;
  m.doc() = "realmt's C++ library: decoding, scoring, metrics, training, conversion";
  static py::exception<realmt::Error> error(m, "Error", PyExc_RuntimeError);
  static py::handle usage_error =
      PyErr_NewException("realmt._realmt.UsageError",
                         py::make_tuple(error, py::handle(PyExc_ValueError)).ptr(), nullptr);
  m.attr("UsageError") = usage_error;
  // Most derived first: pybind11 tries translators in reverse order of registration.
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const realmt::UsageError& e) {
      PyErr_SetString(usage_error.ptr(), e.what());
    } catch (const realmt::Error& e) {
      PyErr_SetString(error.ptr(), e.what());
    }
  });
  m.def("cpu_isa", &realmt::cpu_isa_summary,
        "The CPU kernel level in use and what the build carries (as --version prints it)");
  m.attr("__version__") = REALMT_VERSION;
  realmt::python::add_translator(m);
  realmt::python::add_metrics(m);
  realmt::python::add_training(m);
  realmt::python::add_convert(m);
}
