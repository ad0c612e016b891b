# bench_layouts: time of parse -> layout plan per sample (MLA decode must stay under 20 ms).
# Included by engine/tools/bench/CMakeLists.txt: include(${CMAKE_CURRENT_SOURCE_DIR}/LayoutBench.cmake)
add_executable(bench_layouts ${CMAKE_CURRENT_LIST_DIR}/LayoutBench.cpp)
target_link_libraries(bench_layouts PRIVATE tilebench_engine)
