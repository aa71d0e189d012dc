# SPDX-License-Identifier: Apache-2.0
# Typed codec benchmark (included by bench/CMakeLists.txt): JSON text to api:: objects and back for
# every kind of api/tests/fixtures.h.
if(COMMAND ingot_add_bench AND TARGET ingot_api)
  ingot_add_bench(ingot_bench_api_codec
    SOURCES ${CMAKE_CURRENT_LIST_DIR}/api_codec_bench.cpp
    LIBRARIES ingot_api)
endif()
