// The JSON form: strict validity (parsed back by the engine's strict reader, engine/support/JsonReader.h),
// key fields of the documented schema, locations and determinism.
#include "engine/ir/IrJson.h"

#include "engine/support/JsonReader.h"
#include "tests/engine/ir/TestIr.h"

#include <cmath>
#include <gtest/gtest.h>
#include <optional>
#include <string>
#include <utility>

namespace tb::ir {
namespace {

using namespace tb::testir;
using tb::JsonValue;

// The engine's own strict reader parses what the writer produced.
std::optional<JsonValue> parseDocument(const std::string& text) {
    std::string error;
    return parseJson(text, error);
}

std::string str(const JsonValue* v) {
    return v && v->kind == JsonValue::Kind::String ? v->text : "<missing>";
}
double num(const JsonValue* v) {
    return v && v->kind == JsonValue::Kind::Number ? v->number : std::nan("");
}

TEST(IrJson, ReaderRejectsInvalidDocuments) {
    EXPECT_TRUE(parseDocument(R"({"a": [1, 2.5e3, -0, true, null, "x\n"]})"));
    EXPECT_FALSE(parseDocument(R"({"a": [1, 2,]})"));
    EXPECT_FALSE(parseDocument(R"({"a": NaN})"));
    EXPECT_FALSE(parseDocument(R"({"a" 1})"));
    EXPECT_FALSE(parseDocument(R"({"a": 1} x)"));
    EXPECT_FALSE(parseDocument(R"(["unterminated)"));
}

TEST(IrJson, GemmDocument) {
    GemmProgram p;
    std::string json = moduleToJson(*p.module, &p.src.sources);
    auto doc = parseDocument(json);
    ASSERT_TRUE(doc) << json;
    EXPECT_EQ(str(doc->member("format")), "tilebench-ir");
    EXPECT_EQ(num(doc->member("version")), kIrJsonVersion);
    EXPECT_EQ(str(doc->member("sourceName")), "gemm_relu.py");
    EXPECT_EQ(str(doc->at({"specialization", "0", "name"})), "M");
    EXPECT_EQ(num(doc->at({"specialization", "0", "value"})), 1024);
    EXPECT_EQ(str(doc->at({"specialization", "0", "origin"})), "module-call");
    EXPECT_EQ(str(doc->at({"specialization", "1", "value"})), "float16");
    EXPECT_EQ(str(doc->at({"specialization", "1", "text"})), "'float16'");

    const JsonValue* func = doc->at({"funcs", "0"});
    ASSERT_TRUE(func);
    EXPECT_EQ(str(func->member("name")), "main");
    EXPECT_EQ(str(func->at({"params", "2", "name"})), "C");
    EXPECT_TRUE(func->at({"params", "2", "isOutput"})->boolean);
    EXPECT_EQ(num(func->at({"params", "0", "bytes"})), 1024 * 1024 * 2);

    const JsonValue* kernel = func->at({"kernels", "0"});
    ASSERT_TRUE(kernel);
    EXPECT_EQ(str(kernel->member("kind")), "Kernel");
    EXPECT_EQ(str(kernel->at({"grid", "0", "text"})), "8");
    EXPECT_EQ(num(kernel->at({"threads", "0"})), 128);
    EXPECT_EQ(str(kernel->at({"blockVars", "1", "name"})), "by");
    EXPECT_EQ(str(kernel->at({"allocations", "0", "name"})), "A_shared");
    EXPECT_EQ(str(kernel->at({"allocations", "0", "scope"})), "shared");
    EXPECT_EQ(str(kernel->at({"allocations", "0", "dtype"})), "float16");
    EXPECT_EQ(num(kernel->at({"allocations", "0", "shape", "1", "tree", "value"})), 32);
    EXPECT_EQ(num(kernel->at({"allocations", "0", "bytes"})), 128 * 32 * 2);
    EXPECT_EQ(num(kernel->at({"loc", "line"})), 16);
    EXPECT_EQ(num(kernel->at({"loc", "col"})), 5);
    EXPECT_EQ(num(kernel->at({"loc", "endLine"})), 16);
    EXPECT_TRUE(func->member("hostStmts") && func->member("hostStmts")->items.empty());

    const JsonValue* loop = kernel->at({"body", "stmts", "1"});
    ASSERT_TRUE(loop);
    EXPECT_EQ(str(loop->member("kind")), "For");
    EXPECT_EQ(str(loop->member("loopKind")), "pipelined");
    EXPECT_EQ(num(loop->at({"pipeline", "numStages"})), 3);
    EXPECT_EQ(str(loop->at({"var", "name"})), "k");

    const JsonValue* copyA = loop->at({"body", "stmts", "0"});
    EXPECT_EQ(str(copyA->member("kind")), "Copy");
    EXPECT_EQ(str(copyA->at({"src", "buffer"})), "A");
    EXPECT_EQ(str(copyA->at({"src", "mins", "0", "text"})), "by * 128");
    // The structured tree of `by * 128`.
    const JsonValue* tree = copyA->at({"src", "mins", "0", "tree"});
    EXPECT_EQ(str(tree->member("kind")), "Binary");
    EXPECT_EQ(str(tree->member("op")), "*");
    EXPECT_EQ(str(tree->at({"lhs", "kind"})), "VarRef");
    EXPECT_EQ(str(tree->at({"lhs", "var"})), "by");
    EXPECT_EQ(num(tree->at({"rhs", "value"})), 128);
    EXPECT_EQ(str(copyA->at({"dst", "text"})), "A_shared[0:128, 0:32]");
    EXPECT_FALSE(copyA->member("disableTma")->boolean);

    const JsonValue* gemm = loop->at({"body", "stmts", "2"});
    EXPECT_EQ(str(gemm->member("kind")), "Gemm");
    EXPECT_EQ(str(gemm->at({"c", "buffer"})), "C_local");
    EXPECT_EQ(str(gemm->member("policy")), "Square");
    EXPECT_EQ(str(gemm->at({"clearAccum", "text"})), "False");
    EXPECT_EQ(num(gemm->at({"loc", "line"})), 24);

    const JsonValue* store = kernel->at({"body", "stmts", "2", "body", "body"});
    EXPECT_EQ(str(store->member("kind")), "Store");
    EXPECT_EQ(str(store->at({"value", "text"})), "max(C_local[i, j], 0.0)");
    EXPECT_EQ(str(store->at({"value", "tree", "lhs", "kind"})), "BufferLoad");
    EXPECT_EQ(str(store->at({"value", "tree", "rhs", "dtype"})), "float32");
}

TEST(IrJson, GridBarrierIsAStatementOfItsOwn) {
    GemmProgram p;
    p.kernel->body = makeSeq({makeStmt(StmtKind::GridSync, p.src.line(30)), p.kernel->body});
    std::string json = moduleToJson(*p.module, &p.src.sources);
    auto doc = parseDocument(json);
    ASSERT_TRUE(doc) << json;
    const JsonValue* sync = doc->at({"funcs", "0", "kernels", "0", "body", "stmts", "0"});
    ASSERT_TRUE(sync) << json;
    EXPECT_EQ(str(sync->member("kind")), "GridSync");
    EXPECT_EQ(num(sync->at({"loc", "line"})), 30);
}

TEST(IrJson, WithoutSourcesHasNoLocations) {
    GemmProgram p;
    std::string json = moduleToJson(*p.module);
    ASSERT_TRUE(parseDocument(json));
    EXPECT_EQ(json.find("\"loc\""), std::string::npos);
}

TEST(IrJson, CompactAndPrettyAgree) {
    MlaProgram p;
    std::string pretty = moduleToJson(*p.module, &p.src.sources, true);
    std::string compact = moduleToJson(*p.module, &p.src.sources, false);
    EXPECT_EQ(compact.find('\n'), std::string::npos);
    auto a = parseDocument(pretty);
    auto b = parseDocument(compact);
    ASSERT_TRUE(a && b);
    EXPECT_EQ(str(a->at({"funcs", "0", "dynamicDims", "0", "name"})), "seqlen_kv");
    EXPECT_EQ(str(b->at({"funcs", "0", "dynamicDims", "0", "kind"})), "dynamic_dim");
    EXPECT_EQ(str(b->at({"funcs", "0", "params", "1", "shape", "0", "tree", "kind"})), "VarRef");
    EXPECT_EQ(b->at({"funcs", "0", "params", "1", "bytes"})->kind, JsonValue::Kind::Null);
    const JsonValue* reduce =
        b->at({"funcs", "0", "kernels", "0", "body", "stmts", "2", "body", "stmts", "4"});
    ASSERT_TRUE(reduce);
    EXPECT_EQ(str(reduce->member("kind")), "Reduce");
    EXPECT_EQ(str(reduce->member("reduceKind")), "max");
    EXPECT_EQ(str(reduce->member("dst")), "scores_max");
    EXPECT_EQ(num(reduce->member("dim")), 1);
    EXPECT_FALSE(reduce->member("clear")->boolean);
    // Deterministic.
    MlaProgram q;
    EXPECT_EQ(pretty, moduleToJson(*q.module, &q.src.sources, true));
}

TEST(IrJson, SpecialValuesStayValid) {
    Module m;
    m.sourceName = "quote\"and\\slash\n.py";
    PrimFunc f;
    f.name = "f";
    Buffer* g = m.newBuffer("G", MemoryScope::Global, DType::Float32, {c(4)});
    g->paramIndex = 0;
    f.params = {g};
    auto kernel = makeStmt(StmtKind::Kernel);
    Var* bx = m.newVar("bx", DType::Int32, VarKind::BlockIndex);
    kernel->grid = {c(1)};
    kernel->blockVars = {bx};
    kernel->threads = {32};
    auto fill = makeStmt(StmtKind::Fill);
    fill->dst = whole(g);
    fill->value = makeFloat(-INFINITY);
    auto store = makeStmt(StmtKind::Store);
    store->buffer = g;
    store->indices = {c(0)};
    store->value = makeCall(Intrinsic::Exp2, DType::Float32, {makeFloat(NAN)});
    kernel->body = makeSeq({fill, store, nullptr});
    auto host = makeStmt(StmtKind::Print);
    host->value = c(3);
    f.body = makeSeq({kernel, host});
    m.funcs.push_back(std::move(f));
    std::string json = moduleToJson(m);
    auto doc = parseDocument(json);
    ASSERT_TRUE(doc) << json;
    EXPECT_EQ(str(doc->member("sourceName")), m.sourceName);
    EXPECT_EQ(str(doc->at({"funcs", "0", "kernels", "0", "body", "stmts", "0", "value", "tree", "value"})),
              "-inf");
    EXPECT_EQ(doc->at({"funcs", "0", "kernels", "0", "body", "stmts", "2"})->kind, JsonValue::Kind::Null);
    EXPECT_EQ(str(doc->at({"funcs", "0", "hostStmts", "0", "kind"})), "Print");
}

} // namespace
} // namespace tb::ir
