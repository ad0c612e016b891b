// Reduce planning: threads per output, butterfly offsets, shared rounds.
#include "engine/passes/ReducePlanning.h"

#include "engine/ir/IrQueries.h"
#include "engine/layout/algebra/FragmentTable.h"
#include "engine/passes/FragmentDerivation.h"

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace tb::passes {

void runReducePlanning(const ir::Module&, layout::LayoutPlan& plan, const PassContext& context,
                       DiagnosticEngine& diagnostics) {
    for (layout::KernelPlan& kernel : plan.kernels) {
        ir::walkStmts(*kernel.kernel, [&](const ir::Stmt& s, const std::vector<const ir::Stmt*>&) {
            if (s.kind != ir::StmtKind::Reduce)
                return;
            const layout::FragmentPlan* src = kernel.fragmentOf(s.srcBuffer);
            if (!src || s.dim < 0 || size_t(s.dim) >= src->fragment.inputShape().size())
                return;
            FragmentTableCache local;
            const layout::FragmentTable* table =
                (context.tables ? *context.tables : local).table(src->fragment);
            if (!table)
                return;
            const std::vector<int64_t>& shape = src->fragment.inputShape();
            int64_t stride = 1;
            for (size_t d = size_t(s.dim) + 1; d < shape.size(); ++d)
                stride *= shape[d];
            const int64_t extent = shape[size_t(s.dim)];
            const int64_t begin = src->fragment.threadRange() ? src->fragment.threadRange()->begin : 0;
            // The threads of output element 0 (the first row) and the XOR span of their ids; every
            // output has the same structure in the layouts TileLang builds.
            std::set<int64_t> threads;
            std::map<int64_t, int64_t> perThread;
            for (int64_t k = 0; k < extent; ++k) {
                int64_t t = begin + table->at(k * stride).thread;
                threads.insert(t);
                ++perThread[t];
            }
            const int64_t t0 = *threads.begin();
            int64_t span = 0;
            for (int64_t t : threads)
                span |= (t ^ t0);
            layout::ReducePlan rp;
            rp.reduce = &s;
            rp.threadsPerOutput = int64_t(threads.size());
            rp.localElements = perThread.begin()->second;
            for (int b = 30; b >= 0; --b) {
                if (!(span & (int64_t(1) << b)))
                    continue;
                if ((int64_t(1) << b) >= context.target.warpSize)
                    rp.sharedOffsets.push_back(1 << b);
                else
                    rp.shuffleOffsets.push_back(1 << b);
            }
            int popcount = 0;
            for (int64_t x = span; x; x &= x - 1)
                ++popcount;
            if ((int64_t(1) << popcount) != rp.threadsPerOutput)
                diagnostics.warning(
                    "reduce-threads-not-power-of-two", s.range,
                    "the " + std::to_string(rp.threadsPerOutput) + " threads that hold one row of '" +
                        s.srcBuffer->name + "' do not form an xor butterfly group",
                    "use a layout whose reduced dimension is spread over a power of two of threads");
            rp.throughSharedMemory = !rp.sharedOffsets.empty();
            if (rp.throughSharedMemory)
                rp.sharedScratchBytes = kernel.threadsOf(&s) * ir::dtypeBytes(s.dstBuffer->dtype);
            std::string offsets;
            for (int o : rp.shuffleOffsets)
                offsets += (offsets.empty() ? "" : ", ") + std::to_string(o);
            std::string rounds;
            for (int o : rp.sharedOffsets)
                rounds += (rounds.empty() ? "" : ", ") + std::to_string(o);
            rp.reason = std::to_string(rp.localElements) + " elements per thread folded locally, then " +
                        std::to_string(rp.threadsPerOutput) + " threads per output: ";
            if (rp.threadsPerOutput == 1)
                rp.reason += "no exchange";
            else {
                if (!rp.sharedOffsets.empty())
                    rp.reason += std::to_string(rp.sharedOffsets.size()) + " shared-memory round(s) (xor " +
                                 rounds + ")" + (rp.shuffleOffsets.empty() ? "" : " and ");
                if (!rp.shuffleOffsets.empty())
                    rp.reason +=
                        std::to_string(rp.shuffleOffsets.size()) + " shuffle(s) (xor " + offsets + ")";
            }
            kernel.reduces.push_back(std::move(rp));
        });
    }
}

} // namespace tb::passes
