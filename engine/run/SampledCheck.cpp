// The sampled oracle (see SampledCheck.h).
#include "engine/run/SampledCheck.h"

#include "engine/codegen/CudaCodegen.h"
#include "engine/ir/IrQueries.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <set>

namespace tb::run {

namespace {

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
        std::optional<int64_t> v = codegen::evaluateLaunchExpr(extent, dims);
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
    else if (ir::containsGridSync(*kernels[0].kernel))
        out.whyNot = "its blocks wait for each other at a grid barrier (T.sync_grid): each depends on what "
                     "the others wrote before it";
    else if (hasAtomics(*kernels[0].kernel))
        out.whyNot = "its blocks combine results through atomic adds";
    else {
        std::set<const ir::Buffer*> reads, writes;
        ir::bufferEffects(*kernels[0].kernel, ir::MemoryScope::Global, reads, writes);
        const std::vector<bool> produced = ir::producedParams(func);
        for (size_t i = 0; i < func.params.size() && out.whyNot.empty(); ++i)
            if (produced[i] && reads.count(func.params[i]))
                out.whyNot = "it reads its output '" + func.params[i]->name + "'";
    }
    if (out.whyNot.empty())
        out.blocks = want;
    return out;
}

int sentinelRuns(const std::vector<HostTensor>& params, const std::vector<bool>& compared) {
    for (size_t i = 0; i < params.size() && i < compared.size(); ++i)
        if (compared[i] && !ir::isFloat(params[i].dtype))
            return 2;
    return 1;
}

namespace {

double sentinel(ir::DType dtype, int run) {
    return ir::isFloat(dtype) ? std::numeric_limits<double>::quiet_NaN() : run;
}

bool holdsSentinel(double value, ir::DType dtype, int run) {
    return ir::isFloat(dtype) ? std::isnan(value) : value == sentinel(dtype, run);
}

} // namespace

void fillSentinels(std::vector<HostTensor>& params, const std::vector<bool>& compared, int run) {
    for (size_t i = 0; i < params.size() && i < compared.size(); ++i)
        if (compared[i])
            params[i].data.assign(params[i].data.size(), sentinel(params[i].dtype, run));
}

std::vector<bool> writtenElements(const std::vector<const HostTensor*>& runs) {
    if (runs.empty())
        return {};
    const ir::DType dtype = runs.front()->dtype;
    std::vector<bool> written(runs.front()->data.size(), false);
    for (size_t e = 0; e < written.size(); ++e)
        for (size_t run = 0; run < runs.size() && !written[e]; ++run)
            written[e] = !holdsSentinel(runs[run]->data[e], dtype, int(run));
    return written;
}

int64_t maskUnsampled(HostTensor& gpu, const HostTensor& expected, const std::vector<bool>& written) {
    int64_t checked = 0;
    for (size_t e = 0; e < gpu.data.size() && e < expected.data.size() && e < written.size(); ++e) {
        if (written[e])
            ++checked;
        else
            gpu.data[e] = expected.data[e];
    }
    return checked;
}

} // namespace tb::run
