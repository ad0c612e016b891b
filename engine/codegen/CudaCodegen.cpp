// generateCuda: one translation unit per PrimFunc (the device header, then one kernel per Kernel statement),
// the line map, and the host-side evaluation of launch expressions. See CudaCodegen.h.
#include "engine/codegen/CudaCodegen.h"

#include "engine/codegen/DeviceHeader.h"
#include "engine/codegen/HopperDeviceHeader.h"
#include "engine/codegen/KernelEmitter.h"
#include "engine/ir/IntEvaluation.h"
#include "engine/ir/IrQueries.h"
#include "engine/ir/Visitor.h"

#include <algorithm>
#include <set>
#include <utility>
#include <vector>

namespace tb::codegen {

void LineMap::add(int generatedLine, SourceRange range, int sourceLine) {
    m_entries.push_back({generatedLine, range, sourceLine});
}

std::optional<SourceRange> LineMap::rangeOf(int generatedLine) const {
    auto it = std::lower_bound(m_entries.begin(), m_entries.end(), generatedLine,
                               [](const LineMapEntry& e, int line) { return e.generatedLine < line; });
    if (it == m_entries.end() || it->generatedLine != generatedLine)
        return std::nullopt;
    return it->range;
}

int LineMap::sourceLineOf(int generatedLine) const {
    auto it = std::lower_bound(m_entries.begin(), m_entries.end(), generatedLine,
                               [](const LineMapEntry& e, int line) { return e.generatedLine < line; });
    return it == m_entries.end() || it->generatedLine != generatedLine ? 0 : it->sourceLine;
}

std::vector<int> LineMap::generatedLinesOf(int sourceLine) const {
    std::vector<int> lines;
    for (const auto& e : m_entries)
        if (e.sourceLine == sourceLine && sourceLine > 0)
            lines.push_back(e.generatedLine);
    return lines;
}

std::vector<int> LineMap::generatedLinesOverlapping(FileId file, uint32_t begin, uint32_t end) const {
    std::vector<int> lines;
    for (const auto& e : m_entries)
        if (e.range.valid && e.range.file == file && e.range.begin < end &&
            begin < std::max(e.range.end, e.range.begin + 1))
            lines.push_back(e.generatedLine);
    return lines;
}

Target portableTarget(const Target& device) {
    Target t = device;
    t.hasWgmma = false;
    t.hasTma = false;
    return t;
}

namespace {

// Whether a function's kernels issue T.ptx_cp_async or T.cp_async_barrier_noinc (the cp.async part of the
// device header).
bool usesProgramCpAsync(const ir::Module& module, const ir::PrimFunc& func) {
    bool found = false;
    for (const ir::KernelRef& k : ir::kernelsOf(module))
        if (k.func == &func)
            ir::walkStmts(*k.kernel, [&](const ir::Stmt& s, const std::vector<const ir::Stmt*>&) {
                found = found || s.kind == ir::StmtKind::CpAsync ||
                        (s.kind == ir::StmtKind::Barrier && s.barrierOp == ir::BarrierOp::CpAsyncArrive);
            });
    return found;
}

// Whether a function's tensors, allocations or casts use a float8 type (its kernels then need the float8
// part of the device header).
bool usesFloat8(const ir::Module& module, const ir::PrimFunc& func) {
    for (const std::vector<const ir::Buffer*>* tensors : {&func.params, &func.workspaces})
        for (const ir::Buffer* b : *tensors)
            if (ir::isFloat8(b->dtype))
                return true;
    bool found = false;
    for (const ir::KernelRef& k : ir::kernelsOf(module)) {
        if (k.func != &func)
            continue;
        for (const ir::Buffer* b : k.kernel->allocations)
            found = found || (b && ir::isFloat8(b->dtype));
        ir::walkStmts(*k.kernel, [&](const ir::Stmt& s, const std::vector<const ir::Stmt*>&) {
            ir::forEachStmtExpr(s, [&](const ir::ExprPtr& e) {
                ir::forEachExprNode(e, [&](const ir::Expr& n) { found = found || ir::isFloat8(n.dtype); });
            });
        });
    }
    return found;
}

// The (A, B) dtype pairs of the float8 gemms that `func`'s kernels issue as mma.sync, each once, in a fixed
// order: their helpers join the header.
std::set<std::pair<ir::DType, ir::DType>> float8MmaPairs(const layout::LayoutPlan& plan,
                                                         const ir::PrimFunc& func) {
    std::set<std::pair<ir::DType, ir::DType>> pairs;
    for (const layout::KernelPlan& k : plan.kernels) {
        if (k.func != &func)
            continue;
        for (const layout::GemmPlan& g : k.gemms)
            if (g.instruction.kind == layout::GemmInstructionKind::MmaSync && g.gemm->a.buffer &&
                g.gemm->b.buffer && ir::isFloat8(g.gemm->a.buffer->dtype) &&
                ir::isFloat8(g.gemm->b.buffer->dtype))
                pairs.emplace(g.gemm->a.buffer->dtype, g.gemm->b.buffer->dtype);
    }
    return pairs;
}

} // namespace

std::optional<int64_t> evaluateLaunchExpr(const ir::ExprPtr& expr,
                                          const std::map<std::string, int64_t>& dims) {
    return ir::evaluateInt(expr, [&](const ir::Var& v) -> std::optional<int64_t> {
        auto it = dims.find(v.name);
        return it == dims.end() ? std::nullopt : std::optional<int64_t>(it->second);
    });
}

CudaKernelSource generateCuda(const ir::Module& module, const layout::LayoutPlan& plan, const Target& target,
                              DiagnosticEngine& diagnostics, const SourceManager* sources) {
    CudaKernelSource result;
    result.ok = true;
    for (const ir::PrimFunc& func : module.funcs) {
        GeneratedUnit unit;
        unit.func = &func;
        std::vector<EmittedLine> lines;
        std::string header = cudaDeviceHeader();
        // The hopper part of the header, with one wrapper per wgmma shape, only where a kernel needs it: the
        // portable backend's text is unchanged.
        HopperHeaderNeeds needs;
        bool hopper = false;
        for (const layout::KernelPlan& k : plan.kernels) {
            if (k.func != &func)
                continue;
            std::vector<WgmmaShape> shapes = target.hasWgmma ? wgmmaShapesOf(k) : std::vector<WgmmaShape>{};
            needs.wgmma.insert(needs.wgmma.end(), shapes.begin(), shapes.end());
            bool barriers = false;
            for (const ir::Buffer* b : k.kernel->allocations)
                barriers = barriers || (b && b->scope == ir::MemoryScope::Barrier);
            // The program's own T.ws scopes and mbarriers use the named-barrier and mbarrier helpers.
            hopper = hopper || !shapes.empty() || k.schedule.warpSpecialization.enabled ||
                     (target.smVersion >= 90 && (barriers || !k.warpGroupOf.empty()));
        }
        if (hopper)
            header += hopperDeviceHeader(needs);
        if (usesFloat8(module, func))
            header += cudaFloat8Header();
        bool gridSync = false;
        for (const ir::KernelRef& k : ir::kernelsOf(module))
            gridSync = gridSync || (k.func == &func && ir::containsGridSync(*k.kernel));
        if (gridSync)
            header += cudaGridSyncHeader();
        for (const auto& [a, b] : float8MmaPairs(plan, func))
            header += float8MmaDefinition(a, b) + "\n";
        if (usesProgramCpAsync(module, func))
            header += cudaCpAsyncHeader();
        lines.push_back({"// Generated by TileBench from " + module.sourceName + " (" + func.name +
                             ", target " + plan.target.name + " plan, " +
                             (hopper ? "hopper wgmma/TMA path" : "portable mma.sync path") +
                             "). Do not edit.",
                         {}});
        if (func.fastMath) {
            unit.nvrtcOptions.push_back("--use_fast_math");
            lines.push_back(
                {"// Compiled with --use_fast_math: the program sets pass_configs tl.enable_fast_math.", {}});
        }
        size_t start = 0;
        while (start < header.size()) {
            size_t nl = header.find('\n', start);
            if (nl == std::string::npos)
                nl = header.size();
            lines.push_back({header.substr(start, nl - start), {}});
            start = nl + 1;
        }
        std::vector<ir::KernelRef> kernels;
        for (const auto& k : ir::kernelsOf(module))
            if (k.func == &func)
                kernels.push_back(k);
        for (size_t i = 0; i < kernels.size(); ++i) {
            const layout::KernelPlan* kp = nullptr;
            for (const auto& p : plan.kernels)
                if (p.kernel == kernels[i].kernel)
                    kp = &p;
            std::string name = func.name + (kernels.size() > 1 ? "_kernel" + std::to_string(i) : "_kernel");
            GeneratedKernel gk;
            gk.firstLine = int(lines.size()) + 1;
            KernelEmitter emitter(module, func, *kernels[i].kernel, kp, target, diagnostics, sources, name);
            if (!emitter.emit(lines, gk))
                result.ok = false;
            gk.lastLine = int(lines.size());
            lines.push_back({"", {}});
            unit.kernels.push_back(std::move(gk));
        }
        for (size_t n = 0; n < lines.size(); ++n) {
            unit.source += lines[n].text;
            unit.source += '\n';
            const SourceRange& r = lines[n].range;
            if (r.valid) {
                int sourceLine = 0;
                if (sources && r.file < sources->fileCount())
                    sourceLine = int(sources->file(r.file).lineCol(r.begin).line);
                unit.lineMap.add(int(n) + 1, r, sourceLine);
            }
        }
        result.units.push_back(std::move(unit));
    }
    return result;
}

} // namespace tb::codegen
