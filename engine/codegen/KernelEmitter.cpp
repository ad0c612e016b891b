// Kernel emission: prologue, statements, expressions, per-thread loops and shared-memory barriers. The tile
// ops themselves are lowered in TileOpLowering.cpp. See KernelEmitter.h.
#include "engine/codegen/KernelEmitter.h"

#include "engine/codegen/DeviceHeader.h"
#include "engine/exec/HostTensor.h"
#include "engine/ir/IrQueries.h"
#include "engine/ir/Printer.h"
#include "engine/ir/Visitor.h"
#include "engine/layout/algebra/FragmentTable.h"
#include "engine/passes/IndexConversion.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <set>
#include <utility>

namespace tb::codegen {

using ir::Buffer;
using ir::DType;
using ir::Expr;
using ir::ExprKind;
using ir::ExprPtr;
using ir::MemoryScope;
using ir::Stmt;
using ir::StmtKind;
using layout::IndexExpr;
using layout::IndexExprKind;

namespace {

const char* blockIdxField(size_t d) {
    return d == 0 ? "blockIdx.x" : d == 1 ? "blockIdx.y" : "blockIdx.z";
}

// A literal of `type` as the CUDA float (double for float64) that holds its value. A float16/bfloat16/float8
// literal is a value of that type (TileLang's `x > 0.1` with a float16 x compares with float16's 0.1, as
// the CPU executor does), so it is rounded to the type first: 0.1 becomes 0.0999755859f, not 0.1f.
std::string floatLiteral(double v, DType type) {
    if (type != DType::Float64)
        v = roundToDType(v, type);
    if (std::isnan(v))
        return type == DType::Float64 ? "__longlong_as_double(0x7ff8000000000000LL)"
                                      : "__int_as_float(0x7fffffff)";
    if (std::isinf(v)) {
        std::string inf = type == DType::Float64 ? "((double)tb_inf())" : "tb_inf()";
        return v < 0 ? "(-" + inf + ")" : inf;
    }
    char buf[64];
    std::snprintf(buf, sizeof buf, type == DType::Float64 ? "%.17g" : "%.9g", v);
    std::string s = buf;
    if (s.find_first_of(".eEn") == std::string::npos)
        s += ".0";
    if (type != DType::Float64)
        s += "f";
    return s;
}

// `(text)` unless it is already one atom: a name, a number, or one parenthesized group.
std::string parenthesize(const std::string& text) {
    if (text.find_first_of(" +-*/%^&|?<>!~") == std::string::npos)
        return text;
    if (!text.empty() && text.front() == '(' && text.back() == ')') {
        int depth = 0;
        size_t k = 0;
        for (; k < text.size(); ++k) {
            depth += text[k] == '(' ? 1 : text[k] == ')' ? -1 : 0;
            if (depth == 0)
                break;
        }
        if (k + 1 == text.size())
            return text;
    }
    return "(" + text + ")";
}

// The float types narrower than float32: held as float in registers, rounded to their own grid.
bool isHalfLike(DType t) {
    return t == DType::Float16 || t == DType::BFloat16 || ir::isFloat8(t);
}

} // namespace

// IndexExpr -> C over named placeholders (indices are non-negative, so floor division is C division).
std::string indexExprToC(const IndexExpr& e, const std::map<std::string, std::string>& vars) {
    switch (e.kind()) {
    case IndexExprKind::Constant:
        return std::to_string(e.constantValue());
    case IndexExprKind::Var: {
        auto it = vars.find(e.varName());
        return it != vars.end() ? it->second : e.varName();
    }
    case IndexExprKind::Add:
        return "(" + indexExprToC(e.lhs(), vars) + " + " + indexExprToC(e.rhs(), vars) + ")";
    case IndexExprKind::Mul:
        return "(" + indexExprToC(e.lhs(), vars) + " * " + indexExprToC(e.rhs(), vars) + ")";
    case IndexExprKind::FloorDiv:
        return "(" + indexExprToC(e.lhs(), vars) + " / " + indexExprToC(e.rhs(), vars) + ")";
    case IndexExprKind::FloorMod:
        return "(" + indexExprToC(e.lhs(), vars) + " % " + indexExprToC(e.rhs(), vars) + ")";
    case IndexExprKind::Xor:
        return "(" + indexExprToC(e.lhs(), vars) + " ^ " + indexExprToC(e.rhs(), vars) + ")";
    case IndexExprKind::And:
        return "(" + indexExprToC(e.lhs(), vars) + " & " + indexExprToC(e.rhs(), vars) + ")";
    case IndexExprKind::Or:
        return "(" + indexExprToC(e.lhs(), vars) + " | " + indexExprToC(e.rhs(), vars) + ")";
    case IndexExprKind::Min:
        return "tb_min(" + indexExprToC(e.lhs(), vars) + ", " + indexExprToC(e.rhs(), vars) + ")";
    case IndexExprKind::Max:
        return "tb_max(" + indexExprToC(e.lhs(), vars) + ", " + indexExprToC(e.rhs(), vars) + ")";
    }
    return "0";
}

const char* cudaStorageType(DType type) {
    switch (type) {
    case DType::Bool:
        return "bool";
    case DType::Int8:
        return "signed char";
    case DType::Int16:
        return "short";
    case DType::Int32:
        return "int";
    case DType::Int64:
        return "long long";
    case DType::UInt8:
        return "unsigned char";
    case DType::UInt16:
        return "unsigned short";
    case DType::UInt32:
        return "unsigned";
    case DType::UInt64:
        return "unsigned long long";
    case DType::Float8E4M3:
    case DType::Float8E5M2:
        return "unsigned char";
    case DType::Float16:
        return "half_t";
    case DType::BFloat16:
        return "bfloat16_t";
    case DType::Float32:
        return "float";
    case DType::Float64:
        return "double";
    }
    return "float";
}

const char* cudaComputeType(DType type) {
    switch (type) {
    case DType::Float8E4M3:
    case DType::Float8E5M2:
    case DType::Float16:
    case DType::BFloat16:
        return "float";
    case DType::Bool:
    case DType::Int8:
    case DType::Int16:
    case DType::Int32:
    case DType::Int64:
    case DType::UInt8:
    case DType::UInt16:
    case DType::UInt32:
    case DType::UInt64:
    case DType::Float32:
    case DType::Float64:
        return cudaStorageType(type);
    }
    return "float";
}

KernelEmitter::KernelEmitter(const ir::Module& module, const ir::PrimFunc& func, const ir::Stmt& kernel,
                             const layout::KernelPlan* plan, const Target& target,
                             DiagnosticEngine& diagnostics, const SourceManager* sources,
                             std::string kernelName)
    : m_module(module), m_func(func), m_kernel(kernel), m_plan(plan), m_target(target), m_diags(diagnostics),
      m_sources(sources), m_kernelName(std::move(kernelName)) {
    m_threads = ir::blockThreads(kernel);
}

// ---------------------------------------------------------------------------------------------- output

void KernelEmitter::line(const std::string& text, SourceRange range) {
    m_out->push_back({std::string(size_t(m_indent) * 4, ' ') + text, range});
}

void KernelEmitter::open(const std::string& head, SourceRange range) {
    line(head + " {", range);
    ++m_indent;
}

void KernelEmitter::openBlock(const std::string& note, SourceRange range) {
    line(note.empty() ? "{" : "{ // " + note, range);
    ++m_indent;
}

void KernelEmitter::close(const std::string& tail) {
    --m_indent;
    line("}" + tail);
}

std::string KernelEmitter::lineTag(const SourceRange& range) const {
    if (!m_sources || !range.valid || range.file >= m_sources->fileCount())
        return "";
    return " (line " + std::to_string(m_sources->file(range.file).lineCol(range.begin).line) + ")";
}

void KernelEmitter::comment(const std::string& text, SourceRange range) {
    line("// " + text + lineTag(range), range);
}

bool KernelEmitter::error(const std::string& code, SourceRange range, std::string message, std::string hint) {
    m_diags.error(code, range.valid ? range : m_kernel.range, std::move(message), std::move(hint));
    m_failed = true;
    return false;
}

// ----------------------------------------------------------------------------------------------- names

void KernelEmitter::dropUnusedIndexLines(size_t first, size_t count) {
    auto isWordChar = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; };
    auto mentions = [&](const std::string& text, const std::string& name) {
        for (size_t at = text.find(name); at != std::string::npos; at = text.find(name, at + 1)) {
            bool before = at > 0 && isWordChar(text[at - 1]);
            bool after = at + name.size() < text.size() && isWordChar(text[at + name.size()]);
            if (!before && !after)
                return true;
        }
        return false;
    };
    std::vector<EmittedLine>& out = *m_out;
    // Where the lines after the declarations start: each erased declaration moves them up by one.
    size_t bodyStart = first + count;
    for (size_t i = bodyStart; i-- > first;) {
        const std::string& text = out[i].text;
        size_t start = text.find("const int ");
        if (start == std::string::npos)
            continue;
        size_t nameStart = start + 10, nameEnd = text.find(" = ", nameStart);
        if (nameEnd == std::string::npos)
            continue;
        std::string name = text.substr(nameStart, nameEnd - nameStart);
        std::string declaration = "const int " + name + " = ";
        bool used = false;
        for (size_t j = bodyStart; j < out.size() && !used; ++j)
            used = out[j].text.find(declaration) == std::string::npos && mentions(out[j].text, name);
        if (!used) {
            out.erase(out.begin() + long(i));
            --bodyStart;
        }
    }
}

std::string KernelEmitter::internalName(const std::string& base) {
    auto it = m_internal.find(base);
    if (it != m_internal.end())
        return it->second;
    return m_internal[base] = unique(base);
}

void KernelEmitter::collectUserNames() {
    for (const ir::Var& v : m_module.vars())
        m_userNames.insert(v.name);
    for (const ir::Buffer& b : m_module.buffers())
        m_userNames.insert(b.name);
    static const char* reserved[] = {
        "int",    "float",  "double", "char",     "short",    "long",   "unsigned", "signed",   "bool",
        "void",   "if",     "else",   "for",      "while",    "do",     "return",   "break",    "case",
        "switch", "const",  "static", "struct",   "union",    "enum",   "auto",     "new",      "delete",
        "this",   "class",  "true",   "false",    "half_t",   "printf", "register", "volatile", "default",
        "goto",   "extern", "inline", "template", "typename", "main"};
    for (const char* r : reserved)
        m_taken.insert(r);
}

std::string KernelEmitter::unique(const std::string& base) {
    std::string name = base;
    while (m_userNames.count(name) || m_taken.count(name))
        name += "_";
    m_taken.insert(name);
    return name;
}

namespace {
std::string sanitize(const std::string& name) {
    std::string s;
    for (char c : name)
        s += (std::isalnum(static_cast<unsigned char>(c)) || c == '_') ? c : '_';
    if (s.empty() || std::isdigit(static_cast<unsigned char>(s[0])))
        s = "v_" + s;
    if (s.rfind("tb_", 0) == 0)
        s = "u" + s;
    return s;
}
} // namespace

std::string KernelEmitter::nameOf(const ir::Var* var) {
    auto it = m_varNames.find(var);
    if (it != m_varNames.end())
        return it->second;
    std::string name = sanitize(var->name);
    while (m_taken.count(name))
        name += "_";
    m_taken.insert(name);
    return m_varNames[var] = name;
}

std::string KernelEmitter::nameOf(const ir::Buffer* buffer) {
    auto it = m_bufferNames.find(buffer);
    if (it != m_bufferNames.end())
        return it->second;
    std::string name = sanitize(buffer->name);
    while (m_taken.count(name))
        name += "_";
    m_taken.insert(name);
    return m_bufferNames[buffer] = name;
}

// -------------------------------------------------------------------------------------------- prologue

void KernelEmitter::planSharedArena() {
    // The kernel-schedule pass placed every shared buffer; the emitter keeps each one's addressing state.
    if (!m_plan)
        return;
    const layout::SharedArena& arena = m_plan->schedule.arena;
    for (const layout::SharedArenaSlot& s : arena.slots) {
        SharedSlot slot;
        slot.offset = s.offset;
        slot.stageElements = s.stageElements;
        slot.stages = s.stages;
        if (const layout::SharedBufferPlan* sp = m_plan->sharedOf(s.buffer); sp && s.usesPlannedLayout) {
            slot.layout = sp->choice.layout;
            slot.hasLayout = true;
            slot.layoutOutputSize = slot.layout.outputSize();
        }
        if (auto shape = ir::constantShape(*s.buffer))
            slot.shape = std::move(*shape);
        if (s.stages > 1)
            m_pipelineStages[s.buffer] = s.stages;
        m_shared[s.buffer] = slot;
    }
    m_reduceScratchOffset = arena.reduceScratchOffset;
    m_sharedBytes = arena.launchBytes();
}

// The dynamic shared-memory arena. TMA's swizzled writes and wgmma's descriptors need their tiles on the
// swizzle repeat (1024 bytes for 128B): the declaration's alignment reaches the PTX (`.align 1024`), and the
// driver places the arena on such a boundary.
void KernelEmitter::declareSharedArena() {
    if (m_sharedBytes <= 0)
        return;
    const int64_t alignment = m_plan ? std::max<int64_t>(m_plan->schedule.arena.baseAlignment, 128) : 128;
    line("extern __shared__ __align__(" + std::to_string(alignment) + ") unsigned char tb_smem[];");
    line("const unsigned tb_smem_s = tb_smem_addr(tb_smem); // the arena in the shared window (ldmatrix)");
}

std::string KernelEmitter::shapeText(const Buffer* buffer, size_t dim) const {
    const ExprPtr& e = buffer->shape[dim];
    if (auto c = ir::constantInt(e))
        return std::to_string(*c);
    return "(" + const_cast<KernelEmitter*>(this)->expr(e) + ")";
}

void KernelEmitter::findFragmentsRoundedByTheirCopies() {
    m_roundedByTheirCopies.clear();
    std::set<const ir::Buffer*> candidates, otherwiseRead;
    ir::walkStmts(m_kernel, [&](const Stmt& stmt, const std::vector<const Stmt*>&) {
        const Stmt* s = &stmt;
        ir::forEachStmtExpr(*s, [&](const ir::ExprPtr& e) {
            ir::forEachExprNode(e, [&](const ir::Expr& n) {
                if (n.kind == ExprKind::BufferLoad)
                    otherwiseRead.insert(n.buffer);
            });
        });
        bool roundingCopy =
            s->kind == StmtKind::Copy && s->src.buffer && s->dst.buffer &&
            (s->dst.buffer->scope == MemoryScope::Global || s->dst.buffer->scope == MemoryScope::Shared) &&
            s->dst.buffer->dtype == s->src.buffer->dtype;
        ir::forEachRegion(*s, [&](const ir::Region& r) {
            bool written =
                r.buffer == s->dst.buffer && (s->kind == StmtKind::Copy || s->kind == StmtKind::Fill);
            if (r.buffer && !written && !(roundingCopy && r.buffer == s->src.buffer))
                otherwiseRead.insert(r.buffer);
        });
        if (s->kind == StmtKind::Reduce)
            otherwiseRead.insert(s->srcBuffer);
        if (s->kind == StmtKind::Store && s->buffer && s->buffer->scope == MemoryScope::Fragment &&
            isHalfLike(s->buffer->dtype))
            candidates.insert(s->buffer);
    });
    for (const ir::Buffer* b : candidates)
        if (!otherwiseRead.count(b))
            m_roundedByTheirCopies.insert(b);
}

void KernelEmitter::declareL2Policies() {
    m_l2Policies.clear();
    std::set<ir::EvictionPolicy> wanted;
    ir::walkStmts(m_kernel, [&](const Stmt& s, const std::vector<const Stmt*>&) {
        if (s.kind == StmtKind::Copy && s.evictionPolicy != ir::EvictionPolicy::Normal)
            wanted.insert(s.evictionPolicy);
    });
    for (ir::EvictionPolicy p : wanted) {
        std::string name = ir::evictionPolicyName(p); // evict_first, evict_last
        m_l2Policies[p] = unique("l2_" + name);
        line("const tb_u64 " + m_l2Policies[p] + " = tb_policy_" + name + "(); // T.copy(eviction_policy=\"" +
             name + "\")");
    }
}

std::string KernelEmitter::l2PolicyOf(const ir::Stmt& copy) const {
    auto it = m_l2Policies.find(copy.evictionPolicy);
    return it == m_l2Policies.end() ? std::string() : it->second;
}

std::string KernelEmitter::vectorLoad(const std::string& vecType, const std::string& address,
                                      const std::string& l2Policy) {
    if (l2Policy.empty())
        return "*reinterpret_cast<const " + vecType + "*>(" + address + ")";
    return "tb_ld_hint(reinterpret_cast<const " + vecType + "*>(" + address + "), " + l2Policy + ")";
}

std::string KernelEmitter::vectorStore(const std::string& vecType, const std::string& address,
                                       const std::string& value, const std::string& l2Policy) {
    if (l2Policy.empty())
        return "*reinterpret_cast<" + vecType + "*>(" + address + ") = " + value + ";";
    return "tb_st_hint(reinterpret_cast<" + vecType + "*>(" + address + "), " + value + ", " + l2Policy +
           ");";
}

void KernelEmitter::emitPrologue(GeneratedKernel& out) {
    // Parameters: tensors in order, then the function's T.alloc_global workspaces (every kernel takes all
    // of them: the run allocates them once and passes the same arguments to each launch), then dynamic dims.
    std::string sig;
    std::vector<const Buffer*> tensors = m_func.params;
    tensors.insert(tensors.end(), m_func.workspaces.begin(), m_func.workspaces.end());
    for (const Buffer* b : tensors) {
        KernelParam p;
        p.kind = KernelParamKind::Tensor;
        p.buffer = b;
        p.name = nameOf(b);
        p.cType = std::string(cudaStorageType(b->dtype)) + "*";
        sig +=
            (sig.empty() ? "" : ", ") + std::string(cudaStorageType(b->dtype)) + "* __restrict__ " + p.name;
        out.params.push_back(p);
    }
    for (const ir::Var* v : m_func.dynamicDims) {
        KernelParam p;
        p.kind = KernelParamKind::DynamicDim;
        p.var = v;
        p.name = nameOf(v);
        p.cType = cudaStorageType(v->dtype);
        sig += (sig.empty() ? "" : ", ") + p.cType + " " + p.name;
        out.params.push_back(p);
    }
    sig += tensorMapSignature(out);
    std::string gridText;
    for (size_t d = 0; d < 3; ++d) {
        ExprPtr g = d < m_kernel.grid.size() ? m_kernel.grid[d] : ir::makeInt(1);
        out.launch.grid.push_back(g);
        out.launch.gridText.push_back(expr(g));
        if (d < m_kernel.grid.size())
            gridText += (d ? ", " : "") + ir::printExpr(g);
    }
    const layout::WarpSpecializationPlan* ws = warpSpecialization();
    const int64_t launchThreads = ws ? ws->launchThreads() : m_threads;
    out.launch.block[0] = launchThreads;
    out.launch.dynamicSharedBytes = m_sharedBytes;
    out.launch.cooperative = ir::containsGridSync(m_kernel);

    comment("kernel " + m_kernelName + ": grid (" + gridText + "), " + std::to_string(launchThreads) +
                " threads, " + std::to_string(m_sharedBytes) + " bytes of dynamic shared memory",
            m_kernel.range);
    // Warp specialization moves registers between warpgroups (setmaxnreg), which needs a cap at entry.
    line("extern \"C\" __global__ void __launch_bounds__(" + std::to_string(launchThreads) +
             (ws ? ", 1" : "") + ") " + m_kernelName + "(" + sig + ") {",
         m_kernel.range);
    ++m_indent;
    declareSharedArena();
    line("const int " + m_tx + " = threadIdx.x;");
    declareL2Policies();
    findFragmentsRoundedByTheirCopies();
    // Block indices, remapped by T.use_swizzle when present.
    const Stmt* swizzle = nullptr;
    ir::walkStmts(m_kernel, [&](const Stmt& s, const std::vector<const Stmt*>&) {
        if (s.kind == StmtKind::UseSwizzle && !swizzle)
            swizzle = &s;
    });
    bool rasterize = swizzle && m_kernel.blockVars.size() >= 2 &&
                     (!swizzle->value || ir::constantInt(swizzle->value) != 0);
    for (size_t d = 0; d < m_kernel.blockVars.size() && d < 3 && d < m_kernel.grid.size(); ++d)
        bindIndexRange(m_kernel.blockVars[d], ir::makeInt(0), m_kernel.grid[d]); // rasterization permutes
    for (size_t d = 0; d < m_kernel.blockVars.size() && d < 3; ++d)
        line(std::string(rasterize && d < 2 ? "int " : "const int ") + nameOf(m_kernel.blockVars[d]) + " = " +
                 blockIdxField(d) + ";",
             m_kernel.range);
    if (rasterize) {
        line(std::string(swizzle->rowOrder ? "tb_rasterize_row(" : "tb_rasterize_col(") +
                 std::to_string(swizzle->panelSize) + ", " + nameOf(m_kernel.blockVars[0]) + ", " +
                 nameOf(m_kernel.blockVars[1]) + "); // T.use_swizzle: L2-friendly block order",
             swizzle->range);
    }
    for (const Buffer* b : m_kernel.allocations) {
        switch (b->scope) {
        case MemoryScope::Shared: {
            auto it = m_shared.find(b);
            if (it == m_shared.end())
                break;
            const SharedSlot& slot = it->second;
            std::string how = slot.hasLayout && m_plan && m_plan->sharedOf(b)
                                  ? layout::sharedLayoutKindName(m_plan->sharedOf(b)->choice.kind)
                                  : "linear";
            line(std::string(cudaStorageType(b->dtype)) + "* " + nameOf(b) + " = reinterpret_cast<" +
                     cudaStorageType(b->dtype) + "*>(tb_smem + " + std::to_string(slot.offset) + "); // " +
                     std::to_string(slot.stages) + " x " + std::to_string(slot.stageElements) +
                     " elements, " + how,
                 b->range);
            break;
        }
        case MemoryScope::Fragment: {
            const layout::FragmentPlan* fp = m_plan ? m_plan->fragmentOf(b) : nullptr;
            if (!fp) {
                error("codegen-no-fragment-layout", b->range,
                      "fragment '" + b->name + "' has no layout in the plan",
                      "run the layout passes before code generation");
                break;
            }
            int64_t regs = fp->fragment.registersPerThread();
            line(std::string(cudaComputeType(b->dtype)) + " " + nameOf(b) + "[" + std::to_string(regs) +
                     "]; // fragment: " + std::to_string(regs) + " registers per thread",
                 b->range);
            break;
        }
        case MemoryScope::Local: {
            auto n = b->constantElementCount();
            if (!n) {
                error("codegen-dynamic-local", b->range,
                      "local buffer '" + b->name + "' has a symbolic shape");
                break;
            }
            line(std::string(cudaComputeType(b->dtype)) + " " + nameOf(b) + "[" + std::to_string(*n) + "];",
                 b->range);
            break;
        }
        case MemoryScope::LocalVar:
            line(std::string(cudaComputeType(b->dtype)) + " " + nameOf(b) +
                     (b->initValue ? " = " + expr(*b->initValue) : std::string(" = 0")) + ";",
                 b->range);
            break;
        case MemoryScope::Barrier:
            break; // declareBarriers
        case MemoryScope::Global:
            if (b->viewOf) { // the base's storage, addressed with the view's shape
                line(std::string(cudaStorageType(b->dtype)) + "* " + nameOf(b) + " = " + nameOf(b->viewOf) +
                         "; // view of '" + b->viewOf->name + "' as " + ir::printBufferType(*b),
                     b->range);
            }
            break; // workspaces are never in a kernel (the verifier's invariant): they are parameters
        }
    }
    declareBarriers();
    if (m_reduceScratchOffset >= 0) {
        m_reduceScratch = unique("red_buf");
        line("float* " + m_reduceScratch + " = reinterpret_cast<float*>(tb_smem + " +
             std::to_string(m_reduceScratchOffset) + "); // all-reduce scratch across warps");
    }
}

bool KernelEmitter::emit(std::vector<EmittedLine>& lines, GeneratedKernel& out) {
    m_out = &lines;
    collectUserNames();
    m_tx = unique("tx");
    m_blockTx = m_tx;
    m_regName = unique("r");
    m_repName = unique("rep");
    m_atomRowName = unique("mi");
    m_atomColName = unique("nj");
    m_accSlotName = unique("c");
    out.name = m_kernelName;
    out.kernel = &m_kernel;
    planSharedArena();
    emitPrologue(out);
    emitWarpSpecializationSplit();
    if (m_kernel.body)
        emitSeqOrStmt(m_kernel.body, 0);
    waitForAsyncCopies();
    close();
    return !m_failed;
}

// ------------------------------------------------------------------------------------------ statements

void KernelEmitter::emitSeqOrStmt(const ir::StmtPtr& s, int depth) {
    if (s)
        emitStmt(*s, depth);
}

void KernelEmitter::emitStmt(const Stmt& s, int depth) {
    if (depth > kMaxDepth) {
        error("codegen-too-deep", s.range, "statements nest deeper than " + std::to_string(kMaxDepth));
        return;
    }
    switch (s.kind) {
    case StmtKind::Seq:
        for (size_t k = 0; k < s.stmts.size(); ++k) {
            if (size_t run = concurrentScopeRun(s.stmts, k)) {
                emitConcurrentScopes(s.stmts, k, run, depth + 1);
                k += run - 1;
                continue;
            }
            emitSeqOrStmt(s.stmts[k], depth + 1);
        }
        return;
    case StmtKind::Kernel:
        error("codegen-nested-kernel", s.range, "a T.Kernel inside another kernel");
        return;
    case StmtKind::For:
        emitFor(s, depth);
        return;
    case StmtKind::IfThenElse: {
        // Branches are tracked separately and merged: a barrier inside is executed by every thread because
        // tile-level conditions are block-uniform.
        waitForAsyncCopies();
        open("if (" + expr(s.cond) + ")", s.range);
        BufferSet pr = m_pendingRead, pw = m_pendingWrite;
        emitSeqOrStmt(s.body, depth + 1);
        waitForAsyncCopies();
        BufferSet tr = m_pendingRead, tw = m_pendingWrite;
        m_pendingRead = pr;
        m_pendingWrite = pw;
        if (s.elseBody) {
            close(" else {");
            ++m_indent;
            emitSeqOrStmt(s.elseBody, depth + 1);
            waitForAsyncCopies();
        }
        close();
        m_pendingRead.insert(tr.begin(), tr.end());
        m_pendingWrite.insert(tw.begin(), tw.end());
        return;
    }
    case StmtKind::Store:
        syncFor(s);
        emitElementStmt(s, depth);
        return;
    case StmtKind::Copy:
        syncFor(s);
        lowerCopy(s);
        return;
    case StmtKind::Gemm:
        if (const layout::GemmPlan* wgmma = wgmmaPlanOf(s)) {
            lowerWgmma(s, *wgmma); // fences generic writes of its operands before it synchronizes
            return;
        }
        syncFor(s);
        lowerGemm(s);
        return;
    case StmtKind::Fill:
        syncFor(s);
        lowerFill(s);
        return;
    case StmtKind::Reduce:
        lowerReduce(s);
        return;
    case StmtKind::AtomicAdd:
        syncFor(s);
        lowerAtomicAdd(s);
        return;
    case StmtKind::AnnotateLayout:
        comment("T.annotate_layout: applied through the layout plan", s.range);
        return;
    case StmtKind::UseSwizzle:
        comment("T.use_swizzle(panel_size=" + std::to_string(s.panelSize) +
                    "): applied to the block indices above",
                s.range);
        return;
    case StmtKind::Print:
        emitPrint(s);
        return;
    case StmtKind::WarpGroups:
        emitWarpGroups(s, depth);
        return;
    case StmtKind::Barrier:
        emitBarrierOp(s);
        return;
    case StmtKind::GridSync:
        emitGridSync(s);
        return;
    case StmtKind::CpAsync:
        lowerCpAsync(s);
        return;
    case StmtKind::MmaIntrinsic:
        syncFor(s);
        lowerMmaIntrinsic(s);
        return;
    }
}

void KernelEmitter::emitFor(const Stmt& s, int depth) {
    if (s.loopKind == ir::LoopKind::Parallel) {
        emitParallelNest(s);
        return;
    }
    if (s.loopKind == ir::LoopKind::Pipelined && m_plan)
        if (const layout::PipelineSchedule* p = m_plan->schedule.pipelineOf(&s);
            p && p->shape == layout::PipelineShape::WarpSpecialized) {
            emitWarpSpecializedPipeline(s, *p, depth);
            return;
        }
    if (s.loopKind == ir::LoopKind::Pipelined && s.pipeline.numStages >= 2) {
        emitPipelined(s, depth);
        return;
    }
    if (s.loopKind == ir::LoopKind::Pipelined && s.pipeline.numStages == 1 &&
        emitSingleStagePipeline(s, depth))
        return;
    BufferSet r, w;
    if (s.body)
        ir::sharedEffects(*s.body, r, w);
    waitForAsyncCopies();
    std::string v = nameOf(s.loopVar);
    std::string lo = expr(s.min), n = expr(s.extent);
    std::string what =
        s.loopKind == ir::LoopKind::Pipelined
            ? "T.Pipelined(num_stages=" + std::to_string(s.pipeline.numStages) + "): not software-pipelined"
            : std::string("T.") + ir::loopKindName(s.loopKind);
    comment(what, s.range);
    if (s.loopKind == ir::LoopKind::Unroll)
        line("#pragma unroll");
    std::string upper = ir::constantInt(s.min) == 0 ? n : lo + " + " + n;
    open("for (int " + v + " = " + lo + "; " + v + " < " + upper + "; ++" + v + ")", s.range);
    // The previous iteration's accesses.
    m_pendingRead.insert(r.begin(), r.end());
    m_pendingWrite.insert(w.begin(), w.end());
    bindIndexRange(s.loopVar, s.min, s.extent);
    emitSeqOrStmt(s.body, depth + 1);
    waitForAsyncCopies();
    unbindIndexRange(s.loopVar);
    close();
    m_pendingRead.insert(r.begin(), r.end());
    m_pendingWrite.insert(w.begin(), w.end());
}

void KernelEmitter::emitParallelNest(const Stmt& s) {
    std::vector<const ir::Var*> vars;
    std::vector<int64_t> extents;
    const Stmt* cur = &s;
    const Stmt* body = nullptr;
    while (true) {
        auto ext = ir::constantInt(cur->extent);
        if (!ext || ir::constantInt(cur->min) != 0) {
            error("codegen-dynamic-parallel", cur->range,
                  "T.Parallel extents must be compile-time constants starting at 0 in the CUDA backend");
            return;
        }
        vars.push_back(cur->loopVar);
        extents.push_back(*ext);
        const Stmt* inner = cur->body.get();
        if (inner && inner->kind == StmtKind::Seq && inner->stmts.size() == 1)
            inner = inner->stmts[0].get();
        if (inner && inner->kind == StmtKind::For && inner->loopKind == ir::LoopKind::Parallel) {
            cur = inner;
            continue;
        }
        body = cur->body.get();
        break;
    }
    if (!body)
        return;
    const layout::ParallelLoopPlan* lp = nullptr;
    if (m_plan)
        for (const auto& p : m_plan->loops)
            if (p.loop == &s)
                lp = &p;
    layout::Fragment map;
    std::string origin;
    int loopVector = 1;
    if (lp && lp->loopLayout.inputShape() == extents) {
        map = lp->loopLayout;
        origin = lp->origin.description;
        loopVector = lp->vectorWidth;
    } else {
        map = defaultPartition(extents, m_threads, 1);
        origin = "default partition";
    }
    syncFor(s);
    std::string shape;
    for (int64_t e : extents)
        shape += (shape.empty() ? "" : ", ") + std::to_string(e);
    // Each iteration of a T.Parallel loop runs once: where the partition replicates iterations over
    // threads, only replica 0 stores to shared or global memory (a body that reads what it writes, such as a
    // serial scan along a row, would otherwise race with its own replicas).
    emitSimtLoop(map, vars, *body, s.range,
                 "T.Parallel(" + shape + ")" + (origin.empty() ? "" : " [" + origin + "]"), true, loopVector,
                 {}, true);
}

void KernelEmitter::emitPipelined(const Stmt& s, int depth) {
    const int S = s.pipeline.numStages;
    std::vector<ir::StmtPtr> stmts = s.body->kind == StmtKind::Seq ? s.body->stmts : std::vector{s.body};
    // The kernel schedule says which of the body's copies are issued ahead into stage buffers.
    const layout::PipelineSchedule* schedule = m_plan ? m_plan->schedule.pipelineOf(&s) : nullptr;
    auto scheduledAsync = [&](const Stmt* c) {
        return schedule && std::any_of(schedule->asyncCopies.begin(), schedule->asyncCopies.end(),
                                       [&](const layout::PipelineCopy& p) { return p.copy == c; });
    };
    std::vector<const Stmt*> async, rest;
    for (const auto& c : stmts)
        (scheduledAsync(c.get()) ? async : rest).push_back(c.get());
    std::string v = nameOf(s.loopVar);
    std::string lo = expr(s.min);
    bool zeroMin = ir::constantInt(s.min) == 0;
    std::string n = expr(s.extent);
    auto iterValue = [&](const std::string& it) { return zeroMin ? it : "(" + lo + " + " + it + ")"; };
    // Buffers the loop touches must be free before the prologue's copies start.
    BufferSet loopReads, loopWrites;
    ir::sharedEffects(*s.body, loopReads, loopWrites);
    waitForAsyncCopies();
    syncFor(loopReads, loopWrites);
    std::string stageVar = unique("stage");
    bindIndexRange(s.loopVar, s.min, s.extent); // the prologue and prefetch guards keep it in range
    comment("T.Pipelined(num_stages=" + std::to_string(S) + "): " + std::to_string(S - 1) +
                " tiles in flight through cp.async, stage-indexed shared buffers",
            s.range);
    // Prologue: the first S-1 iterations' copies, one commit group each.
    comment("pipeline prologue: load the first " + std::to_string(S - 1) + " tiles", s.range);
    line("#pragma unroll");
    open("for (int " + stageVar + " = 0; " + stageVar + " < " + std::to_string(S - 1) + "; ++" + stageVar +
             ")",
         s.range);
    // The loop's copies for iteration `iteration` into stage `slot`, committed and waited for by the loop.
    auto issueCopies = [&](const std::string& iteration, const std::string& slot) {
        m_varOverride[s.loopVar] = iterValue(iteration);
        for (const Stmt* c : async)
            m_stageExpr[c->dst.buffer] = slot;
        m_inPipelineIssue = true;
        for (const Stmt* c : async)
            lowerCopy(*c);
        m_inPipelineIssue = false;
        m_varOverride.erase(s.loopVar);
    };
    open("if (" + stageVar + " < " + n + ")", s.range);
    issueCopies(stageVar, stageVar);
    close();
    line("tb_cp_async_commit();", s.range);
    close();
    // Stage slots advance with the loop (no modulo per access).
    const std::string readSlot = unique("read_slot"), writeSlot = unique("write_slot");
    const std::string stages = std::to_string(S);
    line("int " + readSlot + " = 0, " + writeSlot + " = " + std::to_string(S - 1) + "; // the stage tile " +
             v + " is read from, the stage tile " + v + " + " + std::to_string(S - 1) + " lands in",
         s.range);
    auto advance = [&](const std::string& slot) {
        line(slot + " = " + slot + " + 1 == " + stages + " ? 0 : " + slot + " + 1;", s.range);
    };
    std::string it = zeroMin ? v : unique(v + "_iter");
    PipelineSteps steps;
    steps.readSlot = readSlot;
    steps.hasNextTile = it + " + 1 < " + n;
    steps.openLoop = [&] {
        open("for (int " + it + " = 0; " + it + " < " + n + "; ++" + it + ")", s.range);
        if (!zeroMin)
            line("const int " + v + " = " + lo + " + " + it + ";");
    };
    steps.waitTile = [&](bool advanceSlot) {
        line("tb_cp_async_wait<" + std::to_string(S - 2) + ">(); // the next tile has landed", s.range);
        barrier("all threads' copies visible; the slot read last is free");
        if (advanceSlot)
            advance(readSlot);
    };
    steps.issuePrefetch = [&] {
        std::string ahead = "(" + it + " + " + std::to_string(S - 1) + ")";
        open("if (" + ahead + " < " + n + ")", s.range);
        comment("prefetch tile " + ahead + " into slot " + writeSlot, s.range);
        issueCopies(ahead, writeSlot);
        close();
        line("tb_cp_async_commit();", s.range);
        advance(writeSlot);
        for (const Stmt* c : async)
            m_stageExpr[c->dst.buffer] = readSlot;
    };
    for (const Stmt* c : async)
        m_stageExpr[c->dst.buffer] = readSlot;
    bool woven = rest.size() == 1 && rest[0]->kind == StmtKind::Gemm && !wgmmaPlanOf(*rest[0]) &&
                 emitWovenGemmPipeline(*rest[0], steps);
    if (!woven) {
        steps.openLoop();
        line("tb_cp_async_wait<" + std::to_string(S - 2) + ">(); // tile " + it + " has landed", s.range);
        barrier("all threads' copies visible; slot " + it + " - 1 is free");
        steps.issuePrefetch();
        for (const Stmt* c : rest)
            emitStmt(*c, depth + 1);
        advance(readSlot);
        close();
    }
    for (const Stmt* c : async)
        m_stageExpr.erase(c->dst.buffer);
    unbindIndexRange(s.loopVar);
    line("tb_cp_async_wait<0>(); // drain the (empty) trailing groups", s.range);
    m_pendingRead.insert(loopReads.begin(), loopReads.end());
    m_pendingWrite.insert(loopWrites.begin(), loopWrites.end());
}

void KernelEmitter::emitElementStmt(const Stmt& s, int depth) {
    if (depth > kMaxDepth) {
        error("codegen-too-deep", s.range, "statements nest deeper than " + std::to_string(kMaxDepth));
        return;
    }
    switch (s.kind) {
    case StmtKind::Seq:
        for (const auto& c : s.stmts)
            if (c)
                emitElementStmt(*c, depth + 1);
        return;
    case StmtKind::Store: {
        std::string value = storedValue(s.buffer, s.value);
        std::string lhs = lvalueText(s.buffer, s.indices, 0);
        std::string text = lhs + " = " + toStorage(s.buffer, value) + ";";
        bool guard = m_simt && m_simt->guardReplicaStores && !m_simt->rep.empty() &&
                     (s.buffer->scope == MemoryScope::Global || s.buffer->scope == MemoryScope::Shared);
        if (guard)
            text = "if (" + m_simt->rep + " == 0) " + text;
        line(text, s.range);
        return;
    }
    case StmtKind::IfThenElse:
        open("if (" + expr(s.cond) + ")", s.range);
        if (s.body)
            emitElementStmt(*s.body, depth + 1);
        if (s.elseBody) {
            close(" else {");
            ++m_indent;
            emitElementStmt(*s.elseBody, depth + 1);
        }
        close();
        return;
    case StmtKind::For: {
        if (s.loopKind == ir::LoopKind::Parallel || s.loopKind == ir::LoopKind::Pipelined) {
            error("codegen-nested-parallel", s.range, "a T.Parallel or T.Pipelined loop inside element code");
            return;
        }
        std::string v = nameOf(s.loopVar);
        std::string upper =
            ir::constantInt(s.min) == 0 ? expr(s.extent) : expr(s.min) + " + " + expr(s.extent);
        if (s.loopKind == ir::LoopKind::Unroll || ir::constantInt(s.extent))
            line("#pragma unroll");
        open("for (int " + v + " = " + expr(s.min) + "; " + v + " < " + upper + "; ++" + v + ")", s.range);
        bindIndexRange(s.loopVar, s.min, s.extent);
        if (s.body)
            emitElementStmt(*s.body, depth + 1);
        unbindIndexRange(s.loopVar);
        close();
        return;
    }
    case StmtKind::AtomicAdd: {
        if (!s.value || !s.dst.buffer) {
            error("codegen-unsupported", s.range, "tile-level T.atomic_add inside element code");
            return;
        }
        std::string lhs = lvalueText(s.dst.buffer, s.dst.mins, 0);
        std::string text = "atomicAdd(&" + lhs + ", " + expr(s.value) + ");";
        if (m_simt && !m_simt->rep.empty())
            text = "if (" + m_simt->rep + " == 0) " + text;
        line(text, s.range);
        return;
    }
    case StmtKind::Print:
        emitPrint(s);
        return;
    case StmtKind::Kernel:
    case StmtKind::Copy:
    case StmtKind::Gemm:
    case StmtKind::Fill:
    case StmtKind::Reduce:
    case StmtKind::AnnotateLayout:
    case StmtKind::UseSwizzle:
    case StmtKind::WarpGroups:
    case StmtKind::Barrier:
    case StmtKind::GridSync:
    case StmtKind::CpAsync:
    case StmtKind::MmaIntrinsic:
        error("codegen-tile-op-in-parallel", s.range, "a tile operation inside a T.Parallel loop",
              "move the tile operation out of the T.Parallel loop");
        return;
    }
}

void KernelEmitter::emitPrint(const Stmt& s) {
    std::string msg;
    for (char c : s.message) {
        if (c == '"' || c == '\\')
            msg += '\\';
        if (c == '%')
            msg += '%';
        msg += c;
    }
    if (s.value) {
        bool isInt = ir::isInteger(s.value->dtype) || s.value->dtype == DType::Bool;
        line("if (" + m_tx + " == 0) printf(\"" + msg + (isInt ? " %lld" : " %f") + "\\n\", " +
                 (isInt ? "(long long)(" : "(double)(") + expr(s.value) + "));",
             s.range);
    } else {
        line("if (" + m_tx + " == 0) printf(\"" + msg +
                 "\\n\"); // buffer contents are printed by the CPU executor",
             s.range);
    }
}

// --------------------------------------------------------------------------- shared-memory barriers

void KernelEmitter::syncFor(const Stmt& s) {
    BufferSet r, w;
    ir::sharedEffects(s, r, w);
    syncFor(r, w);
}

namespace {
bool intersects(const std::set<const ir::Buffer*>& a, const std::set<const ir::Buffer*>& b) {
    for (const ir::Buffer* x : a)
        if (b.count(x))
            return true;
    return false;
}
} // namespace

// Barriers per buffer: a read after another thread's write of the same buffer, or a write after a read or
// write of it (buffers occupy disjoint bytes of the arena, so different buffers never conflict).
void KernelEmitter::syncFor(const BufferSet& reads, const BufferSet& writes) {
    if (intersects(reads, m_asyncInFlight) || intersects(writes, m_asyncInFlight))
        waitForAsyncCopies();
    bool raw = intersects(reads, m_pendingWrite);
    if (raw || intersects(writes, m_pendingRead) || intersects(writes, m_pendingWrite))
        barrier(raw ? "shared writes above are read below" : "shared reads above finish first");
    m_pendingRead.insert(reads.begin(), reads.end());
    m_pendingWrite.insert(writes.begin(), writes.end());
}

std::string KernelEmitter::blockSync() const {
    if (m_scope)
        return "tb_named_barrier_sync(" + std::to_string(m_scopeBarrierId) + ", " +
               std::to_string(m_scope->threadCount) + ");";
    if (const layout::WarpSpecializationPlan* ws = warpSpecialization())
        return "tb_named_barrier_sync(1, " + std::to_string(ws->consumerThreads) + ");";
    return "__syncthreads();";
}

// wgmma reads shared memory through the async proxy: the threads that wrote its operands with ordinary
// stores or cp.async fence those writes before the barrier that orders them.
void KernelEmitter::fenceSharedWritesForWgmma() {
    for (const ir::Buffer* b : m_pendingWrite)
        if (wgmmaReads(b)) {
            line("tb_fence_proxy_async(); // shared writes above become visible to wgmma (async proxy)");
            return;
        }
}

void KernelEmitter::barrier(const std::string& why) {
    fenceSharedWritesForWgmma();
    line(blockSync() + " // " + why);
    m_pendingRead.clear();
    m_pendingWrite.clear();
}

// The grid barrier holds block barriers on both sides, so it orders the block's shared accesses too; the
// block's cp.async copies land before it (their wait would otherwise come after the barrier's).
void KernelEmitter::emitGridSync(const Stmt& s) {
    waitForAsyncCopies();
    fenceSharedWritesForWgmma();
    line("tb_grid_sync(); // T.sync_grid: every block of the grid has run what precedes" + lineTag(s.range),
         s.range);
    m_pendingRead.clear();
    m_pendingWrite.clear();
}

void KernelEmitter::waitForAsyncCopies() {
    if (m_asyncInFlight.empty())
        return;
    std::string names;
    for (const ir::Buffer* b : m_asyncInFlight)
        names += (names.empty() ? "" : ", ") + b->name;
    line("tb_cp_async_wait<0>(); // cp.async into " + names + " complete (this thread's)");
    m_asyncInFlight.clear();
}

// -------------------------------------------------------------------------------------- expressions

namespace {

// The C text of a binary operation on operands of type `t` (floor division and modulo Python-style).
std::string binaryText(ir::BinaryOp op, const std::string& a, const std::string& b, DType t) {
    bool fl = ir::isFloat(t);
    bool dbl = t == DType::Float64;
    std::string r;
    switch (op) {
    case ir::BinaryOp::Add:
        r = "(" + a + " + " + b + ")";
        break;
    case ir::BinaryOp::Sub:
        r = "(" + a + " - " + b + ")";
        break;
    case ir::BinaryOp::Mul:
        r = "(" + a + " * " + b + ")";
        break;
    case ir::BinaryOp::Div:
        r = "(" + a + " / " + b + ")";
        break;
    case ir::BinaryOp::FloorDiv:
        r = fl ? std::string(dbl ? "floor(" : "floorf(") + a + " / " + b + ")"
               : "tb_floordiv<" + std::string(cudaComputeType(t)) + ">(" + a + ", " + b + ")";
        break;
    case ir::BinaryOp::FloorMod:
        r = fl ? "(" + a + " - " + (dbl ? "floor(" : "floorf(") + a + " / " + b + ") * " + b + ")"
               : "tb_floormod<" + std::string(cudaComputeType(t)) + ">(" + a + ", " + b + ")";
        break;
    case ir::BinaryOp::Min:
        r = "tb_min(" + a + ", " + b + ")";
        break;
    case ir::BinaryOp::Max:
        r = "tb_max(" + a + ", " + b + ")";
        break;
    case ir::BinaryOp::Pow:
        r = std::string(dbl ? "pow(" : "powf(") + a + ", " + b + ")";
        break;
    case ir::BinaryOp::BitAnd:
        r = "(" + a + " & " + b + ")";
        break;
    case ir::BinaryOp::BitOr:
        r = "(" + a + " | " + b + ")";
        break;
    case ir::BinaryOp::BitXor:
        r = "(" + a + " ^ " + b + ")";
        break;
    case ir::BinaryOp::Shl:
        r = "(" + a + " << " + b + ")";
        break;
    case ir::BinaryOp::Shr:
        r = "(" + a + " >> " + b + ")";
        break;
    case ir::BinaryOp::LogicalAnd:
        r = "(" + a + " && " + b + ")";
        break;
    case ir::BinaryOp::LogicalOr:
        r = "(" + a + " || " + b + ")";
        break;
    case ir::BinaryOp::Eq:
        r = "(" + a + " == " + b + ")";
        break;
    case ir::BinaryOp::Ne:
        r = "(" + a + " != " + b + ")";
        break;
    case ir::BinaryOp::Lt:
        r = "(" + a + " < " + b + ")";
        break;
    case ir::BinaryOp::Le:
        r = "(" + a + " <= " + b + ")";
        break;
    case ir::BinaryOp::Gt:
        r = "(" + a + " > " + b + ")";
        break;
    case ir::BinaryOp::Ge:
        r = "(" + a + " >= " + b + ")";
        break;
    }
    return r;
}

// The C text of an intrinsic call on arguments whose first has type `t`. `exact` is set for results that
// are booleans (isnan, isinf): they are never rounded to a half type.
std::string intrinsicText(ir::Intrinsic intrinsic, const std::vector<std::string>& a, DType t, bool& exact) {
    bool dbl = t == DType::Float64;
    auto f = [&](const char* single, const char* dbl64) {
        return std::string(dbl ? dbl64 : single) + "(" + a[0] + ")";
    };
    std::string r;
    switch (intrinsic) {
    case ir::Intrinsic::Exp:
        r = f("expf", "exp");
        break;
    case ir::Intrinsic::Exp2:
        r = f("tb_exp2", "exp2");
        break;
    case ir::Intrinsic::Exp10:
        r = f("exp10f", "exp10");
        break;
    case ir::Intrinsic::Log:
        r = f("logf", "log");
        break;
    case ir::Intrinsic::Log2:
        r = f("log2f", "log2");
        break;
    case ir::Intrinsic::Log10:
        r = f("log10f", "log10");
        break;
    case ir::Intrinsic::Sqrt:
        r = f("sqrtf", "sqrt");
        break;
    case ir::Intrinsic::Rsqrt:
        r = f("rsqrtf", "rsqrt");
        break;
    case ir::Intrinsic::Abs:
        r = ir::isFloat(t) ? f("fabsf", "fabs") : "abs(" + a[0] + ")";
        break;
    case ir::Intrinsic::Sigmoid:
        r = dbl ? "(1.0 / (1.0 + exp(-" + a[0] + ")))" : "(1.0f / (1.0f + expf(-" + a[0] + ")))";
        break;
    case ir::Intrinsic::Tanh:
        r = f("tanhf", "tanh");
        break;
    case ir::Intrinsic::Sin:
        r = f("sinf", "sin");
        break;
    case ir::Intrinsic::Cos:
        r = f("cosf", "cos");
        break;
    case ir::Intrinsic::Floor:
        r = f("floorf", "floor");
        break;
    case ir::Intrinsic::Ceil:
        r = f("ceilf", "ceil");
        break;
    case ir::Intrinsic::Round:
        r = f("rintf", "rint");
        break;
    case ir::Intrinsic::Trunc:
        r = f("truncf", "trunc");
        break;
    case ir::Intrinsic::Erf:
        r = f("erff", "erf");
        break;
    case ir::Intrinsic::Fma:
        r = a.size() == 3 ? std::string(dbl ? "fma(" : "fmaf(") + a[0] + ", " + a[1] + ", " + a[2] + ")"
                          : a[0];
        break;
    case ir::Intrinsic::IsNan:
        exact = true;
        return "isnan(" + a[0] + ")";
    case ir::Intrinsic::IsInf:
        exact = true;
        return "isinf(" + a[0] + ")";
    }
    return r;
}

} // namespace

std::string KernelEmitter::expr(const ExprPtr& e, int depth, bool rounded) {
    const bool unrounded = !rounded;
    if (!e)
        return "0";
    if (depth > kMaxDepth) {
        error("codegen-too-deep", e->range, "an expression nests deeper than " + std::to_string(kMaxDepth));
        return "0";
    }
    switch (e->kind) {
    case ExprKind::IntImm:
        if (e->dtype == DType::Bool)
            return e->intValue ? "true" : "false";
        if (e->dtype == DType::Int64 || e->dtype == DType::UInt64)
            return std::to_string(e->intValue) + "LL";
        if (e->intValue == INT32_MIN)
            return "(-2147483647 - 1)";
        return e->intValue < 0 ? "(" + std::to_string(e->intValue) + ")" : std::to_string(e->intValue);
    case ExprKind::FloatImm:
        return floatLiteral(e->floatValue, e->dtype);
    case ExprKind::VarRef: {
        auto it = m_varOverride.find(e->var);
        if (it != m_varOverride.end())
            return it->second;
        if (e->var->kind == ir::VarKind::ThreadIndex)
            return m_blockTx;
        return nameOf(e->var);
    }
    case ExprKind::BufferLoad:
        return loadText(e->buffer, e->operands, depth + 1);
    case ExprKind::Binary: {
        std::string a = expr(e->operands[0], depth + 1), b = expr(e->operands[1], depth + 1);
        std::string r = binaryText(e->binaryOp, a, b, e->operands[0]->dtype);
        return ir::isComparison(e->binaryOp) || unrounded ? r : roundedTo(e->dtype, r);
    }
    case ExprKind::Unary: {
        std::string a = expr(e->operands[0], depth + 1);
        switch (e->unaryOp) {
        case ir::UnaryOp::Neg:
            return "(-" + a + ")";
        case ir::UnaryOp::LogicalNot:
            return "(!" + a + ")";
        case ir::UnaryOp::BitNot:
            return "(~" + a + ")";
        }
        return a;
    }
    case ExprKind::Select:
        return "(" + expr(e->operands[0], depth + 1) + " ? " + expr(e->operands[1], depth + 1) + " : " +
               expr(e->operands[2], depth + 1) + ")";
    case ExprKind::Call: {
        std::vector<std::string> a;
        for (const auto& op : e->operands)
            a.push_back(expr(op, depth + 1));
        if (a.empty())
            return "0";
        bool roundsItself = false;
        std::string r = intrinsicText(e->intrinsic, a, e->operands[0]->dtype, roundsItself);
        if (roundsItself)
            return r;
        return unrounded ? r : roundedTo(e->dtype, r);
    }
    case ExprKind::Cast: {
        std::string a = expr(e->operands[0], depth + 1);
        DType to = e->dtype;
        if (to == DType::Bool)
            return "((" + a + ") != 0)";
        if (isHalfLike(to))
            return unrounded ? "(float)(" + a + ")" : roundedTo(to, "(float)(" + a + ")");
        return "(" + std::string(cudaComputeType(to)) + ")(" + a + ")";
    }
    }
    return "0";
}

std::string KernelEmitter::globalOffset(const Buffer* buffer, const std::vector<std::string>& rawIdx,
                                        bool dropZeroTerms) const {
    std::vector<std::string> idx;
    for (const auto& i : rawIdx)
        idx.push_back(parenthesize(i));
    std::string text;
    std::string stride;
    int64_t constStride = 1;
    bool allConst = true;
    for (size_t d = buffer->rank(); d-- > 0;) {
        std::string s = allConst ? std::to_string(constStride) : stride;
        std::string term = (s == "1") ? idx[d] : idx[d] + " * " + s;
        if (!(dropZeroTerms && idx[d] == "0"))
            text = text.empty() ? term : term + " + " + text;
        auto c = buffer->constantExtent(d);
        if (allConst && c) {
            constStride *= *c;
        } else {
            if (allConst)
                stride = std::to_string(constStride);
            allConst = false;
            stride = stride + " * " + shapeText(buffer, d);
        }
    }
    return text.empty() ? "0" : text;
}

std::string KernelEmitter::sharedOffset(const Buffer* buffer, const std::vector<std::string>& rawIdx,
                                        bool withStage) const {
    std::vector<std::string> idx;
    for (const auto& i : rawIdx)
        idx.push_back(parenthesize(i));
    auto it = m_shared.find(buffer);
    if (it == m_shared.end())
        return "0";
    const SharedSlot& slot = it->second;
    std::string text;
    if (slot.hasLayout) {
        const layout::Layout& l = slot.layout;
        size_t r = l.inputShape().size();
        size_t lead = idx.size() - r;
        std::map<std::string, std::string> vars;
        for (size_t d = 0; d < r; ++d)
            vars[layout::inputVarName(d)] = idx[lead + d];
        std::vector<int64_t> outShape = l.outputShape();
        std::string inner;
        for (size_t k = 0; k < l.forwardIndex().size(); ++k) {
            std::string term = indexExprToC(l.forwardIndex()[k], vars);
            inner = inner.empty() ? term : "(" + inner + ") * " + std::to_string(outShape[k]) + " + " + term;
        }
        std::string leading;
        auto shape = ir::constantShape(*buffer);
        for (size_t d = 0; d < lead; ++d)
            leading = leading.empty() ? idx[d]
                                      : "(" + leading + ") * " + std::to_string((*shape)[d]) + " + " + idx[d];
        text =
            leading.empty() ? inner : "(" + leading + ") * " + std::to_string(l.outputSize()) + " + " + inner;
    } else {
        auto shape = ir::constantShape(*buffer);
        for (size_t d = 0; d < idx.size(); ++d)
            text = text.empty() ? idx[d] : "(" + text + ") * " + std::to_string((*shape)[d]) + " + " + idx[d];
    }
    auto st = m_stageExpr.find(buffer);
    if (withStage && slot.stages > 1 && st != m_stageExpr.end())
        text = st->second + " * " + std::to_string(slot.stageElements) + " + " + text;
    return text.empty() ? "0" : text;
}

std::string KernelEmitter::fragmentSlot(const Buffer* buffer, const std::vector<ExprPtr>& indices,
                                        int depth) {
    const layout::FragmentPlan* fp = m_plan ? m_plan->fragmentOf(buffer) : nullptr;
    if (!fp) {
        error("codegen-no-fragment-layout", buffer->range,
              "fragment '" + buffer->name + "' has no layout in the plan");
        return "0";
    }
    const layout::Fragment& frag = fp->fragment;
    if (m_simt && m_simt->map) {
        const ThreadMap& map = *m_simt->map;
        // `buffer[i, j]` with the loop's own variables over the loop's own shape: the element a slot names is
        // the slot's element, no index to evaluate.
        bool ownElement = indices.size() == m_simt->vars.size() && frag.inputShape() == map.shape;
        for (size_t d = 0; d < indices.size() && ownElement; ++d)
            ownElement = indices[d]->kind == ExprKind::VarRef && indices[d]->var == m_simt->vars[d];
        if (ownElement)
            if (auto hit = m_simt->ownElementSlots.find(buffer); hit != m_simt->ownElementSlots.end())
                return hit->second;
        std::map<const ir::Var*, IndexExpr> vars;
        std::vector<std::string> order;
        for (size_t d = 0; d < m_simt->vars.size(); ++d) {
            vars[m_simt->vars[d]] = IndexExpr::var(layout::inputVarName(d), m_simt->extents[d]);
            order.push_back(layout::inputVarName(d));
        }
        std::vector<layout::CompiledIndexExpr> compiled;
        bool ok = indices.size() == frag.inputShape().size();
        for (const auto& idx : indices) {
            auto ie = passes::toIndexExpr(idx, vars);
            if (!ie) {
                ok = false;
                break;
            }
            compiled.emplace_back(*ie, order);
            ok = ok && compiled.back().valid();
        }
        const FragmentTables* lookup = ok ? fragmentLookup(frag) : nullptr;
        if (lookup) {
            const layout::FragmentInverseTable& inverse = *lookup->inverse;
            std::vector<std::optional<int64_t>> values(size_t(map.threads * map.regs));
            bool local = true;
            const size_t rank = map.shape.size();
            std::vector<int64_t> p(rank);
            for (int64_t t = 0; t < map.threads && local; ++t)
                for (int64_t r = 0; r < map.regs; ++r) {
                    int64_t e = map.element[size_t(t * map.regs + r)];
                    if (e < 0)
                        continue;
                    // The fragment element the access names, then whether thread t holds it, by table.
                    int64_t linear = ownElement ? e : 0;
                    for (size_t d = rank; d-- > 0 && !ownElement;) {
                        p[d] = e % map.shape[d];
                        e /= map.shape[d];
                    }
                    for (size_t d = 0; d < compiled.size() && local && !ownElement; ++d) {
                        auto v = compiled[d].evaluate(p.data());
                        if (!v || *v < 0 || *v >= inverse.inputShape[d])
                            local = false;
                        else
                            linear = linear * inverse.inputShape[d] + *v;
                    }
                    if (!local)
                        break;
                    int64_t slot = lookup->registerOf[size_t(linear)];
                    if (t >= inverse.threads) {
                        local = false;
                        break;
                    }
                    const int64_t* held = inverse.element.data() + t * inverse.registers;
                    if (slot < 0 || held[slot] != linear) {
                        // A replica-dependent register index: look through this thread's registers.
                        slot = -1;
                        for (int64_t k = 0; k < inverse.registers && slot < 0; ++k)
                            if (held[k] == linear)
                                slot = k;
                    }
                    if (slot < 0) {
                        local = false;
                        break;
                    }
                    values[size_t(t * map.regs + r)] = slot;
                }
            if (!local) {
                error("codegen-fragment-not-local", indices.empty() ? buffer->range : indices[0]->range,
                      "fragment '" + buffer->name +
                          "' is read or written at an element another thread holds (the loop's thread map "
                          "and the "
                          "fragment's layout disagree)",
                      "check `tilec plan` for this loop and fragment");
                return "0";
            }
            BitFit fit = fitOverBits(values, map.threads, map.regs);
            if (fit.ok) {
                std::string slot = fit.toC(m_tx, m_simt->reg);
                if (ownElement)
                    m_simt->ownElementSlots.emplace(buffer, slot);
                return slot;
            }
        }
    }
    // Formula: the fragment's register map evaluated at run time.
    std::map<std::string, std::string> vars;
    for (size_t d = 0; d < indices.size(); ++d)
        vars[layout::inputVarName(d)] = "(" + expr(indices[d], depth + 1) + ")";
    std::vector<int64_t> shape = frag.indexShape();
    std::string text;
    for (size_t k = 0; k < frag.indexExprs().size(); ++k) {
        std::string term = indexExprToC(frag.indexExprs()[k], vars);
        text = text.empty() ? term : "(" + text + ") * " + std::to_string(shape[k]) + " + " + term;
    }
    return text.empty() ? "0" : text;
}

std::string KernelEmitter::lvalueText(const Buffer* buffer, const std::vector<ExprPtr>& indices, int depth) {
    if (auto v = m_vectorTemps.find(&indices); v != m_vectorTemps.end())
        return v->second; // moved as a vector: this element's register
    std::vector<std::string> idx;
    auto indexStrings = [&] {
        for (const auto& i : indices)
            idx.push_back(expr(i, depth + 1));
    };
    switch (buffer->scope) {
    case MemoryScope::Global:
        indexStrings();
        return nameOf(buffer) + "[" + globalOffset(buffer, idx) + "]";
    case MemoryScope::Shared:
        indexStrings();
        return nameOf(buffer) + "[" + sharedOffset(buffer, idx) + "]";
    case MemoryScope::Fragment:
        return nameOf(buffer) + "[" + fragmentSlot(buffer, indices, depth) + "]";
    case MemoryScope::Local: {
        indexStrings();
        auto shape = ir::constantShape(*buffer);
        std::string text;
        for (size_t d = 0; d < idx.size() && shape; ++d)
            text = text.empty() ? idx[d] : "(" + text + ") * " + std::to_string((*shape)[d]) + " + " + idx[d];
        return nameOf(buffer) + "[" + (text.empty() ? "0" : text) + "]";
    }
    case MemoryScope::LocalVar:
        return nameOf(buffer);
    case MemoryScope::Barrier:
        error("codegen-barrier-as-data", {},
              "mbarrier buffer '" + buffer->name + "' is read or written as data",
              "use it through T.mbarrier_wait_parity / T.mbarrier_arrive");
        return nameOf(buffer);
    }
    return nameOf(buffer);
}

std::string KernelEmitter::loadText(const Buffer* buffer, const std::vector<ExprPtr>& indices, int depth) {
    std::string lv = lvalueText(buffer, indices, depth);
    if (buffer->scope == MemoryScope::Global || buffer->scope == MemoryScope::Shared) {
        if (buffer->dtype == DType::Float16)
            return "tb_h2f(" + lv + ")";
        if (buffer->dtype == DType::BFloat16)
            return "tb_bf2f(" + lv + ")";
        if (buffer->dtype == DType::Float8E4M3)
            return "tb_e4m32f(" + lv + ")";
        if (buffer->dtype == DType::Float8E5M2)
            return "tb_e5m22f(" + lv + ")";
    }
    return lv;
}

std::string KernelEmitter::storedValue(const Buffer* buffer, const ExprPtr& value) {
    bool storeRounds = isHalfLike(buffer->dtype) &&
                       (buffer->scope == MemoryScope::Global || buffer->scope == MemoryScope::Shared ||
                        m_roundedByTheirCopies.count(buffer));
    return expr(value, 0, !(storeRounds && value && value->dtype == buffer->dtype));
}

std::string KernelEmitter::toStorage(const Buffer* buffer, const std::string& v) const {
    if (buffer->scope == MemoryScope::Global || buffer->scope == MemoryScope::Shared) {
        if (buffer->dtype == DType::Float16)
            return "tb_f2h(" + v + ")";
        if (buffer->dtype == DType::BFloat16)
            return "tb_f2bf(" + v + ")";
        if (buffer->dtype == DType::Float8E4M3)
            return "tb_f2e4m3(" + v + ")";
        if (buffer->dtype == DType::Float8E5M2)
            return "tb_f2e5m2(" + v + ")";
    }
    return v;
}

// --------------------------------------------------------------------------------- per-thread loops

KernelEmitter::FragmentTables& KernelEmitter::fragmentTables(const layout::Fragment& fragment) {
    std::string key = fragment.toString();
    auto it = m_fragmentTables.find(key);
    if (it == m_fragmentTables.end())
        it = m_fragmentTables
                 .emplace(std::move(key), FragmentTables{layout::inverseFragment(fragment), nullptr, {}})
                 .first;
    return it->second;
}

const KernelEmitter::FragmentTables* KernelEmitter::fragmentLookup(const layout::Fragment& fragment) {
    FragmentTables& tables = fragmentTables(fragment);
    if (!tables.inverse)
        return nullptr;
    const layout::FragmentInverseTable& inverse = *tables.inverse;
    if (tables.registerOf.empty()) {
        tables.registerOf.assign(size_t(layout::shapeSize(inverse.inputShape)), -1);
        for (int64_t t = 0; t < inverse.threads; ++t)
            for (int64_t r = 0; r < inverse.registers; ++r) {
                int64_t e = inverse.element[size_t(t * inverse.registers + r)];
                if (e >= 0 && size_t(e) < tables.registerOf.size())
                    tables.registerOf[size_t(e)] = r;
            }
    }
    return &tables;
}

const ThreadMap* KernelEmitter::cachedThreadMap(const layout::Fragment& fragment) {
    FragmentTables& tables = fragmentTables(fragment);
    if (!tables.inverse)
        return nullptr;
    if (!tables.threadMap) {
        m_threadMaps.push_back(buildThreadMap(fragment, *tables.inverse));
        tables.threadMap = &m_threadMaps.back();
    }
    return tables.threadMap;
}

const ThreadMap* KernelEmitter::threadMapOf(const layout::Fragment& fragment, SourceRange range) {
    if (const ThreadMap* map = cachedThreadMap(fragment))
        return map;
    error("codegen-thread-map", range,
          "cannot invert the thread map " + fragment.toString() + ": " +
              fragmentTables(fragment).inverse.error().message);
    return nullptr;
}

void KernelEmitter::emitSimtLoop(const layout::Fragment& frag, const std::vector<const ir::Var*>& vars,
                                 const Stmt& body, SourceRange range, const std::string& what,
                                 bool guardReplicaStores, int vector,
                                 const std::vector<VectorAccess>& accesses, bool discoverAccesses) {
    if (vars.size() != frag.inputShape().size()) {
        error("codegen-thread-map", range, "thread map rank differs from the loop nest's");
        return;
    }
    const ThreadMap* map = threadMapOf(frag, range);
    if (!map)
        return;
    if (map->threads > m_threads) {
        error("codegen-thread-map", range,
              "the thread map uses " + std::to_string(map->threads) + " threads but the block has " +
                  std::to_string(m_threads));
        return;
    }
    SimtScope scope;
    scope.vars = vars;
    scope.extents = frag.inputShape();
    scope.reg = m_regName;
    scope.guardReplicaStores = guardReplicaStores;
    std::string R = std::to_string(map->regs);
    if (map->fitted && vector > 1 && map->regs % vector == 0) {
        scope.map = map;
        std::vector<VectorAccess> list =
            discoverAccesses ? vectorizableAccesses(body, *map, vars, scope.extents, vector) : accesses;
        if (!list.empty()) {
            int64_t bytes = int64_t(vector) * ir::dtypeBytes(list.front().buffer->dtype);
            comment(what + ": " + R + " elements per thread, " + std::to_string(list.size()) + " access" +
                        (list.size() == 1 ? "" : "es") + " as " + std::to_string(vector) +
                        "-element vectors (" + std::to_string(bytes) + " B)",
                    range);
            bool guardT = map->threads < m_threads;
            if (guardT)
                open("if (" + m_tx + " < " + std::to_string(map->threads) + ")", range);
            emitVectorSimtLoop(*map, scope, body, range, vector, list);
            if (guardT)
                close();
            return;
        }
    }
    if (map->fitted || map->partialPartition) {
        scope.map = map;
        comment(what + ": " + R + " element" + (map->regs == 1 ? "" : "s") + " per thread" +
                    (map->partialPartition ? " (the partition's last round is partial)" : ""),
                range);
        bool guardT = map->threads < m_threads;
        if (guardT)
            open("if (" + m_tx + " < " + std::to_string(map->threads) + ")", range);
        line("#pragma unroll");
        open("for (int " + scope.reg + " = 0; " + scope.reg + " < " + R + "; ++" + scope.reg + ")", range);
        if (map->partialPartition)
            line("if (!(" + map->partialRoundGuard(m_tx, scope.reg) + ")) continue; // past the tile", range);
        size_t declarations = m_out->size();
        for (size_t d = 0; d < vars.size(); ++d)
            line("const int " + nameOf(vars[d]) + " = " + map->coords[d].toC(m_tx, scope.reg) + ";", range);
        size_t declared = vars.size();
        if (map->replicate > 1) {
            scope.rep = m_repName;
            line("const int " + scope.rep + " = " + map->repFit.toC(m_tx, scope.reg) + "; // replica", range);
            ++declared;
        }
        m_simt = &scope;
        emitElementStmt(body, 0);
        m_simt = nullptr;
        close();
        dropUnusedIndexLines(declarations, declared);
        if (guardT)
            close();
    } else {
        comment(what + ": irregular thread map, ownership-guarded loop over the tile", range);
        std::map<std::string, std::string> names;
        for (size_t d = 0; d < vars.size(); ++d) {
            std::string v = nameOf(vars[d]);
            names[layout::inputVarName(d)] = v;
            open("for (int " + v + " = 0; " + v + " < " + std::to_string(scope.extents[d]) + "; ++" + v + ")",
                 range);
        }
        scope.rep = m_repName;
        names[layout::Fragment::replicateVarName()] = scope.rep;
        std::string owner = indexExprToC(frag.threadExpr(), names);
        line("int " + scope.rep + " = 0;");
        line("while (" + scope.rep + " < " + std::to_string(frag.replicateExtent()) + " && " + owner +
             " != " + m_tx + ") ++" + scope.rep + ";");
        line("if (" + scope.rep + " == " + std::to_string(frag.replicateExtent()) +
             ") continue; // not this thread's");
        m_simt = &scope;
        emitElementStmt(body, 0);
        m_simt = nullptr;
        for (size_t d = 0; d < vars.size(); ++d)
            close();
    }
}

} // namespace tb::codegen
