# Finds the LAPACK library the CPU backend binds to at run time, and its SONAME, which the library
# dlopen()s so that LAPACK symbols are taken from that library and never from an LD_PRELOADed shim.
# OpenBLAS is preferred (it carries LAPACK); any other LAPACK found by FindLAPACK works too.
# Sets GPUEIG_LAPACK_LIBRARY (the library whose SONAME is taken), GPUEIG_LAPACK_LIBRARIES (all to
# link: Reference LAPACK needs its separate BLAS, e.g. for the test ratios' dgemm_) and
# GPUEIG_LAPACK_SONAME.
# GPUEIG_LAPACK_VENDOR=generic takes Reference LAPACK with its separate BLAS even where OpenBLAS is installed
# (CI builds that way too, so that any LAPACK keeps building and passing).
if(GPUEIG_LAPACK_VENDOR STREQUAL "generic")
  set(BLA_VENDOR Generic)
else()
  find_library(GPUEIG_OPENBLAS_LIBRARY NAMES openblas)
endif()
if(GPUEIG_OPENBLAS_LIBRARY)
  set(GPUEIG_LAPACK_LIBRARY "${GPUEIG_OPENBLAS_LIBRARY}")
  set(GPUEIG_LAPACK_LIBRARIES "${GPUEIG_OPENBLAS_LIBRARY}")
else()
  find_package(LAPACK REQUIRED)
  list(GET LAPACK_LIBRARIES 0 GPUEIG_LAPACK_LIBRARY)
  set(GPUEIG_LAPACK_LIBRARIES ${LAPACK_LIBRARIES})
endif()
get_filename_component(_gpueig_lapack_real "${GPUEIG_LAPACK_LIBRARY}" REALPATH)
set(GPUEIG_LAPACK_SONAME "")
if(CMAKE_OBJDUMP)
  execute_process(COMMAND "${CMAKE_OBJDUMP}" -p "${_gpueig_lapack_real}"
                  OUTPUT_VARIABLE _gpueig_dyn ERROR_QUIET)
  if(_gpueig_dyn MATCHES "SONAME[ \t]+([^ \t\r\n]+)")
    set(GPUEIG_LAPACK_SONAME "${CMAKE_MATCH_1}")
  endif()
endif()
if(NOT GPUEIG_LAPACK_SONAME)
  get_filename_component(GPUEIG_LAPACK_SONAME "${_gpueig_lapack_real}" NAME)
endif()
