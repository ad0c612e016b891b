// The parser must return on any input: random bytes, random Python-looking token soup, every prefix of a
// real program, and pathological nesting. Each case only has to finish (no crash, no hang, no stack
// overflow) and leave a tree the printer can walk; the nesting cases must also say what went wrong.
#include "FrontendTestSupport.h"
#include "GemmProgram.h"

#include <gtest/gtest.h>
#include <random>
#include <string>

namespace tb::test {
namespace {

// Parses and prints; the print walks the whole tree, so an over-deep or dangling tree would show here.
size_t parseAndPrint(const std::string& text) {
    auto p = parse(text);
    return ast::dumpModule(p->module).size() + p->diagnostics.errorCount();
}

TEST(Robustness, RandomBytes) {
    std::mt19937 rng(12345);
    std::uniform_int_distribution<int> byte(0, 255);
    std::uniform_int_distribution<int> length(0, 300);
    for (int i = 0; i < 2000; ++i) {
        std::string text(static_cast<size_t>(length(rng)), '\0');
        for (char& c : text)
            c = static_cast<char>(byte(rng));
        EXPECT_GT(parseAndPrint(text), 0u);
    }
}

TEST(Robustness, RandomTokenSoup) {
    const char* pieces[] = {"(",      ")",     "[",     "]",     "{",      "}",      ":",      ",",
                            ";",      ".",     "...",   "=",     "==",     "+",      "-",      "*",
                            "**",     "/",     "//",    "@",     "->",     ":=",     "<",      "not",
                            "in",     "is",    "and",   "or",    "if",     "else",   "elif",   "for",
                            "while",  "with",  "as",    "def",   "class",  "try",    "except", "lambda",
                            "return", "yield", "await", "async", "import", "from",   "x",      "T.copy",
                            "1",      "0x1F",  "1.5e3", "'s'",   "\"\"\"", "f'{a}'", "\\",     "\n",
                            "\n    ", "\n\t",  "\n  ",  "#c\n",  " ",      "\r\n",   "$",      "\xff"};
    std::mt19937 rng(777);
    std::uniform_int_distribution<size_t> pick(0, std::size(pieces) - 1);
    std::uniform_int_distribution<int> length(1, 120);
    for (int i = 0; i < 3000; ++i) {
        std::string text;
        for (int n = length(rng); n > 0; --n)
            text += pieces[pick(rng)];
        EXPECT_GT(parseAndPrint(text), 0u);
    }
}

TEST(Robustness, EveryPrefixOfTheGemmProgram) {
    std::string program = kGemmReluProgram;
    size_t withErrors = 0;
    for (size_t n = 0; n <= program.size(); ++n) {
        auto p = parse(program.substr(0, n));
        withErrors += p->diagnostics.hasErrors() ? 1 : 0;
        ast::dumpModule(p->module);
    }
    // Cutting a program in the middle of a call or a block must be reported for many prefixes.
    EXPECT_GT(withErrors, program.size() / 4);
    EXPECT_FALSE(parse(program)->diagnostics.hasErrors());
}

TEST(Robustness, DeepBracketsAreReportedNotOverflowed) {
    for (int depth : {150, 250, 100000}) {
        std::string text = "x = " + std::string(static_cast<size_t>(depth), '(') + "1" +
                           std::string(static_cast<size_t>(depth), ')') + "\n";
        auto p = parse(text);
        if (depth <= 150) {
            EXPECT_FALSE(p->diagnostics.hasErrors()) << depth;
            continue;
        }
        ASSERT_EQ(p->codes().size(), 1u) << depth;
        EXPECT_EQ(p->diagnostics.diagnostics()[0].code, "nesting-too-deep") << depth;
    }
    auto open = parse(std::string(100000, '[') + "\n");
    EXPECT_TRUE(open->diagnostics.hasErrors());
}

TEST(Robustness, DeepUnaryAndPowerChainsAreReported) {
    for (std::string unit : {"-", "not ", "~", "2 ** ", "lambda: ", "await ", "a if b else "}) {
        std::string text = "x = ";
        for (int i = 0; i < 5000; ++i)
            text += unit;
        text += "1\n";
        auto p = parse(text);
        ASSERT_EQ(p->diagnostics.diagnostics().size(), 1u) << unit;
        EXPECT_EQ(p->diagnostics.diagnostics()[0].code, "nesting-too-deep") << unit;
    }
}

TEST(Robustness, LongOperatorChainsAreBoundedInHeight) {
    std::string ok = "x = a";
    for (int i = 0; i < 500; ++i)
        ok += " + a";
    EXPECT_FALSE(parse(ok + "\n")->diagnostics.hasErrors());

    for (std::string unit : {" + a", ".b", "()", "[0]"}) {
        std::string text = "x = a";
        for (int i = 0; i < 50000; ++i)
            text += unit;
        auto p = parse(text + "\ny = 2\n");
        ASSERT_EQ(p->codes().size(), 1u) << unit;
        EXPECT_EQ(p->diagnostics.diagnostics()[0].code, "nesting-too-deep") << unit;
        EXPECT_EQ(ast::dumpModule(p->module), "(module\n  (assign y 2))\n"); // the next line still parses
    }
    // Flat lists and boolean chains are not nested, however long.
    std::string flat = "x = [" + std::string(30000, '1') + "]\ny = a";
    for (int i = 0; i < 20000; ++i)
        flat += " and a";
    EXPECT_FALSE(parse(flat + "\n")->diagnostics.hasErrors());
}

TEST(Robustness, DeepBlocksAndLongElifChains) {
    std::string nested;
    for (int i = 0; i < 400; ++i)
        nested += std::string(static_cast<size_t>(i), ' ') + "if x:\n";
    nested += std::string(400, ' ') + "pass\nz = 1\n";
    auto p = parse(nested);
    EXPECT_EQ(p->diagnostics.diagnostics().size(), 1u) << p->report().substr(0, 500);
    EXPECT_EQ(p->diagnostics.diagnostics()[0].code, "nesting-too-deep");
    EXPECT_EQ(p->module.body.back()->kind, ast::StmtKind::Assign);

    std::string staircase;
    for (int i = 0; i < 5000; ++i)
        staircase += std::string(static_cast<size_t>(i), ' ') + "x\n";
    EXPECT_TRUE(parse(staircase)->diagnostics.hasErrors());

    std::string chain = "if a:\n    pass\n";
    for (int i = 0; i < 900; ++i)
        chain += "elif a:\n    pass\n";
    EXPECT_FALSE(parse(chain)->diagnostics.hasErrors());
    for (int i = 0; i < 5000; ++i)
        chain += "elif a:\n    pass\n";
    EXPECT_TRUE(parse(chain)->diagnostics.hasErrors());
}

// A 300-line file of kernel-like code parses whole: every definition reaches the module. How fast it parses
// is a benchmark's question (bench_views), not a test's: a timed bound fails on a loaded or sanitized build.
TEST(Robustness, ParsesThreeHundredLinesOfKernelCode) {
    std::string text = "import tilelang.language as T\n";
    int lines = 1;
    for (int k = 0; lines < 300; ++k) {
        text += "def kernel" + std::to_string(k) +
                "(A: T.Tensor((M, K), dtype), B, C, block_M=128):\n"
                "    with T.Kernel(T.ceildiv(N, 128), threads=256) as (bx, by):\n"
                "        A_s = T.alloc_shared((block_M, 64), 'float16')  # tile\n"
                "        for ko in T.Pipelined(K // 64, num_stages=3):\n"
                "            T.copy(A[by * block_M, ko * 64:(ko + 1) * 64], A_s)\n"
                "        for i, j in T.Parallel(128, 128):\n"
                "            C[i, j] = T.max(C[i, j] * 2 + 1, 0) if i < j else -C[i, j] ** 2\n"
                "\n";
        lines += 8;
    }
    auto p = parse(text);
    EXPECT_FALSE(p->diagnostics.hasErrors());
    size_t definitions = 0;
    for (const auto& stmt : p->module.body)
        definitions += stmt->kind == ast::StmtKind::FunctionDef;
    EXPECT_EQ(definitions, size_t((lines - 1) / 8));
}

} // namespace
} // namespace tb::test
