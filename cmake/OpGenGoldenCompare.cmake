#[=======================================================================[.rst:
OpGenGoldenCompare
------------------

The script that the tests of :command:`opgen_add_golden_test` run:

.. code-block:: console

  cmake -DGENERATED=<dir> -DEXPECTED=<dir>[|<dir>...] -P OpGenGoldenCompare.cmake

Compares every generated file (under ``include/``, ``src/`` and the Python stubs ``python/*.pyi``)
with its expected copy, and reports files only one side has, printing a unified diff for each
difference. ``EXPECTED`` lists folders from the most shared to the most specific: a file's expected
copy is the one in the last folder that has it.

With ``OPGEN_UPDATE_GOLDEN=1`` in the environment it updates the expected files instead, naming each:
a changed or new file is written into the most specific folder that exists (make ``golden/torch2.6``
first to keep what only 2.6 generates there), a file no longer generated is removed, and a copy in a
specific folder equal to the one a more shared folder holds is removed as redundant. Nothing is ever
updated otherwise: review ``git diff`` after an update.
#]=======================================================================]
cmake_minimum_required(VERSION 3.22)  # if(... IN_LIST ...) below (CMP0057; -P scripts start with old policies)
file(GLOB_RECURSE generated RELATIVE "${GENERATED}" "${GENERATED}/include/*" "${GENERATED}/src/*"
     "${GENERATED}/python/*.pyi")  # not __init__.py: it names the library's path on this machine
if(NOT generated)
  message(FATAL_ERROR "golden: nothing generated in ${GENERATED} (build the library first)")
endif()
string(REPLACE "|" ";" layers "${EXPECTED}")
list(GET layers 0 specific)  # the most specific folder that exists (the first if none does)
foreach(layer IN LISTS layers)
  if(IS_DIRECTORY "${layer}")
    set(specific "${layer}")
  endif()
endforeach()

# holder_<file>: the last folder holding the file; shared_<file>: the one before it that holds it.
set(expected "")
foreach(layer IN LISTS layers)
  if(NOT IS_DIRECTORY "${layer}")
    continue()
  endif()
  file(GLOB_RECURSE files RELATIVE "${layer}" "${layer}/*")
  foreach(f IN LISTS files)
    if(DEFINED "holder_${f}")
      set("shared_${f}" "${holder_${f}}")
    endif()
    set("holder_${f}" "${layer}")
  endforeach()
  list(APPEND expected ${files})
endforeach()
list(REMOVE_DUPLICATES expected)

if("$ENV{OPGEN_UPDATE_GOLDEN}" STREQUAL "1")
  foreach(f IN LISTS expected)
    if(NOT f IN_LIST generated)
      foreach(layer IN LISTS layers)
        if(EXISTS "${layer}/${f}")
          file(REMOVE "${layer}/${f}")
          message(STATUS "golden: removed ${layer}/${f}")
        endif()
      endforeach()
    endif()
  endforeach()
  foreach(f IN LISTS generated)
    set(target "${specific}")
    if(DEFINED "holder_${f}")
      execute_process(COMMAND "${CMAKE_COMMAND}" -E compare_files "${GENERATED}/${f}" "${holder_${f}}/${f}" RESULT_VARIABLE same)
      if(same EQUAL 0)
        continue()
      endif()
      if(NOT "${holder_${f}}" STREQUAL "${specific}")
        set("shared_${f}" "${holder_${f}}")  # what a copy in the specific folder would repeat
      endif()
    endif()
    execute_process(COMMAND "${CMAKE_COMMAND}" -E compare_files "${GENERATED}/${f}" "${target}/${f}" RESULT_VARIABLE same)
    if(NOT same EQUAL 0)
      get_filename_component(dir "${target}/${f}" DIRECTORY)
      file(MAKE_DIRECTORY "${dir}")
      file(COPY_FILE "${GENERATED}/${f}" "${target}/${f}")
      message(STATUS "golden: updated ${target}/${f}")
    endif()
    if(DEFINED "shared_${f}")
      execute_process(COMMAND "${CMAKE_COMMAND}" -E compare_files "${target}/${f}" "${shared_${f}}/${f}" RESULT_VARIABLE same)
      if(same EQUAL 0)
        file(REMOVE "${target}/${f}")
        message(STATUS "golden: removed ${target}/${f}, the same as ${shared_${f}}/${f}")
      endif()
    endif()
  endforeach()
  return()
endif()

find_program(DIFF diff)
set(failures 0)
set(all ${generated} ${expected})
list(REMOVE_DUPLICATES all)
string(REPLACE ";" ", " where "${layers}")
foreach(f IN LISTS all)
  if(NOT DEFINED "holder_${f}")
    message("golden: ${f} is generated but has no expected copy in ${where}")
    math(EXPR failures "${failures} + 1")
  elseif(NOT EXISTS "${GENERATED}/${f}")
    message("golden: ${f} is expected (${holder_${f}}) but was not generated")
    math(EXPR failures "${failures} + 1")
  else()
    set(want "${holder_${f}}/${f}")
    execute_process(COMMAND "${CMAKE_COMMAND}" -E compare_files "${want}" "${GENERATED}/${f}" RESULT_VARIABLE same)
    if(NOT same EQUAL 0)
      math(EXPR failures "${failures} + 1")
      if(DIFF)
        execute_process(COMMAND "${DIFF}" -u "${want}" "${GENERATED}/${f}" OUTPUT_VARIABLE d)
        message("golden: ${f} differs:\n${d}")
      else()
        message("golden: ${f} differs from ${want}")
      endif()
    endif()
  endif()
endforeach()
if(failures GREATER 0)
  message(FATAL_ERROR "golden: ${failures} difference(s). If the new output is right, update the expected files with\n"
                      "  OPGEN_UPDATE_GOLDEN=1 ctest -R <this test>\nand review the change (git diff) before committing it.")
endif()
message(STATUS "golden: ${GENERATED} matches ${where}")
