# SPDX-License-Identifier: Apache-2.0
# Layer 2 responder benchmark (included by bench/CMakeLists.txt): per-frame decision and reply.
if(COMMAND ingot_add_bench AND TARGET ingot_agent_l2)
  ingot_add_bench(ingot_bench_l2
    SOURCES ${CMAKE_CURRENT_LIST_DIR}/l2_bench.cpp
    LIBRARIES ingot_agent_l2)
endif()
