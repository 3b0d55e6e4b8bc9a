# CUDA backend: built when nvcc is found (REALMT_CUDA=AUTO), or forced ON/OFF.
set(REALMT_WITH_CUDA OFF)
if(NOT REALMT_CUDA STREQUAL "OFF")
  include(CheckLanguage)
  if(NOT CMAKE_CUDA_COMPILER AND EXISTS /usr/local/cuda/bin/nvcc)
    set(CMAKE_CUDA_COMPILER /usr/local/cuda/bin/nvcc)
  endif()
  check_language(CUDA)
  if(CMAKE_CUDA_COMPILER)
    if(NOT DEFINED CMAKE_CUDA_ARCHITECTURES AND NOT DEFINED ENV{CUDAARCHS})
      # Volta to Hopper: V100 (70), T4/RTX 20 (75), A100 (80), RTX 30/A40 (86), L4/RTX 40 (89),
      # H100/H200 (90); each as SASS, 90 also as PTX for later GPUs. The ones this nvcc cannot
      # build are left out (CUDA 13 dropped 70). Narrow it with -DCMAKE_CUDA_ARCHITECTURES=90
      # (one GPU kind builds faster) or "native" (the GPUs of this machine).
      execute_process(COMMAND ${CMAKE_CUDA_COMPILER} --list-gpu-code OUTPUT_VARIABLE _codes
                      RESULT_VARIABLE _rc ERROR_QUIET)
      set(_archs "")
      set(_dropped "")
      foreach(a 70 75 80 86 89 90)
        if(_rc EQUAL 0 AND NOT _codes MATCHES "(^|[ \n])sm_${a}([ \n]|$)")
          list(APPEND _dropped ${a})
        else()
          list(APPEND _archs ${a}-real)
        endif()
      endforeach()
      list(APPEND _archs 90-virtual)
      if(_dropped)
        message(STATUS "realmt: ${CMAKE_CUDA_COMPILER} cannot build for sm_${_dropped}: left out of the "
                       "default CUDA architectures")
      endif()
      set(CMAKE_CUDA_ARCHITECTURES "${_archs}" CACHE STRING
          "CUDA architectures (default: Volta to Hopper, as far as nvcc supports them)")
    endif()
    enable_language(CUDA)
    # CMake < 3.26 does not know nvcc's C++20 flag; the realmt headers the kernels include
    # need C++20 (defaulted operator==, [[likely]]).
    if(NOT CMAKE_CUDA20_STANDARD_COMPILE_OPTION)
      set(CMAKE_CUDA20_STANDARD_COMPILE_OPTION "-std=c++20")
      set(CMAKE_CUDA20_EXTENSION_COMPILE_OPTION "-std=c++20")
    endif()
    set(CMAKE_CUDA_STANDARD 20)
    set(CMAKE_CUDA_STANDARD_REQUIRED ON)
    find_package(CUDAToolkit REQUIRED)
    find_library(REALMT_NCCL_LIBRARY NAMES nccl HINTS ${CUDAToolkit_LIBRARY_DIR})
    set(REALMT_WITH_CUDA ON)
    message(STATUS "realmt: CUDA architectures ${CMAKE_CUDA_ARCHITECTURES}")
  elseif(REALMT_CUDA STREQUAL "ON")
    message(FATAL_ERROR "REALMT_CUDA=ON but no CUDA compiler (nvcc) was found")
  endif()
endif()
