// Text and JSON printers of the layout plan.
#include "engine/layout/plan/PlanPrinter.h"

#include "engine/layout/algebra/FragmentTable.h"
#include "engine/target/Occupancy.h"

#include <cstdint>
#include <optional>
#include <ostream>
#include <sstream>
#include <string>
#include <vector>

namespace tb::layout {

namespace {

// A buffer's shape: constant extents as numbers, symbolic ones as their expression text.
void writeBufferShapeJson(JsonWriter& json, const ir::Buffer& b) {
    json.key("shape").beginArray();
    for (const ir::ExprPtr& e : b.shape) {
        if (auto v = ir::constantInt(e))
            json.value(*v);
        else
            json.value(ir::printExpr(e));
    }
    json.endArray();
}

std::string joinExprs(const std::vector<IndexExpr>& exprs) {
    std::string s;
    for (size_t i = 0; i < exprs.size(); ++i)
        s += (i ? ", " : "") + exprs[i].toString();
    return s;
}

std::string shapeText(const ir::Buffer& b) {
    std::string s = "[";
    for (size_t d = 0; d < b.shape.size(); ++d)
        s += (d ? ", " : "") + ir::printExpr(b.shape[d]);
    return s + "]";
}

std::string at(const PlanPrintOptions& o, const SourceRange& r) {
    std::string line = sourceLine(o, r);
    return line.empty() ? std::string() : " at line " + line;
}

void lineField(JsonWriter& json, const PlanPrintOptions& o, const SourceRange& r) {
    std::string line = sourceLine(o, r);
    if (line.empty())
        json.key("line").null();
    else
        json.field("line", int64_t(std::stoll(line)));
}

std::string fragmentFormula(const Fragment& f) {
    std::string s = "thread = " + f.threadExpr().toString() + ", reg = [" + joinExprs(f.indexExprs()) + "]";
    if (f.replicateExtent() > 1)
        s += ", replicate = " + std::to_string(f.replicateExtent());
    if (f.threadRange())
        s += ", threads [" + std::to_string(f.threadRange()->begin) + ", " +
             std::to_string(f.threadRange()->begin + f.threadRange()->extent) + ")";
    return s;
}

void writeOrigin(JsonWriter& json, const PlanPrintOptions& o, const LayoutOrigin& origin) {
    json.beginObject();
    json.field("level", inferenceLevelName(origin.level));
    json.field("description", origin.description);
    lineField(json, o, origin.range);
    json.endObject();
}

std::string kernelTitle(const KernelPlan& k, size_t index, const PlanPrintOptions& o) {
    return "kernel " + std::to_string(index) + " of " + (k.func ? k.func->name : std::string("?")) +
           (k.kernel ? at(o, k.kernel->range) : std::string()) + " (" + std::to_string(k.threads) +
           " threads)";
}

std::vector<const ir::Buffer*> kernelBuffers(const KernelPlan& k) {
    std::vector<const ir::Buffer*> out;
    if (k.kernel)
        for (const ir::Buffer* b : k.kernel->allocations)
            if (b && (b->scope == ir::MemoryScope::Fragment || b->scope == ir::MemoryScope::Shared))
                out.push_back(b);
    return out;
}

// The views (T.Tensor(shape, dtype, buf.data)) a kernel declares.
std::vector<const ir::Buffer*> kernelViews(const KernelPlan& k) {
    std::vector<const ir::Buffer*> out;
    if (k.kernel)
        for (const ir::Buffer* b : k.kernel->allocations)
            if (b && b->viewOf)
                out.push_back(b);
    return out;
}

void writeBuffersJson(JsonWriter& json, const KernelPlan& k, const PlanPrintOptions& o) {
    json.key("buffers").beginArray();
    for (const ir::Buffer* b : kernelBuffers(k)) {
        json.beginObject();
        json.field("name", b->name);
        if (!b->aliases.empty()) {
            json.key("aliases").beginArray();
            for (const std::string& alias : b->aliases)
                json.value(alias);
            json.endArray();
        }
        json.field("scope", ir::scopeName(b->scope));
        json.field("dtype", ir::dtypeName(b->dtype));
        writeBufferShapeJson(json, *b);
        lineField(json, o, b->range);
        if (const FragmentPlan* f = k.fragmentOf(b)) {
            json.key("fragment");
            writeFragmentJson(json, f->fragment,
                              o.fragmentTables && f->fragment.inputSize() <= kMaxTabulatedElements);
            json.key("origin");
            writeOrigin(json, o, f->origin);
        } else if (const SharedBufferPlan* s = k.sharedOf(b)) {
            json.key("shared").beginObject();
            json.field("kind", sharedLayoutKindName(s->choice.kind));
            json.key("layout");
            writeLayoutJson(json, s->choice.layout);
            json.field("annotated", s->annotated);
            json.field("reason", s->choice.reason);
            json.field("bytes", s->bytes);
            json.field("stages", s->stages);
            json.endObject();
        } else {
            json.key("fragment").null();
        }
        json.endObject();
    }
    json.endArray();
}

void writeKernelHeader(JsonWriter& json, const KernelPlan& k, size_t index, const PlanPrintOptions& o) {
    json.field("index", int64_t(index));
    json.field("func", k.func ? k.func->name : std::string());
    json.field("threads", k.threads);
    if (k.kernel)
        lineField(json, o, k.kernel->range);
}

} // namespace

std::string sourceLine(const PlanPrintOptions& options, const SourceRange& range) {
    if (!options.sources || !range.valid || range.file >= options.sources->fileCount())
        return {};
    return std::to_string(options.sources->file(range.file).lineCol(range.begin).line);
}

void writeLayoutJson(JsonWriter& json, const Layout& layout) {
    json.beginObject();
    json.key("shape").beginArray();
    for (int64_t e : layout.inputShape())
        json.value(e);
    json.endArray();
    json.key("forward").beginArray();
    for (const IndexExpr& e : layout.forwardIndex())
        json.value(e.toString());
    json.endArray();
    json.key("outputShape").beginArray();
    for (int64_t e : layout.outputShape())
        json.value(e);
    json.endArray();
    json.endObject();
}

void writeFragmentJson(JsonWriter& json, const Fragment& f, bool table) {
    json.beginObject();
    json.key("shape").beginArray();
    for (int64_t e : f.inputShape())
        json.value(e);
    json.endArray();
    json.field("thread", f.threadExpr().toString());
    json.key("index").beginArray();
    for (const IndexExpr& e : f.indexExprs())
        json.value(e.toString());
    json.endArray();
    json.field("replicate", f.replicateExtent());
    json.field("threadExtent", f.threadExtent());
    json.field("registersPerThread", f.registersPerThread());
    if (f.threadRange()) {
        json.key("threadRange").beginArray();
        json.value(f.threadRange()->begin);
        json.value(f.threadRange()->begin + f.threadRange()->extent);
        json.endArray();
    }
    json.field("formula", f.toString());
    if (table) {
        auto t = tabulateFragment(f);
        if (t) {
            // cells[element * replicate + rep] = [thread, register], elements in row-major order.
            json.key("cells").beginArray();
            for (const FragmentCell& c : t->cells) {
                json.beginArray();
                json.value(c.thread);
                json.value(c.reg);
                json.endArray();
            }
            json.endArray();
        }
    }
    json.endObject();
}

std::string printLayoutsText(const LayoutPlan& plan, const PlanPrintOptions& o) {
    std::ostringstream out;
    out << "target " << plan.target.name << "\n";
    for (size_t ki = 0; ki < plan.kernels.size(); ++ki) {
        const KernelPlan& k = plan.kernels[ki];
        out << kernelTitle(k, ki, o) << "\n";
        for (const ir::Buffer* b : kernelBuffers(k)) {
            out << "  " << ir::scopeName(b->scope) << " " << b->name << " " << shapeText(*b) << " "
                << ir::dtypeName(b->dtype);
            for (size_t a = 0; a < b->aliases.size(); ++a)
                out << (a == 0 ? " (also " : ", ") << b->aliases[a]
                    << (a + 1 == b->aliases.size() ? ")" : "");
            out << "\n";
            if (const FragmentPlan* f = k.fragmentOf(b)) {
                out << "    " << fragmentFormula(f->fragment) << "\n";
                out << "    " << f->registersPerThread << " registers/thread over "
                    << f->fragment.threadExtent() << " threads\n";
                out << "    origin: " << inferenceLevelName(f->origin.level) << ", " << f->origin.description
                    << "\n";
            } else if (const SharedBufferPlan* s = k.sharedOf(b)) {
                out << "    offset = " << joinExprs(s->choice.layout.forwardIndex()) << "  ("
                    << sharedLayoutKindName(s->choice.kind) << (s->annotated ? ", annotated" : "") << ")\n";
                out << "    " << s->bytes << " bytes x " << s->stages << " stage(s)\n";
                out << "    reason: " << s->choice.reason << "\n";
            } else {
                out << "    (no layout)\n";
            }
        }
    }
    return out.str();
}

namespace {

// The kernel schedule: the shared arena as the kernel addresses it, then each T.Pipelined loop.
void printScheduleText(std::ostream& out, const KernelPlan& k, const PlanPrintOptions& o) {
    const SharedArena& arena = k.schedule.arena;
    if (!arena.slots.empty() || arena.reduceScratchOffset >= 0) {
        out << "  shared arena: " << arena.totalBytes << " bytes, slots aligned to " << arena.alignment
            << " bytes"
            << (arena.baseAlignment > 128 ? ", the arena to " + std::to_string(arena.baseAlignment) : "")
            << "\n";
        for (const SharedArenaSlot& s : arena.slots)
            out << "    " << s.buffer->name << " @ " << s.offset << ": " << s.stageBytes << " bytes x "
                << s.stages << " stage(s) = " << s.totalBytes()
                << (s.alignment > arena.alignment ? " (aligned to " + std::to_string(s.alignment) + ")" : "")
                << "\n";
        if (arena.reduceScratchOffset >= 0)
            out << "    all-reduce scratch @ " << arena.reduceScratchOffset << ": "
                << arena.reduceScratchBytes << " bytes\n";
        if (arena.barrierOffset >= 0)
            out << "    mbarriers @ " << arena.barrierOffset << ": " << arena.barrierBytes << " bytes\n";
    }
    for (const PipelineSchedule& p : k.schedule.pipelines)
        out << "  pipeline" << at(o, p.loop->range) << ": " << pipelineShapeName(p.shape) << ", "
            << p.description << "\n";
    const WarpSpecializationPlan& ws = k.schedule.warpSpecialization;
    if (ws.enabled)
        out << "  warp specialization: " << ws.consumerThreads << " consumer + " << ws.producerThreads
            << " producer threads: " << ws.reason << "\n";
    else if (!ws.reason.empty())
        out << "  warp specialization: none (" << ws.reason << ")\n";
    for (const TmaCopyPlan& t : k.schedule.tmaCopies)
        out << "  tma" << at(o, t.copy->range) << " -> '" << t.copy->dst.buffer->name << "': " << t.reason
            << "\n";
}

void writeArenaJson(JsonWriter& json, const SharedArena& arena) {
    json.key("arena").beginObject();
    json.field("totalBytes", arena.totalBytes).field("alignment", arena.alignment);
    json.field("baseAlignment", arena.baseAlignment);
    json.key("slots").beginArray();
    for (const SharedArenaSlot& s : arena.slots) {
        json.beginObject();
        json.field("buffer", s.buffer->name).field("offset", s.offset).field("stageBytes", s.stageBytes);
        json.field("stages", int64_t(s.stages)).field("totalBytes", s.totalBytes());
        json.field("plannedLayout", s.usesPlannedLayout).field("alignment", s.alignment);
        json.endObject();
    }
    json.endArray();
    auto region = [&](const char* name, int64_t offset, int64_t bytes) {
        if (offset < 0) {
            json.key(name).null();
            return;
        }
        json.key(name).beginObject();
        json.field("offset", offset).field("bytes", bytes);
        json.endObject();
    };
    region("reduceScratch", arena.reduceScratchOffset, arena.reduceScratchBytes);
    region("barriers", arena.barrierOffset, arena.barrierBytes);
    json.endObject();
}

void writePipelineJson(JsonWriter& json, const PipelineSchedule& p, const PlanPrintOptions& o) {
    json.beginObject();
    lineField(json, o, p.loop->range);
    json.field("stages", int64_t(p.stages)).field("shape", pipelineShapeName(p.shape));
    json.field("waitGroupsInLoop", int64_t(p.waitGroupsInLoop));
    json.key("asyncCopies").beginArray();
    for (const PipelineCopy& c : p.asyncCopies) {
        json.beginObject();
        json.field("buffer", c.copy->dst.buffer->name);
        lineField(json, o, c.copy->range);
        if (p.shape == PipelineShape::EarlyIssue)
            json.field("issueAfterStatement", int64_t(c.issueAfter));
        json.endObject();
    }
    json.endArray();
    json.key("rings").beginArray();
    for (const BarrierRing& r : p.rings) {
        json.beginObject();
        json.key("buffers").beginArray();
        for (const ir::Stmt* c : r.copies)
            json.value(c->dst.buffer->name);
        json.endArray();
        json.field("firstUse", int64_t(r.firstUse)).field("lastUse", int64_t(r.lastUse));
        json.field("fullOffset", r.fullOffset).field("emptyOffset", r.emptyOffset).field("bytes", r.bytes);
        json.endObject();
    }
    json.endArray();
    json.field("wgmmaBatchInFlight", p.wgmmaBatchInFlight);
    json.field("description", p.description);
    json.endObject();
}

void writeScheduleJson(JsonWriter& json, const KernelPlan& k, const PlanPrintOptions& o) {
    json.key("schedule").beginObject();
    writeArenaJson(json, k.schedule.arena);
    json.key("pipelines").beginArray();
    for (const PipelineSchedule& p : k.schedule.pipelines)
        writePipelineJson(json, p, o);
    json.endArray();
    const WarpSpecializationPlan& ws = k.schedule.warpSpecialization;
    json.key("warpSpecialization").beginObject();
    json.field("enabled", ws.enabled).field("consumerThreads", ws.consumerThreads);
    json.field("producerThreads", ws.producerThreads);
    json.field("producerRegisters", int64_t(ws.producerRegisters));
    json.field("consumerRegisters", int64_t(ws.consumerRegisters));
    json.field("reason", ws.reason);
    json.endObject();
    json.key("tmaCopies").beginArray();
    for (const TmaCopyPlan& t : k.schedule.tmaCopies) {
        json.beginObject();
        json.field("buffer", t.copy->dst.buffer->name);
        lineField(json, o, t.copy->range);
        json.key("box").beginArray();
        for (int64_t b : t.box)
            json.value(b);
        json.endArray();
        json.field("swizzleBytes", int64_t(t.swizzleBytes)).field("panels", t.panels);
        json.field("bytes", t.bytes).field("reason", t.reason);
        json.endObject();
    }
    json.endArray();
    json.endObject();
}

// The prim_funcs' T.alloc_global workspaces: global memory every kernel of one run shares, so they are
// listed once, before the kernels.
void printWorkspacesText(std::ostream& out, const LayoutPlan& plan, const PlanPrintOptions& o) {
    const ir::PrimFunc* last = nullptr;
    for (const KernelPlan& k : plan.kernels) {
        if (!k.func || k.func == last || k.func->workspaces.empty())
            continue;
        last = k.func;
        out << "workspaces of " << k.func->name
            << " (global memory for the whole run, zeroed at its start)\n";
        for (const ir::Buffer* b : k.func->workspaces) {
            std::optional<int64_t> count = b->constantElementCount();
            out << "  global " << b->name << " " << shapeText(*b) << " " << ir::dtypeName(b->dtype)
                << (count ? ", " + std::to_string(*count * ir::dtypeBytes(b->dtype)) + " bytes"
                          : std::string())
                << at(o, b->range) << "\n";
        }
    }
}

void writeWorkspacesJson(JsonWriter& json, const LayoutPlan& plan, const PlanPrintOptions& o) {
    json.key("workspaces").beginArray();
    const ir::PrimFunc* last = nullptr;
    for (const KernelPlan& k : plan.kernels) {
        if (!k.func || k.func == last)
            continue;
        last = k.func;
        for (const ir::Buffer* b : k.func->workspaces) {
            json.beginObject();
            json.field("name", b->name).field("func", k.func->name).field("dtype", ir::dtypeName(b->dtype));
            writeBufferShapeJson(json, *b);
            lineField(json, o, b->range);
            json.endObject();
        }
    }
    json.endArray();
}

} // namespace

std::string printPlanText(const LayoutPlan& plan, const PlanPrintOptions& o) {
    std::ostringstream out;
    out << "target " << plan.target.name << "\n";
    printWorkspacesText(out, plan, o);
    for (size_t ki = 0; ki < plan.kernels.size(); ++ki) {
        const KernelPlan& k = plan.kernels[ki];
        out << kernelTitle(k, ki, o) << "\n";
        for (const ir::Buffer* v : kernelViews(k))
            out << "  view" << at(o, v->range) << " '" << v->name << "' " << ir::dtypeName(v->dtype)
                << shapeText(*v) << " of '" << v->viewOf->name << "'\n";
        for (const GemmPlan& g : k.gemms) {
            out << "  gemm" << at(o, g.gemm->range) << ": " << g.instruction.name;
            if (g.grid.instruction == GemmInstructionKind::Wgmma)
                out << " (n=" << g.grid.atomN << ")";
            out << ", " << ir::gemmWarpPolicyName(g.gemm->policy) << " -> " << g.grid.toString() << "\n";
            out << "    why: " << g.instruction.reason << "\n";
            out << "    C: " << fragmentFormula(g.fragmentC) << "\n";
            if (g.fragmentA.inputSize() > 0 && g.gemm->a.buffer &&
                g.gemm->a.buffer->scope == ir::MemoryScope::Fragment)
                out << "    A: " << fragmentFormula(g.fragmentA) << "\n";
        }
        for (const ParallelLoopPlan& l : k.loops) {
            out << "  parallel loop" << at(o, l.loop->range) << ": vector " << l.vectorWidth << " ("
                << l.vectorReason << ")\n";
            out << "    " << fragmentFormula(l.loopLayout) << "\n";
            out << "    layout: " << l.origin.description << "\n";
        }
        for (const ReducePlan& r : k.reduces) {
            out << "  reduce_" << ir::reduceKindName(r.reduce->reduceKind) << at(o, r.reduce->range) << " '"
                << r.reduce->srcBuffer->name << "' dim " << r.reduce->dim << " -> '"
                << r.reduce->dstBuffer->name << "': " << r.reason;
            if (r.throughSharedMemory)
                out << "; " << r.sharedScratchBytes << " bytes of shared scratch";
            out << "\n";
        }
        for (const CopyPlan& c : k.copies) {
            out << "  copy" << at(o, c.copy->range) << " '" << c.copy->src.buffer->name << "' -> '"
                << c.copy->dst.buffer->name << "': " << copyInstructionName(c.instruction) << ", vector "
                << c.vectorWidth << " (" << c.reason << ")\n";
        }
        printScheduleText(out, k, o);
        const SharedMemoryBudgetPlan& b = k.budget;
        out << "  shared memory: " << b.totalBytes << " of " << b.limitBytes << " bytes per block\n";
        // The app's budget view prints the same line, with ptxas's registers once it knows them.
        out << "  blocks per SM: " << computeOccupancy(plan.target, k.threads, b.totalBytes).limitsText()
            << "\n";
        if (k.cooperative.required)
            out << "  launch: cooperative (T.sync_grid" << at(o, k.cooperative.barrier) << "): "
                << (k.cooperative.gridBlocks ? std::to_string(*k.cooperative.gridBlocks)
                                             : std::string("a grid known at launch of"))
                << " blocks, all resident at once; at most " << k.cooperative.residentBlocks << " fit ("
                << b.blocksPerSm << " per SM x " << plan.target.smCount << " SMs)\n";
    }
    return out.str();
}

void writeLayoutsJson(JsonWriter& json, const LayoutPlan& plan, const PlanPrintOptions& o) {
    json.beginObject();
    json.field("schema", "tilebench-layouts");
    json.field("version", 1);
    json.field("target", plan.target.name);
    json.key("kernels").beginArray();
    for (size_t ki = 0; ki < plan.kernels.size(); ++ki) {
        json.beginObject();
        writeKernelHeader(json, plan.kernels[ki], ki, o);
        writeBuffersJson(json, plan.kernels[ki], o);
        json.endObject();
    }
    json.endArray();
    json.endObject();
}

void writePlanJson(JsonWriter& json, const LayoutPlan& plan, const PlanPrintOptions& o) {
    json.beginObject();
    json.field("schema", "tilebench-plan");
    json.field("version", 1);
    json.field("target", plan.target.name);
    writeWorkspacesJson(json, plan, o);
    json.key("kernels").beginArray();
    for (size_t ki = 0; ki < plan.kernels.size(); ++ki) {
        const KernelPlan& k = plan.kernels[ki];
        json.beginObject();
        writeKernelHeader(json, k, ki, o);
        writeBuffersJson(json, k, o);
        json.key("views").beginArray();
        for (const ir::Buffer* v : kernelViews(k)) {
            json.beginObject();
            lineField(json, o, v->range);
            json.field("name", v->name)
                .field("viewOf", v->viewOf->name)
                .field("dtype", ir::dtypeName(v->dtype));
            json.field("shape", shapeText(*v));
            json.endObject();
        }
        json.endArray();
        json.key("gemms").beginArray();
        for (const GemmPlan& g : k.gemms) {
            json.beginObject();
            lineField(json, o, g.gemm->range);
            json.field("instruction", g.instruction.name);
            json.field("instructionKind", gemmInstructionKindName(g.grid.instruction));
            json.key("atom").beginArray().value(g.grid.atomM).value(g.grid.atomN).endArray();
            json.field("reason", g.instruction.reason);
            json.field("policy", ir::gemmWarpPolicyName(g.gemm->policy));
            json.key("warpGrid").beginObject();
            json.field("mWarp", g.grid.mWarp).field("nWarp", g.grid.nWarp);
            json.field("warpTileM", g.grid.warpTileM).field("warpTileN", g.grid.warpTileN);
            json.field("summary", g.grid.toString());
            json.endObject();
            json.key("fragmentC");
            writeFragmentJson(json, g.fragmentC, false);
            json.key("fragmentA");
            if (g.fragmentA.inputSize() > 0)
                writeFragmentJson(json, g.fragmentA, false);
            else
                json.null();
            json.endObject();
        }
        json.endArray();
        json.key("loops").beginArray();
        for (const ParallelLoopPlan& l : k.loops) {
            json.beginObject();
            lineField(json, o, l.loop->range);
            json.key("layout");
            writeFragmentJson(json, l.loopLayout, false);
            json.field("vectorWidth", l.vectorWidth);
            json.field("vectorReason", l.vectorReason);
            json.key("origin");
            writeOrigin(json, o, l.origin);
            json.endObject();
        }
        json.endArray();
        json.key("reduces").beginArray();
        for (const ReducePlan& r : k.reduces) {
            json.beginObject();
            lineField(json, o, r.reduce->range);
            json.field("kind", ir::reduceKindName(r.reduce->reduceKind));
            json.field("src", r.reduce->srcBuffer->name).field("dst", r.reduce->dstBuffer->name);
            json.field("dim", r.reduce->dim);
            json.field("threadsPerOutput", r.threadsPerOutput);
            json.field("localElements", r.localElements);
            json.key("shuffleOffsets").beginArray();
            for (int x : r.shuffleOffsets)
                json.value(x);
            json.endArray();
            json.key("sharedOffsets").beginArray();
            for (int x : r.sharedOffsets)
                json.value(x);
            json.endArray();
            json.field("throughSharedMemory", r.throughSharedMemory);
            json.field("sharedScratchBytes", r.sharedScratchBytes);
            json.field("reason", r.reason);
            json.endObject();
        }
        json.endArray();
        json.key("copies").beginArray();
        for (const CopyPlan& c : k.copies) {
            json.beginObject();
            lineField(json, o, c.copy->range);
            json.field("src", c.copy->src.buffer->name).field("dst", c.copy->dst.buffer->name);
            json.field("instruction", copyInstructionName(c.instruction));
            json.field("vectorWidth", c.vectorWidth);
            json.field("reason", c.reason);
            json.key("threadMap");
            writeFragmentJson(json, c.threadMap, false);
            json.endObject();
        }
        json.endArray();
        writeScheduleJson(json, k, o);
        const SharedMemoryBudgetPlan& b = k.budget;
        json.key("budget").beginObject();
        json.field("totalBytes", b.totalBytes).field("limitBytes", b.limitBytes);
        json.field("blocksPerSmBySharedMemory", b.blocksPerSmBySharedMemory);
        json.field("blocksPerSmByThreads", b.blocksPerSmByThreads);
        json.field("blockLimit", plan.target.maxBlocksPerSm);
        json.field("blocksPerSm", b.blocksPerSm);
        json.field("limiter",
                   occupancyLimiterName(computeOccupancy(plan.target, k.threads, b.totalBytes).limiter));
        json.endObject();
        json.key("launch").beginObject();
        json.field("cooperative", k.cooperative.required);
        if (k.cooperative.required) {
            lineField(json, o, k.cooperative.barrier);
            if (k.cooperative.gridBlocks)
                json.field("gridBlocks", *k.cooperative.gridBlocks);
            else
                json.key("gridBlocks").null();
            json.field("residentBlocks", k.cooperative.residentBlocks);
        }
        json.endObject();
        json.endObject();
    }
    json.endArray();
    json.endObject();
}

} // namespace tb::layout
