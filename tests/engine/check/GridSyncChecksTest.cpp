// Where T.sync_grid may stand: reached by every thread of every block the same number of times. Each
// misplacement is an error at the barrier's file:line:col with a note at the statement that keeps threads
// from it and a hint; a condition that reads memory is a warning; the kernel body and uniform serial loops
// are fine.
#include "engine/pipeline/Pipeline.h"

#include <gtest/gtest.h>
#include <memory>
#include <string>
#include <vector>

namespace tb::check {
namespace {

// A 256-thread kernel over 4 blocks whose body is `body` (indented 8 spaces).
std::string kernelWith(const std::string& body) {
    return "import tilelang.language as T\n"
           "\n"
           "@T.prim_func\n"
           "def main(A: T.Tensor((4, 64), \"float32\"), B: T.Tensor((4, 64), \"float32\")):\n"
           "    with T.Kernel(4, threads=256) as bx:\n"
           "        row = T.alloc_fragment((64,), \"float32\")\n"
           "        flag = T.alloc_var(\"int32\")\n" +
           body;
}

std::unique_ptr<CompileResult> checked(const std::string& text) {
    CompileOptions options;
    options.stopAfter = "check";
    return compileTileProgram("grid.py", text, options);
}

std::vector<Diagnostic> withCode(const CompileResult& r, const std::string& code) {
    std::vector<Diagnostic> out;
    for (const Diagnostic& d : r.diagnostics.diagnostics())
        if (d.code == code)
            out.push_back(d);
    return out;
}

struct Misplacement {
    const char* body;
    const char* message; // a part of the error's message
    const char* note;    // a part of the note at the enclosing statement
};

TEST(GridSyncChecks, MisplacedBarriersAreErrorsAtTheBarrier) {
    const std::vector<Misplacement> cases = {
        {"        for i in T.Parallel(64):\n"
         "            T.sync_grid()\n",
         "inside a T.Parallel loop", "the loop starts here"},
        {"        for k in T.Pipelined(4, num_stages=2):\n"
         "            T.sync_grid()\n",
         "inside a T.Pipelined loop", "write it as T.serial"},
        {"        with T.ws(1):\n"
         "            T.sync_grid()\n",
         "only threads 128..255 of the block run", "the T.ws scope starts here"},
        {"        tx = T.get_thread_binding()\n"
         "        if tx % 2 == 0:\n"
         "            T.sync_grid()\n",
         "inside a branch on the thread index", "the branch `if"},
        {"        if bx < 2:\n"
         "            T.sync_grid()\n",
         "inside a branch on the block index 'bx': the blocks that skip it never arrive", "the branch `if"},
        {"        for k in T.serial(bx + 1):\n"
         "            T.sync_grid()\n",
         "inside a loop whose bounds depend on the block index 'bx'", "the loop over 'k' starts here"},
    };
    for (const Misplacement& c : cases) {
        std::string text = kernelWith(c.body);
        auto r = checked(text);
        std::vector<Diagnostic> errors = withCode(*r, "grid-sync-placement");
        ASSERT_EQ(errors.size(), 1u) << c.body << r->formattedDiagnostics();
        const Diagnostic& d = errors[0];
        EXPECT_EQ(d.severity, Severity::Error);
        EXPECT_NE(d.message.find(c.message), std::string::npos) << d.message;
        EXPECT_NE(d.message.find("the grid would deadlock"), std::string::npos) << d.message;
        EXPECT_NE(d.hint.find("every thread of every block"), std::string::npos) << d.hint;
        // Blamed on the barrier itself, with a note at what encloses it.
        EXPECT_EQ(text.substr(d.range.begin, 13), "T.sync_grid()") << c.body;
        ASSERT_EQ(d.notes.size(), 1u);
        EXPECT_NE(d.notes[0].message.find(c.note), std::string::npos) << d.notes[0].message;
        EXPECT_NE(r->formattedDiagnostics().find("grid.py:"), std::string::npos);
    }
}

TEST(GridSyncChecks, TheKernelBodyAndUniformSerialLoopsAreFine) {
    for (const char* body : {"        T.sync_grid()\n",
                             "        for k in T.serial(3):\n"
                             "            T.sync_grid()\n",
                             "        for k in T.serial(3):\n"
                             "            if k > 0:\n"
                             "                T.sync_grid()\n"}) {
        auto r = checked(kernelWith(body));
        EXPECT_TRUE(r->ok()) << body << r->formattedDiagnostics();
        EXPECT_TRUE(r->diagnostics.diagnostics().empty()) << body << r->formattedDiagnostics();
    }
}

TEST(GridSyncChecks, AConditionThatReadsMemoryIsAWarning) {
    auto r = checked(kernelWith("        flag = A[0, 0] > 0\n"
                                "        if flag == 1:\n"
                                "            T.sync_grid()\n"));
    EXPECT_TRUE(r->ok()) << r->formattedDiagnostics();
    std::vector<Diagnostic> warnings = withCode(*r, "grid-sync-data-dependent");
    ASSERT_EQ(warnings.size(), 1u) << r->formattedDiagnostics();
    EXPECT_EQ(warnings[0].severity, Severity::Warning);
    EXPECT_NE(warnings[0].message.find("depends on 'flag'"), std::string::npos) << warnings[0].message;
    EXPECT_FALSE(warnings[0].hint.empty());
}

TEST(GridSyncChecks, ArgumentsAndPlaceOfTheCallAreElaborationErrors) {
    auto r = checked(kernelWith("        T.sync_grid(1)\n"));
    EXPECT_FALSE(r->ok());
    EXPECT_NE(r->formattedDiagnostics().find("T.sync_grid() takes no arguments"), std::string::npos)
        << r->formattedDiagnostics();
    auto outside = checked("import tilelang.language as T\n"
                           "\n"
                           "@T.prim_func\n"
                           "def main(A: T.Tensor((4,), \"float32\")):\n"
                           "    T.sync_grid()\n");
    EXPECT_FALSE(outside->ok());
    EXPECT_NE(outside->formattedDiagnostics().find("grid.py:5:5"), std::string::npos)
        << outside->formattedDiagnostics();
}

} // namespace
} // namespace tb::check
