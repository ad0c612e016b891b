// The bank-conflict view's model: one table row per shared-memory access of a kernel (source line,
// buffer, role, SASS instruction, ideal vs predicted wavefronts per block, N-way conflict, the same with
// the swizzle off, and measured wavefronts per line once a profile has run), and for the selected row the
// lane x bank punch card of one representative warp instruction under the chosen layout and with the swizzle
// off.
#pragma once

#include "engine/layout/bank/BankPunchCard.h"
#include "engine/layout/plan/LayoutPlan.h"
#include "engine/support/SourceManager.h"
#include "views/model/BankFixes.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace tb::views {

struct BankAccessRow {
    const ir::Stmt* op = nullptr; // the tile op or loop that makes it
    uint32_t line = 0;            // 1-based tile-program line, 0 when unknown
    SourceRange range;
    std::string buffer; // the shared buffer, or "reduction scratch (acc_s row max)" for a reduce's red_buf
    std::string role;   // "copy A tile global->shared"
    std::string instruction; // "LDSM.16.M88.4"
    bool isStore = false;
    int64_t instructionsPerBlock = 0;
    int64_t wavefronts = 0; // hardware rule, chosen layout, per block
    int64_t idealWavefronts = 0;
    int64_t wavefrontsUnswizzled = 0;
    int conflictWays = 0; // of the representative instruction
    int conflictWaysUnswizzled = 0;
    std::optional<int64_t> measuredWavefronts; // after a profile: per block, the whole line's
    std::optional<int64_t> measuredIdealWavefronts;
    bool measuredLineShared = false; // the line has other accesses: the measured value is their sum
    WarpAccess access;
    WarpAccess accessUnswizzled;
    std::string suggestedFix;   // a computed remedy (BankFixes.h); empty when none is known
    std::vector<int64_t> shape; // the buffer's shape (empty for scratch): names the elements a lane moves
    int elementBytes = 0;

    int64_t excessWavefronts() const { return wavefronts - idealWavefronts; }
};

struct BankConflictViewModel {
    std::string title;
    std::vector<BankAccessRow> rows; // sorted by line, then buffer, then role
    int selected = -1;               // row whose punch cards are built; -1 when there are no rows
    BankPunchCard card;              // selected row, chosen layout
    BankPunchCard cardUnswizzled;    // selected row, plain row-major layout

    // Measured shared-memory wavefronts per tile-program line (SASS metrics placed on lines), after a
    // profile; `measured` turns on the measured columns.
    bool measured = false;
    std::string measuredNote; // "profiled on <device>, 4 blocks"
    struct MeasuredLine {
        uint32_t line = 0;
        int64_t wavefronts = 0, ideal = 0; // per block
        bool hasRow = false;               // a predicted access is on this line
    };
    std::vector<MeasuredLine> measuredLines; // by line

    // Row indices of the accesses made by a tile-program line (linked selection).
    std::vector<int> rowsOfLine(uint32_t line) const;
};

// The table's columns, for sorting. Excess (wavefronts - ideal) descending is the default: worst row first.
enum class BankColumn {
    Line,
    Buffer,
    Role,
    Instruction,
    InstructionsPerBlock,
    Wavefronts,
    Ideal,
    Excess,
    Ways,
    Unswizzled,
    Measured,
    MeasuredIdeal,
    SuggestedFix,
};
// Row indices in display order: by `column` (descending or not), ties by line, then the model's order.
std::vector<int> sortedBankRows(const BankConflictViewModel& model, BankColumn column, bool descending);

// Whole-launch totals of one tile-program line from a profile (LineTotals of engine/profile).
struct MeasuredLineTotals {
    uint32_t line = 0; // 1-based; 0 collects what could not be placed (ignored)
    uint64_t sharedWavefronts = 0;
    uint64_t sharedWavefrontsIdeal = 0;
};
// Adds the measured columns: each line's totals divided by `blocks` (the launch's grid size, so they
// compare with the per-block predictions), on every row of that line. Lines with shared wavefronts but no
// predicted access are kept in measuredLines. `blocks` < 1 counts as 1.
void setMeasuredWavefronts(BankConflictViewModel& model, const std::vector<MeasuredLineTotals>& lines,
                           int64_t blocks, std::string note);
void clearMeasuredWavefronts(BankConflictViewModel& model);

// Rows of every access of `kernel`; `selected` is clamped (the worst row, most excess wavefronts, when -1).
BankConflictViewModel buildBankConflictView(const layout::KernelPlan& kernel, const SourceManager& sources,
                                            int selected = -1);
// The elements lane `lane` of the row's instruction moves, "A_shared[3, 8..15]" (the row-major address of
// the same lane names them under any layout); empty for a lane that takes no part or a scratch access.
std::string bankLaneElements(const BankAccessRow& row, int lane);
// Puts each fix on the row of the access it fixes (same op, buffer and role).
void applyBankFixes(BankConflictViewModel& model, const std::vector<BankFix>& fixes);
// Re-selects a row and rebuilds the two punch cards.
void selectBankRow(BankConflictViewModel& model, int row);

// The table and the selected access's two punch cards as SVG.
std::string bankConflictViewToSvg(const BankConflictViewModel& model);
// One punch card: rows = lanes, columns = banks, a cell per touched word coloured by wavefront (red when
// the bank is conflicted in its phase).
std::string bankPunchCardToSvg(const BankPunchCard& card, const std::string& title);

} // namespace tb::views
