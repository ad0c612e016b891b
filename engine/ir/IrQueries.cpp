// Read-only queries over the Tile IR (see IrQueries.h).
#include "engine/ir/IrQueries.h"

#include "engine/ir/Visitor.h"

#include <algorithm>

namespace tb::ir {

std::vector<KernelRef> kernelsOf(const ir::Module& module) {
    std::vector<KernelRef> out;
    for (const ir::PrimFunc& func : module.funcs) {
        if (!func.body)
            continue;
        walkStmts(*func.body, [&](const ir::Stmt& s, const std::vector<const ir::Stmt*>&) {
            if (s.kind == ir::StmtKind::Kernel)
                out.push_back({&func, &s});
        });
    }
    return out;
}

int64_t blockThreads(const ir::Stmt& kernel) {
    int64_t threads = 1;
    for (int64_t t : kernel.threads)
        threads *= std::max<int64_t>(t, 1);
    return threads;
}

namespace {

void walkRec(const ir::Stmt& s, std::vector<const ir::Stmt*>& enclosing, int depth,
             const std::function<void(const ir::Stmt&, const std::vector<const ir::Stmt*>&)>& fn) {
    if (depth > ir::kMaxIrDepth)
        return;
    fn(s, enclosing);
    const bool isLoop = s.kind == ir::StmtKind::For;
    if (isLoop)
        enclosing.push_back(&s);
    ir::forEachChildStmt(s, [&](const ir::StmtPtr& child) {
        if (child)
            walkRec(*child, enclosing, depth + 1, fn);
    });
    if (isLoop)
        enclosing.pop_back();
}

} // namespace

void walkStmts(const ir::Stmt& root,
               const std::function<void(const ir::Stmt&, const std::vector<const ir::Stmt*>&)>& fn) {
    std::vector<const ir::Stmt*> enclosing;
    walkRec(root, enclosing, 0, fn);
}

namespace {

void scopeRec(const ir::Stmt& s, const ir::Stmt* scope, int depth,
              std::map<const ir::Stmt*, const ir::Stmt*>& out) {
    if (depth > ir::kMaxIrDepth)
        return;
    if (scope)
        out[&s] = scope;
    const ir::Stmt* inner = s.kind == StmtKind::WarpGroups ? &s : scope;
    ir::forEachChildStmt(s, [&](const ir::StmtPtr& child) { scopeRec(*child, inner, depth + 1, out); });
}

} // namespace

std::map<const ir::Stmt*, const ir::Stmt*> warpGroupScopes(const ir::Stmt& root) {
    std::map<const ir::Stmt*, const ir::Stmt*> out;
    scopeRec(root, nullptr, 0, out);
    return out;
}

void forEachBufferOf(const ir::Stmt& s, const std::function<void(const ir::Buffer*)>& fn) {
    ir::forEachRegion(s, [&](const ir::Region& r) {
        if (r.buffer)
            fn(r.buffer);
    });
    ir::forEachStmtExpr(s, [&](const ir::ExprPtr& e) {
        ir::forEachExprNode(e, [&](const ir::Expr& n) {
            if (n.kind == ir::ExprKind::BufferLoad && n.buffer)
                fn(n.buffer);
        });
    });
    for (const ir::Buffer* b : {s.buffer, s.srcBuffer, s.dstBuffer, s.printBuffer, s.barrier})
        if (b)
            fn(b);
}

bool isGlobalToSharedCopy(const ir::Stmt& s) {
    return s.kind == StmtKind::Copy && s.src.buffer && s.dst.buffer &&
           s.src.buffer->scope == MemoryScope::Global && s.dst.buffer->scope == MemoryScope::Shared;
}

std::set<const ir::Buffer*> writtenBuffers(const ir::Stmt& root) {
    std::set<const ir::Buffer*> written;
    walkStmts(root, [&](const ir::Stmt& s, const std::vector<const ir::Stmt*>&) {
        switch (s.kind) {
        case ir::StmtKind::Store:
            written.insert(s.buffer);
            break;
        case ir::StmtKind::Copy:
        case ir::StmtKind::CpAsync:
        case ir::StmtKind::Fill:
        case ir::StmtKind::AtomicAdd:
            written.insert(s.dst.buffer);
            break;
        case ir::StmtKind::Reduce:
            written.insert(s.dstBuffer);
            break;
        case ir::StmtKind::Gemm:
            written.insert(s.c.buffer);
            break;
        case ir::StmtKind::MmaIntrinsic:
            written.insert(s.mmaOp == ir::MmaIntrinsicOp::Mma ? s.c.buffer : s.dst.buffer);
            break;
        default:
            break;
        }
    });
    written.erase(nullptr);
    std::set<const ir::Buffer*> owners; // a write through a view writes its base
    for (const ir::Buffer* b : written)
        owners.insert(ir::storageOf(b));
    return owners;
}

void bufferEffects(const Stmt& root, std::optional<MemoryScope> scope, std::set<const Buffer*>& reads,
                   std::set<const Buffer*>& writes) {
    auto add = [&](std::set<const Buffer*>& set, const Buffer* b) {
        if (b && (!scope || b->scope == *scope))
            set.insert(storageOf(b)); // an access through a view is one of its base
    };
    auto exprReads = [&](const ExprPtr& e) {
        forEachExprNode(e, [&](const Expr& n) {
            if (n.kind == ExprKind::BufferLoad)
                add(reads, n.buffer);
        });
    };
    walkStmts(root, [&](const Stmt& s, const std::vector<const Stmt*>&) {
        forEachStmtExpr(s, exprReads);
        switch (s.kind) {
        case StmtKind::Store:
            add(writes, s.buffer);
            break;
        case StmtKind::Copy:
        case StmtKind::CpAsync:
            add(reads, s.src.buffer);
            add(writes, s.dst.buffer);
            break;
        case StmtKind::Gemm:
            add(reads, s.a.buffer);
            add(reads, s.b.buffer);
            break;
        case StmtKind::Fill:
            add(writes, s.dst.buffer);
            break;
        case StmtKind::AtomicAdd:
            add(reads, s.src.buffer);
            add(writes, s.dst.buffer);
            break;
        case StmtKind::Reduce:
            add(reads, s.srcBuffer);
            add(writes, s.dstBuffer);
            break;
        case StmtKind::MmaIntrinsic:
            if (s.mmaOp == MmaIntrinsicOp::Mma) {
                add(reads, s.a.buffer);
                add(reads, s.b.buffer);
                add(reads, s.c.buffer);
                add(writes, s.c.buffer);
            } else {
                add(reads, s.src.buffer);
                add(writes, s.dst.buffer);
            }
            break;
        case StmtKind::Seq:
        case StmtKind::Kernel:
        case StmtKind::For:
        case StmtKind::IfThenElse:
        case StmtKind::AnnotateLayout:
        case StmtKind::UseSwizzle:
        case StmtKind::Print:
        case StmtKind::WarpGroups:
        case StmtKind::Barrier: // mbarriers synchronize; they are not data
        case StmtKind::GridSync:
            break;
        }
    });
}

bool isPlainStoreList(const Stmt& body) {
    if (body.kind != StmtKind::Seq)
        return body.kind == StmtKind::Store;
    return std::all_of(body.stmts.begin(), body.stmts.end(),
                       [](const StmtPtr& s) { return !s || s->kind == StmtKind::Store; });
}

bool containsGridSync(const Stmt& root) {
    bool found = false;
    walkStmts(root, [&](const Stmt& s, const std::vector<const Stmt*>&) {
        found = found || s.kind == StmtKind::GridSync;
    });
    return found;
}

namespace {

bool usesMbarriers(const Stmt& scope) {
    bool found = false;
    if (scope.body)
        walkStmts(*scope.body, [&](const Stmt& s, const std::vector<const Stmt*>&) {
            found = found || s.kind == StmtKind::Barrier;
        });
    return found;
}

} // namespace

// A producer scope and a consumer scope that order their shared accesses with the program's mbarriers (the
// producer waits for a stage to be released before it refills it, the consumer waits for it to be filled)
// must run at the same time: run one after the other, the first would wait for an arrive that only the
// second makes.
size_t concurrentWarpGroupRun(const std::vector<StmtPtr>& stmts, size_t first) {
    size_t count = 0;
    for (size_t k = first; k < stmts.size(); ++k) {
        const StmtPtr& s = stmts[k];
        if (!s || s->kind != StmtKind::WarpGroups || !usesMbarriers(*s))
            break;
        bool disjoint = true;
        for (size_t j = first; j < k; ++j)
            disjoint = disjoint && (stmts[j]->firstThread + stmts[j]->threadCount <= s->firstThread ||
                                    s->firstThread + s->threadCount <= stmts[j]->firstThread);
        if (!disjoint)
            break;
        ++count;
    }
    return count >= 2 ? count : 0;
}

void sharedEffects(const Stmt& root, std::set<const Buffer*>& reads, std::set<const Buffer*>& writes) {
    bufferEffects(root, MemoryScope::Shared, reads, writes);
}

std::optional<std::vector<int64_t>> constantExtents(const ir::Region& region) {
    std::vector<int64_t> out;
    for (const ir::ExprPtr& e : region.extents) {
        std::optional<int64_t> v = ir::constantInt(e);
        if (!v || *v < 1)
            return std::nullopt;
        out.push_back(*v);
    }
    return out;
}

std::optional<std::vector<int64_t>> constantShape(const ir::Buffer& buffer) {
    std::vector<int64_t> out;
    for (size_t d = 0; d < buffer.rank(); ++d) {
        std::optional<int64_t> v = buffer.constantExtent(d);
        if (!v || *v < 1)
            return std::nullopt;
        out.push_back(*v);
    }
    return out;
}

std::vector<size_t> nonUnitDims(const std::vector<int64_t>& extents) {
    std::vector<size_t> out;
    for (size_t d = 0; d < extents.size(); ++d)
        if (extents[d] != 1)
            out.push_back(d);
    return out;
}

std::vector<bool> producedParams(const ir::PrimFunc& func) {
    std::vector<bool> marked, written;
    const std::set<const ir::Buffer*> writes = writtenBuffers(*func.body);
    for (const ir::Buffer* b : func.params) {
        marked.push_back(b->isOutput);
        written.push_back(writes.count(b) > 0);
    }
    auto any = [](const std::vector<bool>& v) { return std::find(v.begin(), v.end(), true) != v.end(); };
    if (any(marked))
        return marked;
    if (any(written))
        return written;
    return std::vector<bool>(func.params.size(), true);
}

} // namespace tb::ir
