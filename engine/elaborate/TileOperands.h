// Operands of tile operations (private to engine/elaborate): a buffer, a region of one (A[i, 0:64]) or a
// start corner (A[by * 128, k * 32], whose extents come from the other side of a copy), plus the small
// extent helpers that the tile handlers share for their checks and messages.
#pragma once

#include "engine/elaborate/Interpreter.h"

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace tb::elab {

struct Operand {
    ir::Buffer* buffer = nullptr;
    std::vector<ir::ExprPtr> mins;
    std::vector<ir::ExprPtr> extents;
    bool corner = false; // a BufferLoad: a start corner whose extents come from the other side
    SourceRange range;

    ir::Region region() const { return ir::Region{buffer, mins, extents, range}; }
};

// A buffer, region or (when allowCorner) start-corner value as an operand; reports not-a-buffer otherwise.
std::optional<Operand> resolveOperand(Interpreter& in, const Value& v, SourceRange range,
                                      const std::string& what, bool allowCorner);
// Region bounds that are provably outside the buffer: reports index-out-of-range and returns false.
bool regionInBounds(Interpreter& in, const Operand& op, const std::string& what);
// Extents for a start corner: the other side's non-unit extents, right-aligned, leading dims extent 1.
bool fillCorner(Interpreter& in, Operand& corner, const Operand& other, SourceRange range);

// The Copy statement of T.copy / T.tma_copy from its bound (src, dst) arguments 0 and 1: regions resolved,
// corners filled and checked. Null when it reported an error, or when it emitted the copy's meaning itself
// and set *storeEmitted: a plain store when both sides are single elements, an element-wise T.Parallel loop
// between fragments of different shapes.
std::shared_ptr<ir::Stmt> buildCopy(Interpreter& in, const BoundArgs& b, SourceRange range,
                                    bool* storeEmitted);
// eviction_policy= (argument k) of a copy, when given; false after reporting a bad value.
bool readEvictionPolicy(Interpreter& in, const BoundArgs& b, size_t k, ir::Stmt& copy);

// "[128, 64]" for messages.
std::string shapeText(const std::vector<ir::ExprPtr>& dims);
bool isUnit(const ir::ExprPtr& e);
std::vector<ir::ExprPtr> nonUnit(const std::vector<ir::ExprPtr>& extents);
// Two extents that are provably different (both constant and unequal).
bool differ(const ir::ExprPtr& a, const ir::ExprPtr& b);
ir::ExprPtr asInt32(ir::ExprPtr e);
// a - b as int32, simplified.
ir::ExprPtr sub(const ir::ExprPtr& a, const ir::ExprPtr& b, SourceRange range);

} // namespace tb::elab
