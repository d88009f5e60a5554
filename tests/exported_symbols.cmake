cmake_policy(VERSION 3.25)
# Checks that libgpueig.so exports exactly the public API: every defined dynamic symbol is gpu_* or
# gpueig_* (versioning markers aside), and each public function is there.
execute_process(COMMAND ${NM} -D --defined-only ${LIB} OUTPUT_VARIABLE out RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "nm failed on ${LIB}")
endif()
string(REPLACE "\n" ";" lines "${out}")
set(found "")
foreach(line IN LISTS lines)
  if(line MATCHES "^[0-9a-fA-F]* +[A-Za-z] +([^ ]+)$")
    set(sym "${CMAKE_MATCH_1}")
    string(REGEX REPLACE "@.*" "" sym "${sym}")
    if(NOT sym MATCHES "^(gpu_|gpueig_)")
      message(FATAL_ERROR "unexpected exported symbol: ${sym}")
    endif()
    list(APPEND found ${sym})
  endif()
endforeach()
foreach(api gpu_sytrd_givens gpu_stebz gpu_gtsv_pcr gpu_getrf_crout gpu_toeplitz_eig
            gpu_gtsv_pcr_batch gpueig_version gpueig_gpu_available gpueig_last_backend gpueig_set_backend gpueig_info
            gpueig_backend_for gpueig_backend_reason gpu_getrs_crout gpu_gesv_crout gpu_stein
            gpu_syevd gpu_syevx gpu_getrf_dev gpu_getrs_dev gpu_gesv_dev gpu_gtsv_dev
            gpu_gtsv_batch_dev gpu_sytrd_dev gpu_syevd_dev gpu_syevx_dev gpu_stebz_dev gpu_stein_dev
            gpu_toeplitz_eig_dev)
  if(NOT api IN_LIST found)
    message(FATAL_ERROR "public function ${api} is not exported")
  endif()
endforeach()
list(LENGTH found count)
message(STATUS "exported symbols OK (${count}): ${found}")
