#include "engine/tools/tilec/CommandLine.h"

#include "engine/gpu/Nvrtc.h"
#include "engine/target/Backend.h"

#include <cstdlib>

namespace tb::tilec {

namespace {

bool splitAssignment(const std::string& text, std::pair<std::string, std::string>& out) {
    size_t eq = text.find('=');
    if (eq == std::string::npos || eq == 0)
        return false;
    out = {text.substr(0, eq), text.substr(eq + 1)};
    return true;
}

} // namespace

std::string usageText() {
    return R"(usage: tilec COMMAND FILE [options]

Compiles a TileLang tile program with TileBench's engine (no Python, no GPU needed).

commands:
  check FILE        parse, elaborate and check; print diagnostics
  ir FILE           print the Tile IR (--json for the documented JSON form)
  params FILE       list the jit parameters, their values and where each came from
  ast FILE          print the syntax tree (debugging)
  run FILE --cpu    execute on the CPU (LLVM JIT, interpreter fallback) and compare with the naive
                    reference (--interpret: the tree-walking interpreter; --jit: the JIT or an error)
  layouts FILE      every buffer's inferred layout: fragments (thread, register) and shared swizzles
  plan FILE         warp partitions, loop/reduce/copy plans, the kernel schedule (shared arena,
                    pipelines) and the shared-memory budget
  banks FILE        every shared-memory access with its bank wavefronts, swizzle on and off
  emit cuda|ptx|sass FILE   the generated CUDA, its PTX (NVRTC) or SASS (needs the toolkit's nvdisasm)
                    (emit cuda --against NAME=VALUE: a unified diff of the CUDA against that setting)
  run FILE --gpu    compile with NVRTC, run in the isolated runner, check against the CPU executor
                    (--fast-compile[=mid|max]: NVRTC's fast-compile mode, a quicker compile of a slower kernel;
                    --cuda FILE: run an edited copy of `emit cuda` instead, same launch, tensor maps and check;
                    --check-blocks N: above 1024 blocks the check runs 256 blocks spread over the grid and
                    compares what they write; N of them instead, 0 for every block)
  bench FILE        time a kernel with CUPTI (--vs cublas|previous); see `tilec bench --help`
  profile FILE      CUPTI counters (Nsight Compute names) and per-line shared-memory wavefronts
  sweep FILE -p NAME=A..B   a table over parameter values
  passes [FILE]     list the pipeline's passes; with FILE, what each pass produced (IR, plan, CUDA)
  samples           list the bundled samples

FILE is a path, '-' for standard input, or a sample name (e.g. gemm_relu).

options:
  -p, --param NAME=VALUE   override a jit parameter (VALUE is a Python expression, e.g. 256 or 'bfloat16')
  --dim NAME=VALUE         size of a T.dynamic dimension for run (default 256)
  --arch ARCH              target: sm_80 or sm_90a (default sm_90a)
  --backend NAME           instruction set to plan and emit: portable (mma.sync, cp.async; default) or
                           hopper (wgmma, TMA; sm_90a); every command shows the one plan it makes
  --entry NAME             which jit function or prim_func to compile when there are several
  --json                   machine-readable output
  --seed N                 seed for the random inputs of run
  --fill NAME=SPEC         how run fills input NAME instead of random values: randint:LO..HI, sorted:LO..HI
                           (non-decreasing from LO to HI, e.g. cumulative lengths), arange, const:V, zeros,
                           ones; LO and HI are integers or --dim names (e.g. --fill cu_seqlens=sorted:0..UQ)
  --time                   print per-pass timings
  --tables                 with layouts/plan --json: element -> (thread, register) tables
  --no-wgmma               TileLang's tl.disable_wgmma: mma.sync even on the hopper backend
  -h, --help               this text
  --version                print the version

exit status: 0 ok, 1 the program has errors, 2 bad command line, 3 wrong results, 4 I/O or runtime error
)";
}

std::optional<CommandLine> parseCommandLine(int argc, char** argv, std::string& error) {
    CommandLine cl;
    std::vector<std::string> positional;
    for (int i = 1; i < argc; ++i) {
        std::string arg = argv[i];
        auto needValue = [&](const char* what) -> std::optional<std::string> {
            if (i + 1 >= argc) {
                error = std::string("option ") + arg + " needs " + what;
                return std::nullopt;
            }
            return std::string(argv[++i]);
        };
        // The option's value as a whole non-negative integer (base 0: 0x... and 0... too), or an error that
        // names what it should have been.
        auto needCount = [&](const char* what) -> std::optional<uint64_t> {
            auto v = needValue(what);
            if (!v)
                return std::nullopt;
            char* end = nullptr;
            const uint64_t n = std::strtoull(v->c_str(), &end, 0);
            if (v->empty() || !end || *end || v->front() == '-') {
                error = arg + " needs " + what + ", got '" + *v + "'";
                return std::nullopt;
            }
            return n;
        };
        if (arg == "-h" || arg == "--help") {
            cl.command = "help";
            return cl;
        }
        if (arg == "--version") {
            cl.command = "version";
            return cl;
        }
        if (arg == "-p" || arg == "--param" || arg.starts_with("--param=") ||
            (arg.starts_with("-p") && arg.size() > 2)) {
            std::string value;
            if (arg.starts_with("--param="))
                value = arg.substr(8);
            else if (arg.starts_with("-p") && arg.size() > 2)
                value = arg.substr(2);
            else if (auto v = needValue("NAME=VALUE"))
                value = *v;
            else
                return std::nullopt;
            std::pair<std::string, std::string> kv;
            if (!splitAssignment(value, kv)) {
                error = "expected NAME=VALUE after " + arg + ", got '" + value + "'";
                return std::nullopt;
            }
            cl.params.push_back(kv);
        } else if (arg == "--against") {
            auto v = needValue("NAME=VALUE");
            std::pair<std::string, std::string> kv;
            if (!v || !splitAssignment(*v, kv)) {
                if (error.empty())
                    error = "expected NAME=VALUE after --against";
                return std::nullopt;
            }
            cl.against.push_back(kv);
        } else if (arg == "--dim") {
            auto v = needValue("NAME=VALUE");
            std::pair<std::string, std::string> kv;
            if (!v || !splitAssignment(*v, kv)) {
                if (error.empty())
                    error = "expected NAME=VALUE after --dim";
                return std::nullopt;
            }
            cl.dims.push_back(kv);
        } else if (arg == "--fill") {
            auto v = needValue("NAME=SPEC");
            std::pair<std::string, std::string> kv;
            if (!v || !splitAssignment(*v, kv)) {
                if (error.empty())
                    error = "expected NAME=SPEC after --fill (e.g. --fill cu_seqlens=sorted:0..UQ)";
                return std::nullopt;
            }
            std::string why;
            std::optional<InputFill> fill = parseInputFill(kv.second, why);
            if (!fill) {
                error = "--fill " + kv.first + ": " + why;
                return std::nullopt;
            }
            cl.fills[kv.first] = *fill;
        } else if (arg == "--arch" || arg.starts_with("--arch=")) {
            if (arg.size() > 6)
                cl.arch = arg.substr(7);
            else if (auto v = needValue("an architecture"))
                cl.arch = *v;
            else
                return std::nullopt;
        } else if (arg == "--entry") {
            auto v = needValue("a function name");
            if (!v)
                return std::nullopt;
            cl.entry = *v;
        } else if (arg == "--seed") {
            auto n = needCount("a number");
            if (!n)
                return std::nullopt;
            cl.seed = *n;
        } else if (arg == "--check-blocks") {
            auto n = needCount("a count of blocks (0: every block)");
            if (!n)
                return std::nullopt;
            cl.checkBlocks = int64_t(*n);
        } else if (arg == "--json") {
            cl.json = true;
        } else if (arg == "--cpu") {
            cl.cpu = true;
        } else if (arg == "--interpret") {
            cl.cpu = true;
            cl.cpuBackend = "interpreter";
        } else if (arg == "--jit") {
            cl.cpu = true;
            cl.cpuBackend = "jit";
        } else if (arg == "--gpu") {
            cl.gpu = true;
        } else if (arg == "--time") {
            cl.showTimings = true;
        } else if (arg == "--tables") {
            cl.tables = true;
        } else if (arg == "--no-wgmma") {
            cl.noWgmma = true;
        } else if (arg == "--backend") {
            auto v = needValue("portable or hopper");
            if (!v)
                return std::nullopt;
            if (!parseBackend(*v)) {
                error = "unknown backend '" + *v + "' (known: portable, hopper)";
                return std::nullopt;
            }
            cl.backend = *v;
        } else if (arg == "--cuda") {
            auto v = needValue("a CUDA file");
            if (!v)
                return std::nullopt;
            cl.cudaFile = *v;
        } else if (arg.rfind("--fast-compile", 0) == 0) {
            cl.fastCompile = arg.size() > 15 && arg[14] == '=' ? arg.substr(15) : "max";
            if (cl.fastCompile.empty() || !gpu::isFastCompileLevel(cl.fastCompile)) {
                error = "--fast-compile takes min, mid or max, got '" + cl.fastCompile + "'";
                return std::nullopt;
            }
        } else if (arg.size() > 1 && arg[0] == '-' && arg != "-") {
            error = "unknown option '" + arg + "'";
            return std::nullopt;
        } else {
            positional.push_back(arg);
        }
    }
    if (positional.empty()) {
        error = "missing command";
        return std::nullopt;
    }
    cl.command = positional[0];
    size_t next = 1;
    if (cl.command == "emit") {
        if (positional.size() < 2 ||
            (positional[1] != "cuda" && positional[1] != "ptx" && positional[1] != "sass")) {
            error = "emit needs what to emit: cuda, ptx or sass (tilec emit cuda FILE)";
            return std::nullopt;
        }
        cl.emitKind = positional[1];
        next = 2;
    }
    if (!cl.against.empty() && !(cl.command == "emit" && cl.emitKind == "cuda")) {
        error = "--against compares generated CUDA: use it with emit cuda";
        return std::nullopt;
    }
    if (positional.size() > next)
        cl.file = positional[next];
    if (positional.size() > next + 1) {
        error = "unexpected argument '" + positional[next + 1] + "'";
        return std::nullopt;
    }
    return cl;
}

} // namespace tb::tilec
