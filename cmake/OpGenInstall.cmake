#[=======================================================================[.rst:
OpGenInstall
------------

Installing an operator library for other projects. Included by :doc:`OpGenFunctions`.

.. command:: install_operator_library

  .. code-block:: cmake

    install_operator_library(<name> [EXPORT_NAMESPACE <ns>::] [CMAKE_DESTINATION <dir>]
                             [PYTHON_DESTINATION <dir>])

  ``cmake --install`` then installs, for the library ``<name>`` made by
  :command:`add_operator_library`:

  - the library (``SHARED`` or ``STATIC``) in ``CMAKE_INSTALL_LIBDIR`` (and its DLL part in
    ``CMAKE_INSTALL_BINDIR``);
  - its generated headers (``NS/Functions.h``, ``NS/NativeFunctions.h``, ``NS/Operators.h``) in
    ``CMAKE_INSTALL_INCLUDEDIR``;
  - a CMake package ``<name>``: ``CMAKE_DESTINATION`` (default ``CMAKE_INSTALL_LIBDIR/cmake/<name>``)
    holds ``<name>Config.cmake``, which finds Torch and defines the imported target
    ``EXPORT_NAMESPACE`` ``<name>`` (default ``<name>::<name>``), so that ``find_package(<name>)`` and
    ``target_link_libraries(app <name>::<name>)`` are all another project needs; linking it registers
    the operators, as in the build tree;
  - with ``PYTHON_MODULE``, the typed Python package in ``PYTHON_DESTINATION`` (default
    ``lib/python3/dist-packages``, where Debian's Python looks; not ``CMAKE_INSTALL_LIBDIR``, which is
    ``lib/<multiarch>`` under ``/usr``), which then loads the installed library, found relative to
    itself (so the installed tree can be moved as a whole, or packaged with ``DESTDIR``).

  In a wheel (the project built by scikit-build-core, which sets ``SKBUILD``) the Python package is the
  wheel's top level, and everything else goes inside it: the package ``NS`` (the library's namespace)
  in ``PYTHON_DESTINATION`` (default: the top of the wheel, ``site-packages`` once installed) holds the
  typed functions, ``py.typed``, the library, which ``import NS`` loads from beside itself, its headers
  in ``NS/include`` and its CMake package in ``NS/share/cmake/<name>`` (``CMAKE_DESTINATION``, relative
  to the package), so that no ``include/``, ``lib/`` or CMake folder lands in ``site-packages``, and a
  CMake project finds the installed wheel's library with ``find_package(<name>)`` (``site-packages`` on
  ``CMAKE_PREFIX_PATH``). The library needs ``PYTHON_MODULE`` and is ``SHARED``. It keeps no RPATH: the
  package imports torch first, which loads libtorch's libraries, and the dynamic loader takes those
  already loaded for the library's own. The Torch found must be the release the Python building the
  wheel imports (whose version the wheel's metadata requires); another is an error at configure time.
  See :doc:`../wheels`.
#]=======================================================================]
include_guard(GLOBAL)
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

function(install_operator_library name)
  set(who "install_operator_library(${name})")
  cmake_parse_arguments(PARSE_ARGV 1 arg "" "EXPORT_NAMESPACE;CMAKE_DESTINATION;PYTHON_DESTINATION" "")
  _opgen_check_arguments("${who}" "EXPORT_NAMESPACE, CMAKE_DESTINATION, PYTHON_DESTINATION")
  _opgen_require_library("${who}" ${name} outdir)
  get_target_property(type ${name} TYPE)
  if(NOT type STREQUAL "SHARED_LIBRARY" AND NOT type STREQUAL "STATIC_LIBRARY")
    message(FATAL_ERROR "${who}: only SHARED and STATIC libraries can be installed ('${name}' is ${type})")
  endif()
  if(NOT arg_EXPORT_NAMESPACE)
    set(arg_EXPORT_NAMESPACE "${name}::")
  endif()
  if(NOT SKBUILD)
    if(NOT arg_CMAKE_DESTINATION)
      set(arg_CMAKE_DESTINATION "${CMAKE_INSTALL_LIBDIR}/cmake/${name}")
    endif()
    if(NOT arg_PYTHON_DESTINATION)
      set(arg_PYTHON_DESTINATION "lib/python3/dist-packages")
    endif()
    _opgen_install_library(${name} "${arg_EXPORT_NAMESPACE}" "${CMAKE_INSTALL_LIBDIR}" "${CMAKE_INSTALL_INCLUDEDIR}"
                           "${arg_CMAKE_DESTINATION}" "${arg_PYTHON_DESTINATION}")
    return()
  endif()
  # In a wheel: the package NS holds the rest, so the destinations are known with the namespace, once
  # the library's generation is set up (_opgen_finalize, at the end of the library's directory,
  # deferred before this call).
  get_target_property(python ${name} OPGEN_PYTHON_DIR)
  if(NOT python OR NOT type STREQUAL "SHARED_LIBRARY")
    set(what "${type}")
    if(NOT python)
      string(APPEND what " without PYTHON_MODULE")
    endif()
    message(FATAL_ERROR "${who}: in a wheel (scikit-build-core sets SKBUILD) the library is what its Python package "
                        "loads: make it SHARED, with PYTHON_MODULE ('${name}' is ${what})")
  endif()
  get_target_property(done ${name} OPGEN_FINALIZED)
  set(call "_opgen_install_wheel([[${name}]] [[${arg_EXPORT_NAMESPACE}]] [[${arg_CMAKE_DESTINATION}]] [[${arg_PYTHON_DESTINATION}]])")
  if(done)
    cmake_language(EVAL CODE "${call}")
  else()
    get_target_property(dir ${name} SOURCE_DIR)
    cmake_language(EVAL CODE "cmake_language(DEFER DIRECTORY [[${dir}]] CALL cmake_language EVAL CODE [==[${call}]==])")
  endif()
endfunction()

# install_operator_library in a wheel: the destinations inside the package NS (see the top of the
# file); the Torch found checked against the Python's.
function(_opgen_install_wheel name namespace cmake_destination python_destination)
  set(who "install_operator_library(${name})")
  get_target_property(ns ${name} OPGEN_LIBRARY_NAMESPACE)
  set(package "${ns}")
  if(python_destination)
    set(package "${python_destination}/${ns}")
  endif()
  if(NOT cmake_destination)
    set(cmake_destination "share/cmake/${name}")
  endif()
  # The wheel requires the release of the torch that the Python building it imports: the library
  # must be built against that one.
  set(python "${Python_EXECUTABLE}")
  if(NOT python)
    set(python "${Python3_EXECUTABLE}")
  endif()
  if(python AND Torch_VERSION MATCHES "^([0-9]+[.][0-9]+)")
    set(built "${CMAKE_MATCH_1}")
    execute_process(COMMAND "${python}" -c "import importlib.metadata as m; print(m.version('torch'))"
                    RESULT_VARIABLE rv OUTPUT_VARIABLE version ERROR_QUIET OUTPUT_STRIP_TRAILING_WHITESPACE)
    if(NOT rv EQUAL 0 OR NOT version MATCHES "^([0-9]+[.][0-9]+)")
      message(FATAL_ERROR "${who}: ${python}, which builds the wheel, has no torch installed, so the wheel cannot "
                          "require the PyTorch release it is built against (${Torch_VERSION}, Torch_DIR=${Torch_DIR})")
    endif()
    if(NOT CMAKE_MATCH_1 STREQUAL built)
      message(FATAL_ERROR "${who}: the wheel is built against PyTorch ${Torch_VERSION} (Torch_DIR=${Torch_DIR}), but "
                          "${python} imports torch ${version}, the release the wheel would require: point Torch_DIR "
                          "at that torch's (python -c 'import torch.utils; print(torch.utils.cmake_prefix_path)')")
    endif()
  endif()
  _opgen_install_library(${name} "${namespace}" "${package}" "${package}/include" "${package}/${cmake_destination}" "${python_destination}")
  # An empty py.typed: the package's functions are typed (PEP 561).
  set(typed "${CMAKE_CURRENT_BINARY_DIR}/${name}_opgen_install/py.typed")
  file(WRITE "${typed}" "")
  install(FILES "${typed}" DESTINATION "${package}")
endfunction()

# The installation of NAME's library in LIBDIR, its headers in INCLUDEDIR, its CMake package in
# CMAKEDIR and its Python package (if any) in PYTHONDIR ("": the top), all relative to the prefix.
function(_opgen_install_library name namespace libdir includedir cmakedir pythondir)
  get_target_property(outdir ${name} OPGEN_OUTPUT_DIR)
  get_target_property(type ${name} TYPE)
  target_include_directories(${name} PUBLIC "$<INSTALL_INTERFACE:${includedir}>")
  install(TARGETS ${name} EXPORT ${name}Targets
          LIBRARY DESTINATION "${libdir}" ARCHIVE DESTINATION "${libdir}"
          RUNTIME DESTINATION "${CMAKE_INSTALL_BINDIR}")
  install(DIRECTORY "${outdir}/include/" DESTINATION "${includedir}")
  install(EXPORT ${name}Targets NAMESPACE "${namespace}" DESTINATION "${cmakedir}")

  # The package's config: Torch first (the target links it), then the targets. A shared library is
  # linked with --no-as-needed, as in the build tree: nothing references its symbols, yet loading it
  # is what registers the operators.
  set(target "${namespace}${name}")
  set(config "${CMAKE_CURRENT_BINARY_DIR}/${name}_opgen_install/${name}Config.cmake")
  set(keep "")
  if(type STREQUAL "SHARED_LIBRARY")
    _opgen_keep_in_link("\$<TARGET_FILE:${target}>" item)
    set(keep "set_property(TARGET ${target} APPEND PROPERTY INTERFACE_LINK_LIBRARIES \"${item}\")\n")
  endif()
  file(WRITE "${config}"
"# The operator library ${name}, made with opgen's add_operator_library and installed by
# install_operator_library: the imported target ${target}.
include(CMakeFindDependencyMacro)
find_dependency(Torch)
include(\"\${CMAKE_CURRENT_LIST_DIR}/${name}Targets.cmake\")
${keep}# pip's PyTorch with CUDA: a program that links ${target} finds the NVIDIA libraries of pip's
# packages before a CUDA toolkit's at link time, as in the build tree (add_operator_library).
if(TORCH_INSTALL_PREFIX AND CMAKE_EXECUTABLE_FORMAT STREQUAL \"ELF\")
  file(GLOB _opgen_dirs LIST_DIRECTORIES true \"\${TORCH_INSTALL_PREFIX}/../nvidia/*/lib\")
  if(_opgen_dirs)
    list(JOIN _opgen_dirs \":\" _opgen_dirs)
    set_property(TARGET ${target} APPEND PROPERTY INTERFACE_LINK_OPTIONS \"LINKER:-rpath-link=\${_opgen_dirs}\")
  endif()
  unset(_opgen_dirs)
endif()
")
  install(FILES "${config}" DESTINATION "${cmakedir}")

  get_target_property(python ${name} OPGEN_PYTHON_DIR)
  if(python AND type STREQUAL "SHARED_LIBRARY")
    if(pythondir STREQUAL "")
      set(pythondir .)
    endif()
    install(DIRECTORY "${python}/" DESTINATION "${pythondir}" PATTERN __pycache__ EXCLUDE)
    # The installed package loads the installed library, by its path relative to the package.
    install(CODE "
      set(prefix \"\$ENV{DESTDIR}\${CMAKE_INSTALL_PREFIX}\")
      file(GLOB inits \"${python}/*/__init__.py\")
      foreach(init IN LISTS inits)
        get_filename_component(package \"\${init}\" DIRECTORY)
        get_filename_component(package \"\${package}\" NAME)
        set(installed \"\${prefix}/${pythondir}/\${package}/__init__.py\")
        file(RELATIVE_PATH library \"\${prefix}/${pythondir}/\${package}\"
             \"\${prefix}/${libdir}/$<TARGET_FILE_NAME:${name}>\")
        file(READ \"\${installed}\" text)
        string(REGEX REPLACE \"\\n_BUILT_LIBRARY = [^\\n]*\"
               \"\\n_BUILT_LIBRARY = os.path.join(os.path.dirname(os.path.abspath(__file__)), \\\"\${library}\\\")\"
               text \"\${text}\")
        file(WRITE \"\${installed}\" \"\${text}\")
      endforeach()")
  endif()
endfunction()
