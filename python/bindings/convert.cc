// realmt.convert's C++ side: realmt-convert's options struct and its one entry
// (convert::run_conversion), run with the GIL released.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include "bindings.h"
#include "convert/convert_options.h"

namespace py = pybind11;

namespace realmt::python {
namespace {

std::string convert(const std::string& from_format, const std::string& source,
                    const std::string& output, const std::string& to,
                    const std::vector<std::string>& vocabs, int64_t max_positions) {
  convert::ConvertOptions o;
  o.from = {from_format, source};
  o.to = to;
  o.output = output;
  o.vocabs = vocabs;
  o.max_positions = max_positions;
  py::gil_scoped_release unlocked;
  o.validate();
  return convert::run_conversion(o);
}

}  // namespace

void add_convert(py::module_& m) {
  m.def("convert", &convert, py::arg("from_format"), py::arg("source"), py::arg("output"),
        py::arg("to"), py::arg("vocabs"), py::arg("max_positions"));
}

}  // namespace realmt::python
