# The shim over a failing device (the fake device, every crossover 0, so that every served call
# reaches the GPU dispatch): PROGRAM (with ARG) under LD_PRELOAD=SHIM.
#   GPUEIG_FAULT_INJECT=alloc: every device attempt fails before writing; libgpueig falls back to
#     LAPACK, so the output is the plain run's.
#   GPUEIG_FAULT_INJECT=download: the first dgetrf_ loses the device after part of A came back;
#     the shim must not forward (LAPACK would factor the overwritten A and return a wrong answer
#     silently): INFO = -1001 and one line on stderr without GPUEIG_VERBOSE; no crash, and every
#     later call forwarded (the device is lost) with its reason.
cmake_policy(VERSION 3.25)
set(env GPUEIG_FAKE_DEVICE=1 GPUEIG_CROSSOVER_GTSV=0 GPUEIG_CROSSOVER_STEBZ=0
    GPUEIG_CROSSOVER_GETRF=0 GPUEIG_CROSSOVER_SYTRD=0 GPUEIG_CROSSOVER_GESV=0)
execute_process(COMMAND ${PROGRAM} ${ARG} OUTPUT_VARIABLE plain RESULT_VARIABLE rc TIMEOUT 300)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "${PROGRAM} failed (${rc})")
endif()

execute_process(COMMAND ${CMAKE_COMMAND} -E env LD_PRELOAD=${SHIM} GPUEIG_VERBOSE=1 ${env}
                        GPUEIG_FAULT_INJECT=alloc ${PROGRAM} ${ARG}
                OUTPUT_VARIABLE out ERROR_VARIABLE err RESULT_VARIABLE rc TIMEOUT 300)
message(STATUS "alloc:\n${err}")
if(NOT rc EQUAL 0 OR NOT out STREQUAL plain)
  message(FATAL_ERROR "with allocation failures (rc ${rc}) the output differs:\n${plain}\n---\n${out}")
endif()
foreach(call "dgetrf_ m=40 n=40" "dgesv_ n=600 nrhs=3" "dsyevd_ n=60 JOBZ=N")
  if(NOT err MATCHES "gpueig-lapack: ${call} -> libgpueig")
    message(FATAL_ERROR "'${call}' was not served (through the fallback) with allocation failures")
  endif()
endforeach()

execute_process(COMMAND ${CMAKE_COMMAND} -E env LD_PRELOAD=${SHIM} ${env}
                        GPUEIG_FAULT_INJECT=download ${PROGRAM} ${ARG}
                OUTPUT_VARIABLE out ERROR_VARIABLE err RESULT_VARIABLE rc TIMEOUT 300)
message(STATUS "download:\n${out}\n${err}")
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "the program ended with ${rc} when the device was lost mid-download")
endif()
if(NOT err MATCHES "gpueig-lapack: dgetrf_ m=40 n=40: libgpueig failed \\(-1001\\)"
   OR NOT out MATCHES "dgetrf info=-1001 ")
  message(FATAL_ERROR "a partly written dgetrf_ was not reported as INFO = -1001")
endif()
