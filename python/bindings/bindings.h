// The parts of the Python extension module _realmt, one function per area: each adds its
// classes and functions to the module. The Python package realmt (python/realmt/) wraps them.
#pragma once

#include <pybind11/pybind11.h>

namespace realmt::python {

void add_translator(pybind11::module_& m);  // Translator: translate_batch, score_batch
void add_metrics(pybind11::module_& m);     // BLEU, chrF and TER statistics, scores, signatures
void add_training(pybind11::module_& m);    // train(argv, progress), request_stop
void add_convert(pybind11::module_& m);     // convert(...)

}  // namespace realmt::python
