// TileLang's intrinsics module (tilelang.intrinsics, tilelang.cuda.intrinsics): get_swizzle_layout, the
// index function of the shared-memory swizzle that hand-written mma kernels annotate, and
// TensorCoreIntrinEmitter, the host object whose methods write a warp-level GEMM (ldmatrix_a, ldmatrix_b,
// mma, stmatrix) on per-thread T.alloc_local arrays. The emitter is an Object of type
// "TensorCoreIntrinEmitter" whose attributes are TileLang's (a_dtype, ..., warp_rows, local_size_a, ...);
// each method call checks its operands and emits one StmtKind::MmaIntrinsic statement (ir/MmaEmitter.h).
#include "engine/elaborate/Primitives.h"
#include "engine/elaborate/TileOperands.h"
#include "engine/ir/IrQueries.h"

#include <algorithm>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

namespace tb::elab {

namespace {

constexpr const char* kEmitterType = "TensorCoreIntrinEmitter";
constexpr const char* kSupportedEmitter =
    "TileBench models TensorCoreIntrinEmitter for float16 or bfloat16 inputs (mma.sync m16n8k16) with a "
    "float32 accumulator, warp_row_tiles and warp_col_tiles multiples of 16, "
    "chunk a multiple of 16, reduce_k=1 and the default thread binding";

// get_swizzle_layout(row_idx, col_idx, row_size, dtype, swizzle_bytes=None) -> (col_tile, row, col): the
// 16-byte chunks of each row XOR-permuted by the row within an 8-row period, as mma_layout.py computes it.
Value getSwizzleLayout(Interpreter& in, PrimitiveCall& call) {
    BoundArgs b;
    if (!in.bind("get_swizzle_layout(row_idx, col_idx, row_size, dtype, swizzle_bytes=None)", call.args, b))
        return Value::poison();
    auto rowSize = in.constInt(b[2], b.at(2), "row_size");
    auto dtype = in.toDType(b[3], b.at(3));
    if (!rowSize || !dtype)
        return Value::poison();
    const int64_t bits = ir::dtypeBits(*dtype);
    const int64_t rowBytes = bits * *rowSize / 8;
    if (rowBytes <= 0 || rowBytes % 32 != 0)
        return in.error("wrong-arguments", call.range,
                        "get_swizzle_layout needs rows of a multiple of 32 bytes, got " +
                            std::to_string(rowBytes) + " (" + std::to_string(*rowSize) + " x " +
                            ir::dtypeName(*dtype) + ")",
                        "swizzle a shared tile whose last dimension holds 32, 64 or 128 bytes");
    int64_t swizzleBytes = std::min<int64_t>(128, rowBytes);
    if (b.given[4] && b[4].kind != ValueKind::None) {
        auto given = in.constInt(b[4], b.at(4), "swizzle_bytes");
        if (!given)
            return Value::poison();
        if (*given != 32 && *given != 64 && *given != 128)
            return in.error("wrong-arguments", b.at(4), "swizzle_bytes must be 32, 64 or 128",
                            "leave it out for min(128, row bytes)");
        swizzleBytes = *given;
    }
    const SourceRange r = call.range;
    auto op = [&](ast::BinOpKind k, const Value& x, int64_t y) {
        return in.binary(k, x, Value::integer(y), r);
    };
    const int64_t perChunk = 128 / bits, vectors = swizzleBytes / 16;
    const Value& row = b[0];
    const Value& col = b[1];
    Value chunk = op(ast::BinOpKind::FloorDiv, col, perChunk);
    Value inChunk = op(ast::BinOpKind::Mod, col, perChunk);
    Value colTile = op(ast::BinOpKind::FloorDiv, chunk, vectors);
    Value c = op(ast::BinOpKind::Mod, chunk, vectors);
    Value src = op(ast::BinOpKind::FloorDiv, op(ast::BinOpKind::Mod, row, 8), 8 / vectors);
    Value swizzled = in.binary(
        ast::BinOpKind::Add, op(ast::BinOpKind::Mul, in.binary(ast::BinOpKind::BitXor, c, src, r), perChunk),
        inChunk, r);
    for (const Value* v : {&colTile, &swizzled})
        if (v->isInert())
            return *v;
    return Value::tuple({colTile, row, swizzled});
}

// ---- the emitter object ----

Value attr(const ObjectData& o, const char* name) {
    auto it = o.attrs.find(name);
    return it == o.attrs.end() ? Value::none() : it->second;
}

// The configuration the methods use, read back from the object's attributes.
ir::MmaEmitter configOf(const ObjectData& o) {
    ir::MmaEmitter e;
    e.aDtype = attr(o, "a_dtype").dtype;
    e.bDtype = attr(o, "b_dtype").dtype;
    e.accumDtype = attr(o, "accum_dtype").dtype;
    e.aTransposed = attr(o, "a_transposed").i != 0;
    e.bTransposed = attr(o, "b_transposed").i != 0;
    e.blockRowWarps = attr(o, "block_row_warps").i;
    e.blockColWarps = attr(o, "block_col_warps").i;
    e.warpRowTiles = attr(o, "warp_row_tiles").i;
    e.warpColTiles = attr(o, "warp_col_tiles").i;
    e.chunk = attr(o, "chunk").i;
    return e;
}

// What the constructor accepts beyond TileLang's own asserts; empty when supported.
std::string unsupportedConfig(const ir::MmaEmitter& e) {
    using ir::DType;
    auto sixteenBit = [](DType t) { return t == DType::Float16 || t == DType::BFloat16; };
    if (!sixteenBit(e.aDtype) || e.bDtype != e.aDtype)
        return std::string("inputs a_dtype=") + ir::dtypeName(e.aDtype) +
               ", b_dtype=" + ir::dtypeName(e.bDtype);
    if (e.accumDtype != DType::Float32)
        return std::string("accum_dtype=") + ir::dtypeName(e.accumDtype) + " for " + ir::dtypeName(e.aDtype) +
               " inputs";
    if (e.warpRowTiles < 16 || e.warpRowTiles % 16 != 0 || e.warpColTiles < 16 || e.warpColTiles % 16 != 0)
        return "warp tiles " + std::to_string(e.warpRowTiles) + " x " + std::to_string(e.warpColTiles);
    if (e.chunk < 16 || e.chunk % 16 != 0)
        return "chunk=" + std::to_string(e.chunk);
    if (e.blockRowWarps < 1 || e.blockColWarps < 1)
        return "a block of " + std::to_string(e.blockRowWarps) + " x " + std::to_string(e.blockColWarps) +
               " warps";
    return {};
}

Value emitterConstructor(Interpreter& in, PrimitiveCall& call) {
    BoundArgs b;
    if (!in.bind("TensorCoreIntrinEmitter(a_dtype=float16, b_dtype=float16, accum_dtype=float16, "
                 "a_transposed=False, b_transposed=False, block_row_warps=2, block_col_warps=2, "
                 "warp_row_tiles=8, warp_col_tiles=8, chunk=16, reduce_k=1, num_elems_per_byte=1, "
                 "is_m_first=False, thread_var=None)",
                 call.args, b))
        return Value::poison();
    ir::MmaEmitter e;
    ir::DType* dtypes[] = {&e.aDtype, &e.bDtype, &e.accumDtype};
    for (size_t k = 0; k < 3; ++k)
        if (b.given[k]) {
            auto t = in.toDType(b[k], b.at(k));
            if (!t)
                return Value::poison();
            *dtypes[k] = *t;
        }
    e.aTransposed = b.given[3] && in.truth(b[3]).value_or(false);
    e.bTransposed = b.given[4] && in.truth(b[4]).value_or(false);
    int64_t* ints[] = {&e.blockRowWarps, &e.blockColWarps, &e.warpRowTiles, &e.warpColTiles, &e.chunk};
    const char* names[] = {"block_row_warps", "block_col_warps", "warp_row_tiles", "warp_col_tiles", "chunk"};
    for (size_t k = 0; k < 5; ++k)
        if (b.given[5 + k]) {
            auto v = in.constInt(b[5 + k], b.at(5 + k), names[k]);
            if (!v)
                return Value::poison();
            *ints[k] = *v;
        }
    std::string what = unsupportedConfig(e);
    const char* extras[] = {"reduce_k", "num_elems_per_byte"};
    for (size_t k = 0; k < 2 && what.empty(); ++k)
        if (b.given[10 + k] && in.constInt(b[10 + k], b.at(10 + k), extras[k], false).value_or(0) != 1)
            what = std::string(extras[k]) + " other than 1";
    if (what.empty() && b.given[12] && b[12].kind != ValueKind::None && in.truth(b[12]).value_or(true))
        what = "is_m_first=True";
    if (what.empty() && b.given[13] && b[13].kind != ValueKind::None)
        what = "an explicit thread_var";
    if (!what.empty())
        return in.error("mma-emitter-unsupported", call.range,
                        "TensorCoreIntrinEmitter with " + what + " is not supported", kSupportedEmitter);
    Value v = Value::hostObject(kEmitterType);
    auto& a = v.object->attrs;
    a["a_dtype"] = Value::dtypeOf(e.aDtype);
    a["b_dtype"] = Value::dtypeOf(e.bDtype);
    a["accum_dtype"] = Value::dtypeOf(e.accumDtype);
    a["a_transposed"] = Value::boolean(e.aTransposed);
    a["b_transposed"] = Value::boolean(e.bTransposed);
    a["block_row_warps"] = Value::integer(e.blockRowWarps);
    a["block_col_warps"] = Value::integer(e.blockColWarps);
    a["warp_row_tiles"] = Value::integer(e.warpRowTiles);
    a["warp_col_tiles"] = Value::integer(e.warpColTiles);
    a["chunk"] = Value::integer(e.chunk);
    a["reduce_k"] = Value::integer(1);
    a["M_DIM"] = a["micro_size_x"] = Value::integer(ir::MmaEmitter::kMicroM);
    a["n_dim"] = a["micro_size_y"] = Value::integer(ir::MmaEmitter::kMicroN);
    a["k_dim"] = a["micro_size_k"] = Value::integer(e.microK());
    a["WARP_SIZE"] = Value::integer(ir::MmaEmitter::kWarpSize);
    a["warp_rows"] = Value::integer(e.warpRows());
    a["warp_cols"] = Value::integer(e.warpCols());
    a["local_size_a"] = Value::integer(e.localSizeA());
    a["local_size_b"] = Value::integer(e.localSizeB());
    a["local_size_out"] = Value::integer(e.localSizeC());
    a["threads"] = Value::integer(e.threads());
    a["mma_prefix"] = Value::str("m16n8k16");
    return v;
}

// ---- the methods ----

struct MethodContext {
    Interpreter& in;
    PrimitiveCall& call;
    ir::MmaEmitter emitter;
    std::string method; // "mma_emitter.ldmatrix_a" as the program wrote it

    Value fail(const std::string& code, SourceRange range, const std::string& message,
               const std::string& hint) {
        return in.error(code, range, message, hint);
    }
};

// A whole per-thread local array of `dtype` with at least `elements` elements, as a region.
std::optional<ir::Region> localOperand(MethodContext& m, const Value& v, SourceRange range, const char* role,
                                       ir::DType dtype, int64_t elements) {
    auto op = resolveOperand(m.in, v, range, role, false);
    if (!op)
        return std::nullopt;
    const ir::Buffer* b = op->buffer;
    if (b->scope != ir::MemoryScope::Local) {
        m.fail("mma-emitter-operand", range,
               std::string(role) + " '" + b->name + "' of " + m.method +
                   " must be a T.alloc_local array, but it is " + ir::scopeName(b->scope),
               "allocate it with T.alloc_local((" + std::to_string(elements) + ",), " + ir::dtypeName(dtype) +
                   ")");
        return std::nullopt;
    }
    auto n = b->constantElementCount();
    if (b->dtype != dtype || !n || *n < elements) {
        m.fail("mma-emitter-operand", range,
               std::string(role) + " '" + b->name + "' of " + m.method + " is " + ir::dtypeName(b->dtype) +
                   "[" + (n ? std::to_string(*n) : std::string("?")) + "], but the emitter needs " +
                   std::to_string(elements) + " " + ir::dtypeName(dtype) + " elements per thread",
               "allocate it with T.alloc_local((" + std::to_string(elements) + ",), " + ir::dtypeName(dtype) +
                   ")");
        return std::nullopt;
    }
    ir::Region whole{op->buffer, {}, {}, op->range};
    for (size_t d = 0; d < b->rank(); ++d) {
        whole.mins.push_back(ir::makeInt(0, ir::DType::Int32, range));
        whole.extents.push_back(b->shape[d]);
    }
    return whole;
}

// A shared tile of `dtype` whose last two dims hold at least rows x cols (leading dims sliced to 1).
std::optional<ir::Region> sharedOperand(MethodContext& m, const Value& v, SourceRange range, const char* role,
                                        ir::DType dtype, int64_t rows, int64_t cols,
                                        const std::string& layout) {
    auto op = resolveOperand(m.in, v, range, role, false);
    if (!op)
        return std::nullopt;
    const ir::Buffer* b = op->buffer;
    const size_t rank = op->extents.size();
    bool ok = b->scope == ir::MemoryScope::Shared && b->dtype == dtype && rank >= 2;
    for (size_t d = 0; ok && d + 2 < rank; ++d)
        ok = isUnit(op->extents[d]);
    if (ok) {
        auto r = ir::constantInt(op->extents[rank - 2]), c = ir::constantInt(op->extents[rank - 1]);
        ok = r && c && *r >= rows && *c >= cols;
    }
    if (!ok) {
        m.fail("mma-emitter-operand", range,
               std::string(role) + " of " + m.method + " is " + ir::scopeName(b->scope) + " " +
                   ir::dtypeName(b->dtype) + shapeText(op->extents) + ", but the emitter reads a shared " +
                   ir::dtypeName(dtype) + " tile of at least [" + std::to_string(rows) + ", " +
                   std::to_string(cols) + "] (" + layout + ")",
               "allocate it with T.alloc_shared((" + std::to_string(rows) + ", " + std::to_string(cols) +
                   "), " + ir::dtypeName(dtype) + "), or slice one stage of a larger buffer");
        return std::nullopt;
    }
    return op->region();
}

std::shared_ptr<ir::Stmt> intrinsicStmt(MethodContext& m, ir::MmaIntrinsicOp op) {
    auto s = ir::makeStmt(ir::StmtKind::MmaIntrinsic, m.call.range);
    s->mmaOp = op;
    s->mmaEmitter = m.emitter;
    return s;
}

Value ldmatrix(MethodContext& m, bool operandA) {
    BoundArgs b;
    if (!m.in.bind(operandA ? "ldmatrix_a(A_local_buf, A_shared_buf, ki, rk=0)"
                            : "ldmatrix_b(B_local_buf, B_shared_buf, ki, rk=0)",
                   m.call.args, b))
        return Value::poison();
    const ir::MmaEmitter& e = m.emitter;
    if (b.given[3] && m.in.constInt(b[3], b.at(3), "rk", false).value_or(-1) != 0)
        return m.fail("mma-emitter-unsupported", b.at(3),
                      m.method + " with rk (split-K over reduce_k) is not supported", kSupportedEmitter);
    const ir::DType dtype = operandA ? e.aDtype : e.bDtype;
    const int64_t tiles = operandA ? e.warpRows() * e.localSizeA() : e.warpCols() * e.localSizeB();
    auto local = localOperand(m, b[0], b.at(0), operandA ? "A_local_buf" : "B_local_buf", dtype, tiles);
    const int64_t extent = operandA ? e.blockM() : e.blockN();
    const bool kMajor = operandA ? !e.aTransposed : e.bTransposed;
    const std::string layout =
        operandA ? (kMajor ? "[M, K] with a_transposed=False" : "[K, M] with a_transposed=True")
                 : (kMajor ? "[N, K] with b_transposed=True" : "[K, N] with b_transposed=False");
    auto shared = sharedOperand(m, b[1], b.at(1), operandA ? "A_shared_buf" : "B_shared_buf", dtype,
                                kMajor ? extent : e.chunk, kMajor ? e.chunk : extent, layout);
    ir::ExprPtr ki = m.in.toExpr(b[2], b.at(2), "ki");
    if (!local || !shared || !ki)
        return Value::poison();
    auto s = intrinsicStmt(m, operandA ? ir::MmaIntrinsicOp::LdmatrixA : ir::MmaIntrinsicOp::LdmatrixB);
    s->src = *shared;
    s->dst = *local;
    s->value = asInt32(ki);
    m.in.emit(s);
    return Value::none();
}

Value mma(MethodContext& m) {
    BoundArgs b;
    if (!m.in.bind("mma(A_local_buf, B_local_buf, C_local_buf, k_inner=0)", m.call.args, b))
        return Value::poison();
    const ir::MmaEmitter& e = m.emitter;
    auto a = localOperand(m, b[0], b.at(0), "A_local_buf", e.aDtype, e.warpRows() * e.localSizeA());
    auto bb = localOperand(m, b[1], b.at(1), "B_local_buf", e.bDtype, e.warpCols() * e.localSizeB());
    auto c = localOperand(m, b[2], b.at(2), "C_local_buf", e.accumDtype,
                          e.warpRows() * e.warpCols() * e.localSizeC());
    if (!a || !bb || !c)
        return Value::poison();
    // k_inner offsets fragment operands only; on local arrays TileLang ignores it.
    auto s = intrinsicStmt(m, ir::MmaIntrinsicOp::Mma);
    s->a = *a;
    s->b = *bb;
    s->c = *c;
    m.in.emit(s);
    return Value::none();
}

Value stmatrix(MethodContext& m) {
    BoundArgs b;
    if (!m.in.bind("stmatrix(C_local_buf, C_buf, pid_m=None, pid_n=None)", m.call.args, b))
        return Value::poison();
    const ir::MmaEmitter& e = m.emitter;
    if ((b.given[2] && b[2].kind != ValueKind::None) || (b.given[3] && b[3].kind != ValueKind::None))
        return m.fail(
            "mma-emitter-unsupported", b.at(b.given[2] ? 2 : 3),
            m.method + " into global memory (pid_m, pid_n) is not supported",
            "store into a shared [M, N] or [M/16, N/16, 16, 16] buffer and copy that to global memory");
    auto c = localOperand(m, b[0], b.at(0), "C_local_buf", e.accumDtype,
                          e.warpRows() * e.warpCols() * e.localSizeC());
    auto op = resolveOperand(m.in, b[1], b.at(1), "C_buf", false);
    if (!c || !op)
        return Value::poison();
    const ir::Buffer* buf = op->buffer;
    const int64_t M = e.blockM(), N = e.blockN();
    auto shape = buf->rank() == 2 || buf->rank() == 4 ? ir::constantShape(*buf) : std::nullopt;
    bool ok = buf->scope == ir::MemoryScope::Shared && shape && op->mins.size() == buf->rank();
    for (size_t d = 0; ok && d < op->mins.size(); ++d)
        ok = ir::constantInt(op->mins[d]) == 0 && ir::constantInt(op->extents[d]) == (*shape)[d];
    if (ok && shape->size() == 2)
        ok = (*shape)[0] >= M && (*shape)[1] >= N;
    if (ok && shape->size() == 4)
        ok = (*shape)[0] >= M / 16 && (*shape)[1] >= N / 16 && (*shape)[2] == 16 && (*shape)[3] == 16;
    if (!ok)
        return m.fail("mma-emitter-operand", b.at(1),
                      "C_buf '" + buf->name + "' of " + m.method + " is " + ir::scopeName(buf->scope) + " " +
                          shapeText(op->extents) +
                          ", but stmatrix stores the block's C tile into a whole shared [" +
                          std::to_string(M) + ", " + std::to_string(N) + "] or [" + std::to_string(M / 16) +
                          ", " + std::to_string(N / 16) + ", 16, 16] buffer",
                      "allocate C_buf with T.alloc_shared((" + std::to_string(M / 16) + ", " +
                          std::to_string(N / 16) + ", 16, 16), dtype)");
    auto s = intrinsicStmt(m, ir::MmaIntrinsicOp::Stmatrix);
    s->src = *c;
    s->dst = op->region();
    m.in.emit(s);
    return Value::none();
}

Value emitterMethod(Interpreter& in, PrimitiveCall& call) {
    if (!call.self || call.self->kind != ValueKind::Object)
        return Value::opaque(call.name + "(...)");
    const std::string& op = call.op;
    MethodContext m{in, call, configOf(*call.self->object), "TensorCoreIntrinEmitter." + op};
    if (op == "ldmatrix_a" || op == "ldmatrix_b" || op == "mma" || op == "stmatrix") {
        if (!in.requireKernel(m.method, call.range))
            return Value::poison();
        if (std::string what = unsupportedConfig(m.emitter); !what.empty())
            return in.error("mma-emitter-unsupported", call.range,
                            "TensorCoreIntrinEmitter with " + what + " is not supported", kSupportedEmitter);
    }
    if (op == "ldmatrix_a" || op == "ldmatrix_b")
        return ldmatrix(m, op == "ldmatrix_a");
    if (op == "mma")
        return mma(m);
    if (op == "stmatrix")
        return stmatrix(m);
    return in.error("mma-emitter-unsupported", call.range,
                    "TensorCoreIntrinEmitter." + op + " is not supported",
                    "TileBench models the emitter's ldmatrix_a, ldmatrix_b, mma and stmatrix");
}

} // namespace

std::span<const PrimitiveRow> intrinsicsModule() {
    static const PrimitiveRow rows[] = {
        {"tilelang.intrinsics.get_swizzle_layout", getSwizzleLayout},
        {"tilelang.intrinsics.TensorCoreIntrinEmitter", emitterConstructor},
        {"TensorCoreIntrinEmitter.", emitterMethod},
    };
    return rows;
}

} // namespace tb::elab
