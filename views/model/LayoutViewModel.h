// The layout view's model: a buffer drawn as its 2-D element grid (leading dimensions flattened into rows).
// A fragment's cells are coloured by owning thread or warp and labelled "T<thread>:<register>", with the
// other replicas' threads listed when the fragment is replicated; a shared buffer's cells are coloured by
// the bank of their word and labelled with their offset, under the chosen layout or the plain row-major
// one (swizzle off). Hit-testing maps a point of the drawn grid back to the element and its owner.
#pragma once

#include "engine/layout/algebra/Fragment.h"
#include "engine/layout/algebra/Layout.h"
#include "views/model/Color.h"

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace tb::views {

enum class LayoutColoring { Thread, Warp, Bank };

struct LayoutCell {
    Rgba color;
    std::string label;
    // Fragments: owner of replica 0 and the register slot; every replica's thread in replicaThreads.
    int64_t thread = -1;
    int64_t reg = -1;
    int64_t warp = -1;
    std::vector<int64_t> replicaThreads;
    // Shared buffers: element offset in the buffer and the bank of its first byte.
    int64_t offset = -1;
    int bank = -1;
};

// Where the grid is drawn: cell (row, col) covers [x0 + col*cellW, +cellW) x [y0 + row*cellH, +cellH).
struct GridGeometry {
    double x0 = 0, y0 = 0, cellW = 32, cellH = 20;
};

struct LayoutViewModel {
    std::string title;    // "C_local: fragment [128, 128]"
    std::string subtitle; // the layout's canonical text or the shared layout choice
    std::string error;    // non-empty: nothing to draw, and why
    bool isFragment = true;
    LayoutColoring coloring = LayoutColoring::Thread;
    int64_t rows = 0, cols = 0;
    std::vector<int64_t> shape;
    int64_t threads = 0, registers = 0, replicate = 1;
    int elementBits = 32;
    bool swizzled = false;         // shared: the chosen (swizzled/padded) layout is shown
    std::vector<LayoutCell> cells; // rows * cols, row-major

    bool empty() const { return cells.empty(); }
    const LayoutCell* cellAt(int64_t row, int64_t col) const;
    // The logical index of (row, col) in the original shape (leading dimensions unflattened).
    std::vector<int64_t> logicalIndex(int64_t row, int64_t col) const;
    // "(9, 3) -> thread 5 (warp 0), register 3" / "(1, 8) -> offset 64, bank 0"; replicas appended.
    std::string describe(int64_t row, int64_t col) const;
};

// The largest grid a view model builds (cells beyond it would not be legible anyway).
inline constexpr int64_t kMaxLayoutCells = 1 << 16;

// A fragment over `threads` threads; coloring Thread or Warp (Bank is treated as Thread). `firstThread` is
// the block thread of the fragment's thread 0: a T.ws scope's first thread, so that cells name the threads
// and warps of the block that hold them.
LayoutViewModel buildFragmentView(const std::string& name, const layout::Fragment& fragment,
                                  LayoutColoring coloring = LayoutColoring::Thread, int64_t firstThread = 0);
// A shared buffer: `layout` maps the logical index to element offsets; elementBits sizes the bank words.
// `swizzled` only records which of the two layouts the caller passed.
LayoutViewModel buildSharedView(const std::string& name, const layout::Layout& layout, int elementBits,
                                bool swizzled);

// (row, col) under point (x, y), nullopt outside the grid.
std::optional<std::pair<int64_t, int64_t>> hitTestGrid(const LayoutViewModel& model,
                                                       const GridGeometry& geometry, double x, double y);

// The canvas' cell at zoom 1, and the zoom range its slider and wheel allow.
inline constexpr double kLayoutCellWidth = 40, kLayoutCellHeight = 20;
inline constexpr float kLayoutMinZoom = 0.1f, kLayoutMaxZoom = 4.0f;
struct LayoutZoom {
    float zoom = 1;
    float panX = 0, panY = 0;
};
// The zoom and pan that show the whole rows x cols grid in a width x height area (as large as the zoom
// range allows, centred where it is smaller than the area); the identity for an empty grid.
LayoutZoom fitLayoutGrid(int64_t rows, int64_t cols, double width, double height);

// The grid as SVG with a title, a legend line and one <title> tooltip per cell.
std::string layoutViewToSvg(const LayoutViewModel& model);

} // namespace tb::views
