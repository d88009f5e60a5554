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
  # Every call reaches the shim and its line says where it went.
  foreach(call "dgetrf_ m=40 n=40" "dgetrs_ n=40 nrhs=2 TRANS=N" "dgetrs_ n=40 nrhs=2 TRANS=T"
               "dgesv_ n=600 nrhs=3" "dgtsv_ n=${ARG} nrhs=1" "dstebz_ n=200 RANGE=I ORDER=E"
               "dsterf_ n=200" "dsyevd_ n=60 JOBZ=V" "dsyev_ n=60 JOBZ=N" "dsyevd_ n=60 JOBZ=N"
               "dstein_ n=200 m=10" "dsyevx_ n=60 JOBZ=V RANGE=I" "dsyevr_ n=60 JOBZ=V RANGE=A"
               "dsyevr_ n=60 JOBZ=N RANGE=V" "dgetrf_ m=-1 n=1")
    if(NOT err MATCHES "gpueig-lapack: ${call} -> ")
      message(FATAL_ERROR "the log does not show '${call}' intercepted (${mode})")
    endif()
  endforeach()
  # Why a call was forwarded is said, truly.
  foreach(call "dgetrf_ m=-1 n=1 -> LAPACK \\(forwarded: ")
    if(NOT err MATCHES "gpueig-lapack: ${call}")
      message(FATAL_ERROR "the log does not show '${call}' (${mode})")
    endif()
  endforeach()
  if(mode MATCHES "GPUEIG_BACKEND=cpu" AND NOT mode MATCHES "SERVE")
    # The policy keeps every call on the program's own LAPACK, and the log says so.
    foreach(call "dgetrf_ m=40 n=40" "dgesv_ n=600 nrhs=3" "dstebz_ n=200 RANGE=I ORDER=E")
      if(NOT err MATCHES "gpueig-lapack: ${call} -> LAPACK \\(forwarded: libgpueig's [a-z]+ would run on the CPU: policy cpu\\)")
        message(FATAL_ERROR "'${call}' was not forwarded for policy cpu, or not said so")
      endif()
    endforeach()
    if(NOT err MATCHES "gpueig-lapack: dgetrs_ n=40 nrhs=2 TRANS=N -> LAPACK \\(forwarded: libgpueig's getrs would run on the CPU: policy cpu")
      message(FATAL_ERROR "dgetrs_ was not forwarded for policy cpu")
    endif()
  endif()
  # Eigenvectors: gpu_syevd's crossover (256, measured) or the policy keep an n = 60 call
  # on the program's LAPACK unless everything is served.
  if(NOT mode MATCHES "SERVE" AND NOT err MATCHES "gpueig-lapack: dsyevd_ n=60 JOBZ=V -> LAPACK \\(forwarded: libgpueig's syevd would run on the CPU: (below crossover|policy cpu)")
    message(FATAL_ERROR "dsyevd_ JOBZ=V was not forwarded by syevd's crossover or the policy (${mode})")
  endif()
  if(mode MATCHES "SERVE")
    foreach(call "dgetrf_ m=40 n=40" "dgetrs_ n=40 nrhs=2 TRANS=N" "dgetrs_ n=40 nrhs=2 TRANS=T"
                 "dgesv_ n=600 nrhs=3" "dgtsv_ n=${ARG} nrhs=1" "dstebz_ n=200 RANGE=I ORDER=E"
                 "dsterf_ n=200" "dsyevd_ n=60 JOBZ=N" "dsyev_ n=60 JOBZ=N" "dsyevd_ n=60 JOBZ=V"
                 "dstein_ n=200 m=10" "dsyevx_ n=60 JOBZ=V RANGE=I" "dsyevr_ n=60 JOBZ=V RANGE=A"
                 "dsyevr_ n=60 JOBZ=N RANGE=V")
      if(NOT err MATCHES "gpueig-lapack: ${call} -> libgpueig")
        message(FATAL_ERROR "'${call}' was not served by libgpueig with GPUEIG_SHIM=serve")
      endif()
    endforeach()
    if(NOT err MATCHES "dgetrf_ m=-1 n=1 -> LAPACK \\(forwarded: INFO -1\\)")
      message(FATAL_ERROR "an illegal argument was not forwarded with its INFO")
    endif()
  endif()
endforeach()
