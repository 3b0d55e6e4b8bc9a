# Finds the libraries named in tools/deps.txt (Debian packages).
find_package(Threads REQUIRED)
find_package(OpenMP REQUIRED COMPONENTS CXX)
find_package(PkgConfig REQUIRED)

# ---- CPU BLAS (the one place the choice is made) ------------------------------
# Both libraries export the CBLAS symbols, so exactly one is linked into the library;
# the GEMM benchmark loads both at run time to compare them.
set(_blas_dir_blis /usr/lib/x86_64-linux-gnu/blis-openmp)
set(_blas_dir_openblas /usr/lib/x86_64-linux-gnu/openblas-openmp)
set(_blas_dir_openblas_pthread /usr/lib/x86_64-linux-gnu/openblas-pthread)
if(REALMT_BLAS STREQUAL "blis")
  find_library(REALMT_BLAS_LIBRARY NAMES blis PATHS ${_blas_dir_blis} NO_DEFAULT_PATH)
  if(NOT REALMT_BLAS_LIBRARY)
    find_library(REALMT_BLAS_LIBRARY NAMES blis REQUIRED)
  endif()
  set(REALMT_BLAS_DEFINE REALMT_BLAS_BLIS=1)
elseif(REALMT_BLAS STREQUAL "openblas")
  find_library(REALMT_BLAS_LIBRARY NAMES libopenblas.so.0 openblas PATHS ${_blas_dir_openblas} NO_DEFAULT_PATH)
  if(NOT REALMT_BLAS_LIBRARY)
    find_library(REALMT_BLAS_LIBRARY NAMES openblas REQUIRED)
  endif()
  set(REALMT_BLAS_DEFINE REALMT_BLAS_OPENBLAS=1)
else()
  message(FATAL_ERROR "REALMT_BLAS must be blis or openblas, not '${REALMT_BLAS}'")
endif()
find_library(REALMT_BLIS_SO NAMES libblis.so.4 blis PATHS ${_blas_dir_blis} NO_DEFAULT_PATH)
find_library(REALMT_OPENBLAS_SO NAMES libopenblas.so.0 openblas PATHS ${_blas_dir_openblas} NO_DEFAULT_PATH)

# int8 inference GEMM (backend/cpu/int8_gemm.cc): oneDNN, Debian's libdnnl-dev.
find_package(dnnl CONFIG REQUIRED)

find_package(GTest REQUIRED)
find_package(benchmark QUIET)
find_package(yaml-cpp REQUIRED)  # realmt_base: config files (src/common/options)
find_package(Boost REQUIRED COMPONENTS program_options)  # realmt_base: the command line (src/common/options)
find_package(ICU QUIET COMPONENTS uc i18n data)
find_package(ZLIB QUIET)
pkg_check_modules(SENTENCEPIECE QUIET IMPORTED_TARGET sentencepiece)
find_package(nlohmann_json QUIET)
pkg_check_modules(HTTPLIB REQUIRED IMPORTED_TARGET cpp-httplib)  # HTTP client of tests/server and bench/server (no CMake config in Debian)
find_package(MPI QUIET COMPONENTS CXX)
