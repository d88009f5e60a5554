cmake_policy(VERSION 3.25)
# Checks that libgpueig.so needs no CUDA library at load time (DT_NEEDED): the CUDA runtime is
# linked statically and cuBLAS is dlopen()ed at its first use, so the library loads and runs on
# the CPU on a machine without the CUDA toolkit.
execute_process(COMMAND ${OBJDUMP} -p ${LIB} OUTPUT_VARIABLE out RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "objdump failed on ${LIB}")
endif()
string(REGEX MATCHALL "NEEDED +[^\n]+" needed "${out}")
if(NOT needed)
  message(FATAL_ERROR "no NEEDED entries read from ${LIB}")
endif()
foreach(entry IN LISTS needed)
  if(entry MATCHES "libcu|libnv")
    message(FATAL_ERROR "libgpueig.so needs a CUDA library at load time: ${entry}")
  endif()
endforeach()
message(STATUS "NEEDED: ${needed}")
