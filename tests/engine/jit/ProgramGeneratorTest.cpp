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

TEST(ProgramGenerator, GpuProgramsBranchOnlyAgainstConstants) {
    // A branch between two computed values flips on their last bit, which the GPU and the CPU oracle need
    // not share (a gemm's summation order, FMA contraction): every GPU condition compares with a constant.
    GeneratorOptions gpu;
    gpu.gpuSafe = true;
    int conditions = 0;
    for (uint64_t seed = 1; seed <= 400; ++seed) {
        const std::string text = generateProgram(seed, gpu).text;
        for (size_t at = text.find(" > "); at != std::string::npos; at = text.find(" > ", at + 3)) {
            ++conditions;
            const std::string rest = text.substr(at + 3, 6);
            EXPECT_TRUE(rest.rfind("0.1,", 0) == 0 || rest.rfind("0.5,", 0) == 0 ||
                        rest.rfind("-1.25,", 0) == 0 || rest.rfind("0.0,", 0) == 0)
                << "seed " << seed << ": ... > " << rest;
        }
    }
    EXPECT_GT(conditions, 20); // the generator does branch (36 times in these 400 programs)
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
