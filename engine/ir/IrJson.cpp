// Tile IR -> JSON (see IrJson.h and the schema in docs/ir.md).
#include "engine/ir/IrJson.h"

#include "engine/ir/Printer.h"
#include "engine/ir/Visitor.h"

#include <algorithm>
#include <cstdint>
#include <string_view>
#include <type_traits>
#include <variant>
#include <vector>

namespace tb::ir {

namespace {

const char* exprKindName(ExprKind kind) {
    switch (kind) {
    case ExprKind::IntImm:
        return "IntImm";
    case ExprKind::FloatImm:
        return "FloatImm";
    case ExprKind::VarRef:
        return "VarRef";
    case ExprKind::BufferLoad:
        return "BufferLoad";
    case ExprKind::Binary:
        return "Binary";
    case ExprKind::Unary:
        return "Unary";
    case ExprKind::Select:
        return "Select";
    case ExprKind::Call:
        return "Call";
    case ExprKind::Cast:
        return "Cast";
    }
    return "?";
}

const char* stmtKindName(StmtKind kind) {
    switch (kind) {
    case StmtKind::Seq:
        return "Seq";
    case StmtKind::Kernel:
        return "Kernel";
    case StmtKind::For:
        return "For";
    case StmtKind::IfThenElse:
        return "IfThenElse";
    case StmtKind::Store:
        return "Store";
    case StmtKind::Copy:
        return "Copy";
    case StmtKind::Gemm:
        return "Gemm";
    case StmtKind::Fill:
        return "Fill";
    case StmtKind::Reduce:
        return "Reduce";
    case StmtKind::AtomicAdd:
        return "AtomicAdd";
    case StmtKind::AnnotateLayout:
        return "AnnotateLayout";
    case StmtKind::UseSwizzle:
        return "UseSwizzle";
    case StmtKind::Print:
        return "Print";
    case StmtKind::WarpGroups:
        return "WarpGroups";
    case StmtKind::Barrier:
        return "Barrier";
    case StmtKind::GridSync:
        return "GridSync";
    case StmtKind::CpAsync:
        return "CpAsync";
    case StmtKind::MmaIntrinsic:
        return "MmaIntrinsic";
    }
    return "?";
}

class IrJsonWriter {
public:
    IrJsonWriter(JsonWriter& out, const SourceManager* sources) : m_out(out), m_sources(sources) {}

    void loc(const SourceRange& range) {
        if (!m_sources || !range.valid)
            return;
        m_out.key("loc");
        writeLocationJson(m_out, range, m_sources);
    }

    void tree(const ExprPtr& e, int depth) {
        if (!e || depth > kMaxIrDepth) {
            m_out.null();
            return;
        }
        m_out.beginObject();
        m_out.field("kind", exprKindName(e->kind));
        m_out.field("dtype", dtypeName(e->dtype));
        switch (e->kind) {
        case ExprKind::IntImm:
            if (e->dtype == DType::Bool)
                m_out.field("value", e->intValue != 0);
            else
                m_out.field("value", e->intValue);
            break;
        case ExprKind::FloatImm:
            m_out.field("value", e->floatValue);
            break;
        case ExprKind::VarRef:
            m_out.field("var", e->var ? e->var->name : std::string());
            m_out.field("varId", e->var ? e->var->id : -1);
            break;
        case ExprKind::BufferLoad:
            m_out.field("buffer", e->buffer ? e->buffer->name : std::string());
            m_out.field("bufferId", e->buffer ? e->buffer->id : -1);
            operands("indices", e, depth);
            break;
        case ExprKind::Binary:
            m_out.field("op", binaryOpName(e->binaryOp));
            operand("lhs", e, 0, depth);
            operand("rhs", e, 1, depth);
            break;
        case ExprKind::Unary:
            m_out.field("op", unaryOpName(e->unaryOp));
            operand("operand", e, 0, depth);
            break;
        case ExprKind::Select:
            operand("cond", e, 0, depth);
            operand("then", e, 1, depth);
            operand("else", e, 2, depth);
            break;
        case ExprKind::Call:
            m_out.field("fn", intrinsicName(e->intrinsic));
            operands("args", e, depth);
            break;
        case ExprKind::Cast:
            operand("operand", e, 0, depth);
            break;
        }
        loc(e->range);
        m_out.endObject();
    }

    void expr(const ExprPtr& e) {
        if (!e) {
            m_out.null();
            return;
        }
        m_out.beginObject();
        m_out.field("text", printExpr(e));
        m_out.field("dtype", dtypeName(e->dtype));
        m_out.key("tree");
        tree(e, 0);
        m_out.endObject();
    }

    void exprList(std::string_view name, const std::vector<ExprPtr>& exprs) {
        m_out.key(name).beginArray();
        for (const ExprPtr& e : exprs)
            expr(e);
        m_out.endArray();
    }

    void var(const Var* v) {
        if (!v) {
            m_out.null();
            return;
        }
        m_out.beginObject();
        m_out.field("id", v->id);
        m_out.field("name", v->name);
        m_out.field("dtype", dtypeName(v->dtype));
        m_out.field("kind", varKindName(v->kind));
        loc(v->range);
        m_out.endObject();
    }

    void bufferRef(std::string_view nameKey, std::string_view idKey, const Buffer* b) {
        if (b)
            m_out.field(nameKey, b->name);
        else
            m_out.key(nameKey).null();
        m_out.field(idKey, b ? b->id : -1);
    }

    void buffer(const Buffer& b) {
        m_out.beginObject();
        m_out.field("id", b.id);
        m_out.field("name", b.name);
        if (!b.aliases.empty()) {
            m_out.key("aliases").beginArray();
            for (const std::string& alias : b.aliases)
                m_out.value(alias);
            m_out.endArray();
        }
        m_out.field("scope", scopeName(b.scope));
        m_out.field("dtype", dtypeName(b.dtype));
        exprList("shape", b.shape);
        m_out.field(
            "shapeText", "[" + [&] {
                std::string s;
                for (size_t i = 0; i < b.shape.size(); ++i)
                    s += (i ? ", " : "") + (b.shape[i] ? printExpr(b.shape[i]) : std::string("<null>"));
                return s;
            }() + "]");
        auto elements = b.constantElementCount();
        if (elements) {
            m_out.field("elements", *elements);
            m_out.field("bytes", *elements * dtypeBytes(b.dtype));
        } else {
            m_out.key("elements").null();
            m_out.key("bytes").null();
        }
        m_out.field("paramIndex", b.paramIndex);
        m_out.field("isOutput", b.isOutput);
        m_out.key("init");
        expr(b.initValue ? *b.initValue : nullptr);
        if (b.viewOf) {
            m_out.field("viewOf", b.viewOf->name);
            m_out.field("viewOfId", b.viewOf->id);
        }
        if (!b.arriveCounts.empty()) {
            m_out.key("arriveCounts").beginArray();
            for (int64_t c : b.arriveCounts)
                m_out.value(c);
            m_out.endArray();
        }
        loc(b.range);
        m_out.endObject();
    }

    void region(std::string_view name, const Region& r) {
        m_out.key(name);
        if (!r.buffer && r.mins.empty() && r.extents.empty()) {
            m_out.null();
            return;
        }
        m_out.beginObject();
        bufferRef("buffer", "bufferId", r.buffer);
        m_out.field("text", printRegion(r));
        exprList("mins", r.mins);
        exprList("extents", r.extents);
        loc(r.range);
        m_out.endObject();
    }

    void intList(std::string_view name, const std::vector<int>& values) {
        m_out.key(name).beginArray();
        for (int v : values)
            m_out.value(v);
        m_out.endArray();
    }

    void layout(const LayoutAnnotation& l) {
        m_out.beginObject();
        bufferRef("buffer", "bufferId", l.buffer);
        m_out.field("kind", layoutAnnotationKindName(l.kind));
        m_out.field("kMajor", l.kMajor);
        m_out.field("allowPad", l.allowPad);
        m_out.field("continuity", l.continuity);
        m_out.key("placeholders").beginArray();
        for (const Var* v : l.placeholders)
            var(v);
        m_out.endArray();
        exprList("forward", l.forward);
        m_out.key("thread");
        expr(l.thread);
        m_out.field("replicate", l.replicate);
        m_out.field("threads", l.threads);
        loc(l.range);
        m_out.endObject();
    }

    void stmt(const StmtPtr& sp, int depth) {
        if (!sp || depth > kMaxIrDepth) {
            m_out.null();
            return;
        }
        const Stmt& s = *sp;
        m_out.beginObject();
        m_out.field("kind", stmtKindName(s.kind));
        loc(s.range);
        switch (s.kind) {
        case StmtKind::Seq:
            m_out.key("stmts").beginArray();
            for (const StmtPtr& child : s.stmts)
                stmt(child, depth + 1);
            m_out.endArray();
            break;
        case StmtKind::Kernel:
            exprList("grid", s.grid);
            m_out.key("blockVars").beginArray();
            for (const Var* v : s.blockVars)
                var(v);
            m_out.endArray();
            m_out.key("threads").beginArray();
            for (int64_t t : s.threads)
                m_out.value(t);
            m_out.endArray();
            m_out.key("allocations").beginArray();
            for (const Buffer* b : s.allocations) {
                if (b)
                    buffer(*b);
                else
                    m_out.null();
            }
            m_out.endArray();
            m_out.key("body");
            stmt(s.body, depth + 1);
            break;
        case StmtKind::For:
            m_out.key("var");
            var(s.loopVar);
            m_out.field("loopKind", loopKindName(s.loopKind));
            m_out.key("min");
            expr(s.min);
            m_out.key("extent");
            expr(s.extent);
            m_out.key("pipeline").beginObject();
            m_out.field("numStages", s.pipeline.numStages);
            intList("order", s.pipeline.order);
            intList("stage", s.pipeline.stage);
            m_out.key("group").beginArray();
            for (const std::vector<int>& g : s.pipeline.group) {
                m_out.beginArray();
                for (int v : g)
                    m_out.value(v);
                m_out.endArray();
            }
            m_out.endArray();
            m_out.endObject();
            m_out.field("coalescedWidth", s.coalescedWidth);
            m_out.key("body");
            stmt(s.body, depth + 1);
            break;
        case StmtKind::IfThenElse:
            m_out.key("cond");
            expr(s.cond);
            m_out.key("then");
            stmt(s.body, depth + 1);
            m_out.key("else");
            stmt(s.elseBody, depth + 1);
            break;
        case StmtKind::Store:
            bufferRef("buffer", "bufferId", s.buffer);
            exprList("indices", s.indices);
            m_out.key("value");
            expr(s.value);
            break;
        case StmtKind::Copy:
            region("src", s.src);
            region("dst", s.dst);
            m_out.field("disableTma", s.disableTma);
            m_out.field("evictionPolicy", evictionPolicyName(s.evictionPolicy));
            if (s.barrier) {
                bufferRef("barrier", "barrierId", s.barrier);
                m_out.key("barrierIndex");
                expr(s.barrierIndex);
            }
            break;
        case StmtKind::Gemm:
            region("a", s.a);
            region("b", s.b);
            region("c", s.c);
            m_out.field("transposeA", s.transposeA);
            m_out.field("transposeB", s.transposeB);
            m_out.field("policy", gemmWarpPolicyName(s.policy));
            m_out.key("clearAccum");
            expr(s.clearAccum);
            m_out.field("kPack", s.kPack);
            m_out.field("wgWait", s.wgWait);
            break;
        case StmtKind::Fill:
            region("dst", s.dst);
            m_out.key("value");
            expr(s.value);
            break;
        case StmtKind::Reduce:
            m_out.field("reduceKind", reduceKindName(s.reduceKind));
            bufferRef("src", "srcId", s.srcBuffer);
            bufferRef("dst", "dstId", s.dstBuffer);
            m_out.field("dim", s.dim);
            m_out.field("clear", s.clear);
            break;
        case StmtKind::AtomicAdd:
            region("dst", s.dst);
            region("src", s.src);
            m_out.key("value");
            expr(s.value);
            break;
        case StmtKind::AnnotateLayout:
            m_out.key("layouts").beginArray();
            for (const LayoutAnnotation& l : s.layouts)
                layout(l);
            m_out.endArray();
            break;
        case StmtKind::UseSwizzle:
            m_out.field("panelSize", s.panelSize);
            m_out.field("order", s.rowOrder ? "row" : "col");
            m_out.key("enable");
            expr(s.value);
            break;
        case StmtKind::Print:
            bufferRef("buffer", "bufferId", s.printBuffer);
            m_out.key("value");
            expr(s.value);
            m_out.field("message", s.message);
            break;
        case StmtKind::WarpGroups:
            m_out.key("warpGroups").beginArray();
            for (int64_t g : s.warpGroups)
                m_out.value(g);
            m_out.endArray();
            m_out.field("firstThread", s.firstThread);
            m_out.field("threadCount", s.threadCount);
            m_out.key("body");
            stmt(s.body, depth + 1);
            break;
        case StmtKind::Barrier:
            m_out.field("op", barrierOpName(s.barrierOp));
            bufferRef("barrier", "barrierId", s.barrier);
            m_out.key("barrierIndex");
            expr(s.barrierIndex);
            m_out.key("value");
            expr(s.value);
            break;
        case StmtKind::GridSync:
            break; // no fields: the whole grid waits
        case StmtKind::CpAsync:
            region("src", s.src);
            region("dst", s.dst);
            m_out.key("predicate");
            expr(s.cond);
            break;
        case StmtKind::MmaIntrinsic:
            mmaIntrinsic(s);
            break;
        }
        m_out.endObject();
    }

    void mmaIntrinsic(const Stmt& s) {
        m_out.field("op", mmaIntrinsicOpName(s.mmaOp));
        if (s.mmaOp == MmaIntrinsicOp::Mma) {
            region("a", s.a);
            region("b", s.b);
            region("c", s.c);
        } else {
            region("src", s.src);
            region("dst", s.dst);
        }
        m_out.key("kStep");
        expr(s.value);
        const MmaEmitter& e = s.mmaEmitter;
        m_out.key("emitter").beginObject();
        m_out.field("aDtype", dtypeName(e.aDtype));
        m_out.field("bDtype", dtypeName(e.bDtype));
        m_out.field("accumDtype", dtypeName(e.accumDtype));
        m_out.field("aTransposed", e.aTransposed);
        m_out.field("bTransposed", e.bTransposed);
        m_out.field("blockRowWarps", e.blockRowWarps);
        m_out.field("blockColWarps", e.blockColWarps);
        m_out.field("warpRowTiles", e.warpRowTiles);
        m_out.field("warpColTiles", e.warpColTiles);
        m_out.field("chunk", e.chunk);
        m_out.endObject();
    }

    void specialization(const SpecializationParam& p) {
        m_out.beginObject();
        m_out.field("name", p.name);
        m_out.key("value");
        std::visit(
            [&](const auto& v) {
                using T = std::decay_t<decltype(v)>;
                if constexpr (std::is_same_v<T, std::monostate>)
                    m_out.null();
                else
                    m_out.value(v);
            },
            p.value);
        m_out.field("text", p.text);
        m_out.field("origin", paramOriginName(p.origin));
        loc(p.range);
        m_out.endObject();
    }

    // Kernels of a func body in order; statements that are not kernels go to `hostStmts`.
    void func(const PrimFunc& f) {
        m_out.beginObject();
        m_out.field("name", f.name);
        m_out.field("fastMath", f.fastMath);
        loc(f.range);
        m_out.key("params").beginArray();
        for (const Buffer* b : f.params) {
            if (b)
                buffer(*b);
            else
                m_out.null();
        }
        m_out.endArray();
        m_out.key("dynamicDims").beginArray();
        for (const Var* v : f.dynamicDims)
            var(v);
        m_out.endArray();
        m_out.key("workspaces").beginArray();
        for (const Buffer* b : f.workspaces) {
            if (b)
                buffer(*b);
            else
                m_out.null();
        }
        m_out.endArray();
        std::vector<StmtPtr> top;
        if (f.body && f.body->kind == StmtKind::Seq)
            top = f.body->stmts;
        else if (f.body)
            top.push_back(f.body);
        m_out.key("kernels").beginArray();
        for (const StmtPtr& s : top)
            if (s && s->kind == StmtKind::Kernel)
                stmt(s, 1);
        m_out.endArray();
        m_out.key("hostStmts").beginArray();
        for (const StmtPtr& s : top)
            if (s && s->kind != StmtKind::Kernel)
                stmt(s, 1);
        m_out.endArray();
        m_out.endObject();
    }

private:
    void operand(std::string_view name, const ExprPtr& e, size_t i, int depth) {
        m_out.key(name);
        tree(i < e->operands.size() ? e->operands[i] : nullptr, depth + 1);
    }
    void operands(std::string_view name, const ExprPtr& e, int depth) {
        m_out.key(name).beginArray();
        for (const ExprPtr& op : e->operands)
            tree(op, depth + 1);
        m_out.endArray();
    }

    JsonWriter& m_out;
    const SourceManager* m_sources;
};

} // namespace

void writeLocationJson(JsonWriter& out, const SourceRange& range, const SourceManager* sources) {
    if (!sources || !range.valid || range.file >= sources->fileCount()) {
        out.null();
        return;
    }
    const SourceFile& file = sources->file(range.file);
    LineCol begin = file.lineCol(range.begin);
    LineCol end = file.lineCol(std::max(range.begin, range.end));
    out.beginObject();
    out.field("line", static_cast<int64_t>(begin.line));
    out.field("col", static_cast<int64_t>(begin.column));
    out.field("endLine", static_cast<int64_t>(end.line));
    out.field("endCol", static_cast<int64_t>(end.column));
    out.endObject();
}

void writeExprJson(JsonWriter& out, const ExprPtr& expr, const SourceManager* sources) {
    IrJsonWriter(out, sources).expr(expr);
}

void writeStmtJson(JsonWriter& out, const StmtPtr& stmt, const SourceManager* sources) {
    IrJsonWriter(out, sources).stmt(stmt, 0);
}

void writeBufferJson(JsonWriter& out, const Buffer& buffer, const SourceManager* sources) {
    IrJsonWriter(out, sources).buffer(buffer);
}

std::string moduleToJson(const Module& module, const SourceManager* sources, bool pretty) {
    JsonWriter out(pretty);
    IrJsonWriter writer(out, sources);
    out.beginObject();
    out.field("format", "tilebench-ir");
    out.field("version", kIrJsonVersion);
    out.field("sourceName", module.sourceName);
    out.field("jitFunction", module.jitFunction);
    out.key("specialization").beginArray();
    for (const SpecializationParam& p : module.specialization)
        writer.specialization(p);
    out.endArray();
    out.key("funcs").beginArray();
    for (const PrimFunc& f : module.funcs)
        writer.func(f);
    out.endArray();
    out.endObject();
    return out.str();
}

} // namespace tb::ir
