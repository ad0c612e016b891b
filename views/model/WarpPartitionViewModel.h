// The warp-partition view's model: each gemm's M x N output tile split into the rectangles each warp owns
// (coloured by warp; for wgmma grouped by warpgroup, whose four warps own 16-row stripes of each 64-row
// atom), the instruction atoms drawn as a grid, and the shared buffers through which one gemm's
// warp-split output reaches another gemm (MLA decode's S_shared exchange between the FullCol warpgroup
// halves).
#pragma once

#include "engine/layout/plan/LayoutPlan.h"
#include "engine/support/SourceManager.h"
#include "views/model/Color.h"

#include <cstdint>
#include <string>
#include <vector>

namespace tb::views {

struct WarpRect {
    int64_t m0 = 0, n0 = 0, m = 0, n = 0; // rows [m0, m0+m), columns [n0, n0+n) of the output tile
    int64_t warp = 0;
    int64_t warpgroup = -1; // wgmma only
    Rgba color;
};

struct GemmPartition {
    uint32_t line = 0;
    std::string title;       // "line 34: C_local[128, 128] += A_shared @ B_shared"
    std::string instruction; // "wgmma.m64nNk16"
    std::string policy;      // "Square"
    std::string grid;        // WarpGrid::toString()
    int64_t M = 0, N = 0;
    int64_t atomM = 0, atomN = 0;
    int64_t warps = 0, warpgroups = 0;
    std::vector<WarpRect> warpRects;      // every warp's pieces
    std::vector<WarpRect> warpgroupRects; // wgmma: one per warpgroup (the halves of a FullCol split)

    // The warp that owns output element (row, col), -1 outside the tile.
    int64_t warpAt(int64_t row, int64_t col) const;
};

// A shared buffer written from one gemm's accumulator (through a fragment) and read by another gemm.
struct WarpExchange {
    std::string fragment; // "acc_s"
    std::string shared;   // "S_shared"
    uint32_t producerLine = 0, copyLine = 0, consumerLine = 0;
    std::string description; // "acc_s (split by 2 warpgroups) -> S_shared -> gemm at line 61"
};

struct WarpPartitionViewModel {
    std::string title;
    std::vector<GemmPartition> gemms;
    std::vector<WarpExchange> exchanges;
};

WarpPartitionViewModel buildWarpPartitionView(const layout::KernelPlan& kernel, const SourceManager& sources);
// What a view's title adds for something inside a T.ws scope: "  (T.ws: threads 128..255)".
std::string warpGroupScopeCaption(const ir::Stmt& scope);
std::string warpPartitionViewToSvg(const WarpPartitionViewModel& model);

} // namespace tb::views
