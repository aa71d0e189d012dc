# SPDX-License-Identifier: Apache-2.0
# ingot_version: the version and git revision compiled into every binary (--version, the
# ingot_build_info metric). The revision is read from git at every build, so a commit made after
# configuring is picked up; the generated file is rewritten only when its content changes, so an
# unchanged revision recompiles nothing. Without git, or outside a git work tree (a release
# tarball), the revision is "unknown"; -DINGOT_REVISION=<rev> sets it explicitly (packagers).
find_package(Git QUIET)
set(INGOT_REVISION "" CACHE STRING "Revision compiled into the binaries (empty: ask git)")

set(ingot_build_info_cpp ${PROJECT_BINARY_DIR}/generated/common/version/build_info.cpp)
add_custom_target(ingot_version_info
  COMMAND ${CMAKE_COMMAND}
          -DSOURCE_DIR=${PROJECT_SOURCE_DIR}
          -DTEMPLATE=${PROJECT_SOURCE_DIR}/common/version/build_info.cpp.in
          -DOUTPUT=${ingot_build_info_cpp}
          -DVERSION=${PROJECT_VERSION}
          -DREVISION=${INGOT_REVISION}
          -DGIT=${GIT_EXECUTABLE}
          -P ${PROJECT_SOURCE_DIR}/cmake/write_version.cmake
  BYPRODUCTS ${ingot_build_info_cpp}
  COMMENT "Reading the git revision"
  VERBATIM)

ingot_add_library(ingot_version SOURCES ${PROJECT_SOURCE_DIR}/common/version/version.cpp ${ingot_build_info_cpp})
add_dependencies(ingot_version ingot_version_info)

# Every shipped binary answers --version with this tree's commit (ingot-frr once it exists).
add_test(NAME ingot_version_binaries_test
  COMMAND sh ${PROJECT_SOURCE_DIR}/common/tests/version/binaries_version_test.sh
          ${PROJECT_SOURCE_DIR} ${PROJECT_VERSION}
          $<TARGET_FILE:ingot-controller> $<TARGET_FILE:ingot-agent> $<TARGET_FILE:ingotctl>
          $<$<TARGET_EXISTS:ingot-frr>:$<TARGET_FILE:ingot-frr>>)
