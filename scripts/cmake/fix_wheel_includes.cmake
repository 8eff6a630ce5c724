# Passed with -DCMAKE_PROJECT_INCLUDE=<this file> when building interface packages against the
# ROS 2 PyPI wheels.
#
# Defect worked around: the imported <pkg>__rosidl_generator_py targets shipped in the wheels list
# include directories of the machine that built them (/opt/python/cp311-cp311/include/python3.11
# and a numpy include below /opt/python). CMake then reports a failed generate step. At the end of
# the top-level CMakeLists (cmake_language(DEFER)), rewrite every non-existent Python / numpy
# include directory of the imported targets to this interpreter's ones.
# Harmless on a real ROS 2 install: existing directories are never touched.

if(DEFINED _IDM_FIX_WHEEL_INCLUDES_DEFERRED)
  return()
endif()
set(_IDM_FIX_WHEEL_INCLUDES_DEFERRED TRUE)

function(_idm_fix_wheel_includes)
  if(Python3_EXECUTABLE)
    set(_py "${Python3_EXECUTABLE}")
  elseif(PYTHON_EXECUTABLE)
    set(_py "${PYTHON_EXECUTABLE}")
  else()
    find_program(_py NAMES python3 python)
  endif()
  execute_process(
    COMMAND "${_py}" -c "import sysconfig, numpy; print(sysconfig.get_paths()['include'] + ';' + numpy.get_include(), end='')"
    OUTPUT_VARIABLE _dirs
    RESULT_VARIABLE _rc
    ERROR_QUIET)
  if(NOT _rc EQUAL 0)
    message(STATUS "fix_wheel_includes: cannot query ${_py} for include dirs; nothing rewritten")
    return()
  endif()
  list(GET _dirs 0 _py_inc)
  list(GET _dirs 1 _np_inc)

  get_property(_targets DIRECTORY "${CMAKE_SOURCE_DIR}" PROPERTY IMPORTED_TARGETS)
  set(_fixed 0)
  foreach(_t IN LISTS _targets)
    get_target_property(_incs ${_t} INTERFACE_INCLUDE_DIRECTORIES)
    if(NOT _incs)
      continue()
    endif()
    set(_new "")
    set(_changed FALSE)
    foreach(_d IN LISTS _incs)
      if(NOT _d MATCHES "^\\$<" AND NOT EXISTS "${_d}")
        if(_d MATCHES "numpy")
          set(_d "${_np_inc}")
          set(_changed TRUE)
        elseif(_d MATCHES "/include/python[0-9]")
          set(_d "${_py_inc}")
          set(_changed TRUE)
        endif()
      endif()
      list(APPEND _new "${_d}")
    endforeach()
    if(_changed)
      list(REMOVE_DUPLICATES _new)
      set_property(TARGET ${_t} PROPERTY INTERFACE_INCLUDE_DIRECTORIES "${_new}")
      math(EXPR _fixed "${_fixed} + 1")
    endif()
  endforeach()
  if(_fixed GREATER 0)
    message(STATUS "fix_wheel_includes: rewrote Python/numpy include dirs of ${_fixed} imported targets")
  endif()
endfunction()

cmake_language(DEFER DIRECTORY "${CMAKE_SOURCE_DIR}" CALL _idm_fix_wheel_includes)
