#[=======================================================================[.rst:
OpGenFunctions
--------------

The functions that make PyTorch operator libraries with opgen. ``find_package(OpGen)`` (or
``add_subdirectory`` of opgen's source tree) includes this module. The functions only declare: what is
generated, and how, is opgen's business (``opgen library --help``). The generation runs at build time
(a custom command with a stamp and a depfile); what the build needs to know at configure time (the
files, the namespace, the link anchor) comes from ``opgen library --describe``. A mistake in a call
(an unknown keyword, a missing value, a file that does not exist) stops CMake with a message that
names the function, the library and the argument. Expects the executable target ``OpGen::opgen`` and
``OPGEN_TEMPLATE_DIR`` (:doc:`OpGenConfig`).

.. command:: add_operator_library

  .. code-block:: cmake

    add_operator_library(<name> YAML <ops.yaml>
                         [NAMESPACE <ns>] [TAGS <tags.yaml>] [DEFAULT_TAGS <tag>...]
                         [DERIVATIVES <derivatives.yaml>]
                         [SOURCES <source>...] [BACKENDS <key>...] [SHARDS <n>]
                         [OUTPUT_DIR <dir>] [TORCH_VERSION <x.y>]
                         [PYTHON_MODULE [PYTHON_FAKES <fake.py>]] [PER_OPERATOR_HEADERS] [AOTI_SHIMS]
                         [STABLE_ABI <x.y>]
                         [SHARED|STATIC|OBJECT|MODULE])

  Makes the library target ``<name>`` (``SHARED`` by default) from the operators declared in
  ``<ops.yaml>`` (``native_functions.yaml`` format) and their kernels in the ``SOURCES``; linking it
  registers the operators. Generated in ``OUTPUT_DIR`` (default ``<build>/<name>_generated``, the
  target property ``OPGEN_OUTPUT_DIR``): ``include/NS/{Functions,NativeFunctions,Operators}.h`` and
  ``src/{Operators,RegisterSchema,Register<Key>,AutogenKernels}.cpp``.

  ``YAML``
    The operators, in ``native_functions.yaml`` format (required).
  ``NAMESPACE``
    The operators' namespace; defaults to the YAML's (``func: NS::op(...)``) and must agree with it.
  ``TAGS``
    The tags the entries' ``tags:`` may use; defaults to a ``tags.yaml`` beside the YAML.
  ``DEFAULT_TAGS``
    Tags of every operator (e.g. ``pt2_compliant_tag``).
  ``DERIVATIVES``
    A ``derivatives.yaml`` in torchgen's format: the operators become differentiable
    (``src/RegisterAutograd.cpp``).
  ``BACKENDS``
    Dispatch keys whose kernels the ``dispatch:`` entries name (e.g. ``CPU``), as
    :command:`add_dispatch_backend` ``(<name> <key>)`` calls. CompositeImplicitAutograd,
    CompositeExplicitAutograd and Meta are always registered.
  ``SOURCES``
    The kernels' sources (and any other source of the library).
  ``SHARDS``
    Splits each ``Register<Key>.cpp`` in ``<n>`` files (1 to 64).
  ``OUTPUT_DIR``
    Where the files are generated; two libraries, or two build trees, cannot share one.
  ``TORCH_VERSION``
    Spell the code for that PyTorch release (its row of opgen's table) instead of the facts read
    from the headers of the libtorch ``find_package(Torch)`` found.
  ``PYTHON_MODULE``
    Also generate the typed Python package ``OUTPUT_DIR/python/NS`` (the target property
    ``OPGEN_PYTHON_DIR``), which loads the library on import.
  ``PYTHON_FAKES``
    With ``PYTHON_MODULE``: the Python fake kernels (``torch.library.register_fake``) of the
    operators whose entry says ``fake: python``, copied into the package as ``NS/fake.py`` and
    imported once the library is loaded (see :doc:`../pytorch2-fakes`).
  ``PER_OPERATOR_HEADERS``
    Also write each operator's headers, ``include/NS/ops/OP.h``, ``OP_ops.h`` and ``OP_native.h``.
  ``AOTI_SHIMS``
    Also generate AOTInductor C shims of the operators (``include/NS/aoti_shims.h``,
    ``src/AotiShims.cpp`` and, with ``PYTHON_MODULE``, ``python/NS/aoti.py``), PyTorch 2.8 on
    (see :doc:`../aoti`).
  ``STABLE_ABI``
    Generate the library for PyTorch's stable ABI of release ``<x.y>`` (2.10 or later) instead: one
    binary for every PyTorch from ``<x.y>`` on, kernels on ``torch::stable::Tensor`` and the
    header-only types, ``include/NS/{Functions,NativeFunctions}.h`` and
    ``src/{RegisterSchema,Register<Key>}.cpp``, compiled with ``TORCH_TARGET_VERSION`` for ``<x.y>``
    (a ``PUBLIC`` definition); what the stable ABI cannot pass is an error at its YAML line (see
    :doc:`../stable-abi`).
  ``SHARED|STATIC|OBJECT|MODULE``
    The kind of library (default ``SHARED``); ``MODULE`` is for loading only
    (``torch.ops.load_library``).

  The library requires the C++ standard the libtorch needs (``cxx_std_17`` or more, ``PUBLIC``).
  Before the library is linked (archived, for ``STATIC``; an ``OBJECT`` library has no link step),
  its kernels are checked against the YAML (``opgen library --check-kernels``), and a ``SHARED`` one
  links with ``-Wl,--no-undefined``. The
  target properties ``OPGEN_CHECK_KERNELS`` and ``OPGEN_NO_UNDEFINED``, set to ``OFF``, turn these
  off. The generated sources compile as one translation unit; ``-DOPGEN_UNITY=OFF`` compiles each
  on its own.

.. command:: add_dispatch_backend

  .. code-block:: cmake

    add_dispatch_backend(<name> <key> [SOURCES <source>...])

  Registers the kernels of one more dispatch key of the operator library ``<name>`` (e.g. ``CUDA``
  with its ``.cu`` sources); the ``SOURCES`` are added to the library. Any call in the directory of
  the :command:`add_operator_library` call, before its end, counts. The other form,
  ``add_dispatch_backend(<name> YAML <backend.yaml> ...)``, makes a device backend's library
  (:doc:`OpGenBackend`).

.. command:: opgen_add_golden_test

  .. code-block:: cmake

    opgen_add_golden_test(NAME <test> LIBRARY <library> EXPECTED_DIR <dir>...)

  A ctest that compares the files generated for ``<library>`` with checked-in ones and prints a
  unified diff of each difference (:doc:`OpGenGoldenCompare`). ``EXPECTED_DIR`` may name several
  folders, from the most shared to the most specific (``golden/common golden/torch2
  golden/torch2.6``): each file is expected as the last of them that has it holds it, and a folder
  that does not exist holds nothing. To accept new output, run the test with
  ``OPGEN_UPDATE_GOLDEN=1`` in the environment.

.. command:: opgen_add_opcheck_test

  .. code-block:: cmake

    opgen_add_opcheck_test(NAME <test> LIBRARY <library> SAMPLES <samples.py> [PYTHON <exe>])

  A ctest that checks the operators of ``<library>`` (``SHARED`` or ``MODULE``) with what PyTorch 2's
  compiler needs of a custom operator: ``torch.library.opcheck``'s five sub-tests,
  ``torch.compile(fullgraph=True)`` static and dynamic, and ``torch.export``, on the inputs
  ``SAMPLES`` gives. It prints one line per operator and check; checks the PyTorch in use lacks are
  skipped (the whole test, exit status 77, on PyTorch 1.x). ``PYTHON``: the interpreter (default
  ``python3``, as found on ``PATH`` when the test runs): give it where that is not the interpreter of
  the PyTorch the library is built against (a virtual environment, pyenv), say ``PYTHON
  ${Python3_EXECUTABLE}``; an interpreter without torch fails the test, saying so. A failing check
  prints its first line; ``OPGEN_OPCHECK_VERBOSE=1`` in the environment prints its stack trace.
#]=======================================================================]
include_guard(GLOBAL)
# install_operator_library(NAME ...): installs a library for other projects.
include("${CMAKE_CURRENT_LIST_DIR}/OpGenInstall.cmake")
# AOTI_SHIMS: AOTInductor C shims of the operators (see the file, and docs/aoti.md).
include("${CMAKE_CURRENT_LIST_DIR}/OpGenAoti.cmake")

# After cmake_parse_arguments(... arg ...) in a function of WHO: an unknown argument or a keyword
# without its value stops CMake, saying what WHO expects (EXPECTED). A macro: it reads the caller's
# arg_* variables.
macro(_opgen_check_arguments who expected)
  if(arg_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "${who}: unknown argument(s): ${arg_UNPARSED_ARGUMENTS} (expected ${expected})")
  endif()
  if(arg_KEYWORDS_MISSING_VALUES)
    message(FATAL_ERROR "${who}: ${arg_KEYWORDS_MISSING_VALUES} needs a value")
  endif()
endmacro()

# Stops CMake unless NAME is a target made by add_operator_library; sets OUTDIR to its OUTPUT_DIR.
function(_opgen_require_library who name outdir)
  if(NOT TARGET ${name})
    message(FATAL_ERROR "${who}: no target '${name}' (call add_operator_library(${name} ...) first)")
  endif()
  get_target_property(dir ${name} OPGEN_OUTPUT_DIR)
  if(NOT dir)
    message(FATAL_ERROR "${who}: '${name}' was not made by add_operator_library")
  endif()
  set(${outdir} "${dir}" PARENT_SCOPE)
endfunction()

# The files of a generation step in OUTDIR (its stamp and depfile), and EXTRA, what the generator
# needs besides: with Make, which has no notion of a missing byproduct, --depfile-outputs lists the
# outputs among the stamp's dependencies, so that a deleted output re-runs the generator (Ninja
# re-runs it by itself).
function(_opgen_stamp_files outdir stamp depfile extra)
  set(${stamp} "${outdir}/opgen.stamp" PARENT_SCOPE)
  set(${depfile} "${outdir}/opgen.d" PARENT_SCOPE)
  set(${extra} "" PARENT_SCOPE)
  if(CMAKE_GENERATOR MATCHES "Make")
    set(${extra} --depfile-outputs PARENT_SCOPE)
  endif()
endfunction()

# Runs opgen at configure time; sets OUT (stdout). On failure opgen's message is printed as it
# wrote it, one `FILE:LINE:COL: error: ...` line per error (a NOTICE, which CMake neither wraps nor
# indents, so IDEs and grep find the lines), then CMake fails naming WHO.
function(_opgen_run who out)
  execute_process(COMMAND "${OPGEN_EXECUTABLE}" ${ARGN}
                  RESULT_VARIABLE rv OUTPUT_VARIABLE stdout ERROR_VARIABLE stderr)
  if(NOT rv EQUAL 0)
    string(STRIP "${stderr}" stderr)
    message(NOTICE "${stderr}")
    message(FATAL_ERROR "${who}: opgen failed (exit status ${rv}); its message is above")
  endif()
  set(${out} "${stdout}" PARENT_SCOPE)
endfunction()

# Sets OUT to the facts about the libtorch find_package(Torch) found that generated code depends on,
# as `opgen --torch-facts` takes them (NAME=0|1,...; api::LibtorchFacts in tool/src/api/Types.h),
# read from its headers; "" when there is no such libtorch (no TORCH_INCLUDE_DIRS). Each probe is a
# regular expression over one or a few headers; the result is cached per include folder and the
# headers' time stamp, so only the first configure reads them.
function(_opgen_torch_facts out out_tags)
  set(root "")
  foreach(dir IN LISTS TORCH_INCLUDE_DIRS)
    if(EXISTS "${dir}/ATen/TensorMeta.h" AND EXISTS "${dir}/c10/util/Optional.h")
      set(root "${dir}")
      break()
    endif()
  endforeach()
  if(NOT root)
    set(${out} "" PARENT_SCOPE)
    set(${out_tags} "" PARENT_SCOPE)
    return()
  endif()
  file(TIMESTAMP "${root}/ATen/TensorMeta.h" stamp "%s" UTC)
  if(DEFINED _OPGEN_TORCH_FACTS_KEY AND _OPGEN_TORCH_FACTS_KEY STREQUAL "${root}@${stamp}@tags@viewmeta@stableerror")
    set(${out} "${_OPGEN_TORCH_FACTS}" PARENT_SCOPE)
    set(${out_tags} "${_OPGEN_TORCH_TAGS}" PARENT_SCOPE)
    return()
  endif()
  # Each fact: its name, the headers (relative to root; a missing one counts as not matching) and a
  # regular expression that one of them matches exactly when the libtorch has the fact.
  set(facts "")
  macro(_opgen_probe name regex)
    set(found 0)
    foreach(header ${ARGN})
      file(GLOB paths "${root}/${header}")
      foreach(path IN LISTS paths)
        file(STRINGS "${path}" hit REGEX "${regex}" LIMIT_COUNT 1)
        if(hit)
          set(found 1)
        endif()
      endforeach()
    endforeach()
    list(APPEND facts "${name}=${found}")
  endmacro()
  # c10::optional is std::optional's alias (a class of its own before 2.2).
  _opgen_probe(std-optional "using (::)?std::optional;" c10/util/Optional.h)
  # c10::fromIntArrayRefSlow, C10_AS_INTARRAYREF_SLOW (2.0 on).
  _opgen_probe(slow-intarrayref-names "fromIntArrayRefSlow" c10/core/SymIntArrayRef.h)
  # Autograd nodes derive from c10::intrusive_ptr_target (else std::enable_shared_from_this).
  _opgen_probe(intrusive-nodes "struct TORCH_API Node[ :].*intrusive_ptr_target"
               torch/csrc/autograd/function.h torch/csrc/autograd/node.h)
  _opgen_probe(view-funcs "struct TORCH_API ViewFunc" torch/csrc/autograd/variable.h)
  _opgen_probe(reverse-view-funcs "rev_view_func" torch/csrc/autograd/VariableTypeUtils.h)
  # MetaBase::set_output_* take the outputs' names (the only DimnameList in the header).
  _opgen_probe(named-tensors "DimnameList names" ATen/TensorMeta.h)
  _opgen_probe(diagnostic-macros "define C10_DIAGNOSTIC_PUSH_AND_IGNORED_IF_DEFINED"
               c10/macros/*.h c10/util/*.h torch/headeronly/macros/*.h)
  # torch::Library::set_python_module (not in 1.13).
  _opgen_probe(set-python-module "set_python_module" torch/library.h)
  # The stable ABI of operator libraries (2.10 on): its registration and dispatcher shims.
  _opgen_probe(stable-abi "AOTITorchError torch_library_impl[(]" torch/csrc/stable/c/shim.h)
  # Its Tag conversion has the tags inplace and out.
  _opgen_probe(stable-inplace-out-tags "case Tag::inplace:" torch/csrc/stable/stableivalue_conversions.h)
  # Its own error check, which passes the error's message on (not in 2.10).
  _opgen_probe(stable-error-check "define STABLE_TORCH_ERROR_CODE_CHECK" torch/csrc/stable/macros.h)
  # The functionalization pass's ViewMeta: a class with virtual forward/reverse (else a struct of two
  # std::function replays), and its constructor's has_symbolic_inputs.
  _opgen_probe(view-meta-classes "virtual Tensor forward[(]" ATen/FunctionalStorageImpl.h)
  _opgen_probe(view-meta-symbolic-inputs "bool has_symbolic_inputs" ATen/FunctionalStorageImpl.h)
  list(JOIN facts "," facts)
  # at::Tag's enumerators, one per line of the enum in ATen/core/enum_tag.h (up to 2.13) or in
  # torch/headeronly/core/enum_tag.h, which the former includes since (`--torch-tags`).
  set(tags "")
  foreach(header ATen/core/enum_tag.h torch/headeronly/core/enum_tag.h)
    if(EXISTS "${root}/${header}")
      file(STRINGS "${root}/${header}" lines REGEX "^[ \t]+[a-z][a-z0-9_]*,?[ \t]*$")
      foreach(line IN LISTS lines)
        string(REGEX REPLACE "[ \t,]" "" line "${line}")
        list(APPEND tags "${line}")
      endforeach()
    endif()
  endforeach()
  list(JOIN tags "," tags)
  set(_OPGEN_TORCH_TAGS "${tags}" CACHE INTERNAL "")
  set(${out_tags} "${tags}" PARENT_SCOPE)
  set(_OPGEN_TORCH_FACTS_KEY "${root}@${stamp}@tags@viewmeta@stableerror" CACHE INTERNAL "")
  set(_OPGEN_TORCH_FACTS "${facts}" CACHE INTERNAL "")
  set(${out} "${facts}" PARENT_SCOPE)
endfunction()

# Stops CMake when PATH holds '[', ']' or ';': CMake's lists, which carry opgen's command lines,
# do not split inside brackets (the command then lost its arguments, and opgen said "missing -o
# OUTPUT_DIR").
function(_opgen_check_path who path)
  if(path MATCHES "[][;]")
    message(FATAL_ERROR "${who}: the path ${path} holds '${CMAKE_MATCH_0}', which CMake's lists (and so the "
                        "generation's command line) cannot carry: move the project or build tree to a path without "
                        "'[', ']' and ';'")
  endif()
endfunction()

# What add_operator_library and add_dispatch_backend(NAME YAML ...) resolve alike, from the caller's
# arg_* variables (cmake_parse_arguments): each input file of INPUTS, absolute, in the lower-case
# variable of its name ("" when not given; an error when it does not exist); `type`, one of TYPES
# (SHARED when none is given); `outdir`, the absolute OUTPUT_DIR (default <binary dir>/NAME_generated);
# arg_TORCH_VERSION, by default the version find_package(Torch) found (else 2); torch_facts, the facts
# read from that libtorch's headers (_opgen_torch_facts; "" when TORCH_VERSION is given: it overrides
# them, the facts then come from opgen's table for that version).
function(_opgen_resolve_arguments who name inputs types)
  foreach(input IN LISTS inputs)
    string(TOLOWER ${input} var)
    set(path "")
    if(arg_${input})
      get_filename_component(path "${arg_${input}}" ABSOLUTE BASE_DIR "${CMAKE_CURRENT_SOURCE_DIR}")
      if(NOT EXISTS "${path}")
        message(FATAL_ERROR "${who}: ${input} file '${arg_${input}}' not found (looked for ${path})")
      endif()
      _opgen_check_path("${who}" "${path}")
    endif()
    set(${var} "${path}" PARENT_SCOPE)
  endforeach()
  set(type SHARED)
  set(count 0)
  foreach(t IN LISTS types)
    if(arg_${t})
      set(type ${t})
      math(EXPR count "${count} + 1")
    endif()
  endforeach()
  if(count GREATER 1)
    list(JOIN types ", " names)
    message(FATAL_ERROR "${who}: give at most one of ${names}")
  endif()
  set(type ${type} PARENT_SCOPE)
  set(dir "${arg_OUTPUT_DIR}")
  if(NOT dir)
    set(dir "${CMAKE_CURRENT_BINARY_DIR}/${name}_generated")
  endif()
  get_filename_component(dir "${dir}" ABSOLUTE BASE_DIR "${CMAKE_CURRENT_BINARY_DIR}")
  _opgen_check_path("${who}" "${dir}")
  set(outdir "${dir}" PARENT_SCOPE)
  set(version "${arg_TORCH_VERSION}")
  set(torch_facts "")
  set(torch_tags "")
  if(NOT version)
    _opgen_torch_facts(torch_facts torch_tags)
    # The libtorch the library is built against, when find_package(Torch) ran first.
    if(DEFINED Torch_VERSION AND NOT Torch_VERSION STREQUAL "")
      set(version "${Torch_VERSION}")
    elseif(DEFINED TORCH_VERSION AND NOT TORCH_VERSION STREQUAL "")
      set(version "${TORCH_VERSION}")
    else()
      set(version 2)
    endif()
  endif()
  set(arg_TORCH_VERSION "${version}" PARENT_SCOPE)
  set(torch_facts "${torch_facts}" PARENT_SCOPE)
  set(torch_tags "${torch_tags}" PARENT_SCOPE)
endfunction()

# find_package(Torch) takes the headers from its own installation (TORCH_INSTALL_PREFIX) but looks for
# libtorch and libc10 (find_library) in the system's folders before its own: with another PyTorch
# there (Debian's libtorch-dev beside pip's torch), a library would compile against one PyTorch's
# headers and link another's libraries, and fail at load time or worse. Said at configure time.
function(_opgen_check_torch_libraries who)
  if(NOT TORCH_INSTALL_PREFIX)
    return()
  endif()
  get_filename_component(prefix "${TORCH_INSTALL_PREFIX}" REALPATH)
  set(others "")
  foreach(var TORCH_LIBRARY c10_LIBRARY C10_CUDA_LIBRARY)
    if(${var} AND NOT ${var} MATCHES "-NOTFOUND$")
      get_filename_component(lib "${${var}}" REALPATH)
      string(FIND "${lib}" "${prefix}/" at)
      if(NOT at EQUAL 0)
        list(APPEND others "${var}=${${var}}")
      endif()
    endif()
  endforeach()
  if(others)
    list(JOIN others ", " others)
    message(FATAL_ERROR "${who}: find_package(Torch) found the PyTorch in ${prefix} (Torch_DIR=${Torch_DIR}) \
but took ${others} from another PyTorch installed in a system folder (find_library looks there before \
PyTorch's own lib/): the library would compile against one PyTorch's headers and link another's libraries. \
Configure in a new build folder with -DCMAKE_PREFIX_PATH=${prefix} (PyTorch's own folder first), or set \
TORCH_LIBRARY and c10_LIBRARY to the files in ${prefix}/lib.")
  endif()
endfunction()

function(add_operator_library name)
  set(who "add_operator_library(${name})")
  cmake_parse_arguments(PARSE_ARGV 1 arg "SHARED;STATIC;OBJECT;MODULE;PYTHON_MODULE;PER_OPERATOR_HEADERS;AOTI_SHIMS"
                        "YAML;TAGS;DERIVATIVES;NAMESPACE;SHARDS;OUTPUT_DIR;TORCH_VERSION;PYTHON_FAKES;STABLE_ABI" "SOURCES;BACKENDS;DEFAULT_TAGS")
  _opgen_check_arguments("${who}" "YAML, NAMESPACE, TAGS, DEFAULT_TAGS, DERIVATIVES, SOURCES, BACKENDS, SHARDS, \
OUTPUT_DIR, TORCH_VERSION, STABLE_ABI, PYTHON_MODULE, PYTHON_FAKES, PER_OPERATOR_HEADERS, AOTI_SHIMS, SHARED/STATIC/OBJECT/MODULE")
  if(TARGET ${name})
    message(FATAL_ERROR "${who}: a target named '${name}' already exists")
  endif()
  if(NOT arg_YAML)
    message(FATAL_ERROR "${who}: YAML is required (the operators, in native_functions.yaml format)")
  endif()
  _opgen_resolve_arguments("${who}" ${name} "YAML;TAGS;DERIVATIVES;PYTHON_FAKES" "SHARED;STATIC;OBJECT;MODULE")
  _opgen_check_torch_libraries("${who}")
  if(arg_PYTHON_FAKES AND NOT arg_PYTHON_MODULE)
    message(FATAL_ERROR "${who}: PYTHON_FAKES needs PYTHON_MODULE (the package imports the fake kernels)")
  endif()
  _opgen_check_library_values("${who}")
  if(NOT DEFINED arg_SHARDS)
    set(arg_SHARDS 1)
  endif()

  add_library(${name} ${type} ${arg_SOURCES})
  set_target_properties(${name} PROPERTIES
    OPGEN_YAML "${yaml}" OPGEN_TAGS "${tags}" OPGEN_DERIVATIVES "${derivatives}" OPGEN_NAMESPACE "${arg_NAMESPACE}" OPGEN_SHARDS "${arg_SHARDS}"
    OPGEN_OUTPUT_DIR "${outdir}" OPGEN_TORCH_VERSION "${arg_TORCH_VERSION}" OPGEN_TORCH_FACTS "${torch_facts}" OPGEN_TORCH_TAGS "${torch_tags}" OPGEN_BACKENDS ""
    OPGEN_PYTHON_MODULE "${arg_PYTHON_MODULE}" OPGEN_PER_OPERATOR_HEADERS "${arg_PER_OPERATOR_HEADERS}"
    OPGEN_DEFAULT_TAGS "${arg_DEFAULT_TAGS}" OPGEN_PYTHON_FAKES "${python_fakes}" OPGEN_STABLE_ABI "${arg_STABLE_ABI}" OPGEN_CHECK_KERNELS ON OPGEN_NO_UNDEFINED ON
    OPGEN_AOTI_SHIMS "${arg_AOTI_SHIMS}")
  if(arg_STABLE_ABI AND CMAKE_EXECUTABLE_FORMAT STREQUAL "ELF" AND CMAKE_CXX_COMPILER_ID MATCHES "GNU|Clang")
    # One binary for every release needs nothing of libtorch but the stable ABI's C functions. pip's
    # libtorch.so and libc10.so also export parts of libstdc++ (unversioned, from their toolchain's
    # static copy), and a link that meets them before libstdc++ binds the library's C++ runtime
    # calls to them (GCC 12 with C++20: basic_stringstream::str() const&): libstdc++ first, before
    # the torch the project links next.
    target_link_libraries(${name} PRIVATE stdc++)
  endif()
  if(arg_AOTI_SHIMS)
    _opgen_check_aoti_shims("${who}")
  endif()
  if(arg_PYTHON_MODULE)
    set_target_properties(${name} PROPERTIES OPGEN_PYTHON_DIR "${outdir}/python")
  endif()
  if(type STREQUAL "SHARED" OR type STREQUAL "STATIC" OR type STREQUAL "OBJECT")
    set_target_properties(${name} PROPERTIES POSITION_INDEPENDENT_CODE ON)
  endif()
  foreach(key IN LISTS arg_BACKENDS)
    add_dispatch_backend(${name} ${key})
  endforeach()
  # Backends may still be added after this call: the generation is set up at the end of the directory.
  cmake_language(EVAL CODE "cmake_language(DEFER DIRECTORY [[${CMAKE_CURRENT_SOURCE_DIR}]] CALL _opgen_finalize [[${name}]])")
endfunction()

# add_operator_library's NAMESPACE and SHARDS (from the caller's arg_* variables), said in its own
# terms: SHARDS 0 is not 1, SHARDS 100 is not opgen's "--shards", NAMESPACE "a;b" is not two
# arguments of opgen.
macro(_opgen_check_library_values who)
  if(DEFINED arg_SHARDS AND NOT arg_SHARDS MATCHES "^([1-9]|[1-5][0-9]|6[0-4])$")
    message(FATAL_ERROR "${who}: SHARDS must be a number from 1 to 64, not '${arg_SHARDS}'")
  endif()
  if(DEFINED arg_NAMESPACE AND NOT arg_NAMESPACE MATCHES "^[A-Za-z_][A-Za-z0-9_]*$")
    message(FATAL_ERROR "${who}: NAMESPACE must be one C++ identifier (the operators' namespace), not '${arg_NAMESPACE}'")
  endif()
endmacro()

# The GPU architectures PyTorch's CMake package compiles CUDA sources for (CUDA_NVCC_FLAGS: from
# TORCH_CUDA_ARCH_LIST, or without it, on a machine without a GPU, a list of its own) must be ones the
# nvcc in use supports: PyTorch 2.15's list for CUDA 13 starts at compute_50, which CUDA 13 dropped,
# and every CUDA source then fails with nvcc's "Unsupported gpu architecture". Said at configure time.
function(_opgen_check_cuda_architectures who)
  if(NOT CMAKE_CUDA_COMPILER OR NOT CUDA_NVCC_FLAGS)
    return()
  endif()
  if(NOT DEFINED _OPGEN_NVCC_ARCHS_${CMAKE_CUDA_COMPILER_VERSION})
    execute_process(COMMAND "${CMAKE_CUDA_COMPILER}" --list-gpu-arch OUTPUT_VARIABLE archs RESULT_VARIABLE status ERROR_QUIET)
    if(NOT status EQUAL 0)
      set(archs "")
    endif()
    string(REGEX MATCHALL "compute_[0-9]+[a-z]?" archs "${archs}")
    set(_OPGEN_NVCC_ARCHS_${CMAKE_CUDA_COMPILER_VERSION} "${archs}" CACHE INTERNAL "")
  endif()
  set(supported "${_OPGEN_NVCC_ARCHS_${CMAKE_CUDA_COMPILER_VERSION}}")
  if(NOT supported)
    return()
  endif()
  string(REGEX MATCHALL "arch=compute_[0-9]+[a-z]?" wanted "${CUDA_NVCC_FLAGS}")
  set(unsupported "")
  foreach(arch IN LISTS wanted)
    string(REPLACE "arch=" "" arch "${arch}")
    string(REGEX REPLACE "[a-z]$" "" base "${arch}")
    if(NOT arch IN_LIST supported AND NOT base IN_LIST supported)
      list(APPEND unsupported "${arch}")
    endif()
  endforeach()
  if(unsupported)
    list(REMOVE_DUPLICATES unsupported)
    list(JOIN unsupported " " unsupported)
    list(JOIN supported " " supported)
    message(FATAL_ERROR "${who}: PyTorch's CMake package (find_package(Torch)) compiles CUDA sources for \
GPU architectures that nvcc ${CMAKE_CUDA_COMPILER_VERSION} (${CMAKE_CUDA_COMPILER}) does not support: \
${unsupported} (it supports ${supported}). Set TORCH_CUDA_ARCH_LIST to the GPUs to build for, in the \
environment or before find_package(Torch), for example TORCH_CUDA_ARCH_LIST=\"8.0;9.0\" (the architectures \
PyTorch itself was built for: python3 -c 'import torch; print(torch._C._cuda_getArchFlags())').")
  endif()
endfunction()

function(add_dispatch_backend name key)
  if(key STREQUAL "YAML")  # the device backend form, add_dispatch_backend(NAME YAML backend.yaml ...)
    _opgen_add_backend_library(${ARGV})
    return()
  endif()
  set(who "add_dispatch_backend(${name} ${key})")
  cmake_parse_arguments(PARSE_ARGV 2 arg "" "" "SOURCES")
  _opgen_check_arguments("${who}" "SOURCES")
  _opgen_require_library("${who}" ${name} _)
  get_target_property(yaml ${name} OPGEN_YAML)
  get_target_property(done ${name} OPGEN_FINALIZED)
  if(done)
    message(FATAL_ERROR "${who}: too late, the generation of '${name}' is already set up (call it in the same directory)")
  endif()
  # opgen knows the dispatch keys: let it judge this one.
  _opgen_run("${who}" _ library "${yaml}" -o . --namespace opgen_check --backend "${key}" --describe)
  if(key STREQUAL "CUDA")
    _opgen_check_cuda_architectures("${who}")
  endif()
  set_property(TARGET ${name} APPEND PROPERTY OPGEN_BACKENDS "${key}")
  if(arg_SOURCES)
    target_sources(${name} PRIVATE ${arg_SOURCES})
  endif()
endfunction()

function(_opgen_finalize name)
  set(who "add_operator_library(${name})")
  foreach(p YAML TAGS DERIVATIVES NAMESPACE SHARDS OUTPUT_DIR TORCH_VERSION TORCH_FACTS TORCH_TAGS BACKENDS PYTHON_MODULE
            PYTHON_FAKES PER_OPERATOR_HEADERS DEFAULT_TAGS AOTI_SHIMS STABLE_ABI)
    get_target_property(${p} ${name} OPGEN_${p})
  endforeach()
  set_target_properties(${name} PROPERTIES OPGEN_FINALIZED TRUE)
  set(args "${YAML}" -o "${OUTPUT_DIR}" --shards "${SHARDS}" --torch-version "${TORCH_VERSION}"
           --templates "${OPGEN_TEMPLATE_DIR}/library")
  if(TORCH_TAGS)
    list(APPEND args --torch-tags "${TORCH_TAGS}")
  endif()
  if(TORCH_FACTS)
    list(APPEND args --torch-facts "${TORCH_FACTS}")
  endif()
  if(TAGS)
    list(APPEND args --tags "${TAGS}")
  endif()
  if(DERIVATIVES)
    list(APPEND args --derivatives "${DERIVATIVES}")
  endif()
  if(NAMESPACE)
    list(APPEND args --namespace "${NAMESPACE}")
  endif()
  if(PER_OPERATOR_HEADERS)
    list(APPEND args --per-operator-headers)
  endif()
  if(AOTI_SHIMS)
    list(APPEND args --aoti-shims)
  endif()
  if(STABLE_ABI)
    list(APPEND args --stable-abi "${STABLE_ABI}")
  endif()
  if(NOT NAMESPACE OR PER_OPERATOR_HEADERS)
    # The namespace, or the list of per-operator headers, comes from the yaml: configure again when
    # it changes.
    set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS "${YAML}")
  endif()
  foreach(key IN LISTS BACKENDS)
    list(APPEND args --backend "${key}")
  endforeach()
  foreach(tag IN LISTS DEFAULT_TAGS)
    list(APPEND args --default-tag "${tag}")
  endforeach()
  get_target_property(type ${name} TYPE)
  set(python_args "")
  if(PYTHON_MODULE)
    list(APPEND args --python-module)
    if(PYTHON_FAKES)
      list(APPEND args --python-fakes "${PYTHON_FAKES}")
    endif()
    if(type STREQUAL "SHARED_LIBRARY" OR type STREQUAL "MODULE_LIBRARY")
      # Only the build command: the path is known at generation time, not at configure time.
      set(python_args --python-library-path "$<TARGET_FILE:${name}>")
    endif()
  endif()
  _opgen_run("${who}" description library ${args} --describe)
  string(JSON ns GET "${description}" namespace)
  string(JSON anchor GET "${description}" link_anchor)
  _opgen_claim_output_dir("${who}" ${name} "${OUTPUT_DIR}" "${ns}")
  set_target_properties(${name} PROPERTIES OPGEN_LIBRARY_NAMESPACE "${ns}")  # (what opgen_add_opcheck_test passes)
  # What the library and the code that includes its headers compile with (STABLE_ABI: TORCH_TARGET_VERSION).
  string(JSON count ERROR_VARIABLE no_definitions LENGTH "${description}" compile_definitions)
  if(NOT no_definitions AND count GREATER 0)
    math(EXPR last "${count} - 1")
    foreach(i RANGE ${last})
      string(JSON definition GET "${description}" compile_definitions ${i})
      target_compile_definitions(${name} PUBLIC "${definition}")
    endforeach()
  endif()
  set(outputs "")
  set(sources "")
  foreach(kind headers sources python)
    string(JSON count LENGTH "${description}" ${kind})
    if(count GREATER 0)
      math(EXPR last "${count} - 1")
      foreach(i RANGE ${last})
        string(JSON rel GET "${description}" ${kind} ${i})
        list(APPEND outputs "${OUTPUT_DIR}/${rel}")
        if(kind STREQUAL "sources")
          list(APPEND sources "${OUTPUT_DIR}/${rel}")
        endif()
      endforeach()
    endif()
  endforeach()

  _opgen_stamp_files("${OUTPUT_DIR}" stamp depfile extra)
  file(GLOB templates CONFIGURE_DEPENDS "${OPGEN_TEMPLATE_DIR}/library/*")
  add_custom_command(
    OUTPUT "${stamp}"
    BYPRODUCTS ${outputs}
    COMMAND OpGen::opgen library ${args} ${python_args} --stamp "${stamp}" --depfile "${depfile}" ${extra}
    DEPENDS OpGen::opgen "${YAML}" ${TAGS} ${DERIVATIVES} ${PYTHON_FAKES} ${templates}
    DEPFILE "${depfile}"
    COMMENT "opgen: generating operator library ${name} (namespace ${ns})"
    VERBATIM)
  target_sources(${name} PRIVATE ${sources} "${stamp}")
  # Each generated source costs what <torch/library.h> costs to compile, and most of them are small:
  # they compile as one translation unit (a unity build of their own; with SHARDS n, one per shard,
  # so that shards still compile in parallel). The target's other sources compile as before.
  # -DOPGEN_UNITY=OFF compiles each generated source on its own.
  if(NOT DEFINED OPGEN_UNITY OR OPGEN_UNITY)
    _opgen_unity_sources(${name} "${sources}" ${SHARDS})
  endif()
  _opgen_protect_link(${name} "${args}")
  _opgen_pip_cuda_link(${name})
  target_include_directories(${name} PUBLIC "$<BUILD_INTERFACE:${OUTPUT_DIR}/include>")
  _opgen_require_cxx_standard(${name})
  # Linking is enough: every registration stays in a link, from a static archive (the anchor symbol
  # pulls RegisterSchema.o, which references every registration file) or a shared library (kept even
  # when nothing references it, despite --as-needed).
  if(type STREQUAL "STATIC_LIBRARY")
    target_link_options(${name} INTERFACE "LINKER:--undefined=${anchor}")
  elseif(type STREQUAL "SHARED_LIBRARY")
    # (In the build tree only: an installed library's package config does the same, see OpGenInstall.cmake.)
    _opgen_keep_in_link("$<TARGET_FILE:${name}>" keep)
    target_link_libraries(${name} INTERFACE "$<BUILD_INTERFACE:${keep}>")
  endif()
endfunction()

# pip's PyTorch with CUDA: libtorch_cuda needs the NVIDIA libraries of pip's own packages
# (site-packages/nvidia/*/lib, found at run time through its RPATH). A program that links it on a
# machine with a CUDA toolkit gets the toolkit's folder as an -rpath, which the linker searches first:
# an older NCCL there fails the program's link (undefined reference to `ncclSignal'). The programs
# that link NAME in the build tree search pip's folders first (-rpath-link; a run is not affected).
function(_opgen_pip_cuda_link name)
  if(NOT TORCH_INSTALL_PREFIX OR NOT CMAKE_EXECUTABLE_FORMAT STREQUAL "ELF")
    return()
  endif()
  file(GLOB dirs LIST_DIRECTORIES true "${TORCH_INSTALL_PREFIX}/../nvidia/*/lib")
  if(dirs)
    list(JOIN dirs ":" dirs)
    target_link_options(${name} INTERFACE "$<BUILD_INTERFACE:LINKER:-rpath-link=${dirs}>")
  endif()
endfunction()

# The generated SOURCES of NAME compile as one translation unit, unity_opgen_NAME_cxx.cxx (with
# SHARDS n, the shard i's as unity_opgen_NAME_i_cxx.cxx) in CMakeFiles/NAME_opgen of the build folder,
# which includes them by their paths relative to it: its text, and the paths the compiler records,
# are the same in every build folder (with OUTPUT_DIR in the build folder, the default), so that a
# compiler cache (ccache with base_dir, sccache) shares the objects across folders and machines.
# (CMake's own UNITY_BUILD names the sources by their absolute paths.) Written at configure time,
# when it changes; the sources stay the target's, as headers.
function(_opgen_unity_sources name sources shards)
  set(dir "${CMAKE_CURRENT_BINARY_DIR}/CMakeFiles/${name}_opgen")
  set(groups "")
  foreach(source IN LISTS sources)
    set(group "opgen_${name}")
    if(shards GREATER 1 AND source MATCHES "_([0-9]+)\\.cpp$")
      string(APPEND group "_${CMAKE_MATCH_1}")
    endif()
    if(NOT group IN_LIST groups)
      set(text_${group} "")
    endif()
    file(RELATIVE_PATH relative "${dir}" "${source}")
    string(APPEND text_${group} "#include \"${relative}\"\n")
    list(APPEND groups ${group})
  endforeach()
  list(REMOVE_DUPLICATES groups)
  set_source_files_properties(${sources} TARGET_DIRECTORY ${name} PROPERTIES HEADER_FILE_ONLY ON)
  foreach(group IN LISTS groups)
    set(unity "${dir}/unity_${group}_cxx.cxx")
    file(CONFIGURE OUTPUT "${unity}" CONTENT "/* The generated sources of ${name}, as one translation unit (opgen's add_operator_library). */\n${text_${group}}" @ONLY)
    target_sources(${name} PRIVATE "${unity}")
  endforeach()
endfunction()

# What must be one library's alone, checked at configure time:
#   - its namespace NS, in this project (unless NS is ""): two libraries of one namespace both
#     register it, and loading the second aborts the process (PyTorch: "Only a single TORCH_LIBRARY
#     can be used to register the namespace");
#   - its OUTPUT_DIR, in this project and across build trees: two build trees generating into one
#     folder (for two PyTorch versions, say) would mix their files, and one would compile the
#     other's. OUTPUT_DIR/opgen-build-tree.txt names the build tree and target that own the folder;
#     another build tree's claim is an error naming both, unless that build tree is gone (no
#     CMakeCache.txt).
function(_opgen_claim_output_dir who name outdir ns)
  if(NOT ns STREQUAL "")
    get_property(owner GLOBAL PROPERTY _OPGEN_NAMESPACE_${ns})
    if(owner AND NOT owner STREQUAL name)
      message(FATAL_ERROR "${who}: namespace '${ns}' is already the namespace of operator library '${owner}': two "
                          "libraries of one namespace both register it, and loading the second aborts the process; "
                          "give each library its own namespace (or put the operators in one library)")
    endif()
    set_property(GLOBAL PROPERTY _OPGEN_NAMESPACE_${ns} ${name})
  endif()
  get_property(owner GLOBAL PROPERTY "_OPGEN_OUTPUT_DIR_${outdir}")
  if(owner AND NOT owner STREQUAL name)
    message(FATAL_ERROR "${who}: OUTPUT_DIR ${outdir} is already the output folder of '${owner}': give each library "
                        "its own")
  endif()
  set_property(GLOBAL PROPERTY "_OPGEN_OUTPUT_DIR_${outdir}" ${name})
  set(file "${outdir}/opgen-build-tree.txt")
  set(claim "${CMAKE_BINARY_DIR}\n${name}\n")
  if(EXISTS "${file}")
    file(STRINGS "${file}" lines)
    list(GET lines 0 tree)
    list(LENGTH lines count)
    set(target "?")
    if(count GREATER 1)
      list(GET lines 1 target)
    endif()
    if(NOT tree STREQUAL CMAKE_BINARY_DIR AND EXISTS "${tree}/CMakeCache.txt")
      message(FATAL_ERROR "${who}: OUTPUT_DIR ${outdir} is the output folder of the build tree ${tree} (target "
                          "'${target}'), and one build tree's files there would mix with this one's (${CMAKE_BINARY_DIR}): "
                          "give each build tree its own OUTPUT_DIR (or delete ${tree} first)")
    endif()
    file(READ "${file}" old)
    if(old STREQUAL claim)
      return()
    endif()
  endif()
  file(WRITE "${file}" "${claim}")
endfunction()

# Sets OUT to the link item that keeps the shared library FILE (a path or a generator expression)
# in every program linking it, although nothing references its symbols (linkers
# drop such a library with --as-needed, GCC's default on Debian and Ubuntu): one item,
# `-Wl,--push-state,--no-as-needed,FILE,--pop-state`. Not three: CMake de-duplicates the link
# items of several libraries, so that the brackets of the second and later ones were merged away
# (each library's item names its own file, so none is a duplicate of another's).
function(_opgen_keep_in_link file out)
  set(${out} "-Wl,--push-state,--no-as-needed,${file},--pop-state" PARENT_SCOPE)
endfunction()

# The library never links with undefined symbols of its own kernels. First its kernels are checked
# before it is linked (or archived): every kernel its registration calls must be defined by its
# objects, or by the libraries of this project it links, else the build stops with one
# `ops.yaml:LINE:COL: error: ...` line per missing kernel (opgen library --check-kernels). The target
# property OPGEN_CHECK_KERNELS (ON by default) turns it off, for kernels defined in a library opgen
# does not read (an imported one). Then a SHARED library links with --no-undefined (libtorch's
# libraries resolve what the generated code needs), so that any other undefined symbol is the link's
# error too, not a program's or Python's later; OPGEN_NO_UNDEFINED OFF leaves it out (a library that
# leaves symbols to whoever loads it, such as Python's C API). ELF platforms only; an OBJECT library
# has no link step to check at.
function(_opgen_protect_link name args)
  if(NOT CMAKE_EXECUTABLE_FORMAT STREQUAL "ELF")
    return()
  endif()
  get_target_property(type ${name} TYPE)
  get_target_property(no_undefined ${name} OPGEN_NO_UNDEFINED)
  if(no_undefined AND type STREQUAL "SHARED_LIBRARY")
    target_link_options(${name} PRIVATE "LINKER:--no-undefined")
  endif()
  get_target_property(check ${name} OPGEN_CHECK_KERNELS)
  if(NOT check OR NOT type MATCHES "^(SHARED|MODULE|STATIC)_LIBRARY$")
    return()
  endif()
  _opgen_linked_files(${name} linked)
  add_custom_command(TARGET ${name} PRE_LINK
    COMMAND OpGen::opgen library ${args} --check-kernels "$<TARGET_OBJECTS:${name}>" ${linked}
    COMMENT "opgen: checking the kernels of ${name}"
    COMMAND_EXPAND_LISTS VERBATIM)
endfunction()

# The files whose definitions the kernel check of NAME counts besides NAME's objects: the objects
# among its sources, and the libraries of this project that it links, directly or through others
# (archives and shared libraries by their files, object libraries by their objects). Imported
# libraries (libtorch, or one found elsewhere), paths and flags are not read.
function(_opgen_linked_files name out)
  set(files "")
  get_target_property(sources ${name} SOURCES)
  foreach(source IN LISTS sources)
    if(source MATCHES "^\\$<TARGET_OBJECTS:[^>]+>$" OR source MATCHES "\\.(o|obj)$")
      list(APPEND files "${source}")
    endif()
  endforeach()
  set(seen ${name})
  get_target_property(queue ${name} LINK_LIBRARIES)
  if(NOT queue)
    set(queue "")
  endif()
  list(LENGTH queue left)
  while(left GREATER 0)
    list(POP_FRONT queue lib)
    list(LENGTH queue left)
    if(lib MATCHES "^\\$<(LINK_ONLY|BUILD_INTERFACE):([^>]+)>$")
      set(lib "${CMAKE_MATCH_2}")
    endif()
    if(NOT TARGET "${lib}")
      continue()
    endif()
    get_target_property(aliased "${lib}" ALIASED_TARGET)
    if(aliased)
      set(lib "${aliased}")
    endif()
    get_target_property(imported "${lib}" IMPORTED)
    if(lib IN_LIST seen OR imported)
      continue()
    endif()
    list(APPEND seen "${lib}")
    get_target_property(type "${lib}" TYPE)
    if(type MATCHES "^(STATIC|SHARED|MODULE)_LIBRARY$")
      list(APPEND files "$<TARGET_FILE:${lib}>")
    elseif(type STREQUAL "OBJECT_LIBRARY")
      list(APPEND files "$<TARGET_OBJECTS:${lib}>")
    endif()
    get_target_property(next "${lib}" INTERFACE_LINK_LIBRARIES)
    if(next)
      list(APPEND queue ${next})
      list(LENGTH queue left)
    endif()
  endwhile()
  set(${out} "${files}" PARENT_SCOPE)
endfunction()

# The C++ standard a library's code needs, as a usage requirement (PUBLIC: the targets that include
# its headers need it too), for its C++ and CUDA sources: C++17 for the generated code, or what the
# libtorch it is built against needs when that is more (C++20 for PyTorch 2.14). PyTorch's imported target `torch` records its
# standard in CXX_STANDARD, a property that does not reach the targets linking it.
function(_opgen_require_cxx_standard name)
  set(std 17)
  if(TARGET torch)
    # What libtorch's headers need: its target's CXX_STANDARD (2.14) or a cxx_std_N usage requirement
    # (2.15), which covers C++ sources only.
    get_target_property(torch_std torch CXX_STANDARD)
    get_target_property(features torch INTERFACE_COMPILE_FEATURES)
    foreach(feature IN LISTS features)
      if(feature MATCHES "^cxx_std_([0-9]+)$" AND CMAKE_MATCH_1 GREATER std AND NOT CMAKE_MATCH_1 EQUAL 98)
        set(std ${CMAKE_MATCH_1})
      endif()
    endforeach()
    if(torch_std MATCHES "^[0-9]+$" AND torch_std GREATER std AND NOT torch_std EQUAL 98)
      set(std ${torch_std})
    endif()
  endif()
  target_compile_features(${name} PUBLIC cxx_std_${std})
  # CUDA sources (add_dispatch_backend(NAME CUDA SOURCES kernels.cu)) include the same headers: the
  # same standard for them, when the project has enabled CUDA.
  get_property(languages GLOBAL PROPERTY ENABLED_LANGUAGES)
  if("CUDA" IN_LIST languages)
    if("cuda_std_${std}" IN_LIST CMAKE_CUDA_COMPILE_FEATURES)
      target_compile_features(${name} PUBLIC cuda_std_${std})
    else()
      # A CMake that knows no flag for it with this nvcc (3.25 has none for C++20): the flag itself
      # on the library's CUDA sources, after the target's own (PyTorch's CMake package sets
      # CMAKE_CUDA_STANDARD to the project's CMAKE_CXX_STANDARD, 17 in the examples, whose flag
      # comes after the target's compile options; nvcc takes the last).
      get_target_property(sources ${name} SOURCES)
      foreach(source IN LISTS sources)
        get_source_file_property(language "${source}" LANGUAGE)
        if(language STREQUAL "CUDA" OR source MATCHES "[.]cu$")
          set_property(SOURCE "${source}" APPEND PROPERTY COMPILE_OPTIONS "-std=c++${std}")
        endif()
      endforeach()
    endif()
  endif()
endfunction()

# A ctest that compares a library's generated files with checked-in expected ones and prints a
# unified diff of each difference. EXPECTED_DIR may name several folders, from the most shared to the
# most specific (golden/common golden/torch2 golden/torch2.6): each file is expected as the last of
# them that has it holds it, and a folder that does not exist holds nothing. To accept new output,
# run the test with OPGEN_UPDATE_GOLDEN=1 in the environment: it then writes each changed or new file
# into the most specific folder that exists and says which (OpGenGoldenCompare.cmake).
function(opgen_add_golden_test)
  cmake_parse_arguments(PARSE_ARGV 0 arg "" "NAME;LIBRARY" "EXPECTED_DIR")
  set(who "opgen_add_golden_test(${arg_NAME})")
  _opgen_check_arguments("${who}" "NAME, LIBRARY, EXPECTED_DIR")
  foreach(p NAME LIBRARY EXPECTED_DIR)
    if(NOT arg_${p})
      message(FATAL_ERROR "${who}: ${p} is required")
    endif()
  endforeach()
  if(NOT TARGET ${arg_LIBRARY})
    message(FATAL_ERROR "${who}: LIBRARY '${arg_LIBRARY}' is not a target")
  endif()
  get_target_property(outdir ${arg_LIBRARY} OPGEN_OUTPUT_DIR)
  if(NOT outdir)
    message(FATAL_ERROR "${who}: LIBRARY '${arg_LIBRARY}' was not made by add_operator_library")
  endif()
  set(expected "")
  foreach(dir IN LISTS arg_EXPECTED_DIR)
    get_filename_component(dir "${dir}" ABSOLUTE BASE_DIR "${CMAKE_CURRENT_SOURCE_DIR}")
    list(APPEND expected "${dir}")
  endforeach()
  string(REPLACE ";" "|" expected "${expected}")  # one -D value
  add_test(NAME ${arg_NAME}
           COMMAND "${CMAKE_COMMAND}" -DGENERATED=${outdir} "-DEXPECTED=${expected}"
                   -P "${_OPGEN_CMAKE_DIR}/OpGenGoldenCompare.cmake")
endfunction()

# A ctest that checks the operators of LIBRARY (a SHARED or MODULE library made by add_operator_library)
# with what PyTorch 2's compiler needs of a custom operator: torch.library.opcheck's five sub-tests,
# torch.compile(fullgraph=True) static and dynamic, and torch.export, on the inputs SAMPLES gives
# (OpGenOpcheck.py says its format). One line per operator and check; checks the PyTorch in use lacks
# are skipped (the whole test, exit 77, on PyTorch 1.x). PYTHON: the interpreter (default python3). A
# library with PYTHON_FAKES is loaded through its Python package, which imports its fake kernels.
function(opgen_add_opcheck_test)
  cmake_parse_arguments(PARSE_ARGV 0 arg "" "NAME;LIBRARY;SAMPLES;PYTHON" "")
  set(who "opgen_add_opcheck_test(${arg_NAME})")
  _opgen_check_arguments("${who}" "NAME, LIBRARY, SAMPLES, PYTHON")
  foreach(p NAME LIBRARY SAMPLES)
    if(NOT arg_${p})
      message(FATAL_ERROR "${who}: ${p} is required")
    endif()
  endforeach()
  _opgen_require_library("${who}" ${arg_LIBRARY} outdir)
  get_target_property(type ${arg_LIBRARY} TYPE)
  if(NOT type MATCHES "^(SHARED|MODULE)_LIBRARY$")
    message(FATAL_ERROR "${who}: LIBRARY '${arg_LIBRARY}' is a ${type}; Python loads SHARED or MODULE libraries only")
  endif()
  get_filename_component(samples "${arg_SAMPLES}" ABSOLUTE BASE_DIR "${CMAKE_CURRENT_SOURCE_DIR}")
  if(NOT EXISTS "${samples}")
    message(FATAL_ERROR "${who}: SAMPLES '${arg_SAMPLES}' does not exist (looked for ${samples})")
  endif()
  set(python "${arg_PYTHON}")
  if(NOT python)
    set(python python3)
  endif()
  # A library with Python fake kernels is loaded through its package, which imports them.
  get_target_property(fakes ${arg_LIBRARY} OPGEN_PYTHON_FAKES)
  set(package "")
  if(fakes)
    get_target_property(package ${arg_LIBRARY} OPGEN_PYTHON_DIR)
  endif()
  # (the namespace is known once the library's generation is set up, at the end of its directory)
  add_test(NAME ${arg_NAME}
           COMMAND "${python}" "${_OPGEN_CMAKE_DIR}/OpGenOpcheck.py" "$<TARGET_FILE:${arg_LIBRARY}>"
                   "$<TARGET_PROPERTY:${arg_LIBRARY},OPGEN_LIBRARY_NAMESPACE>" "${samples}" ${package})
  set_tests_properties(${arg_NAME} PROPERTIES SKIP_RETURN_CODE 77)
endfunction()

set(_OPGEN_CMAKE_DIR "${CMAKE_CURRENT_LIST_DIR}" CACHE INTERNAL "")
include("${CMAKE_CURRENT_LIST_DIR}/OpGenBackend.cmake")
