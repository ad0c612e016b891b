// Turns each GemmPlan's WarpGrid into owned rectangles, and finds accumulator exchanges through shared
// memory by following copies from a gemm's C fragment into a shared buffer that another gemm reads.
#include "views/model/WarpPartitionViewModel.h"

#include "views/model/SvgWriter.h"

#include <algorithm>
#include <functional>
#include <utility>

namespace tb::views {

namespace {

std::string regionName(const ir::Region& region) {
    return region.buffer ? region.buffer->name : "?";
}

// Every Copy statement of the kernel body, in program order.
void collectCopies(const ir::StmtPtr& stmt, std::vector<const ir::Stmt*>& out, int depth) {
    if (!stmt || depth > 200)
        return;
    if (stmt->kind == ir::StmtKind::Copy)
        out.push_back(stmt.get());
    for (const ir::StmtPtr& s : stmt->stmts)
        collectCopies(s, out, depth + 1);
    collectCopies(stmt->body, out, depth + 1);
    collectCopies(stmt->elseBody, out, depth + 1);
}

} // namespace

int64_t GemmPartition::warpAt(int64_t row, int64_t col) const {
    for (const WarpRect& r : warpRects)
        if (row >= r.m0 && row < r.m0 + r.m && col >= r.n0 && col < r.n0 + r.n)
            return r.warp;
    return -1;
}

std::string warpGroupScopeCaption(const ir::Stmt& scope) {
    return "  (T.ws: threads " + std::to_string(scope.firstThread) + ".." +
           std::to_string(scope.firstThread + scope.threadCount - 1) + ")";
}

WarpPartitionViewModel buildWarpPartitionView(const layout::KernelPlan& kernel,
                                              const SourceManager& sources) {
    WarpPartitionViewModel model;
    model.title = "warp partition of " + std::string(kernel.func ? kernel.func->name : "kernel") + " (" +
                  std::to_string(kernel.threads) + " threads)";
    for (const layout::GemmPlan& plan : kernel.gemms) {
        GemmPartition p;
        const layout::WarpGrid& g = plan.grid;
        const ir::Stmt* gemm = plan.gemm;
        p.line = gemm ? sources.lineOf(gemm->range) : 0;
        p.M = g.M;
        p.N = g.N;
        p.atomM = g.atomM;
        p.atomN = g.atomN;
        p.instruction = plan.instruction.name;
        p.grid = g.toString();
        p.policy = gemm ? ir::gemmWarpPolicyName(gemm->policy) : "";
        p.warps = g.mWarp * g.nWarp;
        if (gemm)
            p.title = "line " + std::to_string(p.line) + ": " + regionName(gemm->c) + "[" +
                      std::to_string(g.M) + ", " + std::to_string(g.N) + "] += " + regionName(gemm->a) +
                      " @ " + regionName(gemm->b);
        bool wgmma = g.instruction == layout::GemmInstructionKind::Wgmma;
        // Inside a T.ws scope the gemm runs on that scope's warps: label them as the block numbers them.
        int64_t firstWarp = 0;
        if (auto scope = kernel.warpGroupOf.find(gemm); gemm && scope != kernel.warpGroupOf.end()) {
            firstWarp = scope->second->firstThread / 32;
            p.title += warpGroupScopeCaption(*scope->second);
        }
        if (g.warpTileM <= 0 || g.warpTileN <= 0 || g.mWarp <= 0 || g.nWarp <= 0) {
            model.gemms.push_back(std::move(p));
            continue;
        }
        if (!wgmma) {
            for (int64_t n = 0; n < g.nWarp; ++n)
                for (int64_t m = 0; m < g.mWarp; ++m) {
                    int64_t warp = m + g.mWarp * n;
                    p.warpRects.push_back({m * g.warpTileM, n * g.warpTileN, g.warpTileM, g.warpTileN,
                                           firstWarp + warp, -1, categoricalColor(warp, p.warps)});
                }
        } else {
            p.warpgroups = g.warpgroupsM * g.warpgroupsN;
            // A warpgroup owns a warpTileM x warpTileN tile; inside each 64-row atom its warp w owns rows
            // [16w, 16w+16) (wgmma's accumulator layout), so warp id = 4*group + w along M.
            for (int64_t gn = 0; gn < g.warpgroupsN; ++gn)
                for (int64_t gm = 0; gm < g.warpgroupsM; ++gm) {
                    int64_t group = gm + g.warpgroupsM * gn;
                    int64_t m0 = gm * g.warpTileM, n0 = gn * g.warpTileN;
                    p.warpgroupRects.push_back({m0, n0, g.warpTileM, g.warpTileN, firstWarp + group * 4,
                                                firstWarp / 4 + group,
                                                categoricalColor(group, p.warpgroups)});
                    for (int64_t row = 0; row < g.warpTileM; row += 16) {
                        int64_t w = (row % 64) / 16;
                        int64_t warp = w + 4 * gm + g.mWarp * gn;
                        p.warpRects.push_back({m0 + row, n0, 16, g.warpTileN, firstWarp + warp,
                                               firstWarp / 4 + group, categoricalColor(warp, p.warps)});
                    }
                }
        }
        model.gemms.push_back(std::move(p));
    }

    // Exchanges: copy fragment F -> shared S where F is some gemm's C and S is some gemm's A or B.
    if (kernel.kernel) {
        std::vector<const ir::Stmt*> copies;
        collectCopies(kernel.kernel->body, copies, 0);
        for (const ir::Stmt* copy : copies) {
            const ir::Buffer* src = copy->src.buffer;
            const ir::Buffer* dst = copy->dst.buffer;
            if (!src || !dst || src->scope != ir::MemoryScope::Fragment ||
                dst->scope != ir::MemoryScope::Shared)
                continue;
            const GemmPartition* producer = nullptr;
            const GemmPartition* consumer = nullptr;
            for (size_t i = 0; i < kernel.gemms.size(); ++i) {
                const ir::Stmt* gemm = kernel.gemms[i].gemm;
                if (!gemm)
                    continue;
                if (gemm->c.buffer == src && !producer)
                    producer = &model.gemms[i];
                if ((gemm->a.buffer == dst || gemm->b.buffer == dst) && !consumer)
                    consumer = &model.gemms[i];
            }
            if (!producer || !consumer)
                continue;
            WarpExchange x;
            x.fragment = src->name;
            x.shared = dst->name;
            x.producerLine = producer->line;
            x.copyLine = sources.lineOf(copy->range);
            x.consumerLine = consumer->line;
            std::string split = producer->warpgroups > 1
                                    ? std::to_string(producer->warpgroups) + " warpgroups"
                                    : std::to_string(producer->warps) + " warps";
            x.description = x.fragment + " (split over " + split + ", policy " + producer->policy + ") -> " +
                            x.shared + " (line " + std::to_string(x.copyLine) + ") -> gemm at line " +
                            std::to_string(x.consumerLine) + ", which reads every column";
            model.exchanges.push_back(std::move(x));
        }
    }
    return model;
}

std::string warpPartitionViewToSvg(const WarpPartitionViewModel& model) {
    // Each gemm is scaled to at most 512 x 256 pixels, keeping its aspect ratio.
    const double maxW = 512, maxH = 256, gap = 60;
    double height = 40 + 20 * double(model.exchanges.size());
    for (const GemmPartition& p : model.gemms) {
        double scale = (p.M > 0 && p.N > 0) ? std::min(maxW / double(p.N), maxH / double(p.M)) : 1;
        height += double(p.M) * scale + gap;
    }
    SvgWriter svg(maxW + 220, height);
    Rgba black{0, 0, 0, 255}, white{255, 255, 255, 255};
    svg.text(10, 20, model.title, 14, black, "start", true);
    double y = 40;
    for (const GemmPartition& p : model.gemms) {
        svg.text(10, y + 12, p.title + "  [" + p.instruction + ", " + p.policy + "]", 11, black, "start",
                 true);
        svg.text(10, y + 26, p.grid, 9);
        double scale = (p.M > 0 && p.N > 0) ? std::min(maxW / double(p.N), maxH / double(p.M)) : 1;
        double x0 = 10, y0 = y + 34;
        for (const WarpRect& r : p.warpRects) {
            svg.rect(x0 + double(r.n0) * scale, y0 + double(r.m0) * scale, double(r.n) * scale,
                     double(r.m) * scale, r.color, &white, 0.5);
            svg.title("warp " + std::to_string(r.warp) +
                      (r.warpgroup >= 0 ? " (warpgroup " + std::to_string(r.warpgroup) + ")" : "") +
                      ": rows " + std::to_string(r.m0) + "-" + std::to_string(r.m0 + r.m - 1) + ", columns " +
                      std::to_string(r.n0) + "-" + std::to_string(r.n0 + r.n - 1));
        }
        for (const WarpRect& r : p.warpgroupRects) {
            svg.rect(x0 + double(r.n0) * scale, y0 + double(r.m0) * scale, double(r.n) * scale,
                     double(r.m) * scale, Rgba{0, 0, 0, 0}, &black, 2.5);
            svg.text(x0 + (double(r.n0) + double(r.n) / 2) * scale,
                     y0 + (double(r.m0) + double(r.m) / 2) * scale,
                     "warpgroup " + std::to_string(r.warpgroup), 12, black, "middle", true);
        }
        if (p.atomM > 0 && p.atomN > 0 && p.M / p.atomM <= 64 && p.N / p.atomN <= 64) {
            Rgba atomLine{255, 255, 255, 160};
            for (int64_t m = p.atomM; m < p.M; m += p.atomM)
                svg.line(x0, y0 + double(m) * scale, x0 + double(p.N) * scale, y0 + double(m) * scale,
                         atomLine, 0.5, true);
            for (int64_t n = p.atomN; n < p.N; n += p.atomN)
                svg.line(x0 + double(n) * scale, y0, x0 + double(n) * scale, y0 + double(p.M) * scale,
                         atomLine, 0.5, true);
        }
        if (p.warpgroupRects.empty())
            for (const WarpRect& r : p.warpRects)
                svg.text(x0 + (double(r.n0) + double(r.n) / 2) * scale,
                         y0 + (double(r.m0) + double(r.m) / 2) * scale, "W" + std::to_string(r.warp), 10,
                         textColorOn(r.color), "middle");
        y = y0 + double(p.M) * scale + gap - 34;
    }
    for (const WarpExchange& x : model.exchanges) {
        svg.text(10, y + 14, "exchange: " + x.description, 11, kConflictRed, "start", true);
        y += 20;
    }
    return svg.str();
}

} // namespace tb::views
