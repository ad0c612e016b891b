// Helpers for the bank-analysis tests: elaborate a tile program held in memory, and build the KernelPlan
// of its first kernel by hand with the layout algebra (so the tests do not depend on the inference passes):
// shared layouts, gemm warp grids and fragments are set explicitly by each test.
#pragma once

#include "engine/elaborate/Elaborator.h"
#include "engine/frontend/Parser.h"
#include "engine/layout/algebra/GemmFragments.h"
#include "engine/layout/algebra/SharedLayoutChoice.h"
#include "engine/layout/algebra/Swizzle.h"
#include "engine/layout/algebra/WarpPartition.h"
#include "engine/layout/plan/BankTotals.h"
#include "engine/layout/plan/LayoutPlan.h"
#include "engine/passes/BankAnalysis.h"

#include <cstdint>
#include <functional>
#include <gtest/gtest.h>
#include <memory>
#include <string>
#include <vector>

namespace tb::test {

struct Program {
    SourceManager sources;
    DiagnosticEngine diagnostics;
    FileId file = 0;
    ast::Module ast;
    std::unique_ptr<ir::Module> module;

    const ir::Buffer* buffer(const std::string& name) const {
        for (const ir::Buffer& b : module->buffers())
            if (b.name == name)
                return &b;
        return nullptr;
    }
};

inline std::unique_ptr<Program> elaborateProgram(const std::string& text) {
    auto p = std::make_unique<Program>();
    p->file = p->sources.addFile("test.py", text);
    p->ast = parseModule(p->sources, p->file, p->diagnostics);
    p->module = elaborate(p->sources, p->ast, {}, p->diagnostics);
    return p;
}

// Pre-order search of the first kernel's body.
inline void forEachStmt(const ir::StmtPtr& stmt, const std::function<void(const ir::Stmt&)>& fn,
                        int depth = 0) {
    if (!stmt || depth > 100)
        return;
    fn(*stmt);
    for (const ir::StmtPtr& s : stmt->stmts)
        forEachStmt(s, fn, depth + 1);
    forEachStmt(stmt->body, fn, depth + 1);
    forEachStmt(stmt->elseBody, fn, depth + 1);
}

inline const ir::Stmt* findStmt(const Program& p, ir::StmtKind kind, int nth = 0) {
    const ir::Stmt* found = nullptr;
    int seen = 0;
    forEachStmt(p.module->funcs.at(0).body, [&](const ir::Stmt& s) {
        if (s.kind == kind && !found && seen++ == nth)
            found = &s;
    });
    return found;
}

// A KernelPlan with only the kernel filled in.
inline layout::KernelPlan kernelPlan(const Program& p) {
    layout::KernelPlan plan;
    plan.kernel = findStmt(p, ir::StmtKind::Kernel);
    plan.func = &p.module->funcs.at(0);
    plan.threads = 1;
    for (int64_t t : plan.kernel->threads)
        plan.threads *= t;
    return plan;
}

// A shared buffer with the given 2-D layout (and the plain row-major one for comparison).
inline void addShared(layout::KernelPlan& plan, const ir::Buffer* buffer, layout::SharedLayoutKind kind,
                      const layout::Layout& chosen) {
    layout::SharedBufferPlan shared;
    shared.buffer = buffer;
    shared.choice.kind = kind;
    shared.choice.layout = chosen;
    std::vector<int64_t> shape;
    for (size_t d = 0; d < buffer->rank(); ++d)
        shape.push_back(*buffer->constantExtent(d));
    shared.unswizzled = layout::Layout::linear(shape);
    plan.sharedBuffers.push_back(shared);
}

inline const layout::SharedAccessPlan* findAccess(const layout::KernelPlan& plan,
                                                  const std::string& rolePart) {
    for (const layout::SharedAccessPlan& a : plan.sharedAccesses)
        if (a.role.find(rolePart) != std::string::npos)
            return &a;
    return nullptr;
}

} // namespace tb::test
