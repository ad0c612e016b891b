// Input fills (`tilec run --fill NAME=SPEC`): the specs, the values each one gives, and allocateParams'
// diagnostics for a fill that names no input or cannot be made.
#include "engine/exec/InputFill.h"

#include "engine/exec/Executor.h"

#include <algorithm>
#include <gtest/gtest.h>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace tb {
namespace {

InputFill parsed(const std::string& text) {
    std::string error;
    std::optional<InputFill> fill = parseInputFill(text, error);
    EXPECT_TRUE(fill) << text << ": " << error;
    return fill.value_or(InputFill{});
}

std::string parseError(const std::string& text) {
    std::string error;
    EXPECT_FALSE(parseInputFill(text, error)) << text;
    return error;
}

TEST(InputFill, ParsesEverySpecAndExplainsBadOnes) {
    EXPECT_EQ(parsed("random").kind, InputFillKind::Random);
    EXPECT_EQ(parsed("arange").kind, InputFillKind::Arange);
    EXPECT_EQ(parsed("ones").constant, 1.0);
    EXPECT_EQ(parsed("const:-2.5").constant, -2.5);
    InputFill sorted = parsed("sorted:0..UQ");
    EXPECT_EQ(sorted.kind, InputFillKind::Sorted);
    EXPECT_EQ(sorted.lo.value, 0);
    EXPECT_EQ(sorted.hi.dim, "UQ");
    InputFill ints = parsed("randint:-3..17");
    EXPECT_EQ(ints.lo.value, -3);
    EXPECT_EQ(ints.hi.value, 17);
    EXPECT_NE(parseError("randint:5").find("LO..HI"), std::string::npos);
    EXPECT_NE(parseError("sorted:0..2x").find("LO..HI"), std::string::npos);
    EXPECT_NE(parseError("const:abc").find("const:V"), std::string::npos);
    EXPECT_NE(parseError("arange:3").find("no argument"), std::string::npos);
    EXPECT_NE(parseError("gauss").find("known:"), std::string::npos);
}

TEST(InputFill, IntegersStayInTheirInclusiveRangeAndCoverIt) {
    HostTensor t("idx", ir::DType::Int32, {4000});
    std::string error;
    ASSERT_TRUE(applyInputFill(t, parsed("randint:3..9"), 1, {}, error)) << error;
    EXPECT_EQ(*std::min_element(t.data.begin(), t.data.end()), 3);
    EXPECT_EQ(*std::max_element(t.data.begin(), t.data.end()), 9);
    HostTensor again("idx", ir::DType::Int32, {4000});
    ASSERT_TRUE(applyInputFill(again, parsed("randint:3..9"), 1, {}, error));
    EXPECT_EQ(t.data, again.data) << "same seed and name, same values";
}

TEST(InputFill, SortedRunsFromLoToHiWithoutDecreasing) {
    HostTensor cu("cu_seqlens", ir::DType::Int32, {9});
    std::string error;
    ASSERT_TRUE(applyInputFill(cu, parsed("sorted:0..UQ"), 7, {{"UQ", 600}}, error)) << error;
    EXPECT_EQ(cu.data[0], 0);
    EXPECT_EQ(cu.data[cu.data.size() - 1], 600);
    EXPECT_TRUE(std::is_sorted(cu.data.begin(), cu.data.end()));
    EXPECT_FALSE(applyInputFill(cu, parsed("sorted:0..UKV"), 7, {{"UQ", 600}}, error));
    EXPECT_NE(error.find("'UKV' is not a dynamic dim"), std::string::npos) << error;
    EXPECT_FALSE(applyInputFill(cu, parsed("randint:5..4"), 7, {}, error));
    EXPECT_NE(error.find("empty"), std::string::npos) << error;
}

TEST(InputFill, ArangeAndConstantsRoundToTheDtype) {
    HostTensor a("a", ir::DType::Float16, {3000});
    std::string error;
    ASSERT_TRUE(applyInputFill(a, parsed("arange"), 0, {}, error));
    EXPECT_EQ(a.data[2049], 2048) << "float16 rounds 2049 to even";
    ASSERT_TRUE(applyInputFill(a, parsed("const:0.1"), 0, {}, error));
    EXPECT_EQ(a.data[5], roundToDType(0.1, ir::DType::Float16));
}

// A PrimFunc with one input and one output, as the elaborator builds them.
struct TwoParams {
    ir::Module module;
    ir::PrimFunc func;
    TwoParams() {
        ir::Buffer* in =
            module.newBuffer("offsets", ir::MemoryScope::Global, ir::DType::Int32, {ir::makeInt(5)});
        ir::Buffer* out =
            module.newBuffer("out", ir::MemoryScope::Global, ir::DType::Float32, {ir::makeInt(5)});
        out->isOutput = true;
        func.name = "main";
        func.params = {in, out};
    }
};

TEST(InputFill, AllocateParamsFillsNamedInputsAndRejectsOtherNames) {
    TwoParams p;
    DiagnosticEngine diags;
    std::vector<HostTensor> params =
        allocateParams(p.func, {}, 3, diags, {}, true, {{"offsets", parsed("arange")}});
    ASSERT_EQ(params.size(), 2u);
    EXPECT_EQ(params[0].data, (std::vector<double>{0, 1, 2, 3, 4}));
    for (const char* wrong : {"out", "offset"}) {
        DiagnosticEngine d;
        EXPECT_TRUE(allocateParams(p.func, {}, 3, d, {}, true, {{wrong, parsed("zeros")}}).empty()) << wrong;
        ASSERT_TRUE(d.hasErrors());
        EXPECT_EQ(d.diagnostics().front().code, "fill-unknown-input");
        EXPECT_NE(d.diagnostics().front().hint.find("offsets"), std::string::npos);
    }
}

} // namespace
} // namespace tb
