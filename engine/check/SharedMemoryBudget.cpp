// Shared memory budget per kernel (see SharedMemoryBudget.h).
#include "engine/check/SharedMemoryBudget.h"

#include "engine/ir/Visitor.h"

#include <algorithm>
#include <map>
#include <utility>

namespace tb::check {

namespace {

using namespace tb::ir;

// Finds, for each shared buffer, the deepest multi-buffering that a copy into it asks for.
class StageFinder : public StmtVisitor {
public:
    std::map<const Buffer*, std::pair<int, const Stmt*>> stages;

private:
    void visitStmt(const Stmt& s) override {
        if (s.kind == StmtKind::For && s.loopKind == LoopKind::Pipelined && s.pipeline.numStages > 1) {
            const Stmt* outer = m_pipelined;
            m_pipelined = &s;
            visitChildren(s);
            m_pipelined = outer;
            return;
        }
        // Only global -> shared copies are pipeline copy stages (PipelinePlanning); buffers written by
        // other statements share their readers' stage and keep a single version.
        if (s.kind == StmtKind::Copy && m_pipelined && s.dst.buffer &&
            s.dst.buffer->scope == MemoryScope::Shared && s.src.buffer &&
            s.src.buffer->scope == MemoryScope::Global) {
            auto& slot = stages[s.dst.buffer];
            if (m_pipelined->pipeline.numStages > slot.first)
                slot = {m_pipelined->pipeline.numStages, m_pipelined};
        }
        visitChildren(s);
    }

    const Stmt* m_pipelined = nullptr;
};

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

KernelSharedMemory kernelSharedMemory(const Stmt& kernel) {
    KernelSharedMemory budget;
    if (kernel.kind != StmtKind::Kernel)
        return budget;
    budget.kernel = &kernel;
    StageFinder finder;
    finder.visit(kernel.body);
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
        auto it = finder.stages.find(b);
        if (it != finder.stages.end()) {
            entry.stages = it->second.first;
            entry.pipelinedLoop = it->second.second;
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
