// The JSON form of the Tile IR, for the app's views, tilec --emit=ir-json and tests. The schema is
// documented in docs/ir.md; kIrJsonVersion changes whenever a field is renamed or removed (adding a
// field does not). Output is deterministic: fields come out in a fixed order, lists in IR order.
// Every expression is written both as text (printExpr) and as a structured tree; buffers and vars are
// referred to by name and id. With a SourceManager, nodes carry "loc": {line, col, endLine, endCol}.
#pragma once

#include "engine/ir/Module.h"
#include "engine/support/Json.h"
#include "engine/support/SourceManager.h"

#include <string>

namespace tb::ir {

inline constexpr int kIrJsonVersion = 1;

std::string moduleToJson(const Module& module, const SourceManager* sources = nullptr, bool pretty = true);

// Pieces, for other documents that embed IR nodes (a pass dump, a view model).
void writeExprJson(JsonWriter& out, const ExprPtr& expr, const SourceManager* sources = nullptr);
void writeStmtJson(JsonWriter& out, const StmtPtr& stmt, const SourceManager* sources = nullptr);
void writeBufferJson(JsonWriter& out, const Buffer& buffer, const SourceManager* sources = nullptr);
// {"line", "col", "endLine", "endCol"} (1-based; endCol is one past the last byte), or null when the
// range is unknown or sources is null.
void writeLocationJson(JsonWriter& out, const SourceRange& range, const SourceManager* sources);

} // namespace tb::ir
