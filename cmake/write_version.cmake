# SPDX-License-Identifier: Apache-2.0
# Run with cmake -P at build time (see version.cmake). Inputs: SOURCE_DIR, TEMPLATE, OUTPUT,
# VERSION, REVISION (empty: ask git), GIT (the git executable; empty when not installed).
# The revision is the full commit hash, with "-dirty" when tracked files differ from it.
if(NOT REVISION)
  set(REVISION "unknown")
  if(GIT)
    execute_process(COMMAND ${GIT} -C ${SOURCE_DIR} rev-parse --show-toplevel
                    OUTPUT_VARIABLE top RESULT_VARIABLE rc
                    OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
    # Only the source tree's own repository counts: a tarball unpacked inside some other git
    # work tree must not take that tree's commit.
    if(rc EQUAL 0)
      file(REAL_PATH "${top}" top)
      file(REAL_PATH "${SOURCE_DIR}" source)
    endif()
    if(rc EQUAL 0 AND top STREQUAL source)
      execute_process(COMMAND ${GIT} -C ${SOURCE_DIR} rev-parse --verify HEAD
                      OUTPUT_VARIABLE head RESULT_VARIABLE rc
                      OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
      if(rc EQUAL 0 AND head MATCHES "^[0-9a-f]+$")
        set(REVISION ${head})
        execute_process(COMMAND ${GIT} -C ${SOURCE_DIR} status --porcelain --untracked-files=no
                        OUTPUT_VARIABLE changes RESULT_VARIABLE rc ERROR_QUIET)
        if(rc EQUAL 0 AND NOT changes STREQUAL "")
          string(APPEND REVISION "-dirty")
        endif()
      endif()
    endif()
  endif()
endif()
if(NOT VERSION)
  set(VERSION "unknown")
endif()
set(INGOT_BUILD_VERSION ${VERSION})
set(INGOT_BUILD_REVISION ${REVISION})
configure_file(${TEMPLATE} ${OUTPUT} @ONLY)
