// Output tolerances of the GPU check; see Tolerance.h.
#include "engine/run/Tolerance.h"

#include "engine/ir/Visitor.h"

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

namespace tb::run {

void toleranceFor(ir::DType type, double& atol, double& rtol) {
    switch (type) {
    case ir::DType::Float16:
        atol = rtol = 1e-2;
        return;
    case ir::DType::BFloat16:
        atol = rtol = 3e-2;
        return;
    case ir::DType::Float8E4M3:
    case ir::DType::Float8E5M2:
        atol = rtol = 1.25e-1;
        return;
    case ir::DType::Float32:
        atol = 1e-4;
        rtol = 1e-3;
        return;
    case ir::DType::Float64:
        atol = 1e-9;
        rtol = 1e-9;
        return;
    case ir::DType::Bool:
    case ir::DType::Int8:
    case ir::DType::Int16:
    case ir::DType::Int32:
    case ir::DType::Int64:
    case ir::DType::UInt8:
    case ir::DType::UInt16:
    case ir::DType::UInt32:
    case ir::DType::UInt64:
        atol = rtol = 0;
        return;
    }
}

namespace {

// float8 tensor cores (mma.sync m16n8k32, wgmma k32) do not accumulate in IEEE float32: the accumulator keeps
// about 13 mantissa bits between instructions (SageAttention2 measures "FP22", e8m13; DeepSeek-V3 §3.3.2
// about 14 bits), which is why TileLang's gemm_fp8 example promotes to a second accumulator every 128 of K.
// Modelled as a truncation to 13 bits after every k32 instruction, TileLang's example (K = 8192, inputs of
// allocateParams) is off the CPU's float32 sums by up to 0.009 and fails float32's 1e-4/1e-3 on ~4% of its
// elements, and none of 300 sampled at 3e-2/3e-2, bfloat16's tolerance, which still sees any misplaced
// or missing product (those are of the order of the products themselves).
constexpr double kFloat8AccumulatorTolerance = 3e-2;

// The buffers into which a statement tree rounds computed values, in first-seen order, with the tolerance
// each asks for.
class RoundingDestinations : public ir::StmtVisitor {
public:
    struct Destination {
        const ir::Buffer* buffer;
        double atol, rtol;
        std::string why; // "C_f (bfloat16)"
    };
    std::vector<Destination> buffers;

protected:
    void visitStmt(const ir::Stmt& s) override {
        switch (s.kind) {
        case ir::StmtKind::Store:
            add(s.buffer);
            break;
        case ir::StmtKind::Reduce:
            add(s.dstBuffer);
            break;
        case ir::StmtKind::Gemm:
            if (s.a.buffer && s.b.buffer && ir::isFloat8(s.a.buffer->dtype) &&
                ir::isFloat8(s.b.buffer->dtype))
                addFloat8Accumulator(s.c.buffer);
            else
                add(s.c.buffer);
            break;
        case ir::StmtKind::MmaIntrinsic: // mma rounds into C, stmatrix into the shared tile
            if (s.mmaOp == ir::MmaIntrinsicOp::Mma)
                add(s.c.buffer);
            else if (s.mmaOp == ir::MmaIntrinsicOp::Stmatrix)
                add(s.dst.buffer);
            break;
        case ir::StmtKind::AtomicAdd:
            add(s.dst.buffer);
            break;
        case ir::StmtKind::Copy:
            if (s.src.buffer && s.dst.buffer && s.src.buffer->dtype != s.dst.buffer->dtype)
                add(s.dst.buffer);
            break;
        default:
            break;
        }
        visitChildren(s);
    }

private:
    void add(const ir::Buffer* b) {
        if (!b || !ir::isFloat(b->dtype))
            return;
        double atol = 0, rtol = 0;
        toleranceFor(b->dtype, atol, rtol);
        addWith(b, atol, rtol, b->name + " (" + ir::dtypeName(b->dtype) + ")");
    }
    void addFloat8Accumulator(const ir::Buffer* b) {
        if (!b || !ir::isFloat(b->dtype))
            return;
        double atol = 0, rtol = 0;
        toleranceFor(b->dtype, atol, rtol);
        addWith(b, std::max(atol, kFloat8AccumulatorTolerance), std::max(rtol, kFloat8AccumulatorTolerance),
                b->name + " (" + ir::dtypeName(b->dtype) + " accumulator of float8 tensor cores)");
    }
    void addWith(const ir::Buffer* b, double atol, double rtol, std::string why) {
        for (Destination& seen : buffers)
            if (seen.buffer == b) {
                if (atol > seen.atol || rtol > seen.rtol)
                    seen = {b, std::max(atol, seen.atol), std::max(rtol, seen.rtol), std::move(why)};
                return;
            }
        buffers.push_back({b, atol, rtol, std::move(why)});
    }
};

} // namespace

OutputTolerance outputTolerance(const ir::PrimFunc& func, const ir::Buffer& output) {
    OutputTolerance t;
    toleranceFor(output.dtype, t.atol, t.rtol);
    t.setBy = output.name + " (" + ir::dtypeName(output.dtype) + ")";
    if (!ir::isFloat(output.dtype))
        return t; // integers are exact whatever floats the kernel rounds on the way
    RoundingDestinations walk;
    walk.visit(func.body);
    for (const RoundingDestinations::Destination& d : walk.buffers) {
        if (d.atol > t.atol || d.rtol > t.rtol) {
            t.atol = std::max(t.atol, d.atol);
            t.rtol = std::max(t.rtol, d.rtol);
            t.setBy = d.why;
        }
    }
    return t;
}

} // namespace tb::run
