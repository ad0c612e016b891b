// Totals of the bank analysis's per-access numbers (KernelPlan::sharedAccesses): per tile-program line and
// per kernel, the figures `tilec banks` prints and that compare with Nsight Compute's counters
// (docs/bank-analysis.md defines every number).
#pragma once

#include "engine/layout/plan/LayoutPlan.h"
#include "engine/support/SourceManager.h"

#include <cstdint>
#include <vector>

namespace tb::layout {

// Sums of SharedAccessPlan per-block numbers.
struct BankTotals {
    int64_t instructions = 0;
    int64_t wavefronts = 0; // hardware rule, chosen layout
    int64_t idealWavefronts = 0;
    int64_t wavefrontsUnswizzled = 0;
    int64_t sassWavefronts = 0;
    int64_t sassIdealWavefronts = 0;

    void add(const SharedAccessPlan& access);
    int64_t bankConflicts() const { return wavefronts - idealWavefronts; }
};

// Per tile-program line (1-based; 0 for accesses without a location), per block.
struct LineBankTotals {
    uint32_t line = 0;
    BankTotals lsu;   // LDS/STS/LDSM and cp.async (every access of the load/store unit)
    BankTotals wgmma; // wgmma descriptor reads (modelled; no counter)
    // The SASS-metric model's wavefronts of the accesses ncu's source view attributes to this line
    // (smsp__sass_l1tex_pipe_lsu_wavefronts_mem_shared): LSU accesses except cp.async.cg, whose SASS metric
    // is not reproducible (bank-rules.md).
    int64_t sassComparable = 0;
    bool exact = true;        // every access's execution count is exact
    bool conditional = false; // an access runs only when a condition holds: the totals are upper bounds
};

// Per kernel, per block, and the block count that turns them into whole-kernel counter values.
struct KernelBankTotals {
    BankTotals lsu;
    BankTotals wgmma;
    // Hardware-rule wavefronts comparable with l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld (LDS, LDSM)
    // and _op_st (STS, STSM); ideal = the hardware's own, so wavefronts - ideal is
    // l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld / _op_st.
    int64_t opLd = 0, opLdIdeal = 0;
    int64_t opSt = 0, opStIdeal = 0;
    int64_t cpAsyncCa = 0; // LDGSTS (.ca): in ..._mem_shared.sum and _op_ldgsts conflicts, not in op_ld/op_st
    int64_t cpAsyncCg = 0; // LDGSTS.BYPASS: seen by no counter; modelled with rule 5
    int64_t rowSpreadInstructions = 0;
    int64_t sassComparable = 0;      // sum of LineBankTotals::sassComparable
    int64_t blocks = 0;              // grid size when every grid extent is a constant, else 0
    bool exact = true;               // every execution count is exact
    int64_t conditionalAccesses = 0; // accesses under an undecided if: the totals count them every time
};

std::vector<LineBankTotals> bankTotalsPerLine(const KernelPlan& kernel, const SourceManager& sources);
KernelBankTotals bankTotalsPerKernel(const KernelPlan& kernel);

} // namespace tb::layout
