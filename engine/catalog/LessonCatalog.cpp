// The lesson table and the exercise maker. The texts are written for a reader who knows Python and a little
// about GPUs; each names the views by their dock titles in the app.
#include "engine/catalog/LessonCatalog.h"

#include "engine/catalog/SampleCatalog.h"

#include <sstream>
#include <string>
#include <vector>

namespace tb {

const std::vector<Lesson>& lessons() {
    static const std::vector<Lesson> table = {
        {1,
         "Tiles, blocks and threads",
         "elementwise_add",
         "A tile program gives each thread block one tile of the output. T.Kernel launches the grid, "
         "T.copy stages tiles between global and shared memory, and T.Parallel says what to compute for "
         "every element of a tile without saying which thread does it: the compiler decides, and the Layout "
         "view shows its decision.",
         {{"Layout", "C_local: each colour is one thread; count how many elements a thread owns and where"},
          {"Data movement", "two tiles in from global memory, one out: the bytes each block moves"},
          {"Bank conflicts", "the copies into shared memory and whether they are conflict-free"}},
         "T.copy(B[by * block_M, bx * block_N], B_shared)",
         "stage the tile of B into B_shared, as the line above does for A",
         "T.copy(source_region_start, destination_tile): the tile of B starts at the same corner as A's"},
        {2,
         "A GEMM tile: operands in shared memory, the accumulator in registers",
         "gemm_relu",
         "Each block computes a block_M x block_N tile of C. It walks K in block_K steps, staging a tile of "
         "A "
         "and a tile of B in shared memory, and T.gemm multiplies them on the tensor cores into C_local, a "
         "fragment spread over the threads' registers. The warps split the output tile between them.",
         {{"Warp partition", "which warp owns which part of the 128 x 128 output, and the instruction atoms"},
          {"Layout", "C_local: the accumulator layout the tensor-core instruction dictates"},
          {"Data movement", "bytes from global memory per k step, and the total per block"}},
         "T.gemm(A_shared, B_shared, C_local)",
         "multiply the two staged tiles and accumulate into C_local",
         "T.gemm(A_tile, B_tile, accumulator)"},
        {3,
         "Pipelining: loading the next tiles while computing",
         "gemm_transpose",
         "T.Pipelined(..., num_stages=N) keeps N copies of every tile the loop loads, so the copies for "
         "later "
         "iterations run while the tensor cores work on the current one. More stages hide more latency and "
         "cost more shared memory, which can lower how many blocks fit on an SM. Transposed operands need no "
         "data movement: the tensor cores read the tiles in whichever order they were staged.",
         {{"Shared-memory budget",
           "every buffer multiplied by the stages; blocks per SM and what limits them"},
          {"Stage sweep", "shared memory for num_stages = 1..4, and where the budget line cuts"},
          {"Data movement", "the pipelined loop and its stages"}},
         "T.gemm(A_shared, B_shared, C_local, transpose_A=trans_A, transpose_B=trans_B)",
         "multiply the staged tiles into C_local, telling T.gemm which operands are transposed",
         "T.gemm takes transpose_A= and transpose_B= flags; pass the program's trans_A and trans_B"},
        {4,
         "Reductions across threads",
         "softmax",
         "A row reduction folds a row that is spread over several threads: each thread first folds its own "
         "elements, then the threads that share a row exchange partial results with warp shuffles, and rows "
         "spread across warps go once through a small shared scratch. The online softmax keeps a running "
         "maximum and rescales its running sum whenever the maximum grows.",
         {{"Layout", "x: how many threads hold one row, which decides the number of shuffles"},
          {"Shared-memory budget", "the reduction scratch next to the staged chunk"},
          {"Data movement", "the reductions, with the shuffles the plan chose"}},
         "T.reduce_max(x, chunk_max, dim=1)",
         "reduce each row of the chunk x to its maximum, into chunk_max",
         "T.reduce_max(source, destination, dim=1) folds along the columns"},
        {5,
         "A memory-bound kernel: bytes, not flops",
         "rmsnorm_silu",
         "RMSNorm + SiLU does a few operations per element, so its speed is the bytes it moves: at best X "
         "read once and Y written once, like a copy. Each block keeps its rows in registers, spread over a "
         "power of two of threads so that a row's sum of squares is a few shuffles, then scales them and "
         "writes them. Compare the bytes per block with the device's copy bandwidth to see the best it "
         "could do.",
         {{"Data movement", "X read once, Y written once: the bytes per block"},
          {"Bank conflicts", "gamma's reads from shared memory: vector width and wavefronts"},
          {"Shared-memory budget", "tiny tiles: occupancy is limited by threads, not shared memory"}},
         "T.reduce_sum(sq, ss, dim=1)",
         "sum the squares of each row, sq, into ss",
         "T.reduce_sum(source, destination, dim=1)"},
        {6,
         "Flash attention: two GEMMs and an online softmax",
         "flash_attention",
         "Attention multiplies Q by K transposed, takes a softmax along each row and multiplies by V. Flash "
         "attention never stores the seq_len x seq_len scores: each block streams K and V in tiles, keeps "
         "the "
         "scores of one tile in registers, and rescales its output whenever a row's maximum grows. "
         "policy=FullRow gives each warp whole rows, so the row reductions stay inside a warp.",
         {{"Warp partition", "FullRow: every warp owns whole rows of both gemms"},
          {"Layout", "acc_s becomes acc_s_cast, the register A operand of the second gemm"},
          {"Data movement", "Q staged once, K and V streamed per iteration"}},
         "T.copy(V[bz, k * block_N:(k + 1) * block_N, by, :], V_shared)",
         "stage this iteration's tile of V into V_shared, as the loop does for K",
         "the tile of V covers the same keys as the tile of K: rows k * block_N to (k + 1) * block_N"},
    };
    return table;
}

const Lesson* findLesson(int number) {
    for (const Lesson& l : lessons())
        if (l.number == number)
            return &l;
    return nullptr;
}

std::string lessonExercise(const Lesson& lesson, std::string& error) {
    auto sample = findSample(lesson.sample);
    std::string text;
    if (!sample || !readTextFile(sample->path, text)) {
        error = "lesson " + std::to_string(lesson.number) + ": sample '" + lesson.sample + "' not found";
        return {};
    }
    std::istringstream in(text);
    std::string line, out;
    bool replaced = false;
    while (std::getline(in, line)) {
        size_t indent = line.find_first_not_of(' ');
        if (!replaced && indent != std::string::npos &&
            line.compare(indent, lesson.gap.size(), lesson.gap) == 0) {
            out += line.substr(0, indent) + "# TODO (lesson " + std::to_string(lesson.number) +
                   "): " + lesson.task + "\n";
            replaced = true;
            continue;
        }
        out += line + "\n";
    }
    if (!replaced) {
        error = "lesson " + std::to_string(lesson.number) + ": '" + lesson.gap + "' is not a line of " +
                sample->fileName;
        return {};
    }
    return out;
}

} // namespace tb
