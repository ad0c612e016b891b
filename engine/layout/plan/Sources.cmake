# The layout plan: the contract between the layout passes, the printers and the views.
target_sources(tilebench_engine PRIVATE
    ${CMAKE_CURRENT_LIST_DIR}/LayoutPlan.cpp
    ${CMAKE_CURRENT_LIST_DIR}/PlanPrinter.cpp
    ${CMAKE_CURRENT_LIST_DIR}/BankPrinter.cpp
    ${CMAKE_CURRENT_LIST_DIR}/BankTotals.cpp)
