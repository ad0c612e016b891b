// Shared memory budget per kernel (see SharedMemoryBudget.h).
#include "engine/check/SharedMemoryBudget.h"

#include "engine/ir/IrQueries.h"
#include "engine/ir/Visitor.h"

#include <algorithm>
#include <map>
#include <utility>

namespace tb::check {

namespace {

using namespace tb::ir;

class KernelFinder : public StmtVisitor {
public:
    std::vector<const Stmt*> kernels;

private:
    void visitStmt(const Stmt& s) override {
        if (s.kind == StmtKind::Kernel)
            kernels.push_back(&s);
        visitChildren(s);
    }
};

} // namespace

std::map<const Buffer*, PipelineStages> pipelineCopyStages(const Stmt& kernel) {
    std::map<const Buffer*, PipelineStages> stages;
    walkStmts(kernel, [&](const Stmt& s, const std::vector<const Stmt*>&) {
        if (s.kind != StmtKind::For || s.loopKind != LoopKind::Pipelined || s.pipeline.numStages < 2 ||
            !s.body)
            return;
        std::vector<StmtPtr> body = s.body->kind == StmtKind::Seq ? s.body->stmts : std::vector{s.body};
        for (const StmtPtr& c : body) {
            if (c->kind != StmtKind::Copy || !c->src.buffer || !c->dst.buffer ||
                c->src.buffer->scope != MemoryScope::Global || c->dst.buffer->scope != MemoryScope::Shared)
                continue;
            PipelineStages& slot = stages[c->dst.buffer];
            if (s.pipeline.numStages > slot.stages)
                slot = {s.pipeline.numStages, &s};
        }
    });
    return stages;
}

KernelSharedMemory kernelSharedMemory(const Stmt& kernel) {
    KernelSharedMemory budget;
    if (kernel.kind != StmtKind::Kernel)
        return budget;
    budget.kernel = &kernel;
    std::map<const Buffer*, PipelineStages> stages = pipelineCopyStages(kernel);
    for (const Buffer* b : kernel.allocations) {
        if (!b || b->scope != MemoryScope::Shared)
            continue;
        auto elements = b->constantElementCount();
        if (!elements) {
            budget.symbolicSize.push_back(b);
            continue;
        }
        SharedBufferBudget entry;
        entry.buffer = b;
        entry.bytes = *elements * dtypeBytes(b->dtype);
        auto it = stages.find(b);
        if (it != stages.end()) {
            entry.stages = it->second.stages;
            entry.pipelinedLoop = it->second.loop;
        }
        budget.totalBytes += entry.totalBytes();
        budget.maxStages = std::max(budget.maxStages, entry.stages);
        budget.buffers.push_back(entry);
    }
    return budget;
}

std::vector<KernelSharedMemory> sharedMemoryBudgets(const PrimFunc& func) {
    KernelFinder finder;
    finder.visit(func.body);
    std::vector<KernelSharedMemory> budgets;
    for (const Stmt* kernel : finder.kernels)
        budgets.push_back(kernelSharedMemory(*kernel));
    return budgets;
}

int64_t sharedMemoryBytes(const PrimFunc& func) {
    int64_t most = 0;
    for (const KernelSharedMemory& budget : sharedMemoryBudgets(func))
        most = std::max(most, budget.totalBytes);
    return most;
}

} // namespace tb::check
