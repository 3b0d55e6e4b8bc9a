// realmt.train's C++ side: realmt-train's options parsed from an argument list (the same
// OptionSet, so configs, presets and checks are realmt-train's), training::Trainer run with the
// GIL released, and a progress observer that takes the GIL once an update to call the Python
// callback and to let Python's own SIGINT handler run. Ctrl-C (KeyboardInterrupt there), a
// callback returning False, a callback raising, or request_stop() from another thread all become
// the trainer's stop request: it saves and returns after that update, as on SIGTERM.
#include <pybind11/functional.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <sstream>

#include "bindings.h"
#include "common/options.h"
#include "common/stop_signal.h"
#include "training/trainer.h"

namespace py = pybind11;

namespace realmt::python {
namespace {

// What the observer met: a Python error to raise after the save, or an interrupt.
struct StopCause {
  py::object error_type, error_value, error_trace;  // the callback's exception (PyErr_Fetch)
  bool interrupted = false;                         // Ctrl-C
};

void keep(const py::error_already_set& e, StopCause& cause) {
  if (cause.error_type) return;  // the first error is the one raised
  cause.error_type = e.type();
  cause.error_value = e.value();
  cause.error_trace = e.trace();
}

// Runs under the GIL after each update; any reason to stop becomes request_stop().
void observe(const training::UpdateReport& r, const py::object& callback, StopCause& cause) {
  py::gil_scoped_acquire locked;
  if (PyErr_CheckSignals() !=
      0) {  // Python's SIGINT handler raised KeyboardInterrupt, or another one raised
    py::error_already_set e;  // takes the error out of the interpreter
    if (e.matches(PyExc_KeyboardInterrupt))
      cause.interrupted = true;
    else
      keep(e, cause);
    request_stop();
    return;
  }
  if (callback.is_none()) return;
  py::dict info;
  info["update"] = r.update;
  info["epoch"] = r.epoch;
  info["loss"] = r.loss;
  info["tokens"] = r.tokens;
  info["tokens_per_second"] = r.tokens_per_second;
  info["seconds"] = r.seconds;
  try {
    const py::object answer = callback(info);
    if (!answer.is_none() && !answer.cast<bool>()) request_stop();
  } catch (py::error_already_set& e) {  // Ctrl-C while the callback ran shows up here too
    if (e.matches(PyExc_KeyboardInterrupt))
      cause.interrupted = true;
    else
      keep(e, cause);
    request_stop();
  }
}

// argv: realmt-train's command line without the program name. Returns None after --help,
// --version or --dump-config (their text printed to sys.stdout), else the run's summary.
py::object train(const std::vector<std::string>& args, const py::object& callback) {
  std::vector<const char*> argv{"realmt-train"};
  for (const auto& a : args) argv.push_back(a.c_str());
  training::TrainOptions options;
  OptionSet set("realmt-train",
                "Train a Transformer encoder-decoder (RealFormer on ADMIN) from YAML configs");
  options.declare(set);
  std::ostringstream printed;
  if (!set.parse(static_cast<int>(argv.size()), argv.data(), printed)) {
    py::module_::import("sys").attr("stdout").attr("write")(printed.str());
    return py::none();
  }
  StopCause cause;
  training::TrainResult r;
  {
    py::gil_scoped_release unlocked;
    clear_stop_request();  // a request left from before this run is not this run's
    training::Trainer trainer(options);
    trainer.on_update([&](const training::UpdateReport& u) { observe(u, callback, cause); });
    r = trainer.run();
  }
  if (cause.error_type) {
    PyErr_Restore(cause.error_type.release().ptr(), cause.error_value.release().ptr(),
                  cause.error_trace.release().ptr());
    throw py::error_already_set();
  }
  py::dict out;
  out["updates"] = r.updates;
  out["epochs"] = r.epochs;
  out["stop_reason"] = std::string(enum_name(r.stop_reason));
  out["losses"] = r.losses;
  out["interrupted"] = cause.interrupted;
  return out;
}

}  // namespace

void add_training(py::module_& m) {
  m.def("train", &train, py::arg("args"), py::arg("callback") = py::none());
  m.def("request_stop", &request_stop,
        "Asks a running realmt.train to save and return after its current update (any thread)");
}

}  // namespace realmt::python
