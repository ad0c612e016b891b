// The lowering of tile ops to warp-level shared-memory instructions (docs/bank-analysis.md), as address
// enumeration. Each handler turns one op into sites and, per site, into warp instructions with 32 lane byte
// addresses: copies through a thread map (the CopyPlan's, the fragment's, or PlanLoopPartition's), gemm
// operands through the ldmatrix / wgmma core-matrix patterns of the warp grid, T.Parallel loops through the
// loop layout, reductions through the AllReduce scratch pattern, element accesses through the thread index.
#include "engine/passes/SharedAccessEnumeration.h"

#include "engine/ir/IntEvaluation.h"
#include "engine/ir/IrQueries.h"
#include "engine/ir/Visitor.h"
#include "engine/layout/algebra/FragmentTable.h"
#include "engine/layout/algebra/GemmInstruction.h"
#include "engine/layout/algebra/LayoutTranslation.h"
#include "engine/layout/algebra/WarpPartition.h"

#include <algorithm>
#include <array>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <utility>
#include <vector>

namespace tb::passes {

namespace {

using layout::Fragment;
using layout::Layout;

// The IR's own nesting limit (the verifier holds every module to it).
constexpr int kMaxDepth = ir::kMaxIrDepth;
constexpr int64_t kMaxTableElements = int64_t(1) << 20;

int64_t saturatingProduct(int64_t a, int64_t b) {
    int64_t out = 0;
    if (__builtin_mul_overflow(a, b, &out) || out > (int64_t(1) << 50))
        return int64_t(1) << 50;
    return out;
}

// ---- integer evaluation of IR index expressions ----------------------------------------------------

struct EvalEnv {
    std::map<const ir::Var*, int64_t> vars;
    std::optional<int64_t> thread; // the value of every ThreadIndex var not bound in `vars`
};

std::optional<int64_t> evalInt(const ir::ExprPtr& e, const EvalEnv& env) {
    return ir::evaluateInt(e, [&](const ir::Var& v) -> std::optional<int64_t> {
        auto it = env.vars.find(&v);
        if (it != env.vars.end())
            return it->second;
        if (v.kind == ir::VarKind::ThreadIndex && env.thread)
            return env.thread;
        return std::nullopt;
    });
}

// ---- shapes and points -------------------------------------------------------------------------------

int64_t product(const std::vector<int64_t>& shape) {
    int64_t n = 1;
    for (int64_t e : shape)
        n = saturatingProduct(n, e);
    return n;
}

std::vector<int64_t> unflatten(int64_t flat, const std::vector<int64_t>& shape) {
    std::vector<int64_t> point(shape.size(), 0);
    for (size_t d = shape.size(); d-- > 0;) {
        point[d] = shape[d] > 0 ? flat % shape[d] : 0;
        flat = shape[d] > 0 ? flat / shape[d] : 0;
    }
    return point;
}

int64_t flatten(const std::vector<int64_t>& point, const std::vector<int64_t>& shape) {
    if (point.size() != shape.size())
        return -1;
    int64_t flat = 0;
    for (size_t d = 0; d < shape.size(); ++d) {
        if (point[d] < 0 || point[d] >= shape[d])
            return -1;
        flat = flat * shape[d] + point[d];
    }
    return flat;
}

std::vector<int64_t> dropUnitDims(const std::vector<int64_t>& shape) {
    std::vector<int64_t> out;
    for (int64_t e : shape)
        if (e != 1)
            out.push_back(e);
    if (out.empty())
        out.push_back(1);
    return out;
}

// ---- byte addresses of a shared buffer ---------------------------------------------------------------

// Offsets (in elements) of every element of the buffer through a layout. The layout may cover only the
// trailing dimensions (a pipeline stage in front of a 2-D swizzle): leading dimensions then step by the
// layout's physical size.
bool tabulateOffsets(const Layout& layout, const std::vector<int64_t>& shape, std::vector<int64_t>& out) {
    const std::vector<int64_t>& in = layout.inputShape();
    if (in.empty() || in.size() > shape.size())
        return false;
    size_t lead = shape.size() - in.size();
    for (size_t d = 0; d < in.size(); ++d)
        if (in[d] != shape[lead + d])
            return false;
    int64_t inner = product(in);
    int64_t outer = 1;
    for (size_t d = 0; d < lead; ++d)
        outer = saturatingProduct(outer, shape[d]);
    if (saturatingProduct(inner, outer) > kMaxTableElements)
        return false;
    int64_t stride = layout.outputSize();
    std::optional<std::vector<int64_t>> table = layout.offsetTable();
    if (!table || static_cast<int64_t>(table->size()) != inner)
        return false;
    const std::vector<int64_t>& base = *table;
    out.resize(size_t(inner * outer));
    for (int64_t q = 0; q < outer; ++q)
        for (int64_t f = 0; f < inner; ++f)
            out[size_t(q * inner + f)] = q * stride + base[size_t(f)];
    return true;
}

struct BufferAddressing {
    bool ok = false;
    std::vector<int64_t> shape;
    int elementBytes = 1;
    std::vector<int64_t> chosen; // element offset per row-major element, chosen layout
    std::vector<int64_t> plain;  // same through the plain layout
    std::string note;            // which default was taken
    std::string failure;         // why !ok

    // Byte addresses (chosen, plain) of a buffer point.
    std::optional<std::pair<int64_t, int64_t>> bytes(const std::vector<int64_t>& point) const {
        int64_t flat = flatten(point, shape);
        if (!ok || flat < 0)
            return std::nullopt;
        return std::make_pair(chosen[size_t(flat)] * elementBytes, plain[size_t(flat)] * elementBytes);
    }
};

BufferAddressing makeAddressing(const ir::Buffer& buffer, const layout::SharedBufferPlan* plan) {
    BufferAddressing a;
    std::optional<std::vector<int64_t>> shape = ir::constantShape(buffer);
    if (!shape) {
        a.failure = "shared buffer " + buffer.name + " has a shape that is not a compile-time constant";
        return a;
    }
    if (product(*shape) > kMaxTableElements) {
        a.failure = "shared buffer " + buffer.name + " has " + std::to_string(product(*shape)) +
                    " elements, more than the " + std::to_string(kMaxTableElements) + " enumerated";
        return a;
    }
    a.shape = *shape;
    a.elementBytes = std::max(1, ir::dtypeBytes(buffer.dtype));
    // Row-major offsets are the element indices themselves: no expression to evaluate.
    a.plain.resize(static_cast<size_t>(product(a.shape)));
    for (size_t n = 0; n < a.plain.size(); ++n)
        a.plain[n] = static_cast<int64_t>(n);
    bool unswizzledIsRowMajor = plan && plan->unswizzled.inputShape() == a.shape &&
                                plan->unswizzled.toString() == Layout::linear(a.shape).toString();
    if (plan && plan->unswizzled.inputShape().size() && !unswizzledIsRowMajor &&
        !tabulateOffsets(plan->unswizzled, a.shape, a.plain))
        a.note = "the plan's unswizzled layout does not fit the buffer shape: row-major used";
    if (!plan) {
        a.chosen = a.plain;
        a.note = "no shared layout planned: row-major used";
    } else if (!tabulateOffsets(plan->choice.layout, a.shape, a.chosen)) {
        a.chosen = a.plain;
        a.note = "the chosen layout " + plan->choice.layout.toString() + " does not fit the buffer shape " +
                 layout::shapeToString(a.shape) + ": row-major used";
    }
    a.ok = true;
    return a;
}

// ---- regions ---------------------------------------------------------------------------------------------

// A Region as a map from tile points (over its non-unit extents) to buffer points.
struct RegionMap {
    bool ok = false;
    std::vector<int64_t> mins;
    std::vector<int64_t> extents;
    std::vector<size_t> tileDims; // buffer dimensions with extent != 1
    std::vector<int64_t> tileShape;
    bool minsAssumed = false; // a start index was not a constant under the environment: 0 used

    std::vector<int64_t> bufferPoint(const std::vector<int64_t>& tilePoint) const {
        std::vector<int64_t> point = mins;
        for (size_t k = 0; k < tileDims.size() && k < tilePoint.size(); ++k)
            point[tileDims[k]] += tilePoint[k];
        return point;
    }
};

RegionMap makeRegionMap(const ir::Region& region, const EvalEnv& env) {
    RegionMap map;
    if (!region.buffer || region.extents.size() != region.buffer->rank())
        return map;
    for (size_t d = 0; d < region.extents.size(); ++d) {
        std::optional<int64_t> extent = evalInt(region.extents[d], env);
        if (!extent)
            extent = ir::constantInt(region.extents[d]);
        if (!extent || *extent < 1)
            return map;
        std::optional<int64_t> min = d < region.mins.size() ? evalInt(region.mins[d], env) : int64_t(0);
        if (!min) {
            min = 0;
            map.minsAssumed = true;
        }
        map.mins.push_back(*min);
        map.extents.push_back(*extent);
        if (*extent != 1) {
            map.tileDims.push_back(d);
            map.tileShape.push_back(*extent);
        }
    }
    if (map.tileShape.empty()) {
        map.tileDims.push_back(region.extents.empty() ? 0 : region.extents.size() - 1);
        map.tileShape.push_back(1);
    }
    map.ok = !map.mins.empty();
    return map;
}

// ---- thread maps -----------------------------------------------------------------------------------------

// Which tile element each (thread, vector access) starts at: the loop plan of a copy or T.Parallel.
struct ThreadTileMap {
    int64_t threadBegin = 0; // threadIdx of the map's thread 0
    int64_t threads = 0;
    int64_t groups = 0; // vector accesses per thread
    int vector = 1;     // elements per access
    std::vector<int64_t> tileShape;
    std::vector<int64_t> element; // [thread * groups + group] -> flat tile element, -1: no access
};

// TileLang's PlanLoopPartition (reference §5.4): groups of V consecutive elements (row-major) go to
// consecutive threads, wrapping around the block.
ThreadTileMap partitionLoop(const std::vector<int64_t>& tileShape, int vector, int64_t threads) {
    ThreadTileMap map;
    map.threads = std::max<int64_t>(1, threads);
    map.vector = std::max(1, vector);
    map.tileShape = tileShape;
    int64_t size = product(tileShape);
    int64_t perRound = map.threads * map.vector;
    map.groups = (size + perRound - 1) / perRound;
    map.element.assign(size_t(map.threads * map.groups), -1);
    for (int64_t t = 0; t < map.threads; ++t)
        for (int64_t g = 0; g < map.groups; ++g) {
            int64_t first = (g * map.threads + t) * map.vector;
            if (first < size)
                map.element[size_t(t * map.groups + g)] = first;
        }
    return map;
}

// The same elements moved one at a time: each vector access of V elements becomes V scalar accesses, the
// e-th of every thread's vector in the e-th instruction (how the generated code unrolls the elements of a
// vector it cannot issue as one).
ThreadTileMap elementWise(const ThreadTileMap& map) {
    if (map.vector <= 1)
        return map;
    ThreadTileMap out = map;
    out.vector = 1;
    out.groups = map.groups * map.vector;
    const int64_t size = product(map.tileShape);
    out.element.assign(size_t(out.threads * out.groups), -1);
    for (int64_t t = 0; t < map.threads; ++t)
        for (int64_t g = 0; g < map.groups; ++g) {
            int64_t first = map.element[size_t(t * map.groups + g)];
            for (int64_t e = 0; first >= 0 && e < map.vector && first + e < size; ++e)
                out.element[size_t(t * out.groups + g * map.vector + e)] = first + e;
        }
    return out;
}

// The default vector width: 16 bytes of the element type, halved until it divides the innermost extent.
int defaultVector(const std::vector<int64_t>& tileShape, int elementBytes) {
    int vector = std::max(1, 16 / std::max(1, elementBytes));
    int64_t inner = tileShape.empty() ? 1 : tileShape.back();
    while (vector > 1 && inner % vector != 0)
        vector /= 2;
    return vector;
}

// Whether registers g*V .. g*V+V-1 of every thread hold consecutive elements of one innermost row.
bool vectorFits(const layout::FragmentInverseTable& inverse, int vector, int64_t inner) {
    if (vector <= 1)
        return true;
    if (inverse.registers % vector != 0)
        return false;
    for (int64_t t = 0; t < inverse.threads; ++t)
        for (int64_t g = 0; g < inverse.registers / vector; ++g) {
            int64_t first = inverse.element[size_t(t * inverse.registers + g * vector)];
            if (first < 0 || first % inner + vector > inner)
                return false;
            for (int e = 1; e < vector; ++e)
                if (inverse.element[size_t(t * inverse.registers + g * vector + e)] != first + e)
                    return false;
        }
    return true;
}

// A thread map from a fragment (a fragment operand of a copy, or a loop layout). `vector` 0 picks the
// widest of maxVector, maxVector/2, ... whose registers hold contiguous runs. replicaZeroOnly: replicas
// other than 0 make no access (stores are guarded by rep == 0, reference §5.3 step 5).
// Inverse tables are costly to build and the same few fragments are mapped by many accesses of a kernel:
// one enumeration keeps them by canonical text.
using InverseCache = std::map<std::string, layout::LayoutResult<layout::FragmentInverseTable>>;

const layout::LayoutResult<layout::FragmentInverseTable>& cachedInverse(InverseCache& cache,
                                                                        const Fragment& fragment) {
    std::string key = fragment.toString();
    auto it = cache.find(key);
    if (it == cache.end())
        it = cache.emplace(std::move(key), layout::inverseFragment(fragment)).first;
    return it->second;
}

std::optional<ThreadTileMap> mapFromFragment(InverseCache& inverses, const Fragment& fragment, int vector,
                                             int maxVector, bool replicaZeroOnly, std::string& failure) {
    const layout::LayoutResult<layout::FragmentInverseTable>& inverse = cachedInverse(inverses, fragment);
    if (!inverse) {
        failure = inverse.error().message;
        return std::nullopt;
    }
    int64_t inner = fragment.inputShape().empty() ? 1 : fragment.inputShape().back();
    if (vector <= 0) {
        vector = std::max(1, maxVector);
        while (vector > 1 && !vectorFits(*inverse, vector, inner))
            vector /= 2;
    } else if (inverse->registers % vector != 0) {
        vector = 1;
    }
    ThreadTileMap map;
    map.threadBegin = fragment.threadRange() ? fragment.threadRange()->begin : 0;
    map.threads = inverse->threads;
    map.vector = vector;
    map.groups = inverse->registers / vector;
    map.tileShape = fragment.inputShape();
    map.element.assign(size_t(map.threads * map.groups), -1);
    for (int64_t t = 0; t < map.threads; ++t)
        for (int64_t g = 0; g < map.groups; ++g) {
            size_t slot = size_t(t * inverse->registers + g * vector);
            if (inverse->element[slot] >= 0 && (!replicaZeroOnly || inverse->rep[slot] == 0))
                map.element[size_t(t * map.groups + g)] = inverse->element[slot];
        }
    return map;
}

// ---- the walker ---------------------------------------------------------------------------------------

struct Context {
    EvalEnv env;
    int64_t executions = 1;
    bool exact = true;
    std::string condition;   // the undecided ifs around the op (SharedAccessSite::condition)
    bool inPipeline = false; // inside T.Pipelined(num_stages > 0)
    int depth = 0;
};

// One shared access found in a T.Parallel body or an element statement.
struct ExprAccess {
    const ir::Buffer* buffer = nullptr;
    std::vector<ir::ExprPtr> indices;
    bool isStore = false;
    SourceRange range;
    const ir::Expr* load = nullptr; // the load node (null for stores)
    // A load in the value or indices of a store to shared or global memory: in a T.Parallel loop whose
    // partition replicates iterations, the code runs that statement in replica 0 only (KernelEmitter's
    // guardReplicaStores), its loads included.
    bool feedsMemoryStore = false;
    // The undecided ifs of the loop body around it (a per-element guard such as a row against a length read
    // from memory): the access runs for some iterations only, so its count is a bound.
    std::string condition = {};
    // Inside a select (`T.if_then_else`): the code generator moves it element by element (its
    // vectorizableAccesses stops at selects).
    bool underSelect = false;
    // The statement whose code performs the access: the generated code's line map, and so the profiler's
    // per-line counts, put a scalar load on the line of the statement that uses it, not on the line where a
    // Python variable bound its expression (`k = block_offset[bi]` two lines above the loop that reads k).
    // A vector load is emitted on its own, before the element code, under its expression's line.
    SourceRange statement = {};
};

// Attributes the accesses collected from one statement (from index `first` on) to it.
void attributeTo(std::vector<ExprAccess>& accesses, size_t first, const SourceRange& statement) {
    for (size_t i = first; i < accesses.size(); ++i)
        if (!accesses[i].statement.valid)
            accesses[i].statement = statement;
}

// The line an access counts on: a scalar access its statement's, a vector one (or one without a
// statement) its own.
const SourceRange& countedRange(const ExprAccess& access, int vector) {
    return access.statement.valid && vector <= 1 ? access.statement : access.range;
}

// A load node reached twice (a Python variable used twice in the body) is one access: the generated code
// loads it once (codegen's vectorizableAccesses), and the compiler would merge two identical loads anyway.
void collectLoads(const ir::ExprPtr& e, std::vector<ExprAccess>& out, int depth, bool underSelect = false) {
    if (!e || depth > kMaxDepth)
        return;
    underSelect = underSelect || e->kind == ir::ExprKind::Select;
    bool seen = std::any_of(out.begin(), out.end(), [&](const ExprAccess& a) { return a.load == e.get(); });
    if (e->kind == ir::ExprKind::BufferLoad && e->buffer && e->buffer->scope == ir::MemoryScope::Shared &&
        !seen) {
        out.push_back({e->buffer, e->operands, false, e->range, e.get()});
        out.back().underSelect = underSelect;
    }
    for (const ir::ExprPtr& operand : e->operands)
        collectLoads(operand, out, depth + 1, underSelect);
}

class Enumerator {
public:
    Enumerator(const layout::KernelPlan& kernel, const Target& target, SharedAccessConsumer& consumer,
               DiagnosticEngine& diagnostics)
        : m_kernel(kernel), m_target(target), m_consumer(consumer), m_diagnostics(diagnostics) {}

    void run() {
        const ir::Stmt* k = m_kernel.kernel;
        if (!k)
            return;
        m_threads = m_kernel.threads;
        if (m_threads <= 0) {
            m_threads = 1;
            for (int64_t t : k->threads)
                m_threads = saturatingProduct(m_threads, std::max<int64_t>(1, t));
        }
        Context ctx;
        for (const ir::Var* v : k->blockVars)
            if (v)
                ctx.env.vars[v] = 0;
        walk(k->body, ctx);
    }

private:
    const layout::KernelPlan& m_kernel;
    const Target& m_target;
    SharedAccessConsumer& m_consumer;
    DiagnosticEngine& m_diagnostics;
    int64_t m_threads = 1;
    std::map<const ir::Buffer*, BufferAddressing> m_addressing;
    InverseCache m_inverses; // fragment inverse tables of this kernel

    // ---- helpers ----

    void skipped(SourceRange range, const std::string& message) {
        Diagnostic d;
        d.severity = Severity::Note;
        d.code = "bank-analysis-skipped";
        d.range = range;
        d.message = message;
        d.hint = "the bank analysis covers this access only when its addresses are compile-time constants";
        m_diagnostics.report(std::move(d));
    }

    const BufferAddressing& addressing(const ir::Buffer* buffer) {
        auto it = m_addressing.find(buffer);
        if (it != m_addressing.end())
            return it->second;
        const layout::SharedBufferPlan* plan = nullptr;
        for (const layout::SharedBufferPlan& p : m_kernel.sharedBuffers)
            if (p.buffer == buffer)
                plan = &p;
        return m_addressing.emplace(buffer, makeAddressing(*buffer, plan)).first->second;
    }

    const Fragment* fragmentOf(const ir::Buffer* buffer) const {
        for (const layout::FragmentPlan& f : m_kernel.fragments)
            if (f.buffer == buffer)
                return &f.fragment;
        return nullptr;
    }

    SharedAccessSite makeSite(const ir::Stmt* op, const ir::Buffer* buffer, std::string role,
                              SourceRange range, SharedAccessKind kind, bool isStore,
                              const Context& ctx) const {
        SharedAccessSite site;
        site.op = op;
        site.buffer = buffer;
        site.role = std::move(role);
        site.range = range.valid ? range : (op ? op->range : SourceRange{});
        site.kind = kind;
        site.isStore = isStore;
        site.executionsPerBlock = ctx.executions;
        site.executionsExact = ctx.exact;
        site.condition = ctx.condition;
        return site;
    }

    // An if whose condition is a constant takes its branch. Any other (a mask read from memory, a loop
    // index, the thread index) runs its branches for some executions only: their accesses are counted per
    // execution and carry the condition, so that no total claims a count the kernel may not reach (a
    // block-sparse attention skips most of its gemms).
    void walkBranches(const ir::Stmt& stmt, const Context& ctx) {
        std::optional<int64_t> decided =
            ir::evaluateInt(stmt.cond, [](const ir::Var&) -> std::optional<int64_t> { return std::nullopt; });
        if (decided) {
            walk(*decided ? stmt.body : stmt.elseBody, ctx);
            return;
        }
        const std::string text = ir::printExpr(stmt.cond);
        auto within = [&](const std::string& condition) {
            Context inner = ctx;
            inner.condition = ctx.condition.empty() ? condition : ctx.condition + " and " + condition;
            return inner;
        };
        walk(stmt.body, within(text));
        if (stmt.elseBody)
            walk(stmt.elseBody, within("not (" + text + ")"));
    }

    static void addNote(SharedAccessSite& site, const std::string& note) {
        if (note.empty())
            return;
        site.note += site.note.empty() ? note : "; " + note;
    }

    // Emits the instructions of a thread map over a region of a shared buffer.
    void emitMapped(SharedAccessSite site, const ThreadTileMap& map, const RegionMap& region,
                    const BufferAddressing& buffer, int widthBytes) {
        addNote(site, buffer.note);
        if (region.minsAssumed)
            addNote(site, "a start index is not constant: 0 assumed");
        m_consumer.beginSite(site);
        int64_t firstWarp = map.threadBegin / kWarpLanes;
        int64_t lastWarp = (map.threadBegin + map.threads + kWarpLanes - 1) / kWarpLanes;
        int64_t emitted = 0;
        for (int64_t w = firstWarp; w < lastWarp; ++w) {
            for (int64_t g = 0; g < map.groups; ++g) {
                WarpAccess chosen, plain;
                chosen.kind = plain.kind = site.kind;
                chosen.widthBytes = plain.widthBytes = widthBytes;
                uint32_t mask = 0;
                for (int lane = 0; lane < kWarpLanes; ++lane) {
                    int64_t t = w * kWarpLanes + lane - map.threadBegin;
                    if (t < 0 || t >= map.threads)
                        continue;
                    int64_t e = map.element[size_t(t * map.groups + g)];
                    if (e < 0)
                        continue;
                    auto bytes = buffer.bytes(region.bufferPoint(unflatten(e, map.tileShape)));
                    if (!bytes)
                        continue;
                    chosen.address[lane] = bytes->first;
                    plain.address[lane] = bytes->second;
                    mask |= 1u << lane;
                }
                if (!mask)
                    continue;
                chosen.activeMask = plain.activeMask = mask;
                if (++emitted > kMaxInstructionsPerSite) {
                    tooMany(site);
                    m_consumer.endSite();
                    return;
                }
                m_consumer.instruction(chosen, plain);
            }
        }
        m_consumer.endSite();
    }

    void tooMany(const SharedAccessSite& site) {
        m_diagnostics.warning("bank-analysis-too-many-instructions", site.range,
                              "the " + site.role + " makes more than " +
                                  std::to_string(kMaxInstructionsPerSite) +
                                  " warp instructions per execution; only the first ones are counted",
                              "check the bank costs on a smaller tile");
    }

    // ---- walk ----

    void walk(const ir::StmtPtr& stmt, Context ctx) {
        if (!stmt)
            return;
        if (++ctx.depth > kMaxDepth) {
            skipped(stmt->range, "statements nested deeper than " + std::to_string(kMaxDepth) + " levels");
            return;
        }
        switch (stmt->kind) {
        case ir::StmtKind::Seq:
            for (const ir::StmtPtr& s : stmt->stmts)
                walk(s, ctx);
            return;
        case ir::StmtKind::Kernel:
            walk(stmt->body, ctx);
            return;
        case ir::StmtKind::For: {
            if (stmt->loopKind == ir::LoopKind::Parallel) {
                handleParallel(*stmt, ctx);
                return;
            }
            Context inner = ctx;
            // Only a constant trip count is the same in every block and iteration: one that depends on
            // the block index (a causal attention's `T.Pipelined(start, end)`), an enclosing loop index or
            // the thread index is counted once and flagged, not taken from the representative block 0.
            std::optional<int64_t> extent = ir::evaluateInt(
                stmt->extent, [](const ir::Var&) -> std::optional<int64_t> { return std::nullopt; });
            if (extent && *extent >= 0) {
                inner.executions = saturatingProduct(ctx.executions, *extent);
            } else {
                inner.exact = false;
            }
            std::optional<int64_t> min = evalInt(stmt->min, ctx.env);
            if (stmt->loopVar)
                inner.env.vars[stmt->loopVar] = min.value_or(0);
            if (stmt->loopKind == ir::LoopKind::Pipelined && stmt->pipeline.numStages > 0)
                inner.inPipeline = true;
            walk(stmt->body, inner);
            return;
        }
        case ir::StmtKind::IfThenElse:
            walkBranches(*stmt, ctx);
            return;
        case ir::StmtKind::WarpGroups:
            walk(stmt->body, ctx);
            return;
        case ir::StmtKind::Store:
            handleElementStatement(*stmt, ctx);
            return;
        case ir::StmtKind::Copy:
            handleCopy(*stmt, ctx);
            return;
        case ir::StmtKind::Gemm:
            handleGemm(*stmt, ctx);
            return;
        case ir::StmtKind::Fill:
            handleFill(*stmt, ctx);
            return;
        case ir::StmtKind::Reduce:
            handleReduce(*stmt, ctx);
            return;
        case ir::StmtKind::CpAsync:
            // One thread's few bytes at an address of its own (usually of its thread index): the program
            // decides the warp's pattern, not a plan this pass could enumerate.
            skipped(stmt->range, "T.ptx_cp_async into " + stmt->dst.buffer->name +
                                     ": per-thread async copies are not modelled");
            return;
        case ir::StmtKind::AtomicAdd:
            handleAtomicAdd(*stmt, ctx);
            return;
        case ir::StmtKind::AnnotateLayout:
        case ir::StmtKind::UseSwizzle:
        case ir::StmtKind::Print:
        case ir::StmtKind::Barrier:
        case ir::StmtKind::GridSync:
        case ir::StmtKind::MmaIntrinsic:
            return;
        }
    }

    // A tile T.atomic_add from a shared tile into global memory: the code generator reads the source one
    // element per thread and step, in PlanLoopPartition's order without vectors (codegen's lowerAtomicAdd,
    // defaultPartition(tile, threads, 1)), guarded where the destination may cross the tensor's edge.
    void handleAtomicAdd(const ir::Stmt& stmt, const Context& ctx) {
        const ir::Buffer* src = stmt.src.buffer;
        const ir::Buffer* dst = stmt.dst.buffer;
        if (!src || !dst || src->scope != ir::MemoryScope::Shared || dst->scope != ir::MemoryScope::Global)
            return;
        RegionMap srcMap = makeRegionMap(stmt.src, ctx.env);
        if (!srcMap.ok) {
            skipped(stmt.range, "the atomic add's source is not a constant tile");
            return;
        }
        const BufferAddressing& a = addressing(src);
        if (!a.ok) {
            skipped(stmt.range, a.failure);
            return;
        }
        Context guarded = ctx;
        if (mayCrossEdge(stmt.dst))
            guarded.condition = (ctx.condition.empty() ? "" : ctx.condition + " and ") +
                                "the element is inside " + dst->name + " (the tile may cross its edge)";
        SharedAccessSite site = makeSite(&stmt, src, "ld.shared " + src->name + " atomic_add->global", {},
                                         SharedAccessKind::Load, false, guarded);
        ThreadTileMap map = partitionLoop(srcMap.tileShape, 1, m_threads);
        emitMapped(site, map, srcMap, a, a.elementBytes);
    }

    // ---- copies ----

    const layout::CopyPlan* copyPlanOf(const ir::Stmt& stmt) const {
        for (const layout::CopyPlan& p : m_kernel.copies)
            if (p.copy == &stmt)
                return &p;
        return nullptr;
    }

    // The thread map of a copy's shared side: the plan's thread map when it covers the tile, else
    // PlanLoopPartition with the default vector.
    ThreadTileMap copyThreadMap(const layout::CopyPlan* plan, const std::vector<int64_t>& tileShape,
                                int elementBytes, std::string& note) {
        if (plan && dropUnitDims(plan->threadMap.inputShape()) == tileShape &&
            !plan->threadMap.inputShape().empty()) {
            std::string failure;
            Fragment fragment = plan->threadMap;
            std::optional<ThreadTileMap> map =
                mapFromFragment(m_inverses, fragment, std::max(1, plan->vectorWidth), 0, false, failure);
            if (map) {
                map->tileShape = tileShape;
                return *map;
            }
            note = "the copy plan's thread map cannot be inverted (" + failure + "): default partition used";
        } else if (plan) {
            note = "the copy plan's thread map does not cover the copied tile: default partition used";
        } else {
            note = "no copy plan: PlanLoopPartition with 16-byte vectors used";
        }
        return partitionLoop(tileShape, defaultVector(tileShape, elementBytes), m_threads);
    }

    // The code generator proves a vector's contiguity and alignment under a planned layout for constant
    // starts, and for a start computed at run time in one of the layout's dims (a stage the program picks,
    // `A_shared[ko % 2, :, :]`) only when the layout repeats itself along that dim, every power of two the
    // start is a multiple of, by a multiple of the vector (layout::vectorsSurviveRuntimeStart, the rule of
    // codegen/VectorCopyLowering.cpp's sharedSideVectorizes); other such copies are element by element.
    // The vector copies then move like those at start 0: a shift by a multiple of the vector's bytes
    // renames banks without changing any wavefront count.
    bool copiedElementByElement(const ir::Region& shared, int64_t vector) const {
        if (shared.buffer->scope != ir::MemoryScope::Shared)
            return false;
        const layout::SharedArenaSlot* slot = nullptr;
        for (const layout::SharedArenaSlot& s : m_kernel.schedule.arena.slots)
            if (s.buffer == shared.buffer)
                slot = &s;
        const layout::SharedBufferPlan* plan = m_kernel.sharedOf(shared.buffer);
        if (!slot || !slot->usesPlannedLayout || !plan)
            return false;
        const layout::Layout& l = plan->choice.layout;
        size_t layoutRank = l.inputShape().size();
        size_t first = shared.mins.size() > layoutRank ? shared.mins.size() - layoutRank : 0;
        for (size_t d = first; d < shared.mins.size(); ++d)
            if (!ir::constantInt(shared.mins[d]) &&
                !layout::vectorsSurviveRuntimeStart(
                    l, d - first, ir::knownPowerOfTwoFactor(shared.mins[d], l.inputShape()[d - first]),
                    vector))
                return true;
        return false;
    }

    // Whether a tile of `region` can reach past its buffer's extent in some block: a constant start that
    // overruns, or a start that moves (block index) with a tile that does not divide the extent.
    static bool mayCrossEdge(const ir::Region& region) {
        for (size_t d = 0; d < region.extents.size() && d < region.buffer->shape.size(); ++d) {
            std::optional<int64_t> extent = ir::constantInt(region.extents[d]);
            std::optional<int64_t> size = region.buffer->constantExtent(d);
            if (!extent || !size)
                return true;
            std::optional<int64_t> start = d < region.mins.size() ? ir::constantInt(region.mins[d]) : 0;
            if (start ? *start + *extent > *size : (*extent > *size || *size % *extent != 0))
                return true;
        }
        return false;
    }

    void handleCopy(const ir::Stmt& stmt, const Context& ctx) {
        const ir::Buffer* src = stmt.src.buffer;
        const ir::Buffer* dst = stmt.dst.buffer;
        if (!src || !dst)
            return;
        bool srcShared = src->scope == ir::MemoryScope::Shared;
        bool dstShared = dst->scope == ir::MemoryScope::Shared;
        if (!srcShared && !dstShared)
            return;
        RegionMap srcMap = makeRegionMap(stmt.src, ctx.env);
        RegionMap dstMap = makeRegionMap(stmt.dst, ctx.env);
        if (!srcMap.ok || !dstMap.ok || srcMap.tileShape != dstMap.tileShape) {
            skipped(stmt.range, "the copy's regions are not constant tiles of one shape");
            return;
        }
        const layout::CopyPlan* plan = copyPlanOf(stmt);
        if (dstShared && (src->scope == ir::MemoryScope::Fragment || src->scope == ir::MemoryScope::Local)) {
            fragmentCopy(stmt, ctx, dst, dstMap, src, srcMap, /*isStore=*/true, plan);
            return;
        }
        if (srcShared && (dst->scope == ir::MemoryScope::Fragment || dst->scope == ir::MemoryScope::Local)) {
            fragmentCopy(stmt, ctx, src, srcMap, dst, dstMap, /*isStore=*/false, plan);
            return;
        }
        if (srcShared) {
            const BufferAddressing& a = addressing(src);
            if (!a.ok) {
                skipped(stmt.range, a.failure);
            } else {
                std::string note;
                ThreadTileMap map = copyThreadMap(plan, srcMap.tileShape, a.elementBytes, note);
                std::string what = dstShared ? "shared->shared" : "shared->global";
                // A store to a global tile that may cross the tensor's edge skips the out-of-range part,
                // shared loads included (the emitted guard): a bound, like an undecided if.
                Context guarded = ctx;
                if (dst->scope == ir::MemoryScope::Global && mayCrossEdge(stmt.dst))
                    guarded.condition = (ctx.condition.empty() ? "" : ctx.condition + " and ") +
                                        "the element is inside " + dst->name +
                                        " (the tile may cross its edge)";
                SharedAccessSite site = makeSite(&stmt, src, "ld.shared " + src->name + " " + what, {},
                                                 SharedAccessKind::Load, false, guarded);
                addNote(site, note);
                emitMapped(site, map, srcMap, a, map.vector * a.elementBytes);
            }
        }
        if (dstShared)
            globalToShared(stmt, ctx, dst, dstMap, src, plan);
    }

    void globalToShared(const ir::Stmt& stmt, const Context& ctx, const ir::Buffer* dst,
                        const RegionMap& dstMap, const ir::Buffer* src, const layout::CopyPlan* plan) {
        const BufferAddressing& a = addressing(dst);
        if (!a.ok) {
            skipped(stmt.range, a.failure);
            return;
        }
        bool fromGlobal = src->scope == ir::MemoryScope::Global;
        bool cpAsync = fromGlobal && m_target.hasCpAsync && ctx.inPipeline && src->dtype == dst->dtype;
        if (plan) {
            switch (plan->instruction) {
            case layout::CopyInstruction::CpAsync:
                cpAsync = true;
                break;
            case layout::CopyInstruction::Tma:
                return; // a TMA load writes shared memory through the async proxy, not by LSU instructions
            case layout::CopyInstruction::VectorLoadStore:
            case layout::CopyInstruction::FragmentToShared:
            case layout::CopyInstruction::SharedToFragment:
            case layout::CopyInstruction::FragmentToGlobal:
            case layout::CopyInstruction::GlobalToFragment:
                cpAsync = false;
                break;
            }
        }
        std::string note;
        layout::CopyPlan elementwise;
        if (plan && plan->vectorWidth > 1 && copiedElementByElement(stmt.dst, plan->vectorWidth)) {
            elementwise = *plan;
            elementwise.vectorWidth = 1;
            plan = &elementwise;
            cpAsync = false;
            note =
                "element by element, as the emitted code: the start is computed at run time and the layout "
                "does not repeat at the multiples it is known to be of, so no vector is proved contiguous";
        }
        ThreadTileMap map = copyThreadMap(plan, dstMap.tileShape, a.elementBytes, note);
        int width = map.vector * a.elementBytes;
        SharedAccessKind kind = SharedAccessKind::Store;
        std::string role = "st.shared " + dst->name + (fromGlobal ? " global->shared" : " shared->shared");
        if (cpAsync) {
            if (width == 16) {
                kind = SharedAccessKind::CpAsyncCg;
                role = "cp.async.cg " + dst->name + " global->shared";
            } else if (width == 4 || width == 8) {
                kind = SharedAccessKind::CpAsyncCa;
                role = "cp.async.ca " + dst->name + " global->shared";
            } else {
                note += std::string(note.empty() ? "" : "; ") + "a " + std::to_string(width) +
                        "-byte vector has no cp.async form: st.shared used";
            }
        }
        SharedAccessSite site = makeSite(&stmt, dst, role, {}, kind, true, ctx);
        addNote(site, note);
        emitMapped(site, map, dstMap, a, width);
    }

    // A copy between a fragment and a shared tile: the fragment's layout decides which thread moves which
    // element; vectors of the plan's width (or the fragment's contiguous register runs, at most 16 bytes).
    void fragmentCopy(const ir::Stmt& stmt, const Context& ctx, const ir::Buffer* shared,
                      const RegionMap& sharedMap, const ir::Buffer* frag, const RegionMap& fragMap,
                      bool isStore, const layout::CopyPlan* plan) {
        const BufferAddressing& a = addressing(shared);
        if (!a.ok) {
            skipped(stmt.range, a.failure);
            return;
        }
        std::string note;
        std::optional<ThreadTileMap> map;
        const Fragment* fragment = fragmentOf(frag);
        bool wholeFragment =
            std::all_of(fragMap.mins.begin(), fragMap.mins.end(), [](int64_t m) { return m == 0; });
        if (fragment && wholeFragment && dropUnitDims(fragment->inputShape()) == sharedMap.tileShape) {
            std::string failure;
            int vector = plan ? std::max(1, plan->vectorWidth) : 0;
            map = mapFromFragment(m_inverses, *fragment, vector, std::max(1, 16 / a.elementBytes), isStore,
                                  failure);
            if (map)
                map->tileShape = sharedMap.tileShape;
            else
                note = "the fragment layout of " + frag->name + " cannot be inverted (" + failure + ")";
        } else {
            note = fragment ? "the copied region is not the whole fragment " + frag->name
                            : "no layout for fragment " + frag->name;
        }
        if (!map) {
            note += ": default partition used";
            map = partitionLoop(sharedMap.tileShape, defaultVector(sharedMap.tileShape, a.elementBytes),
                                m_threads);
        }
        std::string role = isStore ? "st.shared " + frag->name + " -> " + shared->name + " fragment->shared"
                                   : "ld.shared " + shared->name + " -> " + frag->name + " shared->fragment";
        SharedAccessSite site =
            makeSite(&stmt, shared, role, {}, isStore ? SharedAccessKind::Store : SharedAccessKind::Load,
                     isStore, ctx);
        addNote(site, note);
        emitMapped(site, *map, sharedMap, a, map->vector * a.elementBytes);
    }

    // T.fill / T.clear of a shared tile: a T.Parallel store loop partitioned by PlanLoopPartition.
    void handleFill(const ir::Stmt& stmt, const Context& ctx) {
        const ir::Buffer* dst = stmt.dst.buffer;
        if (!dst || dst->scope != ir::MemoryScope::Shared)
            return;
        const BufferAddressing& a = addressing(dst);
        RegionMap map = makeRegionMap(stmt.dst, ctx.env);
        if (!a.ok || !map.ok) {
            skipped(stmt.range, a.ok ? "the filled region is not a constant tile" : a.failure);
            return;
        }
        ThreadTileMap threads =
            partitionLoop(map.tileShape, defaultVector(map.tileShape, a.elementBytes), m_threads);
        SharedAccessSite site =
            makeSite(&stmt, dst, "st.shared " + dst->name + " fill", {}, SharedAccessKind::Store, true, ctx);
        emitMapped(site, threads, map, a, threads.vector * a.elementBytes);
    }

    // ---- gemm operands ----

    const layout::GemmPlan* gemmPlanOf(const ir::Stmt& stmt) const {
        for (const layout::GemmPlan& p : m_kernel.gemms)
            if (p.gemm == &stmt)
                return &p;
        return nullptr;
    }

    static layout::GemmWarpPolicy policyOf(ir::GemmWarpPolicy policy) {
        switch (policy) {
        case ir::GemmWarpPolicy::Square:
            return layout::GemmWarpPolicy::Square;
        case ir::GemmWarpPolicy::FullRow:
            return layout::GemmWarpPolicy::FullRow;
        case ir::GemmWarpPolicy::FullCol:
            return layout::GemmWarpPolicy::FullCol;
        }
        return layout::GemmWarpPolicy::Square;
    }

    void handleGemm(const ir::Stmt& stmt, const Context& ctx) {
        const ir::Buffer* A = stmt.a.buffer;
        const ir::Buffer* B = stmt.b.buffer;
        const ir::Buffer* C = stmt.c.buffer;
        if (!A || !B || !C)
            return;
        bool aShared = A->scope == ir::MemoryScope::Shared;
        bool bShared = B->scope == ir::MemoryScope::Shared;
        if (!aShared && !bShared)
            return;
        RegionMap aMap = makeRegionMap(stmt.a, ctx.env);
        RegionMap bMap = makeRegionMap(stmt.b, ctx.env);
        RegionMap cMap = makeRegionMap(stmt.c, ctx.env);
        if (!aMap.ok || !bMap.ok || !cMap.ok || aMap.tileShape.size() != 2 || bMap.tileShape.size() != 2 ||
            cMap.tileShape.size() != 2) {
            skipped(stmt.range, "the gemm operands are not constant 2-d tiles");
            return;
        }
        int64_t M = cMap.tileShape[0], N = cMap.tileShape[1];
        int64_t K = stmt.transposeA ? aMap.tileShape[0] : aMap.tileShape[1];
        layout::GemmInstruction instruction;
        layout::WarpGrid grid;
        std::string note;
        if (const layout::GemmPlan* plan = gemmPlanOf(stmt)) {
            instruction = plan->instruction;
            grid = plan->grid;
        } else {
            layout::GemmOperandTypes types;
            types.a = A->dtype;
            types.b = B->dtype;
            types.c = C->dtype;
            types.aTransposed = stmt.transposeA;
            types.bTransposed = stmt.transposeB;
            types.aInShared = aShared;
            types.bInShared = bShared;
            int64_t warps = std::max<int64_t>(1, m_threads / kWarpLanes);
            auto inst = layout::selectGemmInstruction(m_target, M, N, K, warps, types);
            if (!inst) {
                skipped(stmt.range, "no gemm instruction: " + inst.error().message);
                return;
            }
            auto g = layout::computeWarpGrid(M, N, warps, policyOf(stmt.policy), *inst);
            if (!g) {
                skipped(stmt.range, "no warp grid: " + g.error().message);
                return;
            }
            instruction = *inst;
            grid = *g;
            note = "no gemm plan: warp grid recomputed (" + grid.toString() + ")";
        }
        if (grid.instruction == layout::GemmInstructionKind::Wgmma) {
            int64_t k = std::max<int64_t>(1, instruction.k);
            if (aShared)
                wgmmaOperand(stmt, ctx, A, aMap, /*isA=*/true, grid, K, k, note);
            wgmmaOperand(stmt, ctx, B, bMap, /*isA=*/false, grid, K, k, note);
            return;
        }
        if (aShared)
            ldmatrixOperand(stmt, ctx, A, aMap, /*isA=*/true, grid, K, note);
        if (bShared)
            ldmatrixOperand(stmt, ctx, B, bMap, /*isA=*/false, grid, K, note);
    }

    // ldmatrix.x4 (x2 for an 8-column B atom) per warp, per k-step of 16 and per 16-row (column) block of
    // the warp tile. The stored tile's 8x8 matrices each give one phase; lane 8m+r addresses row r of
    // matrix m (docs/bank-analysis.md gives the lane formulas). 8-bit operands stored K-major are read as
    // 16-bit pairs: k steps of 32, 16 elements per matrix row (codegen/LdmatrixLanes.h's `chunk`).
    void ldmatrixOperand(const ir::Stmt& stmt, const Context& ctx, const ir::Buffer* buffer,
                         const RegionMap& map, bool isA, const layout::WarpGrid& grid, int64_t K,
                         const std::string& note) {
        const BufferAddressing& a = addressing(buffer);
        if (!a.ok) {
            skipped(stmt.range, a.failure);
            return;
        }
        bool storedTransposed = isA ? stmt.transposeA : !stmt.transposeB; // stored [K][M] / [K][N]
        const int bits = ir::dtypeBits(buffer->dtype);
        if (bits != 16 && !(bits == 8 && !storedTransposed)) {
            skipped(stmt.range,
                    std::string("ldmatrix moves 16-bit elements (8-bit ones as K-major pairs); ") +
                        buffer->name + " is " + ir::dtypeName(buffer->dtype) +
                        (bits == 8 ? " stored MN-major" : "") + " (per-element loads are not modelled)");
            return;
        }
        const int64_t chunk = 128 / bits, kStep = 2 * chunk; // elements per matrix row; k per step
        if (K % kStep != 0 || grid.warpTileM % 16 != 0 || grid.warpTileN % 8 != 0) {
            skipped(stmt.range,
                    "the gemm tile is not a multiple of the 16x" + std::to_string(kStep) + " ldmatrix tile");
            return;
        }
        bool x2 = !isA && grid.warpTileN % 16 != 0;
        int64_t blocks = isA ? grid.warpTileM / 16 : (x2 ? grid.warpTileN / 8 : grid.warpTileN / 16);
        int64_t blockSize = x2 ? 8 : 16;
        std::string name = std::string(storedTransposed ? "ldmatrix.trans" : "ldmatrix") +
                           (x2 ? ".x2 " : ".x4 ") + (isA ? "A" : "B") + " operand " + buffer->name;
        SharedAccessSite site = makeSite(&stmt, buffer, name, isA ? stmt.a.range : stmt.b.range,
                                         SharedAccessKind::LdMatrix, false, ctx);
        addNote(site, note);
        addNote(site, a.note);
        m_consumer.beginSite(site);
        int64_t warps = grid.mWarp * grid.nWarp;
        for (int64_t w = 0; w < warps; ++w) {
            int64_t wm = w % grid.mWarp, wn = w / grid.mWarp;
            for (int64_t kk = 0; kk < K / kStep; ++kk) {
                for (int64_t blk = 0; blk < blocks; ++blk) {
                    int64_t k0 = kStep * kk;
                    int64_t mn0 =
                        isA ? wm * grid.warpTileM + 16 * blk : wn * grid.warpTileN + blockSize * blk;
                    WarpAccess chosen, plain;
                    chosen.kind = plain.kind = SharedAccessKind::LdMatrix;
                    chosen.matrices = plain.matrices = x2 ? 2 : 4;
                    chosen.transposed = plain.transposed = storedTransposed;
                    bool ok = true;
                    for (int t = 0; t < (x2 ? 16 : 32); ++t) {
                        // (mn, k) of the row this lane addresses, then its stored (row, col).
                        int64_t rowIdx, colIdx;
                        if (!storedTransposed) {
                            // Stored [MN][K] (A, or B transposed): rows along MN, 8 k per matrix row.
                            if (isA) {
                                rowIdx = mn0 + t % 16;
                                colIdx = k0 + chunk * (t / 16);
                            } else if (x2) {
                                rowIdx = mn0 + t % 8;
                                colIdx = k0 + chunk * (t / 8);
                            } else {
                                rowIdx = mn0 + 8 * (t / 16) + t % 8;
                                colIdx = k0 + chunk * ((t % 16) / 8);
                            }
                        } else {
                            // Stored [K][MN] (A transposed, or B not transposed): rows along K, .trans.
                            if (isA) {
                                rowIdx = k0 + 8 * (t / 16) + t % 8;
                                colIdx = mn0 + 8 * ((t % 16) / 8);
                            } else {
                                rowIdx = k0 + t % 16;
                                colIdx = mn0 + 8 * (t / 16);
                            }
                        }
                        auto bytes = a.bytes(map.bufferPoint({rowIdx, colIdx}));
                        if (!bytes) {
                            ok = false;
                            break;
                        }
                        chosen.address[t] = bytes->first;
                        plain.address[t] = bytes->second;
                    }
                    if (!ok)
                        continue;
                    m_consumer.instruction(chosen, plain);
                }
            }
        }
        m_consumer.endSite();
    }

    // wgmma reads its shared operands through descriptors, by 8-row x 16-byte core matrices of the stored
    // tile. Modelled as groups of four core matrices costed like one ldmatrix.x4 (one phase per core
    // matrix); no LSU counter sees these reads (docs/bank-analysis.md).
    void wgmmaOperand(const ir::Stmt& stmt, const Context& ctx, const ir::Buffer* buffer,
                      const RegionMap& map, bool isA, const layout::WarpGrid& grid, int64_t K, int64_t k,
                      const std::string& note) {
        const BufferAddressing& a = addressing(buffer);
        if (!a.ok) {
            skipped(stmt.range, a.failure);
            return;
        }
        int64_t chunk = std::max<int64_t>(1, 16 / a.elementBytes);
        int64_t atomN = std::max<int64_t>(1, grid.atomN);
        bool storedTransposed = isA ? stmt.transposeA : !stmt.transposeB; // rows along K
        int64_t tileMN = isA ? 64 : atomN;
        int64_t rows = storedTransposed ? k : tileMN;
        int64_t cols = storedTransposed ? tileMN : k;
        if (rows % 8 != 0 || cols % chunk != 0 || K % k != 0) {
            skipped(stmt.range,
                    "the wgmma operand tile of " + buffer->name + " is not made of 8x16-byte core matrices");
            return;
        }
        SharedAccessSite site =
            makeSite(&stmt, buffer,
                     std::string("wgmma ") + (isA ? "A" : "B") + " operand " + buffer->name + " (descriptor)",
                     isA ? stmt.a.range : stmt.b.range, SharedAccessKind::LdMatrix, false, ctx);
        site.wgmmaOperand = true;
        addNote(site, note);
        addNote(site, a.note);
        m_consumer.beginSite(site);
        int64_t groups = std::max<int64_t>(1, grid.warpgroupsM) * std::max<int64_t>(1, grid.warpgroupsN);
        int64_t emitted = 0;
        for (int64_t g = 0; g < groups; ++g) {
            int64_t gm = g % std::max<int64_t>(1, grid.warpgroupsM),
                    gn = g / std::max<int64_t>(1, grid.warpgroupsM);
            for (int64_t j = 0; j < grid.atomsN; ++j)
                for (int64_t i = 0; i < grid.atomsM; ++i)
                    for (int64_t kk = 0; kk < K / k; ++kk) {
                        int64_t mn0 = isA ? gm * grid.warpTileM + 64 * i : gn * grid.warpTileN + atomN * j;
                        int64_t r0 = storedTransposed ? kk * k : mn0;
                        int64_t c0 = storedTransposed ? mn0 : kk * k;
                        std::vector<std::pair<int64_t, int64_t>> cores;
                        for (int64_t rg = 0; rg < rows / 8; ++rg)
                            for (int64_t ch = 0; ch < cols / chunk; ++ch)
                                cores.push_back({r0 + 8 * rg, c0 + chunk * ch});
                        for (size_t first = 0; first < cores.size();) {
                            size_t left = cores.size() - first;
                            int matrices = left >= 4 ? 4 : (left >= 2 ? 2 : 1);
                            WarpAccess chosen, plain;
                            chosen.kind = plain.kind = SharedAccessKind::LdMatrix;
                            chosen.matrices = plain.matrices = matrices;
                            bool ok = true;
                            for (int m = 0; m < matrices && ok; ++m)
                                for (int r = 0; r < 8; ++r) {
                                    auto bytes = a.bytes(map.bufferPoint(
                                        {cores[first + m].first + r, cores[first + m].second}));
                                    if (!bytes) {
                                        ok = false;
                                        break;
                                    }
                                    chosen.address[8 * m + r] = bytes->first;
                                    plain.address[8 * m + r] = bytes->second;
                                }
                            first += size_t(matrices);
                            if (!ok)
                                continue;
                            if (++emitted > kMaxInstructionsPerSite) {
                                tooMany(site);
                                m_consumer.endSite();
                                return;
                            }
                            m_consumer.instruction(chosen, plain);
                        }
                    }
        }
        m_consumer.endSite();
    }

    // ---- T.Parallel loops ----

    const layout::ParallelLoopPlan* loopPlanOf(const ir::Stmt& stmt) const {
        for (const layout::ParallelLoopPlan& p : m_kernel.loops)
            if (p.loop == &stmt)
                return &p;
        return nullptr;
    }

    // Collects the shared accesses of a loop body; inner serial loops bind their first iteration and
    // multiply `repeat`.
    void collectBody(const ir::StmtPtr& stmt, std::vector<ExprAccess>& out, Context& ctx, int64_t& repeat,
                     int depth) {
        if (!stmt || depth > kMaxDepth)
            return;
        switch (stmt->kind) {
        case ir::StmtKind::Seq:
            for (const ir::StmtPtr& s : stmt->stmts)
                collectBody(s, out, ctx, repeat, depth + 1);
            return;
        case ir::StmtKind::IfThenElse: {
            size_t conditionLoads = out.size();
            collectLoads(stmt->cond, out, 0);
            attributeTo(out, conditionLoads, stmt->range);
            std::optional<int64_t> decided = ir::evaluateInt(
                stmt->cond, [](const ir::Var&) -> std::optional<int64_t> { return std::nullopt; });
            if (decided) {
                collectBody(*decided ? stmt->body : stmt->elseBody, out, ctx, repeat, depth + 1);
                return;
            }
            const std::string text = ir::printExpr(stmt->cond);
            auto guarded = [&](const ir::StmtPtr& branch, const std::string& condition) {
                size_t first = out.size();
                collectBody(branch, out, ctx, repeat, depth + 1);
                for (size_t i = first; i < out.size(); ++i)
                    out[i].condition =
                        out[i].condition.empty() ? condition : condition + " and " + out[i].condition;
            };
            guarded(stmt->body, text);
            guarded(stmt->elseBody, "not (" + text + ")");
            return;
        }
        case ir::StmtKind::WarpGroups:
            collectBody(stmt->body, out, ctx, repeat, depth + 1);
            return;
        case ir::StmtKind::For: {
            std::optional<int64_t> extent = ir::constantInt(stmt->extent);
            if (extent && *extent > 0)
                repeat = saturatingProduct(repeat, *extent);
            if (stmt->loopVar)
                ctx.env.vars[stmt->loopVar] = evalInt(stmt->min, ctx.env).value_or(0);
            collectBody(stmt->body, out, ctx, repeat, depth + 1);
            return;
        }
        case ir::StmtKind::Store: {
            size_t first = out.size();
            for (const ir::ExprPtr& index : stmt->indices)
                collectLoads(index, out, 0);
            collectLoads(stmt->value, out, 0);
            const bool memoryStore = stmt->buffer && (stmt->buffer->scope == ir::MemoryScope::Shared ||
                                                      stmt->buffer->scope == ir::MemoryScope::Global);
            for (size_t i = first; i < out.size(); ++i)
                out[i].feedsMemoryStore = memoryStore;
            attributeTo(out, first, stmt->range);
            if (stmt->buffer && stmt->buffer->scope == ir::MemoryScope::Shared)
                out.push_back({stmt->buffer, stmt->indices, true, stmt->range});
            return;
        }
        case ir::StmtKind::Kernel:
        case ir::StmtKind::Copy:
        case ir::StmtKind::Gemm:
        case ir::StmtKind::Fill:
        case ir::StmtKind::Reduce:
        case ir::StmtKind::AtomicAdd:
        case ir::StmtKind::AnnotateLayout:
        case ir::StmtKind::UseSwizzle:
        case ir::StmtKind::Print:
        case ir::StmtKind::Barrier:
        case ir::StmtKind::GridSync:
        case ir::StmtKind::CpAsync:
        case ir::StmtKind::MmaIntrinsic:
            return;
        }
    }

    void handleParallel(const ir::Stmt& outer, const Context& ctx) {
        std::vector<const ir::Var*> vars;
        std::vector<int64_t> extents;
        const ir::Stmt* loop = &outer;
        ir::StmtPtr body;
        for (int depth = 0; loop && depth < kMaxDepth; ++depth) {
            std::optional<int64_t> extent = evalInt(loop->extent, ctx.env);
            if (!extent || *extent < 1) {
                // No constant iteration space: only a diagnostic if it touches shared memory.
                std::vector<ExprAccess> accesses;
                Context scratch = ctx;
                int64_t repeat = 1;
                collectBody(loop->body, accesses, scratch, repeat, 0);
                if (!accesses.empty())
                    skipped(outer.range, "a T.Parallel loop over shared memory has a non-constant extent");
                return;
            }
            vars.push_back(loop->loopVar);
            extents.push_back(*extent);
            body = loop->body;
            const ir::Stmt* next = body.get();
            while (next && next->kind == ir::StmtKind::Seq && next->stmts.size() == 1)
                next = next->stmts[0].get();
            if (next && next->kind == ir::StmtKind::For && next->loopKind == ir::LoopKind::Parallel)
                loop = next;
            else
                loop = nullptr;
        }
        std::vector<ExprAccess> accesses;
        Context inner = ctx;
        int64_t repeat = 1;
        collectBody(body, accesses, inner, repeat, 0);
        if (accesses.empty())
            return;
        // Control flow in the body keeps every access scalar in the code (ir::isPlainStoreList).
        const bool controlFlow = body && !ir::isPlainStoreList(*body);
        if (product(extents) > kMaxTableElements) {
            skipped(outer.range,
                    "the T.Parallel loop has more than " + std::to_string(kMaxTableElements) + " iterations");
            return;
        }
        inner.executions = saturatingProduct(ctx.executions, repeat);
        const layout::ParallelLoopPlan* plan = loopPlanOf(outer);
        int minBytes = 16;
        for (const ExprAccess& access : accesses)
            minBytes = std::min(minBytes, std::max(1, ir::dtypeBytes(access.buffer->dtype)));

        // Evaluates an access's buffer point at one iteration.
        auto pointAt = [&](const ExprAccess& access,
                           int64_t flatIteration) -> std::optional<std::vector<int64_t>> {
            std::vector<int64_t> iteration = unflatten(flatIteration, extents);
            EvalEnv env = inner.env;
            for (size_t d = 0; d < vars.size(); ++d)
                if (vars[d])
                    env.vars[vars[d]] = iteration[d];
            std::vector<int64_t> point;
            for (const ir::ExprPtr& index : access.indices) {
                std::optional<int64_t> v = evalInt(index, env);
                if (!v)
                    return std::nullopt;
                point.push_back(*v);
            }
            return point;
        };

        // Without a loop plan the loop is vectorized as a whole (reference §5.5): the 16-byte width of the
        // narrowest shared element, kept only when every shared access walks its buffer contiguously along
        // the innermost loop variable.
        int defaultLoopVector = defaultVector(extents, minBytes);
        for (const ExprAccess& access : accesses) {
            const BufferAddressing& a = addressing(access.buffer);
            auto p0 = pointAt(access, 0), p1 = pointAt(access, 1);
            if (!a.ok || !p0 || !p1 || extents.back() < 2 ||
                flatten(*p1, a.shape) != flatten(*p0, a.shape) + 1)
                defaultLoopVector = 1;
        }
        for (const ExprAccess& access : accesses) {
            const BufferAddressing& a = addressing(access.buffer);
            if (!a.ok) {
                skipped(access.range, a.failure);
                continue;
            }
            std::string note;
            std::optional<ThreadTileMap> map;
            if (plan) {
                std::string failure;
                // Replica 0 only: stores, and the loads of a memory store in an unvectorized loop (a
                // vectorized one loads its vectors before the guarded element code, in every replica).
                bool replicaZeroOnly = access.isStore || (access.feedsMemoryStore && plan->vectorWidth <= 1);
                map = mapFromFragment(m_inverses, plan->loopLayout, std::max(1, plan->vectorWidth), 0,
                                      replicaZeroOnly, failure);
                if (map && map->tileShape != extents)
                    map.reset();
                if (!map)
                    note = "the loop plan does not cover the iteration space: default partition used";
            } else {
                note = "no loop plan: PlanLoopPartition used";
            }
            if (!map)
                map = partitionLoop(extents, defaultLoopVector, m_threads);
            if (map->vector > 1 && (controlFlow || access.underSelect)) {
                map = elementWise(*map);
                note += std::string(note.empty() ? "" : "; ") + "element by element, as the emitted code: " +
                        (controlFlow ? "control flow in the loop body keeps its accesses scalar"
                                     : "a load inside T.if_then_else is not vectorized");
            }
            SharedAccessSite site = makeSite(
                &outer, access.buffer,
                std::string(access.isStore ? "st.shared " : "ld.shared ") + access.buffer->name +
                    " T.Parallel",
                countedRange(access, map->vector),
                access.isStore ? SharedAccessKind::Store : SharedAccessKind::Load, access.isStore, inner);
            if (!access.condition.empty())
                site.condition =
                    site.condition.empty() ? access.condition : site.condition + " and " + access.condition;
            addNote(site, note);
            addNote(site, a.note);
            if (repeat > 1)
                addNote(site, "inner serial loops: first iteration's addresses, counted " +
                                  std::to_string(repeat) + " times");
            // A load that gives every lane the address it loaded for an earlier register of the same thread
            // (an element broadcast along the registers, `G_shared[i]` in a loop over (i, j)) is the value
            // the compiler already holds: the register loop is unrolled and, when the body stores nothing to
            // the buffer, one load serves them all. Counted once, as the hardware measures.
            const bool reusesLoads =
                !access.isStore &&
                std::none_of(accesses.begin(), accesses.end(), [&](const ExprAccess& other) {
                    return other.isStore && other.buffer == access.buffer;
                });
            m_consumer.beginSite(site);
            int64_t emitted = 0;
            int64_t firstWarp = map->threadBegin / kWarpLanes;
            int64_t lastWarp = (map->threadBegin + map->threads + kWarpLanes - 1) / kWarpLanes;
            bool failed = false;
            std::set<std::pair<uint32_t, std::array<int64_t, kWarpLanes>>> loaded; // this warp's, so far
            for (int64_t w = firstWarp; w < lastWarp && !failed; ++w, loaded.clear())
                for (int64_t g = 0; g < map->groups && !failed; ++g) {
                    WarpAccess chosen, plain;
                    chosen.kind = plain.kind = site.kind;
                    chosen.widthBytes = plain.widthBytes = map->vector * a.elementBytes;
                    uint32_t mask = 0;
                    for (int lane = 0; lane < kWarpLanes; ++lane) {
                        int64_t t = w * kWarpLanes + lane - map->threadBegin;
                        if (t < 0 || t >= map->threads)
                            continue;
                        int64_t e = map->element[size_t(t * map->groups + g)];
                        if (e < 0)
                            continue;
                        std::optional<std::vector<int64_t>> point = pointAt(access, e);
                        std::optional<std::pair<int64_t, int64_t>> bytes;
                        if (point)
                            bytes = a.bytes(*point);
                        if (!bytes) {
                            failed = true;
                            break;
                        }
                        chosen.address[lane] = bytes->first;
                        plain.address[lane] = bytes->second;
                        mask |= 1u << lane;
                    }
                    if (failed || !mask)
                        continue;
                    if (reusesLoads && !loaded.emplace(mask, chosen.address).second)
                        continue;
                    chosen.activeMask = plain.activeMask = mask;
                    if (++emitted > kMaxInstructionsPerSite) {
                        tooMany(site);
                        failed = true;
                        break;
                    }
                    m_consumer.instruction(chosen, plain);
                }
            m_consumer.endSite();
            if (failed && emitted <= kMaxInstructionsPerSite)
                skipped(access.range, "an index of " + access.buffer->name +
                                          " in the T.Parallel loop is not a constant for some iteration "
                                          "(or falls outside the buffer); the counts stop there");
        }
    }

    // ---- element statements outside T.Parallel ----

    void handleElementStatement(const ir::Stmt& stmt, const Context& ctx) {
        std::vector<ExprAccess> accesses;
        for (const ir::ExprPtr& index : stmt.indices)
            collectLoads(index, accesses, 0);
        collectLoads(stmt.value, accesses, 0);
        attributeTo(accesses, 0, stmt.range);
        if (stmt.buffer && stmt.buffer->scope == ir::MemoryScope::Shared)
            accesses.push_back({stmt.buffer, stmt.indices, true, stmt.range});
        for (const ExprAccess& access : accesses) {
            const BufferAddressing& a = addressing(access.buffer);
            if (!a.ok) {
                skipped(access.range, a.failure);
                continue;
            }
            SharedAccessSite site = makeSite(
                &stmt, access.buffer,
                std::string(access.isStore ? "st.shared " : "ld.shared ") + access.buffer->name + " element",
                countedRange(access, 1), access.isStore ? SharedAccessKind::Store : SharedAccessKind::Load,
                access.isStore, ctx);
            addNote(site, a.note);
            m_consumer.beginSite(site);
            bool failed = false;
            for (int64_t w = 0; w < (m_threads + kWarpLanes - 1) / kWarpLanes && !failed; ++w) {
                WarpAccess chosen, plain;
                chosen.kind = plain.kind = site.kind;
                chosen.widthBytes = plain.widthBytes = a.elementBytes;
                uint32_t mask = 0;
                for (int lane = 0; lane < kWarpLanes; ++lane) {
                    int64_t t = w * kWarpLanes + lane;
                    if (t >= m_threads)
                        break;
                    EvalEnv env = ctx.env;
                    env.thread = t;
                    std::vector<int64_t> point;
                    for (const ir::ExprPtr& index : access.indices) {
                        std::optional<int64_t> v = evalInt(index, env);
                        if (!v)
                            break;
                        point.push_back(*v);
                    }
                    auto bytes = point.size() == access.indices.size() ? a.bytes(point) : std::nullopt;
                    if (!bytes) {
                        failed = true;
                        break;
                    }
                    chosen.address[lane] = bytes->first;
                    plain.address[lane] = bytes->second;
                    mask |= 1u << lane;
                }
                if (failed)
                    break;
                chosen.activeMask = plain.activeMask = mask;
                m_consumer.instruction(chosen, plain);
            }
            m_consumer.endSite();
            if (failed)
                skipped(access.range, "an index of " + access.buffer->name +
                                          " is not a compile-time constant "
                                          "per thread");
        }
    }

    // ---- reductions through shared memory ----

    void handleReduce(const ir::Stmt& stmt, const Context& ctx) {
        const layout::ReducePlan* plan = nullptr;
        for (const layout::ReducePlan& p : m_kernel.reduces)
            if (p.reduce == &stmt)
                plan = &p;
        if (!plan || !plan->throughSharedMemory || !stmt.srcBuffer)
            return;
        int64_t lanes = int64_t(1) << std::min<size_t>(plan->shuffleOffsets.size(), 5);
        int64_t crossWarp = plan->threadsPerOutput / lanes;
        if (crossWarp < 2 || (crossWarp & (crossWarp - 1)) != 0) {
            skipped(stmt.range, "the reduction's " + std::to_string(plan->threadsPerOutput) +
                                    " threads per output are not a power-of-two number of warps");
            return;
        }
        int levels = 0;
        while ((int64_t(1) << levels) < crossWarp)
            ++levels;
        // Outputs per thread: the distinct output elements thread 0 holds parts of.
        int64_t outputs = 1;
        std::string note;
        if (const Fragment* src = fragmentOf(stmt.srcBuffer)) {
            auto table = layout::tabulateFragment(*src);
            if (table && stmt.dim >= 0 && size_t(stmt.dim) < src->inputShape().size()) {
                std::set<std::vector<int64_t>> held;
                for (int64_t e = 0; e < src->inputSize(); ++e)
                    for (int64_t r = 0; r < table->replicate; ++r)
                        if (table->at(e, r).thread == 0) {
                            std::vector<int64_t> point = unflatten(e, src->inputShape());
                            point.erase(point.begin() + stmt.dim);
                            held.insert(point);
                        }
                outputs = std::max<int64_t>(1, int64_t(held.size()));
            }
        } else {
            note = "no layout for " + stmt.srcBuffer->name + ": one output per thread assumed";
        }
        int bytes = std::max(1, ir::dtypeBytes(stmt.srcBuffer->dtype));
        int64_t warps = (m_threads + kWarpLanes - 1) / kWarpLanes;
        for (int pass = 0; pass < 2; ++pass) {
            bool isStore = pass == 0;
            SharedAccessSite site =
                makeSite(&stmt, nullptr,
                         std::string(isStore ? "st.shared" : "ld.shared") + " red_buf all-reduce partials",
                         {}, isStore ? SharedAccessKind::Store : SharedAccessKind::Load, isStore, ctx);
            addNote(site, note);
            m_consumer.beginSite(site);
            for (int64_t r = 0; r < outputs; ++r)
                for (int level = 0; level < levels; ++level) {
                    int64_t offset = kWarpLanes * (crossWarp >> (level + 1));
                    for (int64_t w = 0; w < warps; ++w) {
                        WarpAccess access;
                        access.kind = site.kind;
                        access.widthBytes = bytes;
                        for (int lane = 0; lane < kWarpLanes; ++lane) {
                            int64_t t = w * kWarpLanes + lane;
                            access.address[lane] = bytes * (isStore ? t : (t ^ offset));
                        }
                        m_consumer.instruction(access, access);
                    }
                }
            m_consumer.endSite();
        }
    }
};

} // namespace

void enumerateSharedAccesses(const layout::KernelPlan& kernel, const Target& target,
                             SharedAccessConsumer& consumer, DiagnosticEngine& diagnostics) {
    Enumerator(kernel, target, consumer, diagnostics).run();
}

} // namespace tb::passes
