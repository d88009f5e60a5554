# Runs an unmodified LAPACK program (PROGRAM, with argument ARG) without and with
# LD_PRELOAD=SHIM and requires the same output in every mode, and a log showing the calls
# intercepted: the default (auto) policy; GPUEIG_BACKEND=cpu (the CPU fallback must reach the real
# LAPACK, never the shim again); and GPUEIG_SHIM=serve with GPUEIG_BACKEND=cpu (every intercepted
# call served through libgpueig, dsterf_ and dsyev(d)_ included). No mode may print a warning about
# the environment.
cmake_policy(VERSION 3.25)
function(run_program out_var err_var)
  execute_process(COMMAND ${CMAKE_COMMAND} -E env ${ARGN} ${PROGRAM} ${ARG}
                  OUTPUT_VARIABLE out ERROR_VARIABLE err RESULT_VARIABLE rc TIMEOUT 300)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${PROGRAM} failed (${rc}) with ${ARGN}\n${out}\n${err}")
  endif()
  set(${out_var} "${out}" PARENT_SCOPE)
  set(${err_var} "${err}" PARENT_SCOPE)
endfunction()

run_program(plain plain_err GPUEIG_VERBOSE=1)
message(STATUS "plain run:\n${plain}")
if(plain_err MATCHES "gpueig")
  message(FATAL_ERROR "libgpueig answered without LD_PRELOAD:\n${plain_err}")
endif()

# GPUEIG_SHIM's value is case-insensitive (SERVE was once ignored silently).
foreach(mode "GPUEIG_BACKEND=auto" "GPUEIG_BACKEND=cpu" "GPUEIG_SHIM=SERVE;GPUEIG_BACKEND=cpu")
  run_program(out err LD_PRELOAD=${SHIM} GPUEIG_VERBOSE=1 ${mode})
  message(STATUS "under LD_PRELOAD with ${mode}:\n${err}")
  if(err MATCHES "gpueig: ignoring")
    message(FATAL_ERROR "a setting was rejected (${mode}):\n${err}")
  endif()
  if(NOT out STREQUAL plain)
    message(FATAL_ERROR "output differs under LD_PRELOAD (${mode}):\n--- plain\n${plain}\n--- preload\n${out}")
  endif()
  foreach(call "dgetrf_ m=40 n=40 -> libgpueig" "dgtsv_ n=${ARG} nrhs=1 -> libgpueig"
               "dstebz_ n=200 RANGE=I ORDER=E -> libgpueig" "dsterf_ n=200 -> "
               "dsyevd_ n=60 JOBZ=V -> LAPACK \\(forwarded\\)" "dsyev_ n=60 JOBZ=" "dsyevd_ n=60 JOBZ=N"
               "dgetrf_ m=-1 n=1 -> LAPACK \\(forwarded: INFO -1\\)")
    if(NOT err MATCHES "gpueig-lapack: ${call}")
      message(FATAL_ERROR "the log does not show '${call}' intercepted (${mode})")
    endif()
  endforeach()
  if(mode MATCHES "SERVE")
    foreach(call "dsterf_ n=200 -> libgpueig gpu_stebz" "dsyevd_ n=60 JOBZ=N -> libgpueig"
                 "dsyev_ n=60 JOBZ=N -> libgpueig")
      if(NOT err MATCHES "gpueig-lapack: ${call}")
        message(FATAL_ERROR "'${call}' was not served by libgpueig with GPUEIG_SHIM=serve")
      endif()
    endforeach()
  endif()
endforeach()
