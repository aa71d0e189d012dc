# SPDX-License-Identifier: Apache-2.0
# The agent's CPU per Service change (included by bench/CMakeLists.txt): a Reconciler over
# hand-filled caches, the full pass against a Service's own key. A plain executable that prints
# figures (docs/performance.md).
if(TARGET ingot_agent AND TARGET ingot_cli)
  add_executable(ingot_bench_agent_sync ${CMAKE_CURRENT_LIST_DIR}/agent_sync_bench.cpp)
  target_link_libraries(ingot_bench_agent_sync PRIVATE ingot_agent ingot_cli)
  target_compile_definitions(ingot_bench_agent_sync PRIVATE
    INGOT_SOURCE_DIR="${PROJECT_SOURCE_DIR}")
endif()
