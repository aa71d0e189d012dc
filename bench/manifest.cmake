# SPDX-License-Identifier: Apache-2.0
# Manifest loading benchmark (included by bench/CMakeLists.txt): a 10 MB multi-document YAML file
# and a 3 MB JSON List through api::loadManifestText, the figures the unit tests used to bound.
if(COMMAND ingot_add_bench)
  ingot_add_bench(ingot_bench_manifest
    SOURCES ${CMAKE_CURRENT_LIST_DIR}/manifest_bench.cpp
    LIBRARIES ingot_api)
endif()
