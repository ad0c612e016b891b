// fuzz_diff: differential fuzzing of the whole compiler. Generates seeded random tile programs
// (ProgramGenerator.h) and checks each one (DifferentialCheck.h): on the CPU, the interpreter against the
// JIT bit for bit; with --gpu, each GPU backend against the CPU oracle. A mismatch is reduced
// (FuzzReducer.h) and written as a small reproducer. docs/fuzzing.md has the commands.
#include "engine/tools/fuzz/DifferentialCheck.h"
#include "engine/tools/fuzz/FuzzReducer.h"
#include "engine/tools/fuzz/ProgramGenerator.h"

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace {

using namespace tb::fuzz;

struct Options {
    uint64_t seed = 1;
    int64_t count = 1000;
    double seconds = 0; // 0: no time limit
    bool gpu = false;
    std::vector<GpuBackend> backends{GpuBackend::Portable, GpuBackend::Hopper};
    std::string out = "fuzz-mismatches";
    bool reduce = true;
    int64_t progress = 1000;
    int64_t printSeed = -1;
    int64_t batch = 32;   // CPU: programs whose JIT code is compiled together
    bool explain = false; // print why each rejected program was rejected
};

const char* kUsage = R"(usage: fuzz_diff [options]
  --seed S          first program seed (programs use seeds S, S+1, ...; default 1)
  --count N         programs to generate (default 1000)
  --seconds T       stop after T seconds even if fewer than N programs ran
  --gpu             compare each GPU backend with the CPU oracle (needs a GPU; skips without one)
  --backend B       with --gpu: portable, hopper or both (default both)
  --out DIR         where reduced reproducers go (default fuzz-mismatches)
  --no-reduce       write mismatching programs as generated
  --batch N         CPU: compile the JIT code of N programs together (default 32)
  --progress N      a status line every N programs (default 1000)
  --print S         print the program of seed S and exit
  --explain-rejections  print the first diagnostic of every program the engine rejects
)";

bool parse(int argc, char** argv, Options& o) {
    for (int i = 1; i < argc; ++i) {
        std::string a = argv[i];
        auto value = [&]() -> const char* { return i + 1 < argc ? argv[++i] : nullptr; };
        const char* v = nullptr;
        if (a == "--seed" && (v = value()))
            o.seed = std::strtoull(v, nullptr, 0);
        else if (a == "--count" && (v = value()))
            o.count = std::strtoll(v, nullptr, 0);
        else if (a == "--seconds" && (v = value()))
            o.seconds = std::strtod(v, nullptr);
        else if (a == "--gpu")
            o.gpu = true;
        else if (a == "--backend" && (v = value())) {
            std::string b = v;
            if (b == "portable")
                o.backends = {GpuBackend::Portable};
            else if (b == "hopper")
                o.backends = {GpuBackend::Hopper};
            else if (b != "both")
                return false;
        } else if (a == "--out" && (v = value()))
            o.out = v;
        else if (a == "--explain-rejections")
            o.explain = true;
        else if (a == "--batch" && (v = value()))
            o.batch = std::max<int64_t>(1, std::strtoll(v, nullptr, 0));
        else if (a == "--no-reduce")
            o.reduce = false;
        else if (a == "--progress" && (v = value()))
            o.progress = std::max<int64_t>(1, std::strtoll(v, nullptr, 0));
        else if (a == "--print" && (v = value()))
            o.printSeed = std::strtoll(v, nullptr, 0);
        else
            return false;
    }
    return true;
}

std::string picksText(const std::vector<uint32_t>& picks) {
    std::string s;
    for (size_t i = 0; i < picks.size(); ++i)
        s += (i ? "," : "") + std::to_string(picks[i]);
    return s;
}

// Writes the reproducer and returns its path.
std::string writeReproducer(const Options& o, uint64_t seed, const std::string& what, const Outcome& outcome,
                            const std::string& text) {
    std::filesystem::create_directories(o.out);
    std::string path = o.out + "/mismatch-" + what + "-" + std::to_string(seed) + ".py";
    std::ofstream file(path);
    file << "# fuzz_diff mismatch (" << what << "), program seed " << seed << "\n";
    std::string detail = outcome.detail.substr(0, 600);
    for (size_t at = 0; (at = detail.find('\n', at)) != std::string::npos; ++at)
        detail.replace(at, 1, "\n# ");
    file << "# " << detail << "\n" << text;
    return path;
}

} // namespace

int main(int argc, char** argv) {
    Options o;
    if (!parse(argc, argv, o)) {
        std::fprintf(stderr, "%s", kUsage);
        return 2;
    }
    GeneratorOptions generator;
    generator.gpuSafe = o.gpu;
    if (o.printSeed >= 0) {
        std::printf("%s", generateProgram(uint64_t(o.printSeed), generator).text.c_str());
        return 0;
    }
    if (o.gpu) {
        std::string why;
        if (!gpuUsable(why)) {
            std::printf("fuzz_diff: skipping the GPU comparison: no GPU (%s)\n", why.c_str());
            return 0;
        }
    }
    std::map<OutcomeKind, int64_t> counts;
    std::vector<std::string> reproducers;
    auto start = std::chrono::steady_clock::now();
    auto elapsed = [&] {
        return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    };
    auto status = [&](int64_t done) {
        std::printf(
            "fuzz_diff: %lld programs from seed %llu in %.0f s: %lld agree, %lld both-failed, %lld rejected, "
            "%lld jit-unsupported, %lld mismatches\n",
            static_cast<long long>(done), static_cast<unsigned long long>(o.seed), elapsed(),
            static_cast<long long>(counts[OutcomeKind::Agree]),
            static_cast<long long>(counts[OutcomeKind::BothFailed]),
            static_cast<long long>(counts[OutcomeKind::Rejected]),
            static_cast<long long>(counts[OutcomeKind::JitUnsupported]),
            static_cast<long long>(counts[OutcomeKind::Mismatch]));
        std::fflush(stdout);
    };
    auto report = [&](uint64_t seed, const GeneratedProgram& program, const std::string& what,
                      const Outcome& outcome, const std::function<Outcome(const std::string&)>& check) {
        counts[outcome.kind]++;
        if (o.explain && outcome.kind == OutcomeKind::Rejected)
            std::printf("fuzz_diff: seed %llu (%s) rejected: %s\n", static_cast<unsigned long long>(seed),
                        program.kind.c_str(), outcome.detail.substr(0, outcome.detail.find('\n')).c_str());
        if (outcome.kind != OutcomeKind::Mismatch)
            return;
        std::string text = program.text;
        if (o.reduce)
            text = reduceProgram(program, generator, [&](const std::string& t) {
                       return check(t).kind == OutcomeKind::Mismatch;
                   }).text;
        std::string path = writeReproducer(o, seed, what, outcome, text);
        std::printf("fuzz_diff: MISMATCH (%s) at seed %llu, picks %s\n%s\nreduced program: %s\n",
                    what.c_str(), static_cast<unsigned long long>(seed), picksText(program.picks).c_str(),
                    outcome.detail.c_str(), path.c_str());
    };
    int64_t done = 0;
    while (done < o.count && (o.seconds <= 0 || elapsed() < o.seconds)) {
        int64_t n = o.gpu ? 1 : std::min(o.batch, o.count - done);
        std::vector<GeneratedProgram> programs;
        std::vector<std::string> texts;
        std::vector<uint64_t> seeds;
        for (int64_t k = 0; k < n; ++k) {
            seeds.push_back(o.seed + uint64_t(done + k));
            programs.push_back(generateProgram(seeds.back(), generator));
            texts.push_back(programs.back().text);
        }
        if (!o.gpu) {
            std::vector<Outcome> outcomes = checkBatchOnCpu(texts, seeds);
            for (int64_t k = 0; k < n; ++k) {
                uint64_t seed = seeds[size_t(k)];
                report(seed, programs[size_t(k)], "cpu", outcomes[size_t(k)],
                       [seed](const std::string& t) { return checkOnCpu(t, seed); });
            }
        } else {
            uint64_t seed = seeds.front();
            for (GpuBackend b : o.backends)
                report(seed, programs.front(), b == GpuBackend::Portable ? "portable" : "hopper",
                       checkOnGpu(texts.front(), b, seed),
                       [seed, b](const std::string& t) { return checkOnGpu(t, b, seed); });
        }
        bool crossed = (done + n) / o.progress != done / o.progress;
        done += n;
        if (crossed)
            status(done);
    }
    status(done);
    return counts[OutcomeKind::Mismatch] ? 1 : 0;
}
