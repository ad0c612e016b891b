// Closed forms for per-thread register maps. A fragment's inverse, (thread t, register r) -> logical element,
// is known only as a table (engine/layout/algebra/FragmentTable.h). The generated kernel needs it as C code
// in `t` and `r`: with `r` unrolled, every fragment access then folds to a constant register index and the
// fragment stays in registers. The mma.sync and default-partition maps are sums of bit fields of t and r
// (multiplications and divisions by powers of two), so each coordinate is fitted as
//   f(t, r) = base + sum_k c_k * bit_k(t) + sum_m d_m * bit_m(r)
// and the fit is checked at every table point. TileLang's PlanLoopPartition over rows that are not a power
// of two of vectors (a 192-wide fp16 row is 24 vectors) is not of this form; such a map gets its coordinates
// from the partition's flat order instead (BitFit::partition, with a division and a remainder). A map of
// neither form gets no fit, and the caller falls back to an ownership-guarded loop.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace tb::codegen {

struct BitFit {
    // A coordinate in PlanLoopPartition's flat order: groups of `vector` consecutive elements go to
    // consecutive threads, so slot (t, r) holds flat element ((r / vector) * threads + t) * vector +
    // r % vector, whose coordinate is (flat / stride) % extent.
    struct Partition {
        int64_t threads = 1, vector = 1, stride = 1, extent = 1;
        // C for the flat element index of slot (t, r).
        static std::string flatC(int64_t threads, int64_t vector, const std::string& threadName,
                                 const std::string& regName);
    };

    bool ok = false;
    int64_t base = 0;
    std::vector<int64_t> threadCoef;    // one per bit of t
    std::vector<int64_t> regCoef;       // one per bit of r
    std::optional<Partition> partition; // set instead of the bit terms

    // Whether f(t, r) - f(t, 0) is the same for every thread (bit fields: always; a partition: no), which
    // registerPart() needs.
    bool separable() const { return !partition; }
    bool dependsOnThread() const;
    bool isConstant() const;
    // "((tx >> 2) & 7) + 8 * ((r >> 1) & 1)"-style C text; bit runs whose coefficients double are merged.
    std::string toC(const std::string& threadName, const std::string& regName) const;
    // The register terms alone: f(t, r) - f(t, 0), the same for every thread.
    BitFit registerPart() const;
};

// values[t * regs + r]; nullopt entries are "don't care" (unused register slots).
BitFit fitOverBits(const std::vector<std::optional<int64_t>>& values, int64_t threads, int64_t regs);

} // namespace tb::codegen
