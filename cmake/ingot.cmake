# SPDX-License-Identifier: Apache-2.0
# Helpers shared by every component: one static library or one Boost.Test executable per call.

# ingot_add_library(NAME SOURCES ... [LIBRARIES ...])
function(ingot_add_library name)
  cmake_parse_arguments(ARG "" "" "SOURCES;LIBRARIES" ${ARGN})
  add_library(${name} STATIC ${ARG_SOURCES})
  target_link_libraries(${name} PUBLIC ${ARG_LIBRARIES})
endfunction()

# ingot_add_test(NAME SOURCES ... [LIBRARIES ...] [LABELS ...])
# One Boost.Test executable (shared library, BOOST_TEST_DYN_LINK), registered with CTest.
function(ingot_add_test name)
  cmake_parse_arguments(ARG "" "" "SOURCES;LIBRARIES;LABELS" ${ARGN})
  add_executable(${name} ${ARG_SOURCES})
  target_compile_definitions(${name} PRIVATE BOOST_TEST_DYN_LINK)
  target_link_libraries(${name} PRIVATE ${ARG_LIBRARIES} Boost::unit_test_framework)
  add_test(NAME ${name} COMMAND ${name} --log_level=warning)
  set_tests_properties(${name} PROPERTIES
    WORKING_DIRECTORY ${CMAKE_CURRENT_SOURCE_DIR}
    ENVIRONMENT "INGOT_SOURCE_DIR=${PROJECT_SOURCE_DIR};INGOT_BINARY_DIR=${PROJECT_BINARY_DIR}")
  if(ARG_LABELS)
    set_tests_properties(${name} PROPERTIES LABELS "${ARG_LABELS}")
  endif()
endfunction()
