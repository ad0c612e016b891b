// Helpers shared by the check families in engine/check/ (internal to the folder): shape text, constant
// extents and the "allocated here" notes that every check attaches.
#pragma once

#include "engine/ir/Stmt.h"
#include "engine/support/Diagnostics.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace tb::check {

// "[128, 64]"
std::string shapeText(const std::vector<ir::ExprPtr>& dims);
// Two extents are known to differ when both are constants that differ; symbolic ones never "differ".
bool extentsDiffer(const ir::ExprPtr& a, const ir::ExprPtr& b);
// Known equal: equal constants, or the same simplified text.
bool extentsEqual(const ir::ExprPtr& a, const ir::ExprPtr& b);
bool isConstant(const ir::ExprPtr& e, int64_t value);
// "'A_shared' is allocated here as shared float16[128, 32]" or "'A' is parameter 0: global float16[...]",
// at the buffer's range.
DiagnosticNote allocationNote(const ir::Buffer& buffer);
// Adds the allocation note of each distinct non-null buffer, in the order given.
void addAllocationNotes(Diagnostic& diagnostic, std::vector<const ir::Buffer*> buffers);
// The region's range when known, else the statement's.
inline SourceRange rangeOf(const ir::Region& region, const ir::Stmt& stmt) {
    return region.range.valid ? region.range : stmt.range;
}

} // namespace tb::check
