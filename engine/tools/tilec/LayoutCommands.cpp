// Printing of the layout plan for tilec.
#include "engine/tools/tilec/LayoutCommands.h"

#include "engine/layout/plan/PlanPrinter.h"
#include "engine/support/Json.h"

#include <iostream>

namespace tb::tilec {

namespace {

int print(const CompileResult& result, const layout::LayoutPlan& plan, bool json, bool tables, bool full) {
    layout::PlanPrintOptions options;
    options.sources = &result.sources;
    options.fragmentTables = tables;
    if (json) {
        JsonWriter writer(true);
        if (full)
            layout::writePlanJson(writer, plan, options);
        else
            layout::writeLayoutsJson(writer, plan, options);
        std::cout << writer.str() << "\n";
    } else {
        std::cout << (full ? layout::printPlanText(plan, options) : layout::printLayoutsText(plan, options));
    }
    return result.ok() ? 0 : 1;
}

} // namespace

int printLayouts(const CompileResult& result, const layout::LayoutPlan& plan, bool json, bool tables) {
    return print(result, plan, json, tables, false);
}

int printPlan(const CompileResult& result, const layout::LayoutPlan& plan, bool json, bool tables) {
    return print(result, plan, json, tables, true);
}

} // namespace tb::tilec
