// Text listing of the Tile IR (see Printer.h). Every line is built by `Listing::add`, which also records
// the statement and source range it came from, so the string form and the line table never disagree.
#include "engine/ir/Printer.h"

#include "engine/ir/Visitor.h"

#include <algorithm>
#include <cstdint>
#include <utility>

namespace tb::ir {

namespace {

// Column at which "# line N" comments start when the statement text is shorter.
constexpr size_t kCommentColumn = 56;

std::string joinExprs(const std::vector<ExprPtr>& exprs) {
    std::string out;
    for (size_t i = 0; i < exprs.size(); ++i) {
        if (i)
            out += ", ";
        out += exprs[i] ? printExpr(exprs[i]) : "<null>";
    }
    return out;
}

std::string joinInts(const std::vector<int>& values) {
    std::string out = "[";
    for (size_t i = 0; i < values.size(); ++i) {
        if (i)
            out += ", ";
        out += std::to_string(values[i]);
    }
    return out + "]";
}

std::string boolText(bool value) {
    return value ? "True" : "False";
}

std::string exprText(const ExprPtr& e) {
    return e ? printExpr(e) : "<null>";
}

// The loop's exclusive upper bound, folded ("0, 16" rather than "0, 0 + 16").
std::string loopStop(const Stmt& s) {
    if (!s.min || !s.extent)
        return exprText(s.extent);
    if (constantInt(s.min) == 0)
        return printExpr(s.extent);
    return printExpr(simplify(makeBinary(BinaryOp::Add, s.min, s.extent)));
}

std::string pythonString(const std::string& text) {
    std::string out = "\"";
    for (char c : text) {
        if (c == '"' || c == '\\')
            out += '\\';
        if (c == '\n') {
            out += "\\n";
            continue;
        }
        out += c;
    }
    return out + "\"";
}

std::string layoutText(const LayoutAnnotation& layout) {
    std::string out = layoutAnnotationKindName(layout.kind);
    std::string lambda = "lambda ";
    for (size_t i = 0; i < layout.placeholders.size(); ++i) {
        if (i)
            lambda += ", ";
        lambda += layout.placeholders[i] ? layout.placeholders[i]->name : "<null>";
    }
    switch (layout.kind) {
    case LayoutAnnotationKind::Swizzled:
        return out + "(k_major=" + boolText(layout.kMajor) + ", allow_pad=" + boolText(layout.allowPad) + ")";
    case LayoutAnnotationKind::WgmmaSwizzled:
        return out + "(continuity=" + std::to_string(layout.continuity) +
               ", k_major=" + boolText(layout.kMajor) + ")";
    case LayoutAnnotationKind::FullBankSwizzled:
    case LayoutAnnotationKind::HalfBankSwizzled:
    case LayoutAnnotationKind::QuarterBankSwizzled:
    case LayoutAnnotationKind::Linear:
        return out + "()";
    case LayoutAnnotationKind::CustomLayout:
        return out + "(" + lambda + ": [" + joinExprs(layout.forward) + "])";
    case LayoutAnnotationKind::CustomFragment:
        return out + "(" + lambda + ": thread=" + exprText(layout.thread) + ", index=[" +
               joinExprs(layout.forward) + "], replicate=" + std::to_string(layout.replicate) + ")";
    case LayoutAnnotationKind::FullyReplicated:
        return out + "(threads=" + std::to_string(layout.threads) + ")";
    }
    return out;
}

class Listing {
public:
    explicit Listing(const SourceManager* sources) : m_sources(sources) {}

    void add(int indent, std::string text, SourceRange range, const Stmt* stmt = nullptr,
             const Buffer* buffer = nullptr) {
        PrintedLine line;
        line.indent = indent;
        line.stmt = stmt;
        line.buffer = buffer;
        line.range = range;
        line.text = std::string(static_cast<size_t>(indent) * 2, ' ') + text;
        if (m_sources && range.valid && range.file < m_sources->fileCount()) {
            uint32_t lineNumber = m_sources->file(range.file).lineCol(range.begin).line;
            line.text.append(line.text.size() < kCommentColumn ? kCommentColumn - line.text.size() : 2, ' ');
            line.text += "# line " + std::to_string(lineNumber);
        }
        m_lines.push_back(std::move(line));
    }

    void stmt(const StmtPtr& s, int indent);
    std::vector<PrintedLine> take() { return std::move(m_lines); }

private:
    void forLoop(const Stmt& s, int indent);

    const SourceManager* m_sources;
    std::vector<PrintedLine> m_lines;
    int m_depth = 0; // recursion depth; a Seq nests without indenting
};

struct DepthGuard {
    int& depth;
    explicit DepthGuard(int& d) : depth(d) { ++depth; }
    ~DepthGuard() { --depth; }
};

void Listing::forLoop(const Stmt& s, int indent) {
    std::string var = s.loopVar ? s.loopVar->name : "<null>";
    if (s.loopKind == LoopKind::Parallel) {
        // T.Parallel(a, b) elaborates to nested parallel Fors; print the nest as it was written.
        std::vector<const Stmt*> nest{&s};
        const Stmt* inner = &s;
        while (nest.size() < 16) {
            const Stmt* body = inner->body.get();
            if (body && body->kind == StmtKind::Seq && body->stmts.size() == 1)
                body = body->stmts[0].get();
            if (!body || body->kind != StmtKind::For || body->loopKind != LoopKind::Parallel)
                break;
            nest.push_back(body);
            inner = body;
        }
        std::string vars, extents;
        int coalesced = 0;
        for (size_t i = 0; i < nest.size(); ++i) {
            const Stmt* loop = nest[i];
            if (i) {
                vars += ", ";
                extents += ", ";
            }
            vars += loop->loopVar ? loop->loopVar->name : "<null>";
            if (loop->min && constantInt(loop->min) == 0)
                extents += exprText(loop->extent);
            else
                extents += exprText(loop->min) + ":" + loopStop(*loop);
            if (loop->coalescedWidth)
                coalesced = loop->coalescedWidth;
        }
        std::string text = "for " + vars + " in parallel(" + extents;
        if (coalesced)
            text += ", coalesced_width=" + std::to_string(coalesced);
        add(indent, text + "):", s.range, &s);
        stmt(inner->body, indent + 1);
        return;
    }
    std::string text =
        "for " + var + " in " + loopKindName(s.loopKind) + "(" + exprText(s.min) + ", " + loopStop(s);
    if (s.loopKind == LoopKind::Pipelined) {
        text += ", num_stages=" + std::to_string(s.pipeline.numStages);
        if (!s.pipeline.order.empty())
            text += ", order=" + joinInts(s.pipeline.order);
        if (!s.pipeline.stage.empty())
            text += ", stage=" + joinInts(s.pipeline.stage);
        if (!s.pipeline.group.empty()) {
            text += ", group=[";
            for (size_t i = 0; i < s.pipeline.group.size(); ++i)
                text += (i ? ", " : "") + joinInts(s.pipeline.group[i]);
            text += "]";
        }
    }
    add(indent, text + "):", s.range, &s);
    stmt(s.body, indent + 1);
}

void Listing::stmt(const StmtPtr& sp, int indent) {
    if (!sp) {
        add(indent, "pass", {});
        return;
    }
    DepthGuard guard(m_depth);
    if (m_depth > kMaxIrDepth) {
        add(indent, "... (nested too deep to print)", sp->range, sp.get());
        return;
    }
    const Stmt& s = *sp;
    switch (s.kind) {
    case StmtKind::Seq:
        if (s.stmts.empty())
            add(indent, "pass", s.range, &s);
        for (const StmtPtr& child : s.stmts)
            stmt(child, indent);
        return;
    case StmtKind::Kernel: {
        std::string text = "kernel grid(" + joinExprs(s.grid) + ") threads(";
        for (size_t i = 0; i < s.threads.size(); ++i)
            text += (i ? ", " : "") + std::to_string(s.threads[i]);
        text += ")";
        if (!s.blockVars.empty()) {
            text += " as ";
            if (s.blockVars.size() > 1)
                text += "(";
            for (size_t i = 0; i < s.blockVars.size(); ++i)
                text += (i ? ", " : "") + (s.blockVars[i] ? s.blockVars[i]->name : std::string("<null>"));
            if (s.blockVars.size() > 1)
                text += ")";
        }
        add(indent, text + ":", s.range, &s);
        for (const Buffer* buffer : s.allocations) {
            if (!buffer)
                continue;
            std::string alloc = (buffer->viewOf ? "view " : "alloc ") + buffer->name + ": " +
                                printBufferType(*buffer) +
                                (buffer->viewOf ? " of " + buffer->viewOf->name : std::string());
            if (buffer->initValue && *buffer->initValue)
                alloc += " = " + printExpr(*buffer->initValue);
            if (!buffer->arriveCounts.empty()) {
                alloc += " arrive_count(";
                for (size_t i = 0; i < buffer->arriveCounts.size(); ++i)
                    alloc += (i ? ", " : "") + std::to_string(buffer->arriveCounts[i]);
                alloc += ")";
            }
            add(indent + 1, alloc, buffer->range, nullptr, buffer);
        }
        stmt(s.body, indent + 1);
        return;
    }
    case StmtKind::For:
        forLoop(s, indent);
        return;
    case StmtKind::IfThenElse:
        add(indent, "if " + exprText(s.cond) + ":", s.range, &s);
        stmt(s.body, indent + 1);
        if (s.elseBody) {
            add(indent, "else:", {});
            stmt(s.elseBody, indent + 1);
        }
        return;
    case StmtKind::Store: {
        std::string name = s.buffer ? s.buffer->name : "<null>";
        add(indent, name + "[" + joinExprs(s.indices) + "] = " + exprText(s.value), s.range, &s);
        return;
    }
    case StmtKind::Copy: {
        std::string text = "copy " + printRegion(s.src) + " -> " + printRegion(s.dst);
        if (s.disableTma)
            text += " (disable_tma=True)";
        if (s.evictionPolicy != EvictionPolicy::Normal)
            text += std::string(" (eviction_policy=") + evictionPolicyName(s.evictionPolicy) + ")";
        if (s.barrier)
            text += " (tma, barrier=" + s.barrier->name + "[" + exprText(s.barrierIndex) + "])";
        add(indent, text, s.range, &s);
        return;
    }
    case StmtKind::Gemm: {
        std::string text = "gemm " + printRegion(s.a) + ", " + printRegion(s.b) + " -> " + printRegion(s.c) +
                           " (transpose_A=" + boolText(s.transposeA) +
                           ", transpose_B=" + boolText(s.transposeB) +
                           ", policy=" + gemmWarpPolicyName(s.policy) +
                           ", clear_accum=" + (s.clearAccum ? printExpr(s.clearAccum) : "False");
        if (s.kPack != 1)
            text += ", k_pack=" + std::to_string(s.kPack);
        if (s.wgWait != 0)
            text += ", wg_wait=" + std::to_string(s.wgWait);
        add(indent, text + ")", s.range, &s);
        return;
    }
    case StmtKind::Fill:
        add(indent, "fill " + printRegion(s.dst) + " = " + exprText(s.value), s.range, &s);
        return;
    case StmtKind::Reduce:
        add(indent,
            std::string("reduce_") + reduceKindName(s.reduceKind) + " " +
                (s.srcBuffer ? s.srcBuffer->name : "<null>") + " -> " +
                (s.dstBuffer ? s.dstBuffer->name : "<null>") + " (dim=" + std::to_string(s.dim) +
                ", clear=" + boolText(s.clear) + ")",
            s.range, &s);
        return;
    case StmtKind::AtomicAdd: {
        std::string rhs = s.src.buffer ? printRegion(s.src) : exprText(s.value);
        add(indent, "atomic_add " + printRegion(s.dst) + " += " + rhs, s.range, &s);
        return;
    }
    case StmtKind::AnnotateLayout:
        for (const LayoutAnnotation& layout : s.layouts)
            add(indent,
                "annotate_layout " + (layout.buffer ? layout.buffer->name : std::string("<null>")) + ": " +
                    layoutText(layout),
                layout.range.valid ? layout.range : s.range, &s);
        if (s.layouts.empty())
            add(indent, "annotate_layout {}", s.range, &s);
        return;
    case StmtKind::UseSwizzle: {
        std::string text =
            "use_swizzle(panel=" + std::to_string(s.panelSize) + ", order=" + (s.rowOrder ? "row" : "col");
        if (s.value && constantInt(s.value) != 1)
            text += ", enable=" + printExpr(s.value);
        add(indent, text + ")", s.range, &s);
        return;
    }
    case StmtKind::WarpGroups: {
        std::string groups;
        for (int64_t g : s.warpGroups)
            groups += (groups.empty() ? "" : ", ") + std::to_string(g);
        add(indent,
            "ws(" + groups + "): threads " + std::to_string(s.firstThread) + ".." +
                std::to_string(s.firstThread + s.threadCount - 1),
            s.range, &s);
        stmt(s.body, indent + 1);
        return;
    }
    case StmtKind::Barrier: {
        std::string text = std::string(barrierOpName(s.barrierOp)) + " " +
                           (s.barrier ? s.barrier->name : std::string("<null>")) + "[" +
                           exprText(s.barrierIndex) + "]";
        if (s.value)
            text += std::string(s.barrierOp == BarrierOp::WaitParity ? " parity=" : " bytes=") +
                    exprText(s.value);
        add(indent, text, s.range, &s);
        return;
    }
    case StmtKind::GridSync:
        add(indent, "sync_grid", s.range, &s);
        return;
    case StmtKind::CpAsync: {
        std::string text = "ptx_cp_async " + printRegion(s.src) + " -> " + printRegion(s.dst);
        if (s.cond)
            text += " if " + exprText(s.cond);
        add(indent, text, s.range, &s);
        return;
    }
    case StmtKind::MmaIntrinsic: {
        std::string text = std::string("mma_intrinsic.") + mmaIntrinsicOpName(s.mmaOp) + " ";
        if (s.mmaOp == MmaIntrinsicOp::Mma)
            text += printRegion(s.a) + ", " + printRegion(s.b) + " -> " + printRegion(s.c);
        else
            text += printRegion(s.src) + " -> " + printRegion(s.dst);
        if (s.value)
            text += " (k_step=" + exprText(s.value) + ")";
        add(indent, text + " by " + mmaEmitterText(s.mmaEmitter), s.range, &s);
        return;
    }
    case StmtKind::Print: {
        std::string what = s.printBuffer ? s.printBuffer->name : exprText(s.value);
        std::string text = "print(" + what;
        if (!s.message.empty())
            text += ", msg=" + pythonString(s.message);
        add(indent, text + ")", s.range, &s);
        return;
    }
    }
}

} // namespace

std::string printBufferType(const Buffer& buffer) {
    return std::string(scopeName(buffer.scope)) + " " + dtypeName(buffer.dtype) + "[" +
           joinExprs(buffer.shape) + "]";
}

std::string printRegion(const Region& region) {
    std::string out = region.buffer ? region.buffer->name : "<null>";
    out += "[";
    size_t rank = std::max(region.mins.size(), region.extents.size());
    for (size_t i = 0; i < rank; ++i) {
        if (i)
            out += ", ";
        ExprPtr min = i < region.mins.size() ? region.mins[i] : nullptr;
        ExprPtr extent = i < region.extents.size() ? region.extents[i] : nullptr;
        auto lo = constantInt(min);
        auto ext = constantInt(extent);
        if (lo && ext)
            out += std::to_string(*lo) + ":" + std::to_string(*lo + *ext);
        else
            out += exprText(min) + " : +" + exprText(extent);
    }
    return out + "]";
}

std::vector<PrintedLine> printModuleLines(const Module& module, const SourceManager* sources) {
    Listing listing(sources);
    std::string header = "# tile program: " + (module.sourceName.empty() ? "<unnamed>" : module.sourceName);
    if (!module.jitFunction.empty() || !module.specialization.empty()) {
        header += "  (jit " + (module.jitFunction.empty() ? std::string("<none>") : module.jitFunction);
        for (size_t i = 0; i < module.specialization.size(); ++i) {
            const SpecializationParam& p = module.specialization[i];
            header += (i ? ", " : ": ") + p.name + "=" + p.text + " [" + paramOriginName(p.origin) + "]";
        }
        header += ")";
    }
    listing.add(0, header, {});
    for (const PrimFunc& func : module.funcs) {
        std::string signature = "prim_func " + func.name + "(";
        bool first = true;
        for (const Buffer* param : func.params) {
            if (!param)
                continue;
            signature += (first ? "" : ", ") + param->name + ": " + printBufferType(*param);
            if (param->isOutput)
                signature += " /*output*/";
            first = false;
        }
        for (const Var* dim : func.dynamicDims) {
            if (!dim)
                continue;
            signature += (first ? "" : ", ") + dim->name + ": " + dtypeName(dim->dtype) + " /*dynamic*/";
            first = false;
        }
        listing.add(0, signature + ")" + (func.fastMath ? " /*fast_math*/" : "") + ":", func.range);
        for (const Buffer* workspace : func.workspaces)
            if (workspace)
                listing.add(1, "workspace " + workspace->name + ": " + printBufferType(*workspace),
                            workspace->range, nullptr, workspace);
        listing.stmt(func.body, 1);
    }
    return listing.take();
}

std::string printModule(const Module& module, const SourceManager* sources) {
    std::string out;
    for (const PrintedLine& line : printModuleLines(module, sources))
        out += line.text + "\n";
    return out;
}

std::string printStmt(const StmtPtr& stmt, const SourceManager* sources) {
    Listing listing(sources);
    listing.stmt(stmt, 0);
    std::string out;
    for (const PrintedLine& line : listing.take())
        out += line.text + "\n";
    return out;
}

} // namespace tb::ir
