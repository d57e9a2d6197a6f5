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
  if(NOT arg_CMAKE_DESTINATION)
    set(arg_CMAKE_DESTINATION "${CMAKE_INSTALL_LIBDIR}/cmake/${name}")
  endif()
  if(NOT arg_PYTHON_DESTINATION)
    set(arg_PYTHON_DESTINATION "lib/python3/dist-packages")
  endif()

  target_include_directories(${name} PUBLIC "$<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>")
  install(TARGETS ${name} EXPORT ${name}Targets
          LIBRARY DESTINATION "${CMAKE_INSTALL_LIBDIR}" ARCHIVE DESTINATION "${CMAKE_INSTALL_LIBDIR}"
          RUNTIME DESTINATION "${CMAKE_INSTALL_BINDIR}")
  install(DIRECTORY "${outdir}/include/" DESTINATION "${CMAKE_INSTALL_INCLUDEDIR}")
  install(EXPORT ${name}Targets NAMESPACE "${arg_EXPORT_NAMESPACE}" DESTINATION "${arg_CMAKE_DESTINATION}")

  # The package's config: Torch first (the target links it), then the targets. A shared library is
  # linked with --no-as-needed, as in the build tree: nothing references its symbols, yet loading it
  # is what registers the operators.
  set(target "${arg_EXPORT_NAMESPACE}${name}")
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
${keep}")
  install(FILES "${config}" DESTINATION "${arg_CMAKE_DESTINATION}")

  get_target_property(python ${name} OPGEN_PYTHON_DIR)
  if(python AND type STREQUAL "SHARED_LIBRARY")
    install(DIRECTORY "${python}/" DESTINATION "${arg_PYTHON_DESTINATION}")
    # The installed package loads the installed library, by its path relative to the package.
    install(CODE "
      set(prefix \"\$ENV{DESTDIR}\${CMAKE_INSTALL_PREFIX}\")
      file(GLOB inits \"${python}/*/__init__.py\")
      foreach(init IN LISTS inits)
        get_filename_component(package \"\${init}\" DIRECTORY)
        get_filename_component(package \"\${package}\" NAME)
        set(installed \"\${prefix}/${arg_PYTHON_DESTINATION}/\${package}/__init__.py\")
        file(RELATIVE_PATH library \"\${prefix}/${arg_PYTHON_DESTINATION}/\${package}\"
             \"\${prefix}/${CMAKE_INSTALL_LIBDIR}/$<TARGET_FILE_NAME:${name}>\")
        file(READ \"\${installed}\" text)
        string(REGEX REPLACE \"\\n_BUILT_LIBRARY = [^\\n]*\"
               \"\\n_BUILT_LIBRARY = os.path.join(os.path.dirname(os.path.abspath(__file__)), \\\"\${library}\\\")\"
               text \"\${text}\")
        file(WRITE \"\${installed}\" \"\${text}\")
      endforeach()")
  endif()
endfunction()
