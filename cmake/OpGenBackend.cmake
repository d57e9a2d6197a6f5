#[=======================================================================[.rst:
OpGenBackend
------------

Device backends: a library of kernels for ATen's own operators, for a dispatch key without in-tree
kernels (a ``PrivateUse1`` device, say), from a backend YAML in ``torchgen.gen_backend_stubs``' format
(``opgen backend --help``). Included by :doc:`OpGenFunctions`.

.. command:: add_dispatch_backend(YAML)

  .. code-block:: cmake

    add_dispatch_backend(<name> YAML <backend.yaml>
                         [NATIVE_FUNCTIONS <native_functions.yaml>] [TAGS <tags.yaml>]
                         [SOURCES <source>...] [SHARED|STATIC|MODULE]
                         [OUTPUT_DIR <dir>] [TORCH_VERSION <x.y>])

  opgen generates, at build time, ``OUTPUT_DIR/<Key>NativeFunctions.h`` (the kernels' declarations,
  which the ``SOURCES`` include as ``"<Key>NativeFunctions.h"``), ``OUTPUT_DIR/Register<Key>.cpp``
  and, for the operators under ``autograd:``, ``OUTPUT_DIR/RegisterAutograd<Key>.cpp``; they are
  compiled into the library ``<name>`` with the ``SOURCES``. ``OUTPUT_DIR`` defaults to
  ``${CMAKE_CURRENT_BINARY_DIR}/<name>_generated``, a ``PUBLIC`` include directory of ``<name>``; the
  target properties ``OPGEN_BACKEND_YAML`` and ``OPGEN_BACKEND_OUTPUT_DIR`` say where the YAML and the
  generated files are.

  ``NATIVE_FUNCTIONS``
    ATen's operators; by default the ``native_functions.yaml`` of the PyTorch ``find_package(Torch)``
    found (its ``torchgen`` package's copy, looked for in ``Torch_DIR`` and the four folders above it,
    skipping one of another major.minor version). Configuring fails, listing the places it looked,
    when there is none.
  ``TAGS``
    Defaults to the ``tags.yaml`` beside ``NATIVE_FUNCTIONS``.
  ``SHARED|STATIC|MODULE``
    Linking ``<name>`` registers the kernels: ``SHARED`` (the default) is kept in the link even when
    nothing references it; with ``STATIC``, the registration files are an object library
    (``<name>_registrations``) whose objects every target linking ``<name>`` links; ``MODULE`` is for
    loading only (``torch.ops.load_library``).
  ``TORCH_VERSION``
    By default the code is spelled from the facts read from the headers of the libtorch
    ``find_package(Torch)`` found; ``TORCH_VERSION`` gives those of that release instead.

  The other form, ``add_dispatch_backend(<name> <key> ...)``, adds a dispatch key to an operator
  library (:command:`add_dispatch_backend`).
#]=======================================================================]
include_guard(GLOBAL)

# Where a PyTorch installation keeps torchgen's copy of ATen's inputs
# (torchgen/packaged/ATen/native/native_functions.yaml), as glob patterns relative to a folder above
# Torch_DIR: pip and conda put the Python package torchgen beside torch, whose
# share/cmake/Torch is Torch_DIR (site-packages is 4 levels up); Debian puts it in
# /usr/lib/python3/dist-packages (Torch_DIR is /usr/lib/<triplet>/cmake/Torch, 3 levels down from
# /usr/lib).
set(_OPGEN_TORCHGEN_PATTERNS
    "torchgen"
    "python3*/*-packages/torchgen"
    "lib/python3*/*-packages/torchgen"
    CACHE INTERNAL "")

# Sets OUT to the native_functions.yaml of the PyTorch find_package(Torch) found: searched in Torch_DIR
# and the 4 folders above it (nearest first, not the file system's root, so as not to take another
# installation's), skipping a torchgen whose torch/version.py beside it names another major.minor
# version than Torch_VERSION. Fails naming every place it looked.
function(_opgen_find_native_functions who out)
  if(NOT Torch_DIR)
    message(FATAL_ERROR "${who}: NATIVE_FUNCTIONS is not given and find_package(Torch) has not run: call "
                        "find_package(Torch) before add_dispatch_backend, or give NATIVE_FUNCTIONS file")
  endif()
  set(want "")
  if(Torch_VERSION MATCHES "^([0-9]+)\\.([0-9]+)")
    set(want "${CMAKE_MATCH_1}.${CMAKE_MATCH_2}")
  endif()
  get_filename_component(dir "${Torch_DIR}" ABSOLUTE)
  set(searched "")
  foreach(level RANGE 4)
    get_filename_component(parent "${dir}" DIRECTORY)
    if(parent STREQUAL dir)  # the root
      break()
    endif()
    foreach(pattern IN LISTS _OPGEN_TORCHGEN_PATTERNS)
      set(glob "${dir}/${pattern}/packaged/ATen/native/native_functions.yaml")
      list(APPEND searched "${glob}")
      file(GLOB found LIST_DIRECTORIES false "${glob}")
      list(SORT found)
      foreach(candidate IN LISTS found)
        # .../torchgen/packaged/ATen/native/native_functions.yaml -> .../torch/version.py
        string(REGEX REPLACE "torchgen/packaged/ATen/native/native_functions\\.yaml$" "torch/version.py" version_py "${candidate}")
        set(has "")
        if(want AND EXISTS "${version_py}")
          file(STRINGS "${version_py}" line REGEX "^__version__ *= *['\"][0-9]+\\.[0-9]+")
          if(line MATCHES "['\"]([0-9]+)\\.([0-9]+)")
            set(has "${CMAKE_MATCH_1}.${CMAKE_MATCH_2}")
          endif()
        endif()
        if(has AND NOT has STREQUAL want)
          list(APPEND searched "  skipped ${candidate}: ${version_py} says ${has}, the Torch found is ${Torch_VERSION}")
          continue()
        endif()
        set(${out} "${candidate}" PARENT_SCOPE)
        return()
      endforeach()
    endforeach()
    set(dir "${parent}")
  endforeach()
  list(JOIN searched "\n  " searched)
  message(FATAL_ERROR "${who}: no native_functions.yaml found for the PyTorch of Torch_DIR=${Torch_DIR} (it comes "
                      "with PyTorch's Python package torchgen; Debian: python3-torch). Looked for:\n  ${searched}\n"
                      "Give NATIVE_FUNCTIONS file (and TAGS file unless tags.yaml is beside it).")
endfunction()

function(_opgen_add_backend_library name)
  set(who "add_dispatch_backend(${name})")
  cmake_parse_arguments(PARSE_ARGV 1 arg "SHARED;STATIC;MODULE"
                        "YAML;NATIVE_FUNCTIONS;TAGS;OUTPUT_DIR;TORCH_VERSION" "SOURCES")
  _opgen_check_arguments("${who}" "YAML, NATIVE_FUNCTIONS, TAGS, SOURCES, OUTPUT_DIR, TORCH_VERSION, SHARED/STATIC/MODULE")
  if(TARGET ${name})
    message(FATAL_ERROR "${who}: a target named '${name}' already exists")
  endif()
  if(NOT arg_NATIVE_FUNCTIONS)
    if(arg_TAGS)
      message(FATAL_ERROR "${who}: TAGS needs NATIVE_FUNCTIONS (the default native_functions.yaml comes with its tags.yaml)")
    endif()
    _opgen_find_native_functions("${who}" arg_NATIVE_FUNCTIONS)
  endif()
  _opgen_resolve_arguments("${who}" ${name} "YAML;NATIVE_FUNCTIONS;TAGS" "SHARED;STATIC;MODULE")
  _opgen_check_torch_libraries("${who}")
  _opgen_claim_output_dir("${who}" ${name} "${outdir}" "")

  # The kernels' header is included as "<Key>NativeFunctions.h", from the output folder.
  set(args -s "${yaml}" -o "${outdir}" --native-functions "${native_functions}" --torch-version "${arg_TORCH_VERSION}"
           --include-prefix=)
  if(torch_facts)
    list(APPEND args --torch-facts "${torch_facts}")
  endif()
  if(tags)
    list(APPEND args --tags "${tags}")
  endif()
  # Which files exist depends on the backend YAML (its key; `autograd:`): configure again when it changes.
  set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS "${yaml}")
  _opgen_run("${who}" listing backend ${args} --list-outputs)
  string(REPLACE "\n" ";" outputs "${listing}")
  list(FILTER outputs EXCLUDE REGEX "^$")
  if(NOT outputs)
    message(FATAL_ERROR "${who}: ${arg_YAML} lists no operator under `supported:` or `autograd:`, so there is nothing to build")
  endif()
  set(sources "${outputs}")
  list(FILTER sources INCLUDE REGEX "\\.cpp$")

  _opgen_stamp_files("${outdir}" stamp depfile extra)
  add_custom_command(
    OUTPUT "${stamp}"
    BYPRODUCTS ${outputs}
    COMMAND OpGen::opgen backend ${args} --stamp "${stamp}" --depfile "${depfile}" ${extra}
    DEPENDS OpGen::opgen "${yaml}" "${native_functions}" ${tags}
    DEPFILE "${depfile}"
    COMMENT "opgen: generating backend ${name} from ${arg_YAML}"
    VERBATIM)

  if(type STREQUAL "STATIC")
    # Nothing references the registration files' objects: in an archive the linker would drop them.
    # They are an object library of their own, whose objects every target linking NAME links (as its
    # own objects, ahead of the archive that has the kernels).
    set(registrations ${name}_registrations)
    add_library(${registrations} OBJECT ${sources})
    add_library(${name} STATIC ${arg_SOURCES})
    target_sources(${name} INTERFACE "$<TARGET_OBJECTS:${registrations}>")
    # Two targets use the generated files: one target runs the generation, both wait for it.
    add_custom_target(${name}_generate DEPENDS "${stamp}")
    add_dependencies(${registrations} ${name}_generate)
    add_dependencies(${name} ${name}_generate)
    set_target_properties(${registrations} ${name} PROPERTIES POSITION_INDEPENDENT_CODE ON)
    # The registration files call the kernels with the library's usage requirements (torch's).
    target_link_libraries(${registrations} PRIVATE $<TARGET_PROPERTY:${name},INTERFACE_LINK_LIBRARIES>)
    target_include_directories(${registrations} PRIVATE "${outdir}")
    _opgen_require_cxx_standard(${registrations})
  else()
    add_library(${name} ${type} ${arg_SOURCES} ${sources} "${stamp}")
    if(type STREQUAL "SHARED")
      set_target_properties(${name} PROPERTIES POSITION_INDEPENDENT_CODE ON)
      # Kept in the link even when nothing references it (--as-needed would drop it).
      _opgen_keep_in_link("$<TARGET_FILE:${name}>" keep)
      target_link_libraries(${name} INTERFACE "${keep}")
    endif()
  endif()
  # Not OPGEN_OUTPUT_DIR: opgen_add_golden_test knows operator libraries' folders, not this one.
  set_target_properties(${name} PROPERTIES OPGEN_BACKEND_YAML "${yaml}" OPGEN_BACKEND_OUTPUT_DIR "${outdir}")
  target_include_directories(${name} PUBLIC "$<BUILD_INTERFACE:${outdir}>")
  _opgen_require_cxx_standard(${name})
  _opgen_pip_cuda_link(${name})
endfunction()
