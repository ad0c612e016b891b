// Argument parsing for tilec: a subcommand, one input file, and options shared by every subcommand
// (-p NAME=VALUE overrides, --arch, --json, ...). Kept apart from the commands so each command reads
// like what it does.
#pragma once

#include "engine/exec/InputFill.h"

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace tb::tilec {

// Compiler-style exit codes, documented in `tilec --help`.
enum ExitCode : int {
    ExitOk = 0,
    ExitCompileError = 1, // the program has errors (diagnostics printed)
    ExitUsage = 2,        // bad command line
    ExitWrongResult = 3,  // the program ran but its results differ from the reference
    ExitRuntimeError = 4, // the file could not be read, or execution failed
};

struct CommandLine {
    std::string command;
    std::string emitKind; // emit: cuda, ptx or sass
    std::string file;
    std::vector<std::pair<std::string, std::string>> params;  // -p NAME=VALUE
    std::vector<std::pair<std::string, std::string>> dims;    // --dim NAME=VALUE (T.dynamic sizes)
    std::vector<std::pair<std::string, std::string>> against; // emit cuda --against NAME=VALUE: diff with it
    InputFills fills; // run --fill NAME=SPEC: how an input is filled instead of random values
    std::string arch = "sm_90a";
    std::string entry;
    bool json = false;
    bool cpu = false;
    bool gpu = false;
    std::string cpuBackend = "auto"; // run --cpu: auto (JIT, interpreter fallback), jit, interpreter
    bool showTimings = false;
    bool tables = false;     // layouts/plan --json: include element -> (thread, register) tables
    bool noWgmma = false;    // tl.disable_wgmma: mma.sync even on the hopper backend
    std::string backend;     // --backend: "portable", "hopper"; empty: the target's default
    std::string fastCompile; // run --gpu: NVRTC --Ofast-compile level (mid, max)
    std::string cudaFile;    // run --gpu --cuda FILE: an edited CUDA source run in place of the generated one
    uint64_t seed = 0x7113BE7C;
    int64_t checkBlocks = -1; // run --gpu: blocks of a large grid the CPU check runs (-1: chosen, 0: all)
    int repeat = 1;
};

// Parses argv; on error returns nullopt and fills `error`.
std::optional<CommandLine> parseCommandLine(int argc, char** argv, std::string& error);

std::string usageText();

} // namespace tb::tilec
