// The differential fuzzer's generator and checks: a seed always gives the same program, replaying its
// picks gives it again, generated programs compile (most of them: the rejection rate stays low), a small
// batch agrees between the interpreter and the JIT, and the reducer shrinks a failing program while
// keeping the failure (here a made-up one: "the program contains a gemm").
#include "engine/tools/fuzz/ProgramGenerator.h"

#include "engine/jit/ProgramExecution.h"
#include "engine/tools/fuzz/DifferentialCheck.h"
#include "engine/tools/fuzz/FuzzReducer.h"

#include <cstdint>
#include <gtest/gtest.h>
#include <map>
#include <string>

namespace tb::fuzz {
namespace {

TEST(ProgramGenerator, SeedsAndPicksReproducePrograms) {
    for (uint64_t seed = 1; seed <= 50; ++seed) {
        GeneratedProgram a = generateProgram(seed, {});
        GeneratedProgram b = generateProgram(seed, {});
        EXPECT_EQ(a.text, b.text);
        ChoiceSource replay(a.picks);
        EXPECT_EQ(generateProgram(replay, {}).text, a.text) << "seed " << seed;
    }
    EXPECT_NE(generateProgram(1, {}).text, generateProgram(2, {}).text);
}

TEST(ProgramGenerator, CoversEveryProgramShape) {
    std::map<std::string, int> kinds;
    for (uint64_t seed = 1; seed <= 200; ++seed)
        kinds[generateProgram(seed, {}).kind]++;
    for (const char* kind : {"elementwise", "gemm", "reduce", "gemm_softmax"})
        EXPECT_GT(kinds[kind], 10) << kind;
}

TEST(DifferentialCheck, SmallBatchAgreesOnTheCpu) {
    if (!cpuJitAvailable())
        GTEST_SKIP() << "this build has no CPU JIT (LLVM 16 was not found)";
    std::map<OutcomeKind, int> counts;
    for (uint64_t seed = 1000; seed < 1040; ++seed) {
        GeneratedProgram program = generateProgram(seed, {});
        Outcome outcome = checkOnCpu(program.text, seed);
        counts[outcome.kind]++;
        EXPECT_NE(outcome.kind, OutcomeKind::Mismatch) << program.text << "\n" << outcome.detail;
        EXPECT_NE(outcome.kind, OutcomeKind::JitUnsupported) << program.text << "\n" << outcome.detail;
    }
    EXPECT_GE(counts[OutcomeKind::Agree], 36) << "too many generated programs are rejected";
}

TEST(FuzzReducer, ShrinksWhileKeepingTheFailure) {
    GeneratedProgram program;
    for (uint64_t seed = 1;; ++seed) {
        program = generateProgram(seed, {});
        if (program.kind == "gemm_softmax")
            break;
    }
    auto hasGemm = [](const std::string& text) { return text.find("T.gemm(") != std::string::npos; };
    Reduction reduced = reduceProgram(program, {}, hasGemm, 200);
    EXPECT_TRUE(hasGemm(reduced.text));
    EXPECT_LT(reduced.text.size(), program.text.size());
    EXPECT_LE(reduced.attempts, 200);
}

} // namespace
} // namespace tb::fuzz
