// Bank totals per line and per kernel (see BankTotals.h).
#include "engine/layout/plan/BankTotals.h"

#include "engine/layout/algebra/IndexMath.h"

#include <algorithm>
#include <map>
#include <optional>
#include <vector>

namespace tb::layout {

void BankTotals::add(const SharedAccessPlan& access) {
    instructions += access.instructionsPerBlock;
    wavefronts += access.wavefrontsPerBlock;
    idealWavefronts += access.idealWavefrontsPerBlock;
    wavefrontsUnswizzled += access.wavefrontsPerBlockUnswizzled;
    sassWavefronts += access.sassWavefrontsPerBlock;
    sassIdealWavefronts += access.sassIdealWavefrontsPerBlock;
}

std::vector<LineBankTotals> bankTotalsPerLine(const KernelPlan& kernel, const SourceManager& sources) {
    std::map<uint32_t, LineBankTotals> lines;
    for (const SharedAccessPlan& access : kernel.sharedAccesses) {
        uint32_t line = 0;
        if (access.range.valid && access.range.file < sources.fileCount())
            line = sources.file(access.range.file).lineCol(access.range.begin).line;
        LineBankTotals& totals = lines[line];
        totals.line = line;
        totals.exact = totals.exact && access.executionsExact;
        totals.conditional = totals.conditional || !access.condition.empty();
        if (access.wgmmaOperand) {
            totals.wgmma.add(access);
            continue;
        }
        totals.lsu.add(access);
        if (access.access.kind != SharedAccessKind::CpAsyncCg)
            totals.sassComparable += access.sassWavefrontsPerBlock;
    }
    std::vector<LineBankTotals> out;
    for (auto& [line, totals] : lines)
        out.push_back(totals);
    return out;
}

KernelBankTotals bankTotalsPerKernel(const KernelPlan& kernel) {
    KernelBankTotals totals;
    for (const SharedAccessPlan& access : kernel.sharedAccesses) {
        totals.exact = totals.exact && access.executionsExact;
        totals.conditionalAccesses += access.condition.empty() ? 0 : 1;
        if (access.wgmmaOperand) {
            totals.wgmma.add(access);
            continue;
        }
        totals.lsu.add(access);
        totals.rowSpreadInstructions += access.rowSpreadInstructionsPerBlock;
        if (access.access.kind != SharedAccessKind::CpAsyncCg)
            totals.sassComparable += access.sassWavefrontsPerBlock;
        if (access.access.kind == SharedAccessKind::CpAsyncCa) {
            totals.cpAsyncCa += access.wavefrontsPerBlock;
        } else if (access.access.kind == SharedAccessKind::CpAsyncCg) {
            totals.cpAsyncCg += access.wavefrontsPerBlock;
        } else if (access.isStore) {
            totals.opSt += access.wavefrontsPerBlock;
            totals.opStIdeal += access.idealWavefrontsPerBlock;
        } else {
            totals.opLd += access.wavefrontsPerBlock;
            totals.opLdIdeal += access.idealWavefrontsPerBlock;
        }
    }
    if (kernel.kernel) {
        int64_t blocks = 1;
        for (const ir::ExprPtr& extent : kernel.kernel->grid) {
            std::optional<int64_t> value = ir::constantInt(extent);
            if (!value || *value < 0) {
                blocks = 0;
                break;
            }
            blocks = saturatingMul(blocks, *value);
        }
        totals.blocks = blocks;
    }
    return totals;
}

} // namespace tb::layout
