// The bank-conflict view's model: one table row per shared-memory access of a kernel (source line,
// buffer, role, SASS instruction, ideal vs predicted wavefronts per block, N-way conflict, the same with
// the swizzle off, and measured wavefronts once a profile has run), and for the selected row the lane x
// bank punch card of one representative warp instruction under the chosen layout and with the swizzle off.
#pragma once

#include "engine/layout/bank/BankPunchCard.h"
#include "engine/layout/plan/LayoutPlan.h"
#include "engine/support/SourceManager.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace tb::views {

struct BankAccessRow {
    uint32_t line = 0; // 1-based tile-program line, 0 when unknown
    SourceRange range;
    std::string buffer;
    std::string role;        // "copy A tile global->shared"
    std::string instruction; // "LDSM.16.M88.4"
    bool isStore = false;
    int64_t instructionsPerBlock = 0;
    int64_t wavefronts = 0; // hardware rule, chosen layout, per block
    int64_t idealWavefronts = 0;
    int64_t wavefrontsUnswizzled = 0;
    int conflictWays = 0; // of the representative instruction
    int conflictWaysUnswizzled = 0;
    std::optional<int64_t> measuredWavefronts; // after a profile
    WarpAccess access;
    WarpAccess accessUnswizzled;

    int64_t excessWavefronts() const { return wavefronts - idealWavefronts; }
};

struct BankConflictViewModel {
    std::string title;
    std::vector<BankAccessRow> rows; // sorted by line, then buffer, then role
    int selected = -1;               // row whose punch cards are built; -1 when there are no rows
    BankPunchCard card;              // selected row, chosen layout
    BankPunchCard cardUnswizzled;    // selected row, plain row-major layout

    // Row indices of the accesses made by a tile-program line (linked selection).
    std::vector<int> rowsOfLine(uint32_t line) const;
};

// Rows of every access of `kernel`; `selected` is clamped (the worst row, most excess wavefronts, when -1).
BankConflictViewModel buildBankConflictView(const layout::KernelPlan& kernel, const SourceManager& sources,
                                            int selected = -1);
// Re-selects a row and rebuilds the two punch cards.
void selectBankRow(BankConflictViewModel& model, int row);

// The table and the selected access's two punch cards as SVG.
std::string bankConflictViewToSvg(const BankConflictViewModel& model);
// One punch card: rows = lanes, columns = banks, a cell per touched word coloured by wavefront (red when
// the bank is conflicted in its phase).
std::string bankPunchCardToSvg(const BankPunchCard& card, const std::string& title);

} // namespace tb::views
