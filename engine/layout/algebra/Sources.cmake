# The layout algebra: index expressions, layouts, fragments, swizzles, warp partition and gemm fragments.
target_sources(tilebench_engine PRIVATE
    ${CMAKE_CURRENT_LIST_DIR}/IndexExpr.cpp
    ${CMAKE_CURRENT_LIST_DIR}/IndexSimplify.cpp
    ${CMAKE_CURRENT_LIST_DIR}/Layout.cpp
    ${CMAKE_CURRENT_LIST_DIR}/LayoutInverse.cpp
    ${CMAKE_CURRENT_LIST_DIR}/LayoutEquality.cpp
    ${CMAKE_CURRENT_LIST_DIR}/LayoutTranslation.cpp
    ${CMAKE_CURRENT_LIST_DIR}/Fragment.cpp
    ${CMAKE_CURRENT_LIST_DIR}/FragmentTable.cpp
    ${CMAKE_CURRENT_LIST_DIR}/FragmentContains.cpp
    ${CMAKE_CURRENT_LIST_DIR}/Swizzle.cpp
    ${CMAKE_CURRENT_LIST_DIR}/SharedLayoutChoice.cpp
    ${CMAKE_CURRENT_LIST_DIR}/GemmInstruction.cpp
    ${CMAKE_CURRENT_LIST_DIR}/WarpPartition.cpp
    ${CMAKE_CURRENT_LIST_DIR}/GemmFragments.cpp)
