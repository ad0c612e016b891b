// The sampled oracle (see SampledCheck.h).
#include "engine/run/SampledCheck.h"

#include "engine/ir/IntEvaluation.h"
#include "engine/ir/IrQueries.h"
#include "engine/ir/Visitor.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>

namespace tb::run {

namespace {

// Whether any statement of `kernel` reads buffer `b` (loads in expressions, copy, gemm and reduce sources).
bool reads(const ir::Stmt& kernel, const ir::Buffer* b) {
    bool found = false;
    ir::walkStmts(kernel, [&](const ir::Stmt& s, const std::vector<const ir::Stmt*>&) {
        ir::forEachStmtExpr(s, [&](const ir::ExprPtr& e) {
            ir::forEachExprNode(e, [&](const ir::Expr& n) {
                found = found || (n.kind == ir::ExprKind::BufferLoad && n.buffer == b);
            });
        });
        found = found || (s.kind == ir::StmtKind::Copy && s.src.buffer == b) ||
                (s.kind == ir::StmtKind::AtomicAdd && s.src.buffer == b) ||
                (s.kind == ir::StmtKind::Gemm && (s.a.buffer == b || s.b.buffer == b)) ||
                (s.kind == ir::StmtKind::Reduce && s.srcBuffer == b);
    });
    return found;
}

bool hasAtomics(const ir::Stmt& kernel) {
    bool found = false;
    ir::walkStmts(kernel, [&](const ir::Stmt& s, const std::vector<const ir::Stmt*>&) {
        found = found || s.kind == ir::StmtKind::AtomicAdd;
    });
    return found;
}

} // namespace

OracleSample chooseOracleSample(const ir::Module& module, const ir::PrimFunc& func,
                                const std::map<std::string, int64_t>& dims, int64_t requested) {
    OracleSample out;
    std::vector<ir::KernelRef> kernels;
    for (const ir::KernelRef& k : ir::kernelsOf(module))
        if (k.func == &func)
            kernels.push_back(k);
    if (kernels.empty())
        return out;
    out.gridBlocks = 1;
    for (const ir::ExprPtr& extent : kernels[0].kernel->grid) {
        std::optional<int64_t> v = ir::evaluateInt(extent, [&](const ir::Var& var) -> std::optional<int64_t> {
            auto it = dims.find(var.name);
            return it == dims.end() ? std::nullopt : std::optional<int64_t>(it->second);
        });
        if (!v)
            return out;
        out.gridBlocks *= std::max<int64_t>(*v, 0);
    }
    const int64_t want =
        requested < 0 ? (out.gridBlocks > kAutoSampleAboveBlocks ? kAutoSampledBlocks : 0) : requested;
    if (want <= 0 || want >= out.gridBlocks)
        return out;
    if (kernels.size() > 1)
        out.whyNot = "the program has " + std::to_string(kernels.size()) +
                     " kernels (a later one reads what an earlier one wrote)";
    else if (hasAtomics(*kernels[0].kernel))
        out.whyNot = "its blocks combine results through atomic adds";
    else {
        const std::vector<bool> produced = ir::producedParams(func);
        for (size_t i = 0; i < func.params.size() && out.whyNot.empty(); ++i)
            if (produced[i] && reads(*kernels[0].kernel, func.params[i]))
                out.whyNot = "it reads its output '" + func.params[i]->name + "'";
    }
    if (out.whyNot.empty())
        out.blocks = want;
    return out;
}

void markOutputsUnwritten(std::vector<HostTensor>& expected, const std::vector<bool>& compared) {
    for (size_t i = 0; i < expected.size() && i < compared.size(); ++i)
        if (compared[i])
            std::fill(expected[i].data.begin(), expected[i].data.end(),
                      std::numeric_limits<double>::quiet_NaN());
}

int64_t maskUnsampled(HostTensor& gpu, const HostTensor& expected) {
    int64_t checked = 0;
    for (size_t e = 0; e < gpu.data.size() && e < expected.data.size(); ++e) {
        if (std::isnan(expected.data[e]))
            gpu.data[e] = std::numeric_limits<double>::quiet_NaN();
        else
            ++checked;
    }
    return checked;
}

} // namespace tb::run
