// Text and JSON forms of a LayoutPlan: what `tilec layouts` and `tilec plan` print and what the views
// read (schema in docs/layout-json.md). The shared-access part (bank analysis) is printed by its own
// engineer's printer; these leave it out.
#pragma once

#include "engine/layout/plan/LayoutPlan.h"
#include "engine/support/Json.h"
#include "engine/support/SourceManager.h"

#include <cstdint>
#include <string>

namespace tb::layout {

struct PlanPrintOptions {
    const SourceManager* sources = nullptr; // for line numbers; may be null
    // JSON only: include the element -> (thread, register) table of fragments of at most
    // kMaxTabulatedElements elements. Off by default to keep the JSON small.
    bool fragmentTables = false;
};

constexpr int64_t kMaxTabulatedElements = 65536;

// Per kernel, per buffer: scope, shape, dtype, the layout formula and where it came from.
std::string printLayoutsText(const LayoutPlan& plan, const PlanPrintOptions& options = {});
// Per kernel: warp partitions, loop plans, reduce plans, copy plans, the shared-memory budget.
std::string printPlanText(const LayoutPlan& plan, const PlanPrintOptions& options = {});

// {"schema": "tilebench-layouts", "version": 1, "target": ..., "kernels": [...]}: buffers only.
void writeLayoutsJson(JsonWriter& json, const LayoutPlan& plan, const PlanPrintOptions& options = {});
// {"schema": "tilebench-plan", "version": 1, ...}: buffers and every plan section except sharedAccesses.
void writePlanJson(JsonWriter& json, const LayoutPlan& plan, const PlanPrintOptions& options = {});

// Pieces, for other printers (the bank analysis JSON nests these).
void writeFragmentJson(JsonWriter& json, const Fragment& fragment, bool table);
void writeLayoutJson(JsonWriter& json, const Layout& layout);
std::string sourceLine(const PlanPrintOptions& options, const SourceRange& range); // "30" or ""

} // namespace tb::layout
