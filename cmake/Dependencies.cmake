# Finds the libraries named in tools/deps.txt (Debian packages). A library the programs need is
# checked here, at configure time, with an error naming the package and what needs it (not a link
# error later); an optional one leaves out what needs it, and the message says what that is.
find_package(Threads REQUIRED)
find_package(PkgConfig)

# realmt_require(FOUND WHAT PACKAGE NEEDED_BY): a configure error unless FOUND is true.
function(realmt_require found what package needed_by)
  if(NOT ${found})
    message(FATAL_ERROR "realmt: ${what} not found. It is needed by ${needed_by}. Install the Debian "
                        "package ${package} (tools/install-deps installs every package of tools/deps.txt), "
                        "or point CMake at it (CMAKE_PREFIX_PATH, PKG_CONFIG_PATH).")
  endif()
endfunction()
# realmt_optional(FOUND WHAT PACKAGE LEFT_OUT): a message naming what is not built without it.
function(realmt_optional found what package left_out)
  if(NOT ${found})
    message(WARNING "realmt: ${what} not found (Debian package ${package}): ${left_out}")
  endif()
endfunction()

realmt_require(PKG_CONFIG_FOUND "pkg-config" "pkg-config" "the search for SentencePiece and cpp-httplib")
find_package(OpenMP QUIET COMPONENTS CXX)
realmt_require(OpenMP_CXX_FOUND "OpenMP for C++" "g++ (libgomp)" "realmt_core (every program but realmt-bleu)")

# ---- CPU BLAS (the one place the choice is made) ------------------------------
# Both libraries export the CBLAS symbols, so exactly one is linked into the library;
# the GEMM benchmark loads both at run time to compare them.
set(_blas_dir_blis /usr/lib/x86_64-linux-gnu/blis-openmp)
set(_blas_dir_openblas /usr/lib/x86_64-linux-gnu/openblas-openmp)
set(_blas_dir_openblas_pthread /usr/lib/x86_64-linux-gnu/openblas-pthread)
if(REALMT_BLAS STREQUAL "blis")
  find_library(REALMT_BLAS_LIBRARY NAMES blis PATHS ${_blas_dir_blis} NO_DEFAULT_PATH)
  if(NOT REALMT_BLAS_LIBRARY)
    find_library(REALMT_BLAS_LIBRARY NAMES blis)
  endif()
  realmt_require(REALMT_BLAS_LIBRARY "BLIS (REALMT_BLAS=blis)" "libblis-dev" "realmt_core's GEMM")
  set(REALMT_BLAS_DEFINE REALMT_BLAS_BLIS=1)
elseif(REALMT_BLAS STREQUAL "openblas")
  find_library(REALMT_BLAS_LIBRARY NAMES libopenblas.so.0 openblas PATHS ${_blas_dir_openblas} NO_DEFAULT_PATH)
  if(NOT REALMT_BLAS_LIBRARY)
    find_library(REALMT_BLAS_LIBRARY NAMES openblas)
  endif()
  realmt_require(REALMT_BLAS_LIBRARY "OpenBLAS (REALMT_BLAS=openblas)" "libopenblas-dev" "realmt_core's GEMM")
  set(REALMT_BLAS_DEFINE REALMT_BLAS_OPENBLAS=1)
else()
  message(FATAL_ERROR "REALMT_BLAS must be blis or openblas, not '${REALMT_BLAS}'")
endif()
find_library(REALMT_BLIS_SO NAMES libblis.so.4 blis PATHS ${_blas_dir_blis} NO_DEFAULT_PATH)
find_library(REALMT_OPENBLAS_SO NAMES libopenblas.so.0 openblas PATHS ${_blas_dir_openblas} NO_DEFAULT_PATH)

# int8 inference GEMM (backend/cpu/int8_gemm_onednn.cc): oneDNN. Without it (REALMT_ONEDNN=OFF, or
# AUTO on a machine without libdnnl-dev) int8 decoding runs realmt's portable integer GEMM
# (backend/cpu/int8_gemm_portable.cc): the same results, slower. Nothing else needs oneDNN, so
# realmt-bleu, realmt-data and every library build either way.
set(REALMT_WITH_ONEDNN OFF)
if(NOT REALMT_ONEDNN STREQUAL "OFF")
  # Debian 12's libdnnl-dev is built with the OpenCL GPU runtime: its dnnl-config.cmake calls
  # find_package(OpenCL REQUIRED), which stops the configure with CMake's own words when the OpenCL
  # headers and loader are missing. Look for them first and say which packages give them.
  find_file(REALMT_DNNL_CONFIG NAMES dnnl-config.cmake PATH_SUFFIXES cmake/dnnl lib/cmake/dnnl
            lib/${CMAKE_LIBRARY_ARCHITECTURE}/cmake/dnnl)
  if(REALMT_DNNL_CONFIG)
    file(STRINGS ${REALMT_DNNL_CONFIG} _dnnl_wants_opencl REGEX "find_package\\(OpenCL")
    if(_dnnl_wants_opencl)
      find_package(OpenCL QUIET)
      if(NOT OpenCL_FOUND)
        message(FATAL_ERROR "realmt: oneDNN (libdnnl-dev, ${REALMT_DNNL_CONFIG}) is installed but cannot be "
                            "used: it was built with OpenCL, and the OpenCL headers and loader are missing. "
                            "Install the Debian packages ocl-icd-opencl-dev and opencl-c-headers "
                            "(tools/install-deps installs them), or configure with -DREALMT_ONEDNN=OFF "
                            "(int8 decoding then runs realmt's portable integer GEMM, slower).")
      endif()
    endif()
  endif()
  find_package(dnnl CONFIG QUIET)
  if(dnnl_FOUND)
    set(REALMT_WITH_ONEDNN ON)
  elseif(REALMT_ONEDNN STREQUAL "ON")
    realmt_require(dnnl_FOUND "oneDNN (REALMT_ONEDNN=ON)" "libdnnl-dev" "realmt_core's fast int8 decoding")
  else()
    realmt_optional(dnnl_FOUND "oneDNN" "libdnnl-dev"
                    "int8 decoding (--quantize int8) runs realmt's portable integer GEMM, several times slower")
  endif()
endif()

find_package(yaml-cpp QUIET)
realmt_require(yaml-cpp_FOUND "yaml-cpp" "libyaml-cpp-dev" "realmt_base (config files of every program)")
find_package(Boost QUIET COMPONENTS program_options)
realmt_require(Boost_PROGRAM_OPTIONS_FOUND "Boost.Program_options" "libboost-program-options-dev"
               "realmt_base (the command line of every program)")
find_package(ICU QUIET COMPONENTS uc i18n data)
realmt_require(ICU_FOUND "ICU" "libicu-dev" "realmt_metrics and realmt_data (realmt-bleu, realmt-data, all programs)")
find_package(ZLIB QUIET)
realmt_require(ZLIB_FOUND "zlib" "zlib1g-dev" "realmt_data and realmt_models (gzip input, checkpoint CRC-32s)")
pkg_check_modules(SENTENCEPIECE QUIET IMPORTED_TARGET sentencepiece)
realmt_require(SENTENCEPIECE_FOUND "SentencePiece" "libsentencepiece-dev"
               "realmt_data (vocabularies: realmt-data, -train, -translate, -score, -server) and realmt-bleu's spm tokenizers")
find_package(nlohmann_json QUIET)
realmt_require(nlohmann_json_FOUND "nlohmann-json" "nlohmann-json3-dev"
               "realmt_models (checkpoint headers), realmt_server and the training log")

# Optional: each leaves out what the message names.
find_package(GTest QUIET)
if(REALMT_BUILD_TESTS)
  realmt_optional(GTest_FOUND "GoogleTest" "libgtest-dev"
                  "the unit tests (tests/, target *_tests) are not built; the end-to-end tests in regression/ still are")
endif()
# HTTP client of tests/server and bench/server only (the server has its own HTTP front); no CMake
# config in Debian.
pkg_check_modules(HTTPLIB QUIET IMPORTED_TARGET cpp-httplib)
if(REALMT_BUILD_TESTS OR REALMT_BUILD_BENCH)
  realmt_optional(HTTPLIB_FOUND "cpp-httplib" "libcpp-httplib-dev"
                  "server_tests (tests/server) and realmt-bench-server are not built; realmt-server itself does not need it")
endif()
find_package(MPI QUIET COMPONENTS CXX)
realmt_optional(MPI_CXX_FOUND "MPI" "libopenmpi-dev"
                "realmt-train runs in one process only (no mpirun data parallelism); the MPI tests are not built")

# The Python package (python/): Python's headers (python3-dev) and pybind11 (pybind11-dev).
# Sanitized and fuzz builds leave it out: their module would need the sanitizer runtime loaded
# before the interpreter.
set(REALMT_WITH_PYTHON OFF)
if(NOT REALMT_PYTHON STREQUAL "OFF" AND NOT REALMT_SANITIZE AND NOT REALMT_FUZZ)
  find_package(Python3 QUIET COMPONENTS Interpreter Development.Module)
  if(Python3_Development.Module_FOUND)
    find_package(pybind11 CONFIG QUIET)
  endif()
  if(Python3_Development.Module_FOUND AND pybind11_FOUND)
    set(REALMT_WITH_PYTHON ON)
  elseif(REALMT_PYTHON STREQUAL "ON")
    realmt_require(Python3_Development.Module_FOUND "Python 3 headers (REALMT_PYTHON=ON)" "python3-dev" "the Python package")
    realmt_require(pybind11_FOUND "pybind11 (REALMT_PYTHON=ON)" "pybind11-dev" "the Python package")
  else()
    realmt_optional(REALMT_WITH_PYTHON "Python 3 headers and pybind11" "python3-dev pybind11-dev"
                    "the Python package (python/, import realmt) is not built")
  endif()
elseif(REALMT_PYTHON STREQUAL "ON")
  message(FATAL_ERROR "realmt: REALMT_PYTHON=ON cannot be built with REALMT_SANITIZE or REALMT_FUZZ")
endif()

# tools/test configures with REALMT_STRICT_DEPS=ON: there, a package missing from tools/deps.txt's
# test tier stops the configure instead of leaving its tests out (a green run that skipped them).
if(REALMT_STRICT_DEPS)
  set(_strict_why "tools/test (REALMT_STRICT_DEPS=ON: the whole suite is built)")
  realmt_require(GTest_FOUND "GoogleTest" "libgtest-dev" "${_strict_why}")
  realmt_require(HTTPLIB_FOUND "cpp-httplib" "libcpp-httplib-dev" "${_strict_why}")
  realmt_require(MPI_CXX_FOUND "MPI" "libopenmpi-dev" "${_strict_why}")
  realmt_require(REALMT_WITH_ONEDNN "oneDNN" "libdnnl-dev" "${_strict_why}")
  realmt_require(REALMT_BLIS_SO "BLIS (OpenMP build)" "libblis4-openmp" "${_strict_why}: bench/core/gemm_bench")
  realmt_require(MPIEXEC_EXECUTABLE "mpiexec" "openmpi-bin" "${_strict_why}: the MPI training tests")
  find_package(Python3 QUIET COMPONENTS Interpreter)
  set(_venv_ok FALSE)
  if(Python3_Interpreter_FOUND)
    execute_process(COMMAND ${Python3_EXECUTABLE} -c "import venv, ensurepip" RESULT_VARIABLE _venv_rc
                    OUTPUT_QUIET ERROR_QUIET)
    if(_venv_rc EQUAL 0)
      set(_venv_ok TRUE)
    endif()
  endif()
  realmt_require(_venv_ok "Python 3 with venv and ensurepip" "python3-venv"
                 "${_strict_why}: the sacreBLEU, PyTorch and Marian comparisons make virtual environments")
  if(NOT REALMT_SANITIZE AND NOT REALMT_FUZZ AND NOT REALMT_PYTHON STREQUAL "OFF")
    realmt_require(REALMT_WITH_PYTHON "Python 3 headers or pybind11" "python3-dev and pybind11-dev"
                   "${_strict_why}: the Python package and its tests")
  endif()
endif()
