# add_operator_library(... AOTI_SHIMS): AOTInductor C shims of the library's operators (opgen
# library --aoti-shims; tool/src/dest/library/AotiShims.h, docs/aoti.md). What the CMake side needs:
# a libtorch whose AOTInductor shim helpers the shims compile against, found by find_package(Torch).
include_guard(GLOBAL)

# Stops CMake, naming WHO, unless the libtorch of TORCH_INCLUDE_DIRS has the helpers of ATen's
# generated shims that the library's use (torch/csrc/inductor/aoti_torch/utils.h with
# resolve_tensor_dispatch_flags, in PyTorch 2.14; AOTInductor takes custom operators' shims since 2.8).
function(_opgen_check_aoti_shims who)
  set(found "")
  foreach(dir IN LISTS TORCH_INCLUDE_DIRS)
    set(utils "${dir}/torch/csrc/inductor/aoti_torch/utils.h")
    if(EXISTS "${utils}")
      file(STRINGS "${utils}" hit REGEX "resolve_tensor_dispatch_flags" LIMIT_COUNT 1)
      if(hit)
        set(found "${utils}")
        break()
      endif()
    endif()
  endforeach()
  if(NOT found)
    if(NOT TORCH_INCLUDE_DIRS)
      message(FATAL_ERROR "${who}: AOTI_SHIMS needs find_package(Torch) before add_operator_library (the shims "
                          "compile against libtorch's AOTInductor headers)")
    endif()
    set(version "${Torch_VERSION}")
    message(FATAL_ERROR "${who}: AOTI_SHIMS needs a libtorch whose AOTInductor shim helpers "
                        "(torch/csrc/inductor/aoti_torch/utils.h) have resolve_tensor_dispatch_flags, as PyTorch 2.14's "
                        "do; the found libtorch (${version}, ${TORCH_INCLUDE_DIRS}) has not")
  endif()
endfunction()
