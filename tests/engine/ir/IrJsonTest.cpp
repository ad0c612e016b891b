// The JSON form: strict validity (parsed back by a minimal recursive-descent parser), key fields of the
// documented schema, locations and determinism.
#include "engine/ir/IrJson.h"

#include "tests/engine/ir/MiniJson.h"
#include "tests/engine/ir/TestIr.h"

#include <cmath>
#include <gtest/gtest.h>

namespace tb::ir {
namespace {

using namespace tb::testir;
using tb::testjson::Value;

std::string str(const Value* v) {
    return v && v->kind == Value::Kind::String ? v->string : "<missing>";
}
double num(const Value* v) {
    return v && v->kind == Value::Kind::Number ? v->number : std::nan("");
}

TEST(MiniJson, RejectsInvalidDocuments) {
    EXPECT_TRUE(testjson::parse(R"({"a": [1, 2.5e3, -0, true, null, "x\n"]})"));
    EXPECT_FALSE(testjson::parse(R"({"a": [1, 2,]})"));
    EXPECT_FALSE(testjson::parse(R"({"a": NaN})"));
    EXPECT_FALSE(testjson::parse(R"({"a" 1})"));
    EXPECT_FALSE(testjson::parse(R"({"a": 1} x)"));
    EXPECT_FALSE(testjson::parse(R"(["unterminated)"));
}

TEST(IrJson, GemmDocument) {
    GemmProgram p;
    std::string json = moduleToJson(*p.module, &p.src.sources);
    auto doc = testjson::parse(json);
    ASSERT_TRUE(doc) << json;
    EXPECT_EQ(str(doc->get("format")), "tilebench-ir");
    EXPECT_EQ(num(doc->get("version")), kIrJsonVersion);
    EXPECT_EQ(str(doc->get("sourceName")), "gemm_relu.py");
    EXPECT_EQ(str(doc->at({"specialization", "0", "name"})), "M");
    EXPECT_EQ(num(doc->at({"specialization", "0", "value"})), 1024);
    EXPECT_EQ(str(doc->at({"specialization", "0", "origin"})), "module-call");
    EXPECT_EQ(str(doc->at({"specialization", "1", "value"})), "float16");
    EXPECT_EQ(str(doc->at({"specialization", "1", "text"})), "'float16'");

    const Value* func = doc->at({"funcs", "0"});
    ASSERT_TRUE(func);
    EXPECT_EQ(str(func->get("name")), "main");
    EXPECT_EQ(str(func->at({"params", "2", "name"})), "C");
    EXPECT_TRUE(func->at({"params", "2", "isOutput"})->boolean);
    EXPECT_EQ(num(func->at({"params", "0", "bytes"})), 1024 * 1024 * 2);

    const Value* kernel = func->at({"kernels", "0"});
    ASSERT_TRUE(kernel);
    EXPECT_EQ(str(kernel->get("kind")), "Kernel");
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
    EXPECT_TRUE(func->get("hostStmts") && func->get("hostStmts")->array.empty());

    const Value* loop = kernel->at({"body", "stmts", "1"});
    ASSERT_TRUE(loop);
    EXPECT_EQ(str(loop->get("kind")), "For");
    EXPECT_EQ(str(loop->get("loopKind")), "pipelined");
    EXPECT_EQ(num(loop->at({"pipeline", "numStages"})), 3);
    EXPECT_EQ(str(loop->at({"var", "name"})), "k");

    const Value* copyA = loop->at({"body", "stmts", "0"});
    EXPECT_EQ(str(copyA->get("kind")), "Copy");
    EXPECT_EQ(str(copyA->at({"src", "buffer"})), "A");
    EXPECT_EQ(str(copyA->at({"src", "mins", "0", "text"})), "by * 128");
    // The structured tree of `by * 128`.
    const Value* tree = copyA->at({"src", "mins", "0", "tree"});
    EXPECT_EQ(str(tree->get("kind")), "Binary");
    EXPECT_EQ(str(tree->get("op")), "*");
    EXPECT_EQ(str(tree->at({"lhs", "kind"})), "VarRef");
    EXPECT_EQ(str(tree->at({"lhs", "var"})), "by");
    EXPECT_EQ(num(tree->at({"rhs", "value"})), 128);
    EXPECT_EQ(str(copyA->at({"dst", "text"})), "A_shared[0:128, 0:32]");
    EXPECT_FALSE(copyA->get("disableTma")->boolean);

    const Value* gemm = loop->at({"body", "stmts", "2"});
    EXPECT_EQ(str(gemm->get("kind")), "Gemm");
    EXPECT_EQ(str(gemm->at({"c", "buffer"})), "C_local");
    EXPECT_EQ(str(gemm->get("policy")), "Square");
    EXPECT_EQ(str(gemm->at({"clearAccum", "text"})), "False");
    EXPECT_EQ(num(gemm->at({"loc", "line"})), 24);

    const Value* store = kernel->at({"body", "stmts", "2", "body", "body"});
    EXPECT_EQ(str(store->get("kind")), "Store");
    EXPECT_EQ(str(store->at({"value", "text"})), "max(C_local[i, j], 0.0)");
    EXPECT_EQ(str(store->at({"value", "tree", "lhs", "kind"})), "BufferLoad");
    EXPECT_EQ(str(store->at({"value", "tree", "rhs", "dtype"})), "float32");
}

TEST(IrJson, WithoutSourcesHasNoLocations) {
    GemmProgram p;
    std::string json = moduleToJson(*p.module);
    ASSERT_TRUE(testjson::parse(json));
    EXPECT_EQ(json.find("\"loc\""), std::string::npos);
}

TEST(IrJson, CompactAndPrettyAgree) {
    MlaProgram p;
    std::string pretty = moduleToJson(*p.module, &p.src.sources, true);
    std::string compact = moduleToJson(*p.module, &p.src.sources, false);
    EXPECT_EQ(compact.find('\n'), std::string::npos);
    auto a = testjson::parse(pretty);
    auto b = testjson::parse(compact);
    ASSERT_TRUE(a && b);
    EXPECT_EQ(str(a->at({"funcs", "0", "dynamicDims", "0", "name"})), "seqlen_kv");
    EXPECT_EQ(str(b->at({"funcs", "0", "dynamicDims", "0", "kind"})), "dynamic_dim");
    EXPECT_EQ(str(b->at({"funcs", "0", "params", "1", "shape", "0", "tree", "kind"})), "VarRef");
    EXPECT_EQ(b->at({"funcs", "0", "params", "1", "bytes"})->kind, Value::Kind::Null);
    const Value* reduce = b->at({"funcs", "0", "kernels", "0", "body", "stmts", "2", "body", "stmts", "4"});
    ASSERT_TRUE(reduce);
    EXPECT_EQ(str(reduce->get("kind")), "Reduce");
    EXPECT_EQ(str(reduce->get("reduceKind")), "max");
    EXPECT_EQ(str(reduce->get("dst")), "scores_max");
    EXPECT_EQ(num(reduce->get("dim")), 1);
    EXPECT_FALSE(reduce->get("clear")->boolean);
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
    auto doc = testjson::parse(json);
    ASSERT_TRUE(doc) << json;
    EXPECT_EQ(str(doc->get("sourceName")), m.sourceName);
    EXPECT_EQ(str(doc->at({"funcs", "0", "kernels", "0", "body", "stmts", "0", "value", "tree", "value"})),
              "-inf");
    EXPECT_EQ(doc->at({"funcs", "0", "kernels", "0", "body", "stmts", "2"})->kind, Value::Kind::Null);
    EXPECT_EQ(str(doc->at({"funcs", "0", "hostStmts", "0", "kind"})), "Print");
}

} // namespace
} // namespace tb::ir
