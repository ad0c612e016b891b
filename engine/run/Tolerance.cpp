// Output tolerances of the GPU check; see Tolerance.h.
#include "engine/run/Tolerance.h"

#include "engine/ir/Visitor.h"

#include <algorithm>
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

// The buffers into which a statement tree rounds computed values, in first-seen order.
class RoundingDestinations : public ir::StmtVisitor {
public:
    std::vector<const ir::Buffer*> buffers;

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
        for (const ir::Buffer* seen : buffers)
            if (seen == b)
                return;
        buffers.push_back(b);
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
    for (const ir::Buffer* b : walk.buffers) {
        double atol = 0, rtol = 0;
        toleranceFor(b->dtype, atol, rtol);
        if (atol > t.atol || rtol > t.rtol) {
            t.atol = std::max(t.atol, atol);
            t.rtol = std::max(t.rtol, rtol);
            t.setBy = b->name + " (" + ir::dtypeName(b->dtype) + ")";
        }
    }
    return t;
}

} // namespace tb::run
