// T.im2col (and its deprecated alias T.c2d_im2col): one tile of the im2col matrix of a 2-D convolution, read
// from an NHWC image into a shared tile, elaborated to the loop it means (a T.Parallel over the tile reading
// the image with bounds checks), so that every layer below sees an ordinary loop.
//
// The semantics are TileLang 0.1.15's (src/cuda/op/copy.cc, Im2Col::Lower, a TMA im2col load on Hopper).
// For img [N, H, W, C], kernel K, stride S, dilation D, pad P, the output is OH x OW with
// OH = (H + 2P - D(K-1) - 1) // S + 1 (OW alike), and the im2col matrix is (N * OH * OW) x (K * K * C):
//   row m    = (n * OH + oh) * OW + ow                   (the output pixel, ow fastest)
//   column k = (kh * K + kw) * C + c                     (the filter tap, channels fastest)
//   value    = img[n, oh * S - P + kh * D, ow * S - P + kw * D, c], 0 where that pixel is outside the image
// col is the tile [nhw_step * BM : +BM, c_step * BK : +BK] of that matrix, BM x BK its last two extents.
// TileLang requires C to be a multiple of BK, so one tile's columns share one filter tap (kh, kw) and run
// over consecutive channels: the tile's global reads are contiguous along C, as the TMA box is.
#include "engine/elaborate/Primitives.h"
#include "engine/elaborate/TileOperands.h"

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

namespace tb::elab {

namespace {

using ir::BinaryOp;

// The integer arguments of the call: filter size, stride, dilation, padding.
struct ConvolutionGeometry {
    int64_t kernel = 1, stride = 1, dilation = 1, pad = 0;
};

std::optional<ConvolutionGeometry> readGeometry(Interpreter& in, const BoundArgs& b) {
    static const char* const names[] = {"kernel", "stride", "dilation", "pad"};
    int64_t values[4] = {};
    for (size_t k = 0; k < 4; ++k) {
        auto v = in.constInt(b[4 + k], b.at(4 + k), names[k]);
        if (!v)
            return std::nullopt;
        const int64_t least = k == 3 ? 0 : 1;
        if (*v < least) {
            in.error("invalid-argument", b.at(4 + k),
                     std::string("T.im2col's ") + names[k] + " is " + std::to_string(*v) + "; it must be " +
                         (least ? "at least 1" : "0 or more"),
                     "pass the convolution's filter size, stride, dilation and padding");
            return std::nullopt;
        }
        values[k] = *v;
    }
    return ConvolutionGeometry{values[0], values[1], values[2], values[3]};
}

// The image: a whole global NHWC buffer.
const ir::Buffer* imageOperand(Interpreter& in, const Value& v, SourceRange range) {
    if (v.isPoison())
        return nullptr;
    if (v.kind != ValueKind::Buffer || v.buffer->scope != ir::MemoryScope::Global || v.buffer->rank() != 4) {
        in.error("invalid-argument", range,
                 "T.im2col reads a whole global image of 4 dimensions (N, H, W, C), not " +
                     (v.kind == ValueKind::Buffer ? std::string(ir::scopeName(v.buffer->scope)) + " '" +
                                                        v.buffer->name + "' " + shapeText(v.buffer->shape)
                                                  : typeName(v)),
                 "pass the NHWC input tensor itself");
        return nullptr;
    }
    return v.buffer;
}

// The destination: a shared tile (or a region of one) whose last two extents are constants, the others 1.
std::optional<Operand> columnOperand(Interpreter& in, const Value& v, SourceRange range,
                                     const ir::Buffer* img) {
    auto col = resolveOperand(in, v, range, "the destination of T.im2col", false);
    if (!col)
        return std::nullopt;
    const size_t rank = col->extents.size();
    bool shaped =
        rank >= 2 && ir::constantInt(col->extents[rank - 2]) && ir::constantInt(col->extents[rank - 1]);
    for (size_t d = 0; shaped && d + 2 < rank; ++d)
        shaped = isUnit(col->extents[d]);
    if (col->buffer->scope != ir::MemoryScope::Shared || !shaped) {
        in.error("invalid-argument", range,
                 "T.im2col writes a shared tile of constant shape (pixels, channels), not " +
                     std::string(ir::scopeName(col->buffer->scope)) + " '" + col->buffer->name + "' " +
                     shapeText(col->extents),
                 "allocate the destination with T.alloc_shared((block_M, block_K), dtype)");
        return std::nullopt;
    }
    if (col->buffer->dtype != img->dtype) {
        in.error("invalid-argument", range,
                 "T.im2col copies without a cast, but '" + img->name + "' is " + ir::dtypeName(img->dtype) +
                     " and '" + col->buffer->name + "' is " + ir::dtypeName(col->buffer->dtype),
                 "allocate the destination with the image's dtype");
        return std::nullopt;
    }
    if (!regionInBounds(in, *col, "the destination of T.im2col"))
        return std::nullopt;
    return col;
}

ir::ExprPtr index(Interpreter& in, const Value& v, SourceRange range, const char* what) {
    ir::ExprPtr e = in.toExpr(v, range, what);
    if (e && !ir::isInteger(e->dtype)) {
        in.error("type-error", range,
                 std::string(what) + " must be an integer, not " + ir::dtypeName(e->dtype));
        return nullptr;
    }
    return asInt32(e);
}

Value tileIm2col(Interpreter& in, PrimitiveCall& call) {
    BoundArgs b;
    const bool alias = call.op == "c2d_im2col";
    if (!in.bind(
            alias ? "T.c2d_im2col(img, col, nhw_step, c_step, kernel, stride, dilation, pad, "
                    "eviction_policy=None, annotations=None)"
                  : "T.im2col(img, col, nhw_step, c_step, kernel, stride, dilation, pad, annotations=None)",
            call.args, b) ||
        !in.requireKernel("T.im2col", call.range))
        return Value::poison();
    const ir::Buffer* img = imageOperand(in, b[0], b.at(0));
    if (!img)
        return Value::poison();
    auto col = columnOperand(in, b[1], b.at(1), img);
    ir::ExprPtr nhwStep = index(in, b[2], b.at(2), "nhw_step");
    ir::ExprPtr cStep = index(in, b[3], b.at(3), "c_step");
    auto g = readGeometry(in, b);
    if (!col || !nhwStep || !cStep || !g)
        return Value::poison();
    const SourceRange r = call.range;
    auto I = [&](int64_t v) { return ir::makeInt(v, ir::DType::Int32, r); };
    auto op = [&](BinaryOp o, ir::ExprPtr x, ir::ExprPtr y) {
        return ir::simplify(ir::makeBinary(o, asInt32(std::move(x)), asInt32(std::move(y)), r));
    };
    const size_t rank = col->extents.size();
    const int64_t tileRows = *ir::constantInt(col->extents[rank - 2]);
    const int64_t tileCols = *ir::constantInt(col->extents[rank - 1]);
    ir::ExprPtr n = img->shape[0], h = img->shape[1], w = img->shape[2], c = img->shape[3];
    // OH, OW as TileLang's lowering computes them (h_dim, w_dim).
    auto outputExtent = [&](const ir::ExprPtr& e) {
        return op(BinaryOp::Add,
                  op(BinaryOp::FloorDiv,
                     op(BinaryOp::Add, e, I(2 * g->pad - g->dilation * (g->kernel - 1) - 1)), I(g->stride)),
                  I(1));
    };
    ir::ExprPtr oh = outputExtent(h), ow = outputExtent(w);
    for (const ir::ExprPtr& e : {oh, ow})
        if (auto v = ir::constantInt(e); v && *v < 1)
            return in.error("invalid-argument", call.range,
                            "the convolution of '" + img->name + "' " + shapeText(img->shape) +
                                " has no output pixels with kernel " + std::to_string(g->kernel) +
                                ", stride " + std::to_string(g->stride) + ", dilation " +
                                std::to_string(g->dilation) + " and pad " + std::to_string(g->pad),
                            "the filter, dilated, must fit the padded image");
    if (auto channels = ir::constantInt(c); channels && *channels % tileCols != 0)
        return in.error(
            "invalid-argument", b.at(1),
            "T.im2col needs the channel count of '" + img->name + "' (" + std::to_string(*channels) +
                ") to be a multiple of the tile's " + std::to_string(tileCols) +
                " columns, so that a tile's columns share one filter tap (TileLang: \"Currently can "
                "only support divisible channel case\")",
            "choose block_K dividing the channel count");

    // Per tile: the first column's filter tap and channel. Per row i: the output pixel.
    const ir::Var* i = in.m_out.newVar(in.uniqueName("i"), ir::DType::Int32, ir::VarKind::LoopVar, r);
    const ir::Var* j = in.m_out.newVar(in.uniqueName("j"), ir::DType::Int32, ir::VarKind::LoopVar, r);
    ir::ExprPtr column = op(BinaryOp::Mul, cStep, I(tileCols));
    ir::ExprPtr channel = op(BinaryOp::Add, op(BinaryOp::FloorMod, column, c), ir::makeVarRef(j, r));
    ir::ExprPtr kw = op(BinaryOp::FloorMod, op(BinaryOp::FloorDiv, column, c), I(g->kernel));
    ir::ExprPtr kh = op(BinaryOp::FloorDiv, column, op(BinaryOp::Mul, c, I(g->kernel)));
    ir::ExprPtr pixel = op(BinaryOp::Add, op(BinaryOp::Mul, nhwStep, I(tileRows)), ir::makeVarRef(i, r));
    ir::ExprPtr batch = op(BinaryOp::FloorDiv, pixel, op(BinaryOp::Mul, oh, ow));
    ir::ExprPtr y =
        op(BinaryOp::Add,
           op(BinaryOp::Sub,
              op(BinaryOp::Mul, op(BinaryOp::FloorMod, op(BinaryOp::FloorDiv, pixel, ow), oh), I(g->stride)),
              I(g->pad)),
           op(BinaryOp::Mul, kh, I(g->dilation)));
    ir::ExprPtr x =
        op(BinaryOp::Add,
           op(BinaryOp::Sub, op(BinaryOp::Mul, op(BinaryOp::FloorMod, pixel, ow), I(g->stride)), I(g->pad)),
           op(BinaryOp::Mul, kw, I(g->dilation)));
    ir::ExprPtr inside = op(BinaryOp::Lt, batch, n);
    for (const auto& [coordinate, extent] : {std::pair{y, h}, std::pair{x, w}})
        inside = ir::makeBinary(BinaryOp::LogicalAnd, inside,
                                ir::makeBinary(BinaryOp::LogicalAnd, op(BinaryOp::Ge, coordinate, I(0)),
                                               op(BinaryOp::Lt, coordinate, extent), r),
                                r);
    ir::ExprPtr zero =
        ir::isFloat(img->dtype) ? ir::makeFloat(0.0, img->dtype, r) : ir::makeInt(0, img->dtype, r);
    std::vector<ir::ExprPtr> target;
    for (size_t d = 0; d < rank; ++d)
        target.push_back(d + 2 < rank
                             ? col->mins[d]
                             : op(BinaryOp::Add, col->mins[d], ir::makeVarRef(d + 2 == rank ? i : j, r)));
    auto store = ir::makeStmt(ir::StmtKind::Store, r);
    store->buffer = col->buffer;
    store->indices = target;
    store->value = ir::makeSelect(inside, ir::makeLoad(img, {batch, y, x, channel}, r), zero, r);
    ir::StmtPtr inner = store;
    for (const auto& [var, extent] : {std::pair{j, tileCols}, std::pair{i, tileRows}}) {
        auto loop = ir::makeStmt(ir::StmtKind::For, r);
        loop->loopVar = var;
        loop->min = I(0);
        loop->extent = I(extent);
        loop->loopKind = ir::LoopKind::Parallel;
        loop->body = ir::makeSeq({inner}, r);
        inner = loop;
    }
    in.emit(inner);
    return Value::none();
}

} // namespace

std::span<const PrimitiveRow> im2colPrimitives() {
    static const PrimitiveRow rows[] = {
        {"im2col", tileIm2col},
        {"c2d_im2col", tileIm2col},
    };
    return rows;
}

} // namespace tb::elab
