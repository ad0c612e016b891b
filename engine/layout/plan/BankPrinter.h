// Printers of the bank analysis (LayoutPlan's sharedAccesses): the text table `tilec banks FILE` shows (per
// access, per tile-program line, per kernel) and the JSON document the views read, which carries the
// representative instruction's lane addresses and banks so that a view can draw the punch card. The JSON
// schema is documented in docs/bank-analysis.md.
#pragma once

#include "engine/layout/plan/LayoutPlan.h"
#include "engine/support/Json.h"
#include "engine/support/SourceManager.h"

#include <string>

namespace tb::layout {

// Example row: "  31  A_shared  ldmatrix.x4 A operand A_shared  LDSM.16.M88.4  8  512  2048  2048  1  4096".
std::string printBankTable(const LayoutPlan& plan, const SourceManager& sources);

// Writes {"target": ..., "kernels": [...]} as one JSON value.
void writeBankJson(JsonWriter& json, const LayoutPlan& plan, const SourceManager& sources);
std::string printBankJson(const LayoutPlan& plan, const SourceManager& sources);

} // namespace tb::layout
