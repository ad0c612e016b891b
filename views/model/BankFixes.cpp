// What-if bank analysis: the same kernel plan with one buffer's layout replaced by the 128B swizzle.
#include "views/model/BankFixes.h"

#include "engine/layout/algebra/SharedLayoutChoice.h"
#include "engine/layout/algebra/Swizzle.h"
#include "engine/passes/BankAnalysis.h"
#include "engine/support/Diagnostics.h"

#include <set>
#include <string>
#include <utility>
#include <vector>

namespace tb::views {

namespace {

bool swizzled(layout::SharedLayoutKind kind) {
    return kind == layout::SharedLayoutKind::Quarter32B || kind == layout::SharedLayoutKind::Half64B ||
           kind == layout::SharedLayoutKind::Full128B;
}

} // namespace

std::vector<BankFix> findSwizzleFixes(const layout::KernelPlan& kernel, const Target& target) {
    std::set<const ir::Buffer*> candidates;
    for (const layout::SharedAccessPlan& a : kernel.sharedAccesses)
        if (a.buffer && a.hardware.conflictWays > 1)
            if (const layout::SharedBufferPlan* b = kernel.sharedOf(a.buffer); b && !swizzled(b->choice.kind))
                candidates.insert(a.buffer);
    std::vector<BankFix> fixes;
    for (const ir::Buffer* buffer : candidates) {
        const layout::SharedBufferPlan* plan = kernel.sharedOf(buffer);
        const std::vector<int64_t>& shape = plan->unswizzled.inputShape();
        if (shape.size() < 2)
            continue;
        auto layout = layout::makeFullBankSwizzleLayout(shape[shape.size() - 2], shape.back(),
                                                        ir::dtypeBits(buffer->dtype));
        if (!layout)
            continue; // the buffer's shape admits no 128B swizzle: no remedy of this kind
        layout::KernelPlan whatIf = kernel;
        for (layout::SharedBufferPlan& b : whatIf.sharedBuffers)
            if (b.buffer == buffer) {
                b.choice.kind = layout::SharedLayoutKind::Full128B;
                b.choice.layout = *layout;
                b.choice.reason = "what-if: 128B swizzle";
            }
        DiagnosticEngine ignored;
        passes::analyzeKernelSharedAccesses(whatIf, target, ignored);
        for (const layout::SharedAccessPlan& before : kernel.sharedAccesses) {
            if (before.buffer != buffer || before.hardware.conflictWays <= 1)
                continue;
            for (const layout::SharedAccessPlan& after : whatIf.sharedAccesses) {
                if (after.op != before.op || after.buffer != buffer || after.role != before.role)
                    continue;
                if (after.wavefrontsPerBlock >= before.wavefrontsPerBlock)
                    break;
                BankFix fix;
                fix.op = before.op;
                fix.buffer = buffer;
                fix.role = before.role;
                fix.conflictWays = after.hardware.conflictWays;
                fix.wavefrontsPerBlock = after.wavefrontsPerBlock;
                fix.remedy = "a 128B swizzle makes this " + std::to_string(fix.conflictWays) +
                             "-way: " + std::to_string(after.wavefrontsPerBlock) +
                             " wavefronts per block instead of " + std::to_string(before.wavefrontsPerBlock);
                fixes.push_back(std::move(fix));
                break;
            }
        }
    }
    return fixes;
}

} // namespace tb::views
