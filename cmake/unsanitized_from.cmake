# SEER_UNSANITIZED_FROM=<release build folder>: a sanitizer build (SEER_SANITIZE)
# copies from that build of the same source tree what the sanitizers never touch,
# instead of compiling it a second time: the runtime (libseer_rt.a,
# libseer_rt_cxx.a, libseer_rt.so) and the programs built with seer's compiler
# wrappers (seer_add_instrumented_program, tests/runtime's programs). Each copy
# lands where this build would have put its own, so tests find them unchanged.
#
# What is copied is what this build would have made: the runtime's flags are its
# own (-O2 -g, runtime/CMakeLists.txt) whatever the build type, and only NDEBUG
# differs, which nothing in runtime/ reads; the wrappers' programs are built by
# the same commands (-O1, no CMake flags) from that runtime. The programs built
# with add_executable as users build them (tests/programs, the SeqCheck programs'
# plain builds) and the clang plugin are still built here. `make test-sanitize`
# brings the release build's copies up to date first (target seer_unsanitized).
#
# Such a build cannot be installed (its runtime is not its own target): install
# the release build.
set(SEER_UNSANITIZED_FROM "" CACHE PATH
    "Sanitizer builds only: a release build folder of this source tree to copy the runtime and the wrapper-built programs from")

if(SEER_UNSANITIZED_FROM)
  get_filename_component(SEER_UNSANITIZED_FROM "${SEER_UNSANITIZED_FROM}" ABSOLUTE)
  if(NOT SEER_SANITIZE)
    message(FATAL_ERROR "SEER_UNSANITIZED_FROM is for sanitizer builds (SEER_SANITIZE=ON) only")
  endif()
  if(NOT EXISTS "${SEER_UNSANITIZED_FROM}/CMakeCache.txt")
    message(FATAL_ERROR "SEER_UNSANITIZED_FROM=${SEER_UNSANITIZED_FROM} is not a CMake build folder")
  endif()
  # Same sources, same compilers and flags, no sanitizers: otherwise its copies
  # are not what this build would have made.
  load_cache("${SEER_UNSANITIZED_FROM}" READ_WITH_PREFIX from_ CMAKE_HOME_DIRECTORY SEER_SANITIZE
             CMAKE_C_COMPILER CMAKE_CXX_COMPILER CMAKE_C_FLAGS CMAKE_CXX_FLAGS)
  foreach(var CMAKE_C_COMPILER CMAKE_CXX_COMPILER CMAKE_C_FLAGS CMAKE_CXX_FLAGS)
    if(NOT "${from_${var}}" STREQUAL "${${var}}")
      message(FATAL_ERROR "SEER_UNSANITIZED_FROM=${SEER_UNSANITIZED_FROM} has ${var}='${from_${var}}', "
                          "this build '${${var}}'")
    endif()
  endforeach()
  if(NOT from_CMAKE_HOME_DIRECTORY STREQUAL PROJECT_SOURCE_DIR)
    message(FATAL_ERROR "SEER_UNSANITIZED_FROM=${SEER_UNSANITIZED_FROM} builds ${from_CMAKE_HOME_DIRECTORY}, "
                        "not ${PROJECT_SOURCE_DIR}")
  endif()
  if(from_SEER_SANITIZE)
    message(FATAL_ERROR "SEER_UNSANITIZED_FROM=${SEER_UNSANITIZED_FROM} is a sanitizer build")
  endif()
  message(STATUS "Runtime and wrapper-built programs copied from ${SEER_UNSANITIZED_FROM}")
endif()

# seer_reuse_unsanitized(<output> <result variable>): in a build with
# SEER_UNSANITIZED_FROM, builds <output> (a file under this build folder) by
# copying the same file of that build and sets the result TRUE; otherwise sets it
# FALSE (the caller builds <output>) and, in a release build, adds <output> to
# the target seer_unsanitized.
function(seer_reuse_unsanitized output result)
  if(NOT SEER_UNSANITIZED_FROM)
    set_property(GLOBAL APPEND PROPERTY SEER_UNSANITIZED_OUTPUTS ${output})
    set(${result} FALSE PARENT_SCOPE)
    return()
  endif()
  file(RELATIVE_PATH relative ${PROJECT_BINARY_DIR} ${output})
  add_custom_command(OUTPUT ${output}
    COMMAND ${CMAKE_COMMAND} -E copy ${SEER_UNSANITIZED_FROM}/${relative} ${output}
    DEPENDS ${SEER_UNSANITIZED_FROM}/${relative}
    COMMENT "Copying ${relative} from ${SEER_UNSANITIZED_FROM}"
    VERBATIM)
  set(${result} TRUE PARENT_SCOPE)
endfunction()

# In a release build, the target seer_unsanitized: everything a sanitizer build
# with SEER_UNSANITIZED_FROM copies from it. Called once all folders are added.
function(seer_add_unsanitized_target)
  if(SEER_SANITIZE)
    return()
  endif()
  get_property(outputs GLOBAL PROPERTY SEER_UNSANITIZED_OUTPUTS)
  add_custom_target(seer_unsanitized DEPENDS ${outputs})
  add_dependencies(seer_unsanitized seer_rt seer_rt_cxx seer_rt_shared)
endfunction()

# The runtime's targets (runtime/CMakeLists.txt) as copies: seer_rt, seer_rt_cxx
# and seer_rt_shared name the same files in this build folder as the built ones.
function(seer_copy_unsanitized_runtime)
  set(dir ${PROJECT_BINARY_DIR}/runtime)
  set(files)
  foreach(target_and_file seer_rt:STATIC:libseer_rt.a seer_rt_cxx:STATIC:libseer_rt_cxx.a
                          seer_rt_shared:SHARED:libseer_rt.so)
    string(REPLACE ":" ";" parts ${target_and_file})
    list(GET parts 0 target)
    list(GET parts 1 type)
    list(GET parts 2 file)
    seer_reuse_unsanitized(${dir}/${file} copied)
    add_library(${target} ${type} IMPORTED GLOBAL)
    set_target_properties(${target} PROPERTIES IMPORTED_LOCATION ${dir}/${file})
    list(APPEND files ${dir}/${file})
  endforeach()
  add_custom_target(seer_rt_copies ALL DEPENDS ${files})
  foreach(target seer_rt seer_rt_cxx seer_rt_shared)
    add_dependencies(${target} seer_rt_copies)
  endforeach()
  configure_file(${PROJECT_SOURCE_DIR}/runtime/seer_rt.dynlist ${dir}/seer_rt.dynlist COPYONLY)
endfunction()
