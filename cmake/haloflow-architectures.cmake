# Installed beside haloflow-config.cmake. Warns when a project builds CUDA code for a GPU on which
# haloflow's own kernels cannot run: there they fail at the first frame with "no kernel image is
# available for execution on the device".
#
# Both lists are as CMAKE_CUDA_ARCHITECTURES spells them: "90" is machine code (runs on GPUs of
# the same major version, same or newer minor) plus PTX (compiled at load time for any GPU at least
# as new); "90-real" is machine code only, "90-virtual" PTX only. Lists that are not numbers (all,
# all-major, native) are not compared.
function(haloflow_check_cuda_architectures library project)
  if(NOT library MATCHES "^[0-9]" OR NOT project MATCHES "^[0-9]")
    return()
  endif()
  set(unsupported)
  foreach(wanted IN LISTS project)
    string(REGEX MATCH "^[0-9]+" gpu "${wanted}")
    math(EXPR gpu_major "${gpu} / 10")
    set(runs FALSE)
    foreach(built IN LISTS library)
      string(REGEX MATCH "^[0-9]+" code "${built}")
      math(EXPR code_major "${code} / 10")
      if(NOT built MATCHES "-real$" AND code LESS_EQUAL gpu)
        set(runs TRUE)  # PTX for this GPU or an older one
      elseif(NOT built MATCHES "-virtual$" AND code_major EQUAL gpu_major AND code LESS_EQUAL gpu)
        set(runs TRUE)  # machine code of the same major version
      endif()
    endforeach()
    if(NOT runs)
      list(APPEND unsupported ${wanted})
    endif()
  endforeach()
  if(unsupported)
    list(JOIN unsupported ", " unsupported_text)
    message(WARNING
      "haloflow was built for CUDA architectures \"${library}\" (HALOFLOW_CUDA_ARCHITECTURES), so "
      "its kernels cannot run on ${unsupported_text}, which this project builds for "
      "(CMAKE_CUDA_ARCHITECTURES \"${project}\"). Rebuild haloflow with "
      "-DHALOFLOW_CUDA_ARCHITECTURES=\"${project}\", or leave those GPUs out.")
  endif()
endfunction()
