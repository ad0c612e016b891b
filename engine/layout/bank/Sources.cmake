# The shared-memory bank model (see docs/bank-model.md). Included from engine/layout/CMakeLists.txt.
target_sources(tilebench_engine PRIVATE
    ${CMAKE_CURRENT_LIST_DIR}/SharedAccess.cpp
    ${CMAKE_CURRENT_LIST_DIR}/BankCost.cpp
    ${CMAKE_CURRENT_LIST_DIR}/BankPunchCard.cpp)
