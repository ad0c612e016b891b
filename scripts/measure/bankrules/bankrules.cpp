// bankrules: measure, per warp-level shared-memory SASS instruction, how many shared-memory
// wavefronts the H200 spends, for a catalogue of per-lane address patterns. The numbers are
// the ground truth for TileBench's static bank-conflict analyzer (docs/reference/bank-rules.md).
//
// Every case is one tiny kernel with exactly one shared-memory access of interest, written as
// inline PTX so the access width is fixed (ld/st.shared .u16/.u32/.v2/.v4, ldmatrix, stmatrix,
// cp.async.cg/.ca). Lane l of warp w accesses byte  base + w*16384 + off[l], where base is the
// dynamic shared window rounded up to 1024 B and off[] comes from the host (so the patterns
// live in one place: this file, and the JSON it writes).
//
// Phases (each skippable):
//   1. NVRTC (sm_90a) -> cubin; cuobjdump -sass gives the opcode at every PC.
//   2. Driver API: launch every case with 1 and 4 warps and check it ran.
//   3. Timing (no CUPTI): 32 warps per SM repeat a pattern; cycles per warp-instruction per SM.
//      Caveat: ptxas removes repeated LDS/STS/LDSM of an unchanged address (see bank-rules.md).
//   4. CUPTI Range Profiler (AutoRange + KernelReplay): hardware l1tex wavefront and bank-conflict
//      counters per 1-warp kernel (the hardware truth; LDGSTS.BYPASS is invisible to them).
//   5. CUPTI SASS metrics: per-PC wavefronts, ideal wavefronts, instruction counts; one session
//      with 1-warp launches, one with 4-warp launches.
// It prints one table (SASS metric, hardware counter, and four predictions: the two starting
// hypotheses, the hardware rule predictRule and NVIDIA's SASS-metric model predictSassModel) and
// writes bankrules.json and bankrules_timing.json for offline analysis.
//
// Usage: bankrules [--compile-only] [--kernels-only] [--no-range] [--no-sass] [--no-timing]
//                  [--out-dir=DIR] [--filter=A|B]
//   --compile-only  NVRTC only (no GPU needed); prints the cases and predictions.
//   --kernels-only  launch every case once with 1 warp, without any CUPTI (for ncu).
//   --filter=A|B    keep only the cases whose name contains A or B.

#include <cuda.h>
#include <nvrtc.h>
#include <cupti.h>
#include <cupti_target.h>
#include <cupti_profiler_target.h>
#include <cupti_profiler_host.h>
#include <cupti_range_profiler.h>
#include <cupti_sass_metrics.h>

#include <algorithm>
#include <array>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <functional>
#include <map>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <vector>

namespace {

// ---------------------------------------------------------------- error helpers

bool cuOk(CUresult r, const char* what) {
  if (r == CUDA_SUCCESS) return true;
  const char* name = nullptr;
  cuGetErrorName(r, &name);
  std::printf("  ERROR %s -> %d %s\n", what, (int)r, name ? name : "?");
  return false;
}
bool cuptiOk(CUptiResult r, const char* what) {
  if (r == CUPTI_SUCCESS) return true;
  const char* s = nullptr;
  cuptiGetResultString(r, &s);
  std::printf("  ERROR %s -> %d %s\n", what, (int)r, s ? s : "?");
  return false;
}
bool nvrtcOk(nvrtcResult r, const char* what) {
  if (r == NVRTC_SUCCESS) return true;
  std::printf("  ERROR %s -> %d %s\n", what, (int)r, nvrtcGetErrorString(r));
  return false;
}
#define CU(x) cuOk((x), #x)
#define CUPTI(x) cuptiOk((x), #x)
#define NVRTC(x) nvrtcOk((x), #x)

void section(const char* t) { std::printf("\n==== %s ====\n", t); std::fflush(stdout); }

// ---------------------------------------------------------------- cases

enum class Op { Ld, St, Ldsm, Stsm, Ldgsts };

const char* opName(Op op) {
  switch (op) {
    case Op::Ld: return "ld";
    case Op::St: return "st";
    case Op::Ldsm: return "ldsm";
    case Op::Stsm: return "stsm";
    case Op::Ldgsts: return "ldgsts";
  }
  return "?";
}

constexpr uint32_t kWarpRegion = 16384;  // bytes of shared memory per warp
constexpr int kMaxWarps = 4;

struct Case {
  std::string name;   // kernel name
  std::string group;  // e.g. "LDS.128"
  Op op = Op::Ld;
  int width = 4;      // bytes per lane (ld/st/ldgsts), matrices per instruction (ldsm/stsm)
  bool trans = false;
  uint32_t mask = 0xffffffffu;  // active lanes (ld/st/ldgsts only)
  std::array<uint32_t, 32> off{};
  std::array<uint32_t, 32> src{};  // LDGSTS: global source byte offset per lane (default W*l)
  bool ca = false;                 // LDGSTS: cp.async.ca (L1-allocating) instead of .cg
  std::string pattern;
};

// Bytes each lane touches, and how many lanes take part.
int laneBytes(const Case& c) { return (c.op == Op::Ldsm || c.op == Op::Stsm) ? 16 : c.width; }
int lanesUsed(const Case& c) { return (c.op == Op::Ldsm || c.op == Op::Stsm) ? 8 * c.width : 32; }
bool laneActive(const Case& c, int l) {
  if (l >= lanesUsed(c)) return false;
  if (c.op == Op::Ldsm || c.op == Op::Stsm) return true;
  return (c.mask >> l) & 1u;
}

// Candidate model: lanes are split into phases; within a phase the cost is the largest number
// of distinct 4-byte words that fall into one bank (same word = broadcast, costs nothing extra).
int maxBankDegree(const Case& c, int firstLane, int lastLane) {
  std::array<std::set<uint32_t>, 32> words;
  for (int l = firstLane; l < lastLane; ++l) {
    if (!laneActive(c, l)) continue;
    uint32_t a = c.off[l], b = laneBytes(c);
    for (uint32_t w = a / 4; w <= (a + b - 1) / 4; ++w) words[w % 32].insert(w);
  }
  size_t m = 0;
  for (auto& s : words) m = std::max(m, s.size());
  return (int)m;
}
// "phase": 128-byte phases: W<=4: the whole warp; W=8: half-warps; W=16: quarter-warps;
// ldmatrix/stmatrix: one phase per 8x8 matrix (8 lanes' row addresses).
int predictPhase(const Case& c) {
  int per = (c.op == Op::Ldsm || c.op == Op::Stsm) ? 8 : (laneBytes(c) <= 4 ? 32 : 128 / laneBytes(c));
  int sum = 0;
  for (int p = 0; p < 32; p += per) sum += maxBankDegree(c, p, p + per);
  return sum;
}
// "warp": the whole instruction at once.
int predictWarp(const Case& c) { return maxBankDegree(c, 0, 32); }

// Paired load: every active lane n whose partner n^x is active reads the same address as it
// (x = 1 or 2; an inactive partner does not break the pairing).
bool pairedLoad(const Case& c, uint32_t x) {
  bool any = false;
  for (uint32_t l = 0; l < 32; ++l) {
    if (!laneActive(c, l)) continue;
    any = true;
    if (laneActive(c, l ^ x) && c.off[l] != c.off[l ^ x]) return false;
  }
  return any;
}

int sumPhases(const Case& c, int per, bool countDuplicates = false) {
  int sum = 0;
  for (int p = 0; p < 32; p += per) {
    if (!countDuplicates) {
      sum += maxBankDegree(c, p, p + per);
      continue;
    }
    std::array<int, 32> lanesPerBank{};
    for (int l = p; l < p + per; ++l)
      if (laneActive(c, l))
        for (uint32_t w = c.off[l] / 4; w <= (c.off[l] + laneBytes(c) - 1) / 4; ++w) ++lanesPerBank[w % 32];
    sum += *std::max_element(lanesPerBank.begin(), lanesPerBank.end());
  }
  return sum;
}

// The hardware rule (fits every l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld/_op_st count and the
// LDGSTS.ca counts of both runs; see docs/reference/bank-rules.md):
//  - ldmatrix/stmatrix: one phase per 8x8 matrix;
//  - W <= 4 bytes: one phase (the warp); W = 8: half-warps; W = 16: quarter-warps;
//  - LDS.64/LDS.128 whose lanes pair up (n, n^1) or (n, n^2): phases twice as long;
//  - per phase: the largest number of distinct 4-byte words in one bank; LDGSTS counts every lane
//    (no merging of equal destinations: seen in timing only).
int predictRule(const Case& c) {
  if (c.op == Op::Ldsm || c.op == Op::Stsm) return predictPhase(c);
  int w = laneBytes(c), per = w <= 4 ? 32 : 128 / w;
  if (c.op == Op::Ld && w >= 8 && (pairedLoad(c, 1) || pairedLoad(c, 2))) per *= 2;
  return sumPhases(c, per, c.op == Op::Ldgsts);
}

// NVIDIA's SASS-patching model (smsp__sass_l1tex_pipe_lsu_wavefronts_mem_shared), which differs from the
// hardware for paired loads: a unit (LDS.64: the warp; LDS.128: a half-warp) costs 1 only if it is
// conflict-free and either holds at most 128/W active lanes or pairs up (partner active, same address);
// otherwise its half-/quarter-warps are summed. LDGSTS.BYPASS is not modelled (unstable, see notes).
int predictSassModel(const Case& c) {
  if (c.op == Op::Ldsm || c.op == Op::Stsm) return predictPhase(c);
  int w = laneBytes(c);
  if (w <= 4) return maxBankDegree(c, 0, 32);
  int sub = 128 / w, unit = 2 * sub, sum = 0;
  for (int u = 0; u < 32; u += unit) {
    int active = 0;
    for (int l = u; l < u + unit; ++l) active += laneActive(c, l);
    if (!active) continue;
    bool merged = false;
    if (c.op == Op::Ld && maxBankDegree(c, u, u + unit) <= 1) {
      merged = active * w <= 128;
      for (uint32_t x : {1u, 2u}) {
        bool ok = true;
        for (int l = u; l < u + unit && ok; ++l)
          if (laneActive(c, l)) ok = laneActive(c, l ^ x) && c.off[l] == c.off[l ^ x];
        merged = merged || ok;
      }
    }
    if (merged) { ++sum; continue; }
    for (int p = u; p < u + unit; p += sub) sum += maxBankDegree(c, p, p + sub);
  }
  return sum;
}

std::string hexList(const Case& c) {
  std::ostringstream os;
  for (int l = 0; l < 32; ++l) os << (l ? "," : "") << c.off[l];
  return os.str();
}

std::vector<Case> buildCases() {
  std::vector<Case> cs;
  std::mt19937 rng(20261129u);  // raw outputs only: identical on every standard library
  auto add = [&](const std::string& group, const std::string& name, Op op, int width,
                 std::function<uint32_t(uint32_t)> f, const std::string& pattern,
                 uint32_t mask = 0xffffffffu, bool trans = false) {
    Case c;
    c.group = group;
    c.name = name;
    c.op = op;
    c.width = width;
    c.trans = trans;
    c.mask = mask;
    c.pattern = pattern;
    for (uint32_t l = 0; l < 32; ++l) c.off[l] = f(l);
    for (uint32_t l = 0; l < 32; ++l) c.src[l] = (uint32_t)width * l;
    cs.push_back(c);
  };
  auto randomCase = [&](const std::string& group, const std::string& name, Op op, int width,
                        uint32_t region, int lanesWidth) {
    // lanesWidth: bytes per lane (alignment). Offsets uniform in [0, region).
    std::array<uint32_t, 32> o{};
    for (auto& v : o) v = (rng() % (region / lanesWidth)) * lanesWidth;
    add(group, name, op, width, [o](uint32_t l) { return o[l]; },
        "random " + std::to_string(lanesWidth) + "-B-aligned offsets in [0," + std::to_string(region) +
            ") (listed)");
  };
  auto randomMask = [&]() { uint32_t m = rng(); return m ? m : 1u; };
  const Op LD = Op::Ld, ST = Op::St;

  // ---- 1. LDS.32
  for (uint32_t s : {1u, 2u, 4u, 8u, 16u, 32u, 33u})
    add("LDS.32", "ld32_stride" + std::to_string(s), LD, 4, [s](uint32_t l) { return 4 * s * l; },
        "4*" + std::to_string(s) + "*l");
  add("LDS.32", "ld32_bcast", LD, 4, [](uint32_t) { return 0u; }, "0 (all lanes one word)");
  add("LDS.32", "ld32_pairs", LD, 4, [](uint32_t l) { return 4 * (l / 2); }, "4*(l/2)");
  {
    std::array<uint32_t, 32> p{};
    for (uint32_t i = 0; i < 32; ++i) p[i] = i;
    for (int i = 31; i > 0; --i) std::swap(p[i], p[rng() % (i + 1)]);
    add("LDS.32", "ld32_perm", LD, 4, [p](uint32_t l) { return 4 * p[l]; },
        "4*perm[l], perm = random permutation of 0..31 (listed)");
  }
  add("LDS.32", "ld32_2words_bank0", LD, 4, [](uint32_t l) { return l < 16 ? 0u : 128u; },
      "l<16 ? 0 : 128");
  add("LDS.32", "ld32_4words_bank0", LD, 4, [](uint32_t l) { return 128 * (l % 4); }, "128*(l%4)");
  add("LDS.32", "ld32_stride32_lo16", LD, 4, [](uint32_t l) { return 128 * l; },
      "128*l, lanes 0-15 active", 0x0000ffffu);
  add("LDS.32", "ld32_stride32_even", LD, 4, [](uint32_t l) { return 128 * l; },
      "128*l, even lanes active", 0x55555555u);
  randomCase("LDS.32", "ld32_rnd256", LD, 4, 256, 4);
  randomCase("LDS.32", "ld32_rnd1k_a", LD, 4, 1024, 4);
  randomCase("LDS.32", "ld32_rnd1k_b", LD, 4, 1024, 4);
  randomCase("LDS.32", "ld32_rnd4k", LD, 4, 4096, 4);
  randomCase("LDS.32", "ld32_rnd1k_mask", LD, 4, 1024, 4);
  cs.back().mask = randomMask();
  cs.back().pattern += ", random lane mask";

  // ---- LDS.U16 / STS.U16 / STS.32 / STS.64 (sub-word and plain stores)
  add("LDS.U16", "ld16_stride1", LD, 2, [](uint32_t l) { return 2 * l; }, "2*l");
  add("LDS.U16", "ld16_stride2", LD, 2, [](uint32_t l) { return 4 * l; }, "4*l");
  add("LDS.U16", "ld16_stride64", LD, 2, [](uint32_t l) { return 128 * l; }, "128*l");
  add("LDS.U16", "ld16_halves_bank0", LD, 2, [](uint32_t l) { return 128 * (l / 2) + 2 * (l % 2); },
      "128*(l/2) + 2*(l%2)");
  add("STS.U16", "st16_stride1", ST, 2, [](uint32_t l) { return 2 * l; }, "2*l");
  add("STS.U16", "st16_stride64", ST, 2, [](uint32_t l) { return 128 * l; }, "128*l");
  add("STS.32", "st32_stride1", ST, 4, [](uint32_t l) { return 4 * l; }, "4*l");
  add("STS.32", "st32_stride2", ST, 4, [](uint32_t l) { return 8 * l; }, "8*l");
  add("STS.32", "st32_stride32", ST, 4, [](uint32_t l) { return 128 * l; }, "128*l");
  add("STS.32", "st32_bcast", ST, 4, [](uint32_t) { return 0u; }, "0 (all lanes one word)");
  add("STS.32", "st32_4words_bank0", ST, 4, [](uint32_t l) { return 128 * (l % 4); }, "128*(l%4)");
  randomCase("STS.32", "st32_rnd1k", ST, 4, 1024, 4);

  // ---- 2. LDS.64 / STS.64
  // Cross-half design: each half-warp alone has a 2-way conflict (cost 2 + 2 = 4 per half-warp
  // phases), but across the whole warp no bank sees more than 3 distinct words.
  auto crossHalf = [](uint32_t l) -> uint32_t {
    auto at = [](uint32_t row, uint32_t slot) { return 128 * row + 8 * slot; };
    if (l == 0) return at(0, 0);
    if (l == 1) return at(1, 0);
    if (l < 16) return at(0, l);
    uint32_t k = l - 16;
    if (k == 0) return at(2, 8);
    if (k == 1) return at(3, 8);
    return at(2, (k + 8) % 16);
  };
  const std::string crossHalfText =
      "slot s = 8-byte column (banks 2s,2s+1), row r = 128-B row, addr = 128r+8s: "
      "l0 (0,0), l1 (1,0), l2..15 (0,l); l16 (2,8), l17 (3,8), l18..31 (2,(l-16+8)%16)";
  for (Op op : {LD, ST}) {
    std::string g = op == LD ? "LDS.64" : "STS.64", p = op == LD ? "ld64_" : "st64_";
    add(g, p + "contig", op, 8, [](uint32_t l) { return 8 * l; }, "8*l (256 B; l and l+16 same banks, other row)");
    add(g, p + "stride2", op, 8, [](uint32_t l) { return 16 * l; }, "16*l");
    add(g, p + "stride16", op, 8, [](uint32_t l) { return 128 * l; }, "128*l");
    add(g, p + "halves_same", op, 8, [](uint32_t l) { return 8 * (l % 16); }, "8*(l%16) (l and l+16 same address)");
    add(g, p + "cross_half", op, 8, crossHalf, crossHalfText);
    add(g, p + "perm_evenodd", op, 8, [](uint32_t l) { return 8 * (2 * (l % 16) + l / 16); },
        "8*(2*(l%16) + l/16) (256 B contiguous set, half 0 takes even slots)");
    add(g, p + "bcast", op, 8, [](uint32_t) { return 0u; }, "0");
    if (op == LD) {
      for (uint32_t x : {1u, 2u, 4u, 8u}) {
        // lanes l and l^x share an address; the distinct addresses are packed contiguously.
        add(g, p + "share_xor" + std::to_string(x), op, 8,
            [x](uint32_t l) { uint32_t lo = l & (x - 1), hi = l / (2 * x); return 8 * (hi * x + lo); },
            "8*((l/" + std::to_string(2 * x) + ")*" + std::to_string(x) + " + l%" + std::to_string(x) +
                ") (lanes l and l^" + std::to_string(x) + " share an address)");
      }
      add(g, p + "lo16_contig", op, 8, [](uint32_t l) { return 8 * l; }, "8*l, lanes 0-15 active", 0x0000ffffu);
      add(g, p + "odd_halves", op, 8, [](uint32_t l) { return 8 * l; }, "8*l, lanes 0-7 and 16-23 active",
          0x00ff00ffu);
      randomCase(g, p + "rnd256", op, 8, 256, 8);
      randomCase(g, p + "rnd512", op, 8, 512, 8);
      randomCase(g, p + "rnd1k_a", op, 8, 1024, 8);
      randomCase(g, p + "rnd1k_b", op, 8, 1024, 8);
      randomCase(g, p + "rnd4k", op, 8, 4096, 8);
    }
  }

  // ---- 3./4. LDS.128 / STS.128, 6. LDGSTS (cp.async.cg 16 B)
  auto crossQuarter = [](uint32_t l) -> uint32_t {
    // quarter q: lane 8q -> (row 2q, chunk q), 8q+1 -> (row 2q+1, chunk q),
    // 8q+k (k>=2) -> (row 2q, chunk (q+k)%8).
    uint32_t q = l / 8, k = l % 8;
    uint32_t row = (k == 1) ? 2 * q + 1 : 2 * q;
    uint32_t chunk = (k <= 1) ? q : (q + k) % 8;
    return 128 * row + 16 * chunk;
  };
  const std::string crossQuarterText =
      "chunk = 16-B column (banks 4c..4c+3), addr = 128*row + 16*chunk; quarter q=l/8, k=l%8: "
      "k=0 (2q, q), k=1 (2q+1, q), k>=2 (2q, (q+k)%8)";
  for (Op op : {LD, ST, Op::Ldgsts}) {
    std::string g = op == LD ? "LDS.128" : op == ST ? "STS.128" : "LDGSTS.128";
    std::string p = op == LD ? "ld128_" : op == ST ? "st128_" : "ldgsts_";
    add(g, p + "contig", op, 16, [](uint32_t l) { return 16 * l; }, "16*l (512 B)");
    add(g, p + "row128", op, 16, [](uint32_t l) { return 128 * l; }, "128*l (all lanes banks 0-3)");
    add(g, p + "row128_swz", op, 16, [](uint32_t l) { return 128 * l + 16 * (l % 8); },
        "128*l + 16*((0 ^ l%8)) (row l, chunk 0, 128-B XOR swizzle)");
    add(g, p + "perm_quarter", op, 16, [](uint32_t l) { return 16 * (4 * (l % 8) + l / 8); },
        "16*(4*(l%8) + l/8) (512 B contiguous set, quarter q takes chunks q, q+4, ...)");
    add(g, p + "cross_quarter", op, 16, crossQuarter, crossQuarterText);
    add(g, p + "share_xor1", op, 16, [](uint32_t l) { return 16 * (l / 2); }, "16*(l/2)");
    add(g, p + "bcast", op, 16, [](uint32_t) { return 0u; }, "0");
    if (op == Op::Ldgsts) continue;
    add(g, p + "stride2", op, 16, [](uint32_t l) { return 32 * l; }, "32*l");
    add(g, p + "stride4", op, 16, [](uint32_t l) { return 64 * l; }, "64*l");
    for (uint32_t x : {2u, 4u, 8u, 16u}) {
      add(g, p + "share_xor" + std::to_string(x), op, 16,
          [x](uint32_t l) { uint32_t lo = l & (x - 1), hi = l / (2 * x); return 16 * (hi * x + lo); },
          "16*((l/" + std::to_string(2 * x) + ")*" + std::to_string(x) + " + l%" + std::to_string(x) +
              ") (lanes l and l^" + std::to_string(x) + " share an address)");
    }
    add(g, p + "share_quads", op, 16, [](uint32_t l) { return 16 * (l / 4); }, "16*(l/4)");
    add(g, p + "share_octs", op, 16, [](uint32_t l) { return 16 * (l / 8); }, "16*(l/8)");
    add(g, p + "q0_contig", op, 16, [](uint32_t l) { return 16 * l; }, "16*l, lanes 0-7 active", 0x000000ffu);
    add(g, p + "lo16_contig", op, 16, [](uint32_t l) { return 16 * l; }, "16*l, lanes 0-15 active", 0x0000ffffu);
    add(g, p + "one_per_quarter_row", op, 16, [](uint32_t l) { return 128 * l; },
        "128*l, lanes 0,8,16,24 active (4 rows, banks 0-3)", 0x01010101u);
    add(g, p + "one_per_quarter_col", op, 16, [](uint32_t l) { return 16 * l; },
        "16*l, lanes 0,8,16,24 active (distinct banks)", 0x01010101u);
    if (op == LD) {
      randomCase(g, p + "rnd128", op, 16, 128, 16);
      randomCase(g, p + "rnd256", op, 16, 256, 16);
      randomCase(g, p + "rnd512", op, 16, 512, 16);
      randomCase(g, p + "rnd1k_a", op, 16, 1024, 16);
      randomCase(g, p + "rnd1k_b", op, 16, 1024, 16);
      randomCase(g, p + "rnd4k", op, 16, 4096, 16);
      randomCase(g, p + "rnd1k_mask", op, 16, 1024, 16);
      cs.back().mask = randomMask();
      cs.back().pattern += ", random lane mask";
    } else {
      randomCase(g, p + "rnd256", op, 16, 256, 16);
      randomCase(g, p + "rnd1k", op, 16, 1024, 16);
    }
  }
  randomCase("LDGSTS.128", "ldgsts_rnd1k", Op::Ldgsts, 16, 1024, 16);

  // ---- 5. ldmatrix, 7. stmatrix. Lane l gives row l (16 B) unless stated.
  struct RowPat { const char* tag; std::function<uint32_t(uint32_t)> f; const char* text; };
  std::vector<RowPat> rowPats = {
      {"contig", [](uint32_t l) { return 16 * l; }, "row l at 16*l (rows contiguous)"},
      {"s64", [](uint32_t l) { return 64 * l; }, "row l at 64*l ([*,32] fp16 tile, no swizzle)"},
      {"s128", [](uint32_t l) { return 128 * l; }, "row l at 128*l ([*,64] fp16 tile, no swizzle)"},
      {"s128_swz", [](uint32_t l) { return 128 * l + 16 * (0 ^ (l % 8)); },
       "row l at 128*l + 16*(0 ^ l%8) (128-B XOR swizzle, column chunk 0)"},
      {"s64_swz", [](uint32_t l) { return 64 * l + 16 * (0 ^ ((l >> 1) & 3)); },
       "row l at 64*l + 16*(0 ^ (l>>1)&3) (64-B swizzle, Swizzle<2,4,3>)"},
  };
  // 16x16 tile loads as used by mma: lanes 0-15 rows 0-15 of column chunk 0, lanes 16-31 chunk 1.
  std::vector<RowPat> tilePats = {
      {"t16_s64", [](uint32_t l) { return 64 * (l % 16) + 16 * (l / 16); },
       "64*(l%16) + 16*(l/16) (16x16 block of a [*,32] fp16 tile)"},
      {"t16_s128", [](uint32_t l) { return 128 * (l % 16) + 16 * (l / 16); },
       "128*(l%16) + 16*(l/16) (16x16 block of a [*,64] fp16 tile)"},
      {"t16_s128_swz", [](uint32_t l) { uint32_t r = l % 16, c = l / 16; return 128 * r + 16 * (c ^ (r % 8)); },
       "128*r + 16*(c ^ r%8), r = l%16, c = l/16 (same, 128-B swizzle)"},
      {"t16_s64_swz", [](uint32_t l) { uint32_t r = l % 16, c = l / 16; return 64 * r + 16 * (c ^ ((r >> 1) & 3)); },
       "64*r + 16*(c ^ (r>>1)&3), r = l%16, c = l/16 (64-B swizzle)"},
      {"same8rows", [](uint32_t l) { return 16 * (l % 8); }, "16*(l%8) (all matrices read the same 128 B)"},
      {"t16_s128_swz_c2", [](uint32_t l) { uint32_t r = l % 16, c = 2 + l / 16; return 128 * r + 16 * (c ^ (r % 8)); },
       "128*r + 16*(c ^ r%8), r = l%16, c = 2 + l/16 (swizzled, column chunks 2,3)"},
  };
  for (int x : {1, 2, 4})
    for (auto& rp : rowPats)
      add("LDSM.x" + std::to_string(x), "ldsm_x" + std::to_string(x) + "_" + rp.tag, Op::Ldsm, x, rp.f, rp.text);
  for (auto& rp : rowPats)
    add("LDSM.x4.T", std::string("ldsm_x4t_") + rp.tag, Op::Ldsm, 4, rp.f, rp.text, 0xffffffffu, true);
  for (auto& rp : tilePats) add("LDSM.x4", std::string("ldsm_x4_") + rp.tag, Op::Ldsm, 4, rp.f, rp.text);
  add("LDSM.x4.T", "ldsm_x4t_t16_s64", Op::Ldsm, 4, tilePats[0].f, tilePats[0].text, 0xffffffffu, true);
  add("LDSM.x2", "ldsm_x2_t16_s64", Op::Ldsm, 2, tilePats[0].f, "64*(l%16) (lanes 0-15 rows 0-15)");
  randomCase("LDSM.x4", "ldsm_x4_rnd1k", Op::Ldsm, 4, 1024, 16);
  randomCase("LDSM.x4", "ldsm_x4_rnd256", Op::Ldsm, 4, 256, 16);

  for (auto& rp : rowPats)
    add("STSM.x4", std::string("stsm_x4_") + rp.tag, Op::Stsm, 4, rp.f, rp.text);
  add("STSM.x4", "stsm_x4_t16_s128", Op::Stsm, 4, tilePats[1].f, tilePats[1].text);
  add("STSM.x4", "stsm_x4_t16_s128_swz", Op::Stsm, 4, tilePats[2].f, tilePats[2].text);
  add("STSM.x4", "stsm_x4_t16_s64", Op::Stsm, 4, tilePats[0].f, tilePats[0].text);
  add("STSM.x1", "stsm_x1_s128", Op::Stsm, 1, rowPats[2].f, rowPats[2].text);
  add("STSM.x2", "stsm_x2_s128", Op::Stsm, 2, rowPats[2].f, rowPats[2].text);
  add("STSM.x4.T", "stsm_x4t_s128", Op::Stsm, 4, rowPats[2].f, rowPats[2].text, 0xffffffffu, true);
  add("STSM.x4.T", "stsm_x4t_s128_swz", Op::Stsm, 4, rowPats[3].f, rowPats[3].text, 0xffffffffu, true);

  // ---- second round: when do LDS.64 / LDS.128 lanes that share addresses get larger phases?
  auto pairPlace128 = [](uint32_t j) -> uint32_t {
    // 16 distinct chunks j; half h = j/8 uses rows 4h..4h+3. Inside a half, the first 4 chunks
    // (one quarter-warp) conflict on chunk column 0, the next 4 on column 1.
    uint32_t R = 4 * (j / 8), jj = j % 4, second = (j % 8) / 4;
    uint32_t row, col;
    if (!second) { row = R + (jj == 1); col = jj <= 1 ? 0 : jj; }
    else { row = R + 2 + (jj == 1); col = jj <= 1 ? 1 : jj + 2; }
    return 128 * row + 16 * col;
  };
  const std::string pairPlaceText =
      "pair index j (16 distinct 16-B chunks), half h=j/8, R=4h, jj=j%4: j%8<4: jj0 (R,col0) jj1 (R+1,col0) "
      "jj2 (R,col2) jj3 (R,col3); j%8>=4: jj0 (R+2,col1) jj1 (R+3,col1) jj2 (R+2,col4) jj3 (R+2,col5); addr=128*row+16*col";
  add("LDS.128", "ld128_pairs_conflict", LD, 16, [=](uint32_t l) { return pairPlace128(l / 2); },
      "lanes l, l^1 share; " + pairPlaceText + ", j = l/2");
  add("LDS.128", "ld128_pairs_xor2_conflict", LD, 16,
      [=](uint32_t l) { return pairPlace128((l / 4) * 2 + (l % 2)); },
      "lanes l, l^2 share; " + pairPlaceText + ", j = (l/4)*2 + l%2");
  add("STS.128", "st128_pairs_conflict", ST, 16, [=](uint32_t l) { return pairPlace128(l / 2); },
      "lanes l, l^1 share; " + pairPlaceText + ", j = l/2");
  auto pairPlace64 = [](uint32_t j) -> uint32_t {
    // 16 distinct 8-B slots; j<8 -> half-warp 0, else half-warp 1; each half has one 2-way conflict.
    auto at = [](uint32_t row, uint32_t slot) { return 128 * row + 8 * slot; };
    if (j == 0) return at(0, 0);
    if (j == 1) return at(1, 0);
    if (j < 8) return at(0, j);
    if (j == 8) return at(2, 8);
    if (j == 9) return at(3, 8);
    return at(2, j);
  };
  const std::string pair64Text =
      "slot j (16 distinct 8-B slots), addr = 128*row + 8*slot: j0 (0,0) j1 (1,0) j2..7 (0,j) j8 (2,8) j9 (3,8) j10..15 (2,j)";
  add("LDS.64", "ld64_pairs_conflict", LD, 8, [=](uint32_t l) { return pairPlace64(l / 2); },
      "lanes l, l^1 share; " + pair64Text + ", j = l/2");
  add("LDS.64", "ld64_pairs_xor2_conflict", LD, 8, [=](uint32_t l) { return pairPlace64((l / 4) * 2 + (l % 2)); },
      "lanes l, l^2 share; " + pair64Text + ", j = (l/4)*2 + l%2");
  add("LDS.128", "ld128_halfpairs", LD, 16, [](uint32_t l) { return l < 16 ? 16 * (l / 2) : 16 * (l - 8); },
      "l<16: 16*(l/2) (pairs), l>=16: 16*(l-8) (distinct)");
  add("LDS.128", "ld128_pairs_lane1_off", LD, 16, [](uint32_t l) { return 16 * (l / 2); },
      "16*(l/2), lane 1 inactive (lane 0 has no active partner)", ~0x2u);
  add("LDS.128", "ld128_pairs_pair0_off", LD, 16, [](uint32_t l) { return 16 * (l / 2); },
      "16*(l/2), lanes 0 and 1 inactive", ~0x3u);
  add("LDS.128", "ld128_pairs_except31", LD, 16, [](uint32_t l) { return l == 31 ? 16u * 16 : 16 * (l / 2); },
      "16*(l/2), but lane 31 at 256 (one pair broken)");
  add("LDS.128", "ld128_share_xor3", LD, 16,
      [](uint32_t l) { uint32_t b = l / 4, m = l % 4; return 16 * (2 * b + ((m == 1 || m == 2) ? 1 : 0)); },
      "16*(2*(l/4) + (l%4 in {1,2})) (lanes l and l^3 share)");
  add("LDS.128", "ld128_1perq_distinct", LD, 16, [](uint32_t l) { return 16 * (l / 8); },
      "16*(l/8), lanes 0,8,16,24 active (4 distinct bank groups)", 0x01010101u);
  add("LDS.64", "ld64_1perhalf_distinct", LD, 8, [](uint32_t l) { return 8 * (l / 16); },
      "8*(l/16), lanes 0,16 active (distinct banks)", 0x00010001u);
  add("LDS.64", "ld64_xor1_then_xor2", LD, 8,
      [](uint32_t l) { return l < 16 ? 8 * (l / 2) : 8 * (8 + ((l - 16) / 4) * 2 + (l % 2)); },
      "l<16: 8*(l/2) (l^1 pairs), l>=16: 8*(8 + ((l-16)/4)*2 + l%2) (l^2 pairs)");
  add("LDS.64", "ld64_bcast_lo16", LD, 8, [](uint32_t) { return 0u; }, "0, lanes 0-15 active", 0x0000ffffu);
  add("STS.64", "st64_share_xor1", ST, 8, [](uint32_t l) { return 8 * (l / 2); }, "8*(l/2)");
  // Random addresses shared by lane pairs / quads.
  auto randomShared = [&](const std::string& group, const std::string& name, int width, uint32_t region,
                          uint32_t x) {
    // x = 1: pairs l, l^1; x = 2: pairs l, l^2; x = 3: quads (l, l^1, l^2, l^3).
    std::array<uint32_t, 32> distinct{};
    for (auto& v : distinct) v = (rng() % (region / width)) * width;
    std::array<uint32_t, 32> o{};
    for (uint32_t l = 0; l < 32; ++l) {
      uint32_t rep = x == 1 ? (l & ~1u) : x == 2 ? (l & ~2u) : (l & ~3u);
      o[l] = distinct[rep];
    }
    std::string how = x == 1 ? "lanes l, l^1 share" : x == 2 ? "lanes l, l^2 share" : "lane quads share";
    add(group, name, Op::Ld, width, [o](uint32_t l) { return o[l]; },
        "random " + std::to_string(width) + "-B-aligned in [0," + std::to_string(region) + "), " + how + " (listed)");
  };
  randomShared("LDS.64", "ld64_rndpair1_1k_a", 8, 1024, 1);
  randomShared("LDS.64", "ld64_rndpair1_1k_b", 8, 1024, 1);
  randomShared("LDS.64", "ld64_rndpair2_512", 8, 512, 2);
  randomShared("LDS.128", "ld128_rndpair1_1k_a", 16, 1024, 1);
  randomShared("LDS.128", "ld128_rndpair1_1k_b", 16, 1024, 1);
  randomShared("LDS.128", "ld128_rndpair2_1k", 16, 1024, 2);
  randomShared("LDS.128", "ld128_rndquad_1k", 16, 1024, 3);
  randomShared("LDS.128", "ld128_rndpair1_512", 16, 512, 1);

  // ---- second round: LDGSTS (cp.async) destination AND source patterns, to pin down the SASS model.
  auto addG = [&](const std::string& name, std::function<uint32_t(uint32_t)> dst,
                  std::function<uint32_t(uint32_t)> src, const std::string& text, uint32_t mask = 0xffffffffu,
                  bool ca = false, int width = 16) {
    add(ca ? "LDGSTS.CA" + std::to_string(8 * width) : "LDGSTS.128", "ldgsts_" + name, Op::Ldgsts, width, dst, text,
        mask);
    cs.back().ca = ca;
    for (uint32_t l = 0; l < 32; ++l) cs.back().src[l] = src(l);
    for (uint32_t l = 0; l < 32; ++l)  // inactive lanes: any valid address
      if (!((mask >> l) & 1u)) cs.back().off[l] = cs.back().src[l] = (uint32_t)width * l;
  };
  auto srcLin = [](uint32_t l) { return 16 * l; };
  const uint32_t L0 = 0x000000ffu;  // lanes 0-7: one source line
  addG("g1_contig", [](uint32_t c) { return 16 * c; }, srcLin, "dst 16c, lanes 0-7", L0);
  addG("g1_rot1", [](uint32_t c) { return 16 * ((c + 1) % 8); }, srcLin, "dst 16*((c+1)%8), lanes 0-7", L0);
  addG("g1_shift64", [](uint32_t c) { return 16 * c + 64; }, srcLin, "dst 16c+64 (two rows), lanes 0-7", L0);
  addG("g1_diag", [](uint32_t c) { return 128 * c + 16 * c; }, srcLin, "dst 128c+16c, lanes 0-7", L0);
  addG("g1_xor1", [](uint32_t c) { return 16 * (c ^ 1); }, srcLin, "dst 16*(c^1), lanes 0-7", L0);
  addG("g1_xor4", [](uint32_t c) { return 16 * (c ^ 4); }, srcLin, "dst 16*(c^4), lanes 0-7", L0);
  addG("g1_rev", [](uint32_t c) { return 16 * (7 - c); }, srcLin, "dst 16*(7-c), lanes 0-7", L0);
  addG("g1_rows_distinct", [](uint32_t c) { return c < 4 ? 16 * c : 128 + 16 * c; }, srcLin,
       "dst c<4 ? 16c : 128+16c (two rows, distinct banks), lanes 0-7", L0);
  addG("g1_rows_samebanks", [](uint32_t c) { return c < 4 ? 16 * c : 128 + 16 * (c - 4); }, srcLin,
       "dst c<4 ? 16c : 128+16(c-4) (two rows, same banks), lanes 0-7", L0);
  addG("g1_dup01", [](uint32_t c) { return c == 1 ? 0u : 16 * c; }, srcLin, "dst 16c but lane 1 -> 0, lanes 0-7", L0);
  addG("g1_lanes02", [](uint32_t c) { return 16 * c; }, srcLin, "dst 16c, lanes 0 and 2 only", 0x5u);
  addG("g1_stride2", [](uint32_t c) { return 32 * c; }, srcLin, "dst 32c, lanes 0-7", L0);
  addG("g1_src_xor1", [](uint32_t c) { return 16 * c; }, [](uint32_t c) { return 16 * (c ^ 1); },
       "dst 16c, src 16*(c^1), lanes 0-7", L0);
  addG("g1_src_stride2", [](uint32_t c) { return 16 * c; }, [](uint32_t c) { return 32 * c; },
       "dst 16c, src 32c (two source lines), lanes 0-7", L0);
  addG("g_lines_perm", [](uint32_t l) { return 128 * ((l / 8 + 1) % 4) + 16 * (l % 8); }, srcLin,
       "dst 128*((l/8+1)%4) + 16*(l%8)");
  addG("g_shift64", [](uint32_t l) { return 16 * l + 64; }, srcLin, "dst 16l+64");
  addG("g_tile_swz", [](uint32_t l) { uint32_t r = l / 8, c = l % 8; return 128 * r + 16 * (c ^ r); }, srcLin,
       "dst 128r + 16*(c ^ r), r = l/8, c = l%8 (128-B swizzled tile copy, rows 0-3)");
  addG("g_tile_swz_r4", [](uint32_t l) { uint32_t r = l / 8 + 4, c = l % 8; return 128 * r + 16 * (c ^ r); }, srcLin,
       "dst 128r + 16*(c ^ r), r = 4 + l/8, c = l%8 (rows 4-7)");
  addG("g_src_xor1", [](uint32_t l) { return 16 * l; }, [](uint32_t l) { return 16 * (l ^ 1); }, "dst 16l, src 16*(l^1)");
  addG("g_src_interleave", [](uint32_t l) { return 16 * l; }, [](uint32_t l) { return 16 * (8 * (l % 4) + l / 4); },
       "dst 16l, src 16*(8*(l%4) + l/4)");
  addG("g_src_shift64", [](uint32_t l) { return 16 * l; }, [](uint32_t l) { return 16 * l + 64; }, "dst 16l, src 16l+64");
  addG("g_src_stride128", [](uint32_t l) { return 16 * l; }, [](uint32_t l) { return 128 * l; }, "dst 16l, src 128l");
  addG("g_src_rev", [](uint32_t l) { return 16 * l; }, [](uint32_t l) { return 16 * (31 - l); }, "dst 16l, src 16*(31-l)");
  {
    std::array<uint32_t, 32> p{};
    for (uint32_t i = 0; i < 32; ++i) p[i] = i;
    for (int i = 31; i > 0; --i) std::swap(p[i], p[rng() % (i + 1)]);
    addG("g_same_perm", [p](uint32_t l) { return 16 * p[l]; }, [p](uint32_t l) { return 16 * p[l]; },
         "dst = src = 16*perm[l] (listed)");
  }
  for (int k = 0; k < 4; ++k) {
    std::array<uint32_t, 32> d{}, sr{};
    uint32_t region = k < 2 ? 1024 : 512;
    for (auto& v : d) v = (rng() % (region / 16)) * 16;
    for (auto& v : sr) v = (rng() % (k % 2 ? 64 : 32)) * 16;
    addG("g_rnd_" + std::to_string(k), [d](uint32_t l) { return d[l]; }, [sr](uint32_t l) { return sr[l]; },
         "random dst in [0," + std::to_string(region) + "), random src (listed)");
  }
  addG("ca_contig", [](uint32_t l) { return 16 * l; }, srcLin, "cp.async.ca: dst 16l", 0xffffffffu, true);
  addG("ca_row128", [](uint32_t l) { return 128 * l; }, srcLin, "cp.async.ca: dst 128l", 0xffffffffu, true);
  addG("ca_row128_swz", [](uint32_t l) { return 128 * l + 16 * (l % 8); }, srcLin,
       "cp.async.ca: dst 128l + 16*(l%8)", 0xffffffffu, true);
  addG("ca_tile_swz", [](uint32_t l) { uint32_t r = l / 8, c = l % 8; return 128 * r + 16 * (c ^ r); }, srcLin,
       "cp.async.ca: dst 128r + 16*(c^r), r = l/8", 0xffffffffu, true);
  addG("ca4_stride1", [](uint32_t l) { return 4 * l; }, [](uint32_t l) { return 4 * l; },
       "cp.async.ca 4 B: dst 4l, src 4l", 0xffffffffu, true, 4);
  addG("ca4_stride32", [](uint32_t l) { return 128 * l; }, [](uint32_t l) { return 4 * l; },
       "cp.async.ca 4 B: dst 128l, src 4l", 0xffffffffu, true, 4);
  addG("ca4_rev", [](uint32_t l) { return 4 * (31 - l); }, [](uint32_t l) { return 4 * l; },
       "cp.async.ca 4 B: dst 4*(31-l), src 4l", 0xffffffffu, true, 4);
  addG("ca8_contig", [](uint32_t l) { return 8 * l; }, [](uint32_t l) { return 8 * l; },
       "cp.async.ca 8 B: dst 8l, src 8l", 0xffffffffu, true, 8);
  addG("ca8_stride16", [](uint32_t l) { return 128 * l; }, [](uint32_t l) { return 8 * l; },
       "cp.async.ca 8 B: dst 128l, src 8l", 0xffffffffu, true, 8);
  return cs;
}

// ---------------------------------------------------------------- kernel source

const char* kPrelude = R"CUDA(
typedef unsigned int u32;
typedef unsigned short u16;
extern __shared__ __align__(1024) unsigned char smem[];
// Lane l of warp w uses  base + w*16384 + offs[w*32+l]; base = dynamic window rounded up to 1 KiB.
#define PROLOGUE                                                        \
  u32 tid = threadIdx.x, lane = tid & 31u;                              \
  u32 raw = (u32)__cvta_generic_to_shared(smem);                        \
  u32 base = (raw + 1023u) & ~1023u;                                    \
  u32 a = base + offs[tid];                                             \
  bool on = (mask >> lane) & 1u;                                        \
  if (tid == 0) out[128] = raw;
#define SIG(N) extern "C" __global__ void N(const u32* __restrict__ offs, const u32* __restrict__ soffs, \
                                            u32* __restrict__ out, const unsigned char* __restrict__ gsrc, u32 mask)
#define K_LD2(N) SIG(N) { PROLOGUE u16 v = 0; \
  if (on) asm volatile("ld.shared.u16 %0, [%1];" : "=h"(v) : "r"(a) : "memory"); out[tid] = v; }
#define K_LD4(N) SIG(N) { PROLOGUE u32 v = 0; \
  if (on) asm volatile("ld.shared.u32 %0, [%1];" : "=r"(v) : "r"(a) : "memory"); out[tid] = v; }
#define K_LD8(N) SIG(N) { PROLOGUE u32 v0 = 0, v1 = 0; \
  if (on) asm volatile("ld.shared.v2.u32 {%0,%1}, [%2];" : "=r"(v0), "=r"(v1) : "r"(a) : "memory"); \
  out[tid] = v0 ^ v1; }
#define K_LD16(N) SIG(N) { PROLOGUE u32 v0 = 0, v1 = 0, v2 = 0, v3 = 0; \
  if (on) asm volatile("ld.shared.v4.u32 {%0,%1,%2,%3}, [%4];" \
                       : "=r"(v0), "=r"(v1), "=r"(v2), "=r"(v3) : "r"(a) : "memory"); \
  out[tid] = v0 ^ v1 ^ v2 ^ v3; }
#define K_ST2(N) SIG(N) { PROLOGUE \
  if (on) asm volatile("st.shared.u16 [%0], %1;" :: "r"(a), "h"((u16)tid) : "memory"); out[tid] = a; }
#define K_ST4(N) SIG(N) { PROLOGUE \
  if (on) asm volatile("st.shared.u32 [%0], %1;" :: "r"(a), "r"(tid) : "memory"); out[tid] = a; }
#define K_ST8(N) SIG(N) { PROLOGUE \
  if (on) asm volatile("st.shared.v2.u32 [%0], {%1,%2};" :: "r"(a), "r"(tid), "r"(lane) : "memory"); \
  out[tid] = a; }
#define K_ST16(N) SIG(N) { PROLOGUE \
  if (on) asm volatile("st.shared.v4.u32 [%0], {%1,%2,%3,%4};" \
                       :: "r"(a), "r"(tid), "r"(lane), "r"(raw), "r"(base) : "memory"); \
  out[tid] = a; }
#define K_LDSM(N, X, T, REGS, OUTS, XOR) SIG(N) { PROLOGUE (void)on; u32 r0 = 0, r1 = 0, r2 = 0, r3 = 0; \
  asm volatile("ldmatrix.sync.aligned.m8n8." X T ".shared.b16 " REGS : OUTS : "r"(a) : "memory"); \
  out[tid] = XOR; }
#define K_LDSM1(N)  K_LDSM(N, "x1", "",       "{%0}, [%1];",             "=r"(r0), r0)
#define K_LDSM2(N)  K_LDSM(N, "x2", "",       "{%0,%1}, [%2];",          "=r"(r0) COMMA "=r"(r1), r0 ^ r1)
#define K_LDSM4(N)  K_LDSM(N, "x4", "",       "{%0,%1,%2,%3}, [%4];",    "=r"(r0) COMMA "=r"(r1) COMMA "=r"(r2) COMMA "=r"(r3), r0 ^ r1 ^ r2 ^ r3)
#define K_LDSM1T(N) K_LDSM(N, "x1", ".trans", "{%0}, [%1];",             "=r"(r0), r0)
#define K_LDSM2T(N) K_LDSM(N, "x2", ".trans", "{%0,%1}, [%2];",          "=r"(r0) COMMA "=r"(r1), r0 ^ r1)
#define K_LDSM4T(N) K_LDSM(N, "x4", ".trans", "{%0,%1,%2,%3}, [%4];",    "=r"(r0) COMMA "=r"(r1) COMMA "=r"(r2) COMMA "=r"(r3), r0 ^ r1 ^ r2 ^ r3)
#define K_STSM(N, X, T, REGS, INS) SIG(N) { PROLOGUE (void)on; \
  asm volatile("stmatrix.sync.aligned.m8n8." X T ".shared.b16 " REGS :: "r"(a), INS : "memory"); out[tid] = a; }
#define K_STSM1(N)  K_STSM(N, "x1", "",       "[%0], {%1};",          "r"(tid))
#define K_STSM2(N)  K_STSM(N, "x2", "",       "[%0], {%1,%2};",       "r"(tid) COMMA "r"(lane))
#define K_STSM4(N)  K_STSM(N, "x4", "",       "[%0], {%1,%2,%3,%4};", "r"(tid) COMMA "r"(lane) COMMA "r"(raw) COMMA "r"(base))
#define K_STSM1T(N) K_STSM(N, "x1", ".trans", "[%0], {%1};",          "r"(tid))
#define K_STSM2T(N) K_STSM(N, "x2", ".trans", "[%0], {%1,%2};",       "r"(tid) COMMA "r"(lane))
#define K_STSM4T(N) K_STSM(N, "x4", ".trans", "[%0], {%1,%2,%3,%4};", "r"(tid) COMMA "r"(lane) COMMA "r"(raw) COMMA "r"(base))
#define K_CPASYNC(N, KIND, BYTES) SIG(N) { PROLOGUE \
  if (on) asm volatile("cp.async." KIND ".shared.global [%0], [%1], " BYTES ";" \
                       :: "r"(a), "l"(gsrc + soffs[tid]) : "memory"); \
  asm volatile("cp.async.wait_all;" ::: "memory"); out[tid] = a; }
#define K_LDGSTS16(N) K_CPASYNC(N, "cg", "16")
#define K_LDGSTSCA16(N) K_CPASYNC(N, "ca", "16")
#define K_LDGSTSCA8(N) K_CPASYNC(N, "ca", "8")
#define K_LDGSTSCA4(N) K_CPASYNC(N, "ca", "4")

// Timing kernels: every warp of a 1024-thread block repeats the access ITERS times in its own 4 KiB
// region; block cycles (clock64) go to out[2*block].
#define TSIG(N) extern "C" __global__ void N(const u32* __restrict__ offs, const u32* __restrict__ soffs, \
                                             u32* __restrict__ out, const unsigned char* __restrict__ gsrc, int iters)
#define TPRO \
  u32 tid = threadIdx.x, lane = tid & 31u, warp = tid >> 5; \
  u32 raw = (u32)__cvta_generic_to_shared(smem); \
  u32 a = ((raw + 1023u) & ~1023u) + warp * 4096u + offs[lane]; \
  const unsigned char* s = gsrc + soffs[lane]; (void)s; \
  u32 acc = 0; \
  __syncthreads(); \
  long long t0 = clock64();
#define TEPI \
  __syncthreads(); \
  long long t1 = clock64(); \
  if (tid == 0) { out[2 * blockIdx.x] = (u32)(t1 - t0); out[2 * blockIdx.x + 1] = (u32)((t1 - t0) >> 32); } \
  if (acc == 0x9e3779b9u) out[65536 + tid] = acc;
#define TLOOP(BODY) _Pragma("unroll 8") for (int i = 0; i < iters; ++i) { BODY }
#define T_LD4(N) TSIG(N) { TPRO TLOOP(u32 v; asm volatile("ld.shared.u32 %0, [%1];" : "=r"(v) : "r"(a) : "memory"); acc ^= v;) TEPI }
#define T_LD8(N) TSIG(N) { TPRO TLOOP(u32 v0; u32 v1; \
  asm volatile("ld.shared.v2.u32 {%0,%1}, [%2];" : "=r"(v0), "=r"(v1) : "r"(a) : "memory"); acc ^= v0 ^ v1;) TEPI }
#define T_LD16(N) TSIG(N) { TPRO TLOOP(u32 v0; u32 v1; u32 v2; u32 v3; \
  asm volatile("ld.shared.v4.u32 {%0,%1,%2,%3}, [%4];" : "=r"(v0), "=r"(v1), "=r"(v2), "=r"(v3) : "r"(a) : "memory"); \
  acc ^= v0 ^ v1 ^ v2 ^ v3;) TEPI }
#define T_ST16(N) TSIG(N) { TPRO TLOOP( \
  asm volatile("st.shared.v4.u32 [%0], {%1,%2,%3,%4};" :: "r"(a), "r"(tid), "r"(lane), "r"((u32)i), "r"(warp) : "memory");) TEPI }
#define T_LDSM4(N) TSIG(N) { TPRO TLOOP(u32 r0; u32 r1; u32 r2; u32 r3; \
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];" \
               : "=r"(r0), "=r"(r1), "=r"(r2), "=r"(r3) : "r"(a) : "memory"); acc ^= r0 ^ r1 ^ r2 ^ r3;) TEPI }
#define T_STSM4(N) TSIG(N) { TPRO TLOOP( \
  asm volatile("stmatrix.sync.aligned.m8n8.x4.shared.b16 [%0], {%1,%2,%3,%4};" \
               :: "r"(a), "r"(tid), "r"(lane), "r"((u32)i), "r"(warp) : "memory");) TEPI }
#define T_CP(N, KIND) TSIG(N) { TPRO TLOOP( \
  asm volatile("cp.async." KIND ".shared.global [%0], [%1], 16;" :: "r"(a), "l"(s) : "memory");) \
  asm volatile("cp.async.wait_all;" ::: "memory"); TEPI }
#define T_CPCA16(N) T_CP(N, "ca")
#define T_CPCG16(N) T_CP(N, "cg")
)CUDA";

std::string macroFor(const Case& c) {
  switch (c.op) {
    case Op::Ld: return "K_LD" + std::to_string(c.width);
    case Op::St: return "K_ST" + std::to_string(c.width);
    case Op::Ldsm: return "K_LDSM" + std::to_string(c.width) + (c.trans ? "T" : "");
    case Op::Stsm: return "K_STSM" + std::to_string(c.width) + (c.trans ? "T" : "");
    case Op::Ldgsts: return c.ca ? "K_LDGSTSCA" + std::to_string(c.width) : "K_LDGSTS16";
  }
  return "?";
}

// Timing: throughput of a pattern when 32 warps per SM hammer it (hardware cost, no CUPTI).
struct Timing {
  std::string kernel, macro;
  size_t caseIdx = 0;
  double cyclesPerInst = -1, msBest = -1;
};

std::vector<Timing> timingList(const std::vector<Case>& cases) {
  const char* wanted[] = {
      "ld32_stride1", "ld32_stride2", "ld32_stride32", "ld64_contig", "ld64_share_xor1", "ld64_halves_same",
      "ld64_perm_evenodd", "ld64_bcast", "ld128_contig", "ld128_bcast", "ld128_share_xor1", "ld128_share_xor4",
      "ld128_perm_quarter", "ld128_row128", "ld128_pairs_conflict", "st128_contig", "st128_bcast",
      "st128_perm_quarter", "st128_row128", "ldsm_x4_contig", "ldsm_x4_t16_s64", "ldsm_x4_s64_swz",
      "ldsm_x4_same8rows", "stsm_x4_t16_s128", "stsm_x4_t16_s128_swz", "ldgsts_contig:ca", "ldgsts_row128:ca",
      "ldgsts_row128_swz:ca", "ldgsts_perm_quarter:ca", "ldgsts_share_xor1:ca", "ldgsts_bcast:ca",
      "ldgsts_g_tile_swz:ca", "ldgsts_cross_quarter:ca", "ldgsts_g_shift64:ca", "ldgsts_g_src_xor1:ca",
      "ldgsts_contig:cg", "ldgsts_row128:cg", "ldgsts_row128_swz:cg", "ldgsts_g_tile_swz:cg"};
  std::vector<Timing> out;
  for (const char* w : wanted) {
    std::string name = w, kind;
    auto colon = name.find(':');
    if (colon != std::string::npos) { kind = name.substr(colon + 1); name = name.substr(0, colon); }
    for (size_t i = 0; i < cases.size(); ++i) {
      const Case& c = cases[i];
      if (c.name != name) continue;
      bool fits = true;
      for (int l = 0; l < 32; ++l) fits = fits && c.off[l] + laneBytes(c) <= 4096 && c.mask == 0xffffffffu;
      std::string macro;
      if (c.op == Op::Ld && c.width >= 4) macro = "T_LD" + std::to_string(c.width);
      if (c.op == Op::St && c.width == 16) macro = "T_ST16";
      if (c.op == Op::Ldsm && c.width == 4 && !c.trans) macro = "T_LDSM4";
      if (c.op == Op::Stsm && c.width == 4 && !c.trans) macro = "T_STSM4";
      if (c.op == Op::Ldgsts && c.width == 16) macro = kind == "cg" ? "T_CPCG16" : "T_CPCA16";
      if (!fits || macro.empty()) break;
      Timing t;
      t.kernel = "t_" + name + (kind.empty() ? "" : "_" + kind);
      t.macro = macro;
      t.caseIdx = i;
      out.push_back(t);
    }
  }
  return out;
}

std::string kernelSource(const std::vector<Case>& cases, const std::vector<Timing>& timings) {
  // COMMA lets the asm operand lists pass through one macro argument.
  std::string s = "#define COMMA ,\n";
  s += kPrelude;
  for (auto& c : cases) s += macroFor(c) + "(" + c.name + ")\n";
  for (auto& t : timings) s += t.macro + "(" + t.kernel + ")\n";
  return s;
}

bool compile(const std::string& src, std::vector<char>& cubin) {
  nvrtcProgram prog = nullptr;
  if (!NVRTC(nvrtcCreateProgram(&prog, src.c_str(), "bankrules_kernels.cu", 0, nullptr, nullptr))) return false;
  // 177/550: the generic kernel macros leave some registers and the lane mask unused.
  const char* opts[] = {"--gpu-architecture=sm_90a", "--std=c++17", "-lineinfo", "--diag-suppress=177,550"};
  nvrtcResult r = nvrtcCompileProgram(prog, 4, opts);
  size_t logSize = 0;
  nvrtcGetProgramLogSize(prog, &logSize);
  if (logSize > 1) {
    std::string log(logSize, '\0');
    nvrtcGetProgramLog(prog, &log[0]);
    std::printf("NVRTC log:\n%s\n", log.c_str());
  }
  bool ok = NVRTC(r);
  size_t size = 0;
  if (ok) ok = NVRTC(nvrtcGetCUBINSize(prog, &size));
  if (ok) {
    cubin.resize(size);
    ok = NVRTC(nvrtcGetCUBIN(prog, cubin.data()));
  }
  nvrtcDestroyProgram(&prog);
  return ok;
}

// ---------------------------------------------------------------- SASS text per PC

using SassMap = std::map<std::string, std::map<uint32_t, std::string>>;  // function -> pc -> text

SassMap disassemble(const std::string& cubinPath, const std::string& dumpPath) {
  SassMap m;
  std::string tool = "cuobjdump";
  if (std::system("command -v cuobjdump >/dev/null 2>&1") != 0) tool = "/usr/local/cuda/bin/cuobjdump";
  std::string cmd = tool + " -sass " + cubinPath + " 2>&1";
  FILE* p = popen(cmd.c_str(), "r");
  if (!p) return m;
  std::ofstream dump(dumpPath);
  char line[4096];
  std::string fn;
  while (std::fgets(line, sizeof line, p)) {
    dump << line;
    std::string s = line;
    auto f = s.find("Function : ");
    if (f != std::string::npos) {
      fn = s.substr(f + 11);
      while (!fn.empty() && (fn.back() == '\n' || fn.back() == ' ' || fn.back() == '\r')) fn.pop_back();
      continue;
    }
    auto a = s.find("/*");
    if (a == std::string::npos || s.size() < a + 8 || s.compare(a + 6, 2, "*/") != 0) continue;
    uint32_t pc = 0;
    if (std::sscanf(s.c_str() + a + 2, "%4x", &pc) != 1) continue;
    std::string text = s.substr(a + 8);
    auto semi = text.find(';');
    if (semi != std::string::npos) text = text.substr(0, semi);
    auto b = text.find_first_not_of(' ');
    text = b == std::string::npos ? "" : text.substr(b);
    while (!text.empty() && text.back() == ' ') text.pop_back();
    m[fn][pc] = text;
  }
  int rc = pclose(p);
  std::printf("cuobjdump -sass: rc %d, %zu functions\n", rc, m.size());
  return m;
}

bool isSharedOpcode(const std::string& t) {
  if (t.rfind("@!PT ", 0) == 0) return false;  // never-executed filler the compiler adds after LDGSTS
  for (const char* k : {"LDS", "STS", "LDSM", "STSM", "LDGSTS"}) {
    std::string s = t;
    // strip a predicate like "@P0 "
    if (!s.empty() && s[0] == '@') s = s.substr(s.find(' ') + 1);
    if (s.compare(0, std::strlen(k), k) == 0 && (s.size() == std::strlen(k) || s[std::strlen(k)] == '.' ||
                                                 s[std::strlen(k)] == ' '))
      return true;
  }
  return false;
}

// ---------------------------------------------------------------- GPU state

struct Gpu {
  CUdevice dev = 0;
  CUcontext ctx = nullptr;
  CUmodule mod = nullptr;
  std::vector<CUfunction> fn;
  CUdeviceptr dOffs = 0, dSoffs = 0, dOut = 0, dSrc = 0;
};

bool launchCase(Gpu& g, size_t i, int warps, uint32_t mask) {
  CUdeviceptr offs = g.dOffs + i * 128 * sizeof(uint32_t);
  CUdeviceptr soffs = g.dSoffs + i * 128 * sizeof(uint32_t);
  void* args[] = {&offs, &soffs, &g.dOut, &g.dSrc, &mask};
  unsigned smem = warps * kWarpRegion + 1024;
  return CU(cuLaunchKernel(g.fn[i], 1, 1, 1, 32 * warps, 1, 1, smem, nullptr, args, nullptr));
}

bool setupGpu(Gpu& g, const std::vector<char>& cubin, const std::vector<Case>& cases) {
  if (!CU(cuInit(0)) || !CU(cuDeviceGet(&g.dev, 0))) return false;
  char name[256] = {0};
  cuDeviceGetName(name, sizeof name, g.dev);
  int drv = 0, reserved = -1;
  cuDriverGetVersion(&drv);
  cuDeviceGetAttribute(&reserved, CU_DEVICE_ATTRIBUTE_RESERVED_SHARED_MEMORY_PER_BLOCK, g.dev);
  std::printf("device                : %s, driver API %d, reserved smem per block %d B\n", name, drv, reserved);
  if (!CU(cuDevicePrimaryCtxRetain(&g.ctx, g.dev)) || !CU(cuCtxSetCurrent(g.ctx))) return false;
  if (!CU(cuModuleLoadData(&g.mod, cubin.data()))) return false;
  g.fn.resize(cases.size());
  for (size_t i = 0; i < cases.size(); ++i) {
    if (!CU(cuModuleGetFunction(&g.fn[i], g.mod, cases[i].name.c_str()))) return false;
    if (!CU(cuFuncSetAttribute(g.fn[i], CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                               kMaxWarps * kWarpRegion + 1024)))
      return false;
  }
  std::vector<uint32_t> offs(cases.size() * 128), soffs(cases.size() * 128);
  for (size_t i = 0; i < cases.size(); ++i)
    for (int w = 0; w < kMaxWarps; ++w)
      for (int l = 0; l < 32; ++l) {
        offs[i * 128 + w * 32 + l] = w * kWarpRegion + cases[i].off[l];
        soffs[i * 128 + w * 32 + l] = w * 8192 + cases[i].src[l];
      }
  if (!CU(cuMemAlloc(&g.dOffs, offs.size() * 4)) || !CU(cuMemAlloc(&g.dSoffs, soffs.size() * 4)) ||
      !CU(cuMemAlloc(&g.dOut, 1 << 20)) || !CU(cuMemAlloc(&g.dSrc, 1 << 16)))
    return false;
  CU(cuMemcpyHtoD(g.dOffs, offs.data(), offs.size() * 4));
  CU(cuMemcpyHtoD(g.dSoffs, soffs.data(), soffs.size() * 4));
  CU(cuMemsetD32(g.dSrc, 0x01020304u, (1 << 16) / 4));
  return true;
}

// Plain launches (no CUPTI): every case, 1 and 4 warps. Also reads the shared window base.
bool plainRun(Gpu& g, const std::vector<Case>& cases, bool oneWarpOnly) {
  bool ok = true;
  std::set<uint32_t> bases;
  for (size_t i = 0; i < cases.size(); ++i)
    for (int w : {1, kMaxWarps}) {
      if (w != 1 && oneWarpOnly) continue;
      ok = launchCase(g, i, w, cases[i].mask) && ok;
      if (!CU(cuCtxSynchronize())) { std::printf("  case %s failed\n", cases[i].name.c_str()); return false; }
      uint32_t raw = 0;
      CU(cuMemcpyDtoH(&raw, g.dOut + 128 * 4, 4));
      bases.insert(raw);
    }
  std::printf("plain launches        : %s; raw dynamic shared base(s):", ok ? "ok" : "FAILED");
  for (uint32_t b : bases) std::printf(" 0x%x", b);
  std::printf(" (offsets are applied to base rounded up to 1024)\n");
  return ok;
}

// Throughput: one 1024-thread block per SM, every warp repeats the instruction; cycles per warp
// instruction per SM = block cycles / (32 warps * iters). No CUPTI is active here.
bool timingRun(Gpu& g, const std::vector<Case>& cases, std::vector<Timing>& timings) {
  section("timing (hardware cost): 32 warps per SM, cycles per warp-instruction per SM");
  int sms = 0;
  cuDeviceGetAttribute(&sms, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, g.dev);
  const int iters = 256, threads = 1024;
  const unsigned smem = 32 * 4096 + 1024;
  CUdeviceptr dT = 0;
  if (!CU(cuMemAlloc(&dT, timings.size() * 64 * 4))) return false;
  std::vector<uint32_t> host(timings.size() * 64);
  for (size_t t = 0; t < timings.size(); ++t)
    for (int l = 0; l < 32; ++l) {
      host[t * 64 + l] = cases[timings[t].caseIdx].off[l];
      host[t * 64 + 32 + l] = cases[timings[t].caseIdx].src[l];
    }
  CU(cuMemcpyHtoD(dT, host.data(), host.size() * 4));
  CUevent e0, e1;
  cuEventCreate(&e0, CU_EVENT_DEFAULT);
  cuEventCreate(&e1, CU_EVENT_DEFAULT);
  bool ok = true;
  std::printf("%-30s %-9s %10s %10s\n", "kernel", "macro", "cyc/inst", "best ms");
  for (size_t t = 0; t < timings.size(); ++t) {
    CUfunction f = nullptr;
    if (!CU(cuModuleGetFunction(&f, g.mod, timings[t].kernel.c_str())) ||
        !CU(cuFuncSetAttribute(f, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, smem))) {
      ok = false;
      continue;
    }
    CUdeviceptr offs = dT + t * 64 * 4, soffs = offs + 32 * 4;
    int it = iters;
    void* args[] = {&offs, &soffs, &g.dOut, &g.dSrc, &it};
    float best = 1e30f;
    double cyc = -1;
    for (int rep = 0; rep < 4; ++rep) {
      cuEventRecord(e0, nullptr);
      if (!CU(cuLaunchKernel(f, sms, 1, 1, threads, 1, 1, smem, nullptr, args, nullptr))) { ok = false; break; }
      cuEventRecord(e1, nullptr);
      if (!CU(cuEventSynchronize(e1))) { ok = false; break; }
      float ms = 0;
      cuEventElapsedTime(&ms, e0, e1);
      if (rep > 0 && ms < best) best = ms;  // rep 0 warms up
      std::vector<uint32_t> cyc32(2 * sms);
      CU(cuMemcpyDtoH(cyc32.data(), g.dOut, cyc32.size() * 4));
      std::vector<double> per;
      for (int b = 0; b < sms; ++b) per.push_back((double)(((uint64_t)cyc32[2 * b + 1] << 32) | cyc32[2 * b]));
      std::sort(per.begin(), per.end());
      double med = per[per.size() / 2] / (32.0 * iters);
      if (rep > 0 && (cyc < 0 || med < cyc)) cyc = med;
    }
    timings[t].cyclesPerInst = cyc;
    timings[t].msBest = best;
    std::printf("%-30s %-9s %10.2f %10.4f\n", timings[t].kernel.c_str(), timings[t].macro.c_str(), cyc, best);
  }
  cuEventDestroy(e0);
  cuEventDestroy(e1);
  cuMemFree(dT);
  return ok;
}

// ---------------------------------------------------------------- Range Profiler

struct RangeData {
  std::vector<std::string> metrics;
  std::vector<std::vector<double>> values;  // per case
};

bool rangeProfile(Gpu& g, const std::vector<Case>& cases, const std::string& chip, RangeData& out) {
  section("CUPTI Range Profiler (AutoRange + KernelReplay, 1 warp per case)");
  const std::vector<const char*> wanted = {
      "smsp__inst_executed.sum",
      "l1tex__data_pipe_lsu_wavefronts_mem_shared.sum",
      "l1tex__data_pipe_lsu_wavefronts_mem_shared_cmd_read.sum",
      "l1tex__data_pipe_lsu_wavefronts_mem_shared_cmd_write.sum",
      "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum",
      "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum",
      "l1tex__data_bank_conflicts_pipe_lsu_mem_shared.sum",
      "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum",
      "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum",
      "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ldgsts.sum",
      "smsp__inst_executed_op_ldgsts.sum",
      "smsp__inst_executed_op_ldsm.sum",
  };
  CUpti_Profiler_GetCounterAvailability_Params ca = {CUpti_Profiler_GetCounterAvailability_Params_STRUCT_SIZE};
  ca.ctx = g.ctx;
  if (!CUPTI(cuptiProfilerGetCounterAvailability(&ca))) return false;
  std::vector<uint8_t> avail(ca.counterAvailabilityImageSize);
  ca.pCounterAvailabilityImage = avail.data();
  if (!CUPTI(cuptiProfilerGetCounterAvailability(&ca))) return false;
  CUpti_Profiler_Host_Initialize_Params hi = {CUpti_Profiler_Host_Initialize_Params_STRUCT_SIZE};
  hi.profilerType = CUPTI_PROFILER_TYPE_RANGE_PROFILER;
  hi.pChipName = chip.c_str();
  hi.pCounterAvailabilityImage = avail.data();
  if (!CUPTI(cuptiProfilerHostInitialize(&hi))) return false;
  CUpti_Profiler_Host_Object* host = hi.pHostObject;
  std::vector<const char*> metrics;
  for (const char* m : wanted) {
    CUpti_Profiler_Host_GetMetricProperties_Params mp = {CUpti_Profiler_Host_GetMetricProperties_Params_STRUCT_SIZE};
    mp.pHostObject = host;
    mp.pMetricName = m;
    if (cuptiProfilerHostGetMetricProperties(&mp) == CUPTI_SUCCESS) {
      metrics.push_back(m);
      std::printf("  metric %-62s %s\n", m, mp.pDescription ? mp.pDescription : "");
    } else {
      std::printf("  metric %-62s NOT AVAILABLE\n", m);
    }
  }
  bool ok = false;
  CUpti_RangeProfiler_Object* obj = nullptr;
  do {
    CUpti_Profiler_Host_ConfigAddMetrics_Params am = {CUpti_Profiler_Host_ConfigAddMetrics_Params_STRUCT_SIZE};
    am.pHostObject = host;
    am.ppMetricNames = metrics.data();
    am.numMetrics = metrics.size();
    if (!CUPTI(cuptiProfilerHostConfigAddMetrics(&am))) break;
    CUpti_Profiler_Host_GetConfigImageSize_Params is = {CUpti_Profiler_Host_GetConfigImageSize_Params_STRUCT_SIZE};
    is.pHostObject = host;
    if (!CUPTI(cuptiProfilerHostGetConfigImageSize(&is))) break;
    std::vector<uint8_t> config(is.configImageSize);
    CUpti_Profiler_Host_GetConfigImage_Params gi = {CUpti_Profiler_Host_GetConfigImage_Params_STRUCT_SIZE};
    gi.pHostObject = host;
    gi.configImageSize = config.size();
    gi.pConfigImage = config.data();
    if (!CUPTI(cuptiProfilerHostGetConfigImage(&gi))) break;
    CUpti_Profiler_Host_GetNumOfPasses_Params np = {CUpti_Profiler_Host_GetNumOfPasses_Params_STRUCT_SIZE};
    np.configImageSize = config.size();
    np.pConfigImage = config.data();
    CUPTI(cuptiProfilerHostGetNumOfPasses(&np));
    std::printf("config image          : %zu bytes, %zu pass(es)\n", config.size(), np.numOfPasses);

    CUpti_RangeProfiler_Enable_Params en = {CUpti_RangeProfiler_Enable_Params_STRUCT_SIZE};
    en.ctx = g.ctx;
    if (!CUPTI(cuptiRangeProfilerEnable(&en))) break;
    obj = en.pRangeProfilerObject;
    const size_t maxRanges = cases.size() + 4;
    CUpti_RangeProfiler_GetCounterDataSize_Params cs = {CUpti_RangeProfiler_GetCounterDataSize_Params_STRUCT_SIZE};
    cs.pRangeProfilerObject = obj;
    cs.pMetricNames = metrics.data();
    cs.numMetrics = metrics.size();
    cs.maxNumOfRanges = maxRanges;
    cs.maxNumRangeTreeNodes = maxRanges;
    if (!CUPTI(cuptiRangeProfilerGetCounterDataSize(&cs))) break;
    std::vector<uint8_t> counterData(cs.counterDataSize, 0);
    CUpti_RangeProfiler_CounterDataImage_Initialize_Params ci = {
        CUpti_RangeProfiler_CounterDataImage_Initialize_Params_STRUCT_SIZE};
    ci.pRangeProfilerObject = obj;
    ci.counterDataSize = counterData.size();
    ci.pCounterData = counterData.data();
    if (!CUPTI(cuptiRangeProfilerCounterDataImageInitialize(&ci))) break;
    CUpti_RangeProfiler_SetConfig_Params sc = {CUpti_RangeProfiler_SetConfig_Params_STRUCT_SIZE};
    sc.pRangeProfilerObject = obj;
    sc.configSize = config.size();
    sc.pConfig = config.data();
    sc.counterDataImageSize = counterData.size();
    sc.pCounterDataImage = counterData.data();
    sc.range = CUPTI_AutoRange;
    sc.replayMode = CUPTI_KernelReplay;
    sc.maxRangesPerPass = maxRanges;
    sc.numNestingLevels = 1;
    sc.minNestingLevel = 1;
    sc.passIndex = 0;
    sc.targetNestingLevel = 1;
    if (!CUPTI(cuptiRangeProfilerSetConfig(&sc))) break;
    bool runOk = true;
    uint8_t allSubmitted = 0;
    for (int pass = 0; !allSubmitted && pass < 16 && runOk; ++pass) {
      CUpti_RangeProfiler_Start_Params st = {CUpti_RangeProfiler_Start_Params_STRUCT_SIZE};
      st.pRangeProfilerObject = obj;
      if (!CUPTI(cuptiRangeProfilerStart(&st))) { runOk = false; break; }
      for (size_t i = 0; i < cases.size(); ++i) runOk = launchCase(g, i, 1, cases[i].mask) && runOk;
      runOk = CU(cuCtxSynchronize()) && runOk;
      CUpti_RangeProfiler_Stop_Params sp = {CUpti_RangeProfiler_Stop_Params_STRUCT_SIZE};
      sp.pRangeProfilerObject = obj;
      if (!CUPTI(cuptiRangeProfilerStop(&sp))) { runOk = false; break; }
      allSubmitted = sp.isAllPassSubmitted;
    }
    if (!runOk) break;
    CUpti_RangeProfiler_DecodeData_Params dd = {CUpti_RangeProfiler_DecodeData_Params_STRUCT_SIZE};
    dd.pRangeProfilerObject = obj;
    if (!CUPTI(cuptiRangeProfilerDecodeData(&dd))) break;
    CUpti_RangeProfiler_GetCounterDataInfo_Params di = {CUpti_RangeProfiler_GetCounterDataInfo_Params_STRUCT_SIZE};
    di.pCounterDataImage = counterData.data();
    di.counterDataImageSize = counterData.size();
    if (!CUPTI(cuptiRangeProfilerGetCounterDataInfo(&di))) break;
    std::printf("ranges                : %zu (dropped %zu) for %zu cases\n", di.numTotalRanges, dd.numOfRangeDropped,
                cases.size());
    out.metrics.assign(metrics.begin(), metrics.end());
    out.values.assign(cases.size(), std::vector<double>(metrics.size(), -1.0));
    for (size_t r = 0; r < di.numTotalRanges && r < cases.size(); ++r) {
      CUpti_Profiler_Host_EvaluateToGpuValues_Params ev = {CUpti_Profiler_Host_EvaluateToGpuValues_Params_STRUCT_SIZE};
      ev.pHostObject = host;
      ev.pCounterDataImage = counterData.data();
      ev.counterDataImageSize = counterData.size();
      ev.rangeIndex = r;
      ev.ppMetricNames = metrics.data();
      ev.numMetrics = metrics.size();
      ev.pMetricValues = out.values[r].data();
      CUPTI(cuptiProfilerHostEvaluateToGpuValues(&ev));
    }
    ok = di.numTotalRanges == cases.size();
  } while (false);
  if (obj) {
    CUpti_RangeProfiler_Disable_Params dp = {CUpti_RangeProfiler_Disable_Params_STRUCT_SIZE};
    dp.pRangeProfilerObject = obj;
    CUPTI(cuptiRangeProfilerDisable(&dp));
  }
  CUpti_Profiler_Host_Deinitialize_Params hd = {CUpti_Profiler_Host_Deinitialize_Params_STRUCT_SIZE};
  hd.pHostObject = host;
  CUPTI(cuptiProfilerHostDeinitialize(&hd));
  return ok;
}

// ---------------------------------------------------------------- SASS metrics

using PcMetrics = std::map<uint32_t, std::map<std::string, uint64_t>>;  // pc -> metric -> value
struct SassData {
  std::vector<std::string> metrics;
  std::map<int, std::map<std::string, PcMetrics>> perWarps;  // warps -> function -> pcs
};

bool sassMetrics(Gpu& g, const std::vector<Case>& cases, const std::string& chip, SassData& out) {
  section("CUPTI SASS metrics");
  CUpti_SassMetrics_GetNumOfMetrics_Params nm = {CUpti_SassMetrics_GetNumOfMetrics_Params_STRUCT_SIZE};
  nm.pChipName = chip.c_str();
  if (!CUPTI(cuptiSassMetricsGetNumOfMetrics(&nm))) return false;
  std::vector<CUpti_SassMetrics_MetricDetails> list(nm.numOfMetrics);
  CUpti_SassMetrics_GetMetrics_Params gm = {CUpti_SassMetrics_GetMetrics_Params_STRUCT_SIZE};
  gm.pChipName = chip.c_str();
  gm.numOfMetrics = list.size();
  gm.pMetricsList = list.data();
  if (!CUPTI(cuptiSassMetricsGetMetrics(&gm))) return false;
  std::printf("SASS metrics on %s: %zu\n", chip.c_str(), list.size());
  for (auto& m : list)
    std::printf("  %-64s %s\n", m.pMetricName ? m.pMetricName : "?", m.pMetricDescription ? m.pMetricDescription : "");

  const char* core[] = {"smsp__sass_inst_executed", "smsp__sass_l1tex_pipe_lsu_wavefronts_mem_shared",
                        "smsp__sass_l1tex_pipe_lsu_wavefronts_mem_shared_ideal"};
  std::vector<CUpti_SassMetrics_Config> all, minimal;
  std::map<uint64_t, std::string> idName;
  for (auto& m : list) {
    std::string n = m.pMetricName ? m.pMetricName : "";
    bool isCore = false;
    for (const char* c : core) isCore = isCore || n == c;
    bool interesting = isCore || n == "smsp__sass_thread_inst_executed_pred_on" ||
                       n.find("shared") != std::string::npos || n.find("ldsm") != std::string::npos ||
                       n.find("stsm") != std::string::npos || n.find("ldgsts") != std::string::npos;
    if (!interesting) continue;
    idName[m.metricId] = n;
    all.push_back({m.metricId, (uint8_t)CUPTI_SASS_METRICS_OUTPUT_GRANULARITY_GPU});
    if (isCore) minimal.push_back(all.back());
  }
  // Try the full set first, then the three core metrics: configuration or enabling may refuse a set.
  for (auto* cfg : {&all, &minimal}) {
    if (cfg->empty()) continue;
    std::printf("collecting (%zu)       :", cfg->size());
    for (auto& c : *cfg) std::printf(" %s", idName[c.metricId].c_str());
    std::printf("\n");
    CUpti_SassMetricsSetConfig_Params sc = {CUpti_SassMetricsSetConfig_Params_STRUCT_SIZE};
    sc.deviceIndex = 0;
    sc.numOfMetricConfig = cfg->size();
    sc.pConfigs = cfg->data();
    if (!CUPTI(cuptiSassMetricsSetConfig(&sc))) continue;
    out.metrics.clear();
    for (auto& c : *cfg) out.metrics.push_back(idName[c.metricId]);
    out.perWarps.clear();
    bool anyData = false;
    for (int warps : {1, kMaxWarps}) {
      CUpti_SassMetricsEnable_Params en = {CUpti_SassMetricsEnable_Params_STRUCT_SIZE};
      en.ctx = g.ctx;
      en.enableLazyPatching = 1;
      if (!CUPTI(cuptiSassMetricsEnable(&en))) break;
      for (size_t i = 0; i < cases.size(); ++i) launchCase(g, i, warps, cases[i].mask);
      CU(cuCtxSynchronize());
      CUpti_SassMetricsGetDataProperties_Params dp = {CUpti_SassMetricsGetDataProperties_Params_STRUCT_SIZE};
      dp.ctx = g.ctx;
      if (CUPTI(cuptiSassMetricsGetDataProperties(&dp)) && dp.numOfPatchedInstructionRecords && dp.numOfInstances) {
        size_t nRec = dp.numOfPatchedInstructionRecords, nInst = dp.numOfInstances;
        std::printf("%d warp(s): %zu records, %zu instance(s)\n", warps, nRec, nInst);
        std::vector<CUpti_SassMetrics_Data> data(nRec);
        std::vector<CUpti_SassMetrics_InstanceValue> vals(nRec * nInst);
        for (size_t i = 0; i < nRec; ++i) {
          data[i].structSize = sizeof(CUpti_SassMetrics_Data);
          data[i].pInstanceValues = &vals[i * nInst];
        }
        CUpti_SassMetricsFlushData_Params fd = {CUpti_SassMetricsFlushData_Params_STRUCT_SIZE};
        fd.ctx = g.ctx;
        fd.numOfPatchedInstructionRecords = nRec;
        fd.numOfInstances = nInst;
        fd.pMetricsData = data.data();
        if (CUPTI(cuptiSassMetricsFlushData(&fd))) {
          anyData = true;
          auto& dst = out.perWarps[warps];
          for (size_t i = 0; i < nRec; ++i) {
            std::string fn = data[i].functionName ? data[i].functionName : "?";
            for (size_t j = 0; j < nInst; ++j) {
              auto& v = data[i].pInstanceValues[j];
              std::string mn = idName.count(v.metricId) ? idName[v.metricId] : std::to_string(v.metricId);
              dst[fn][data[i].pcOffset][mn] += v.value;
            }
          }
        }
      }
      CUpti_SassMetricsDisable_Params dis = {CUpti_SassMetricsDisable_Params_STRUCT_SIZE};
      dis.ctx = g.ctx;
      if (CUPTI(cuptiSassMetricsDisable(&dis)))
        std::printf("%d warp(s): dropped records %zu\n", warps, dis.numOfDroppedRecords);
    }
    CUpti_SassMetricsUnsetConfig_Params us = {CUpti_SassMetricsUnsetConfig_Params_STRUCT_SIZE};
    us.deviceIndex = 0;
    CUPTI(cuptiSassMetricsUnsetConfig(&us));
    if (anyData) return true;
  }
  return false;
}

// ---------------------------------------------------------------- report

std::string jsonEscape(const std::string& s) {
  std::string o;
  for (char c : s) {
    if (c == '"' || c == '\\') o += '\\';
    o += c;
  }
  return o;
}

// PCs of one kernel that touch shared memory: by SASS text, or by any shared metric > 0.
std::vector<uint32_t> sharedPcs(const std::string& fn, const SassMap& sass, const SassData& sd) {
  std::set<uint32_t> pcs;
  auto it = sass.find(fn);
  if (it != sass.end())
    for (auto& [pc, text] : it->second)
      if (isSharedOpcode(text)) pcs.insert(pc);
  for (auto& [warps, fns] : sd.perWarps) {
    auto f = fns.find(fn);
    if (f == fns.end()) continue;
    for (auto& [pc, ms] : f->second)
      for (auto& [m, v] : ms)
        if (v && m != "smsp__sass_inst_executed" && m != "smsp__sass_thread_inst_executed_pred_on") pcs.insert(pc);
  }
  return {pcs.begin(), pcs.end()};
}

uint64_t metricAt(const SassData& sd, int warps, const std::string& fn, uint32_t pc, const std::string& m,
                  bool* found = nullptr) {
  if (found) *found = false;
  auto w = sd.perWarps.find(warps);
  if (w == sd.perWarps.end()) return 0;
  auto f = w->second.find(fn);
  if (f == w->second.end()) return 0;
  auto p = f->second.find(pc);
  if (p == f->second.end()) return 0;
  auto v = p->second.find(m);
  if (v == p->second.end()) return 0;
  if (found) *found = true;
  return v->second;
}

// Hardware wavefronts of the case's kernel (Range Profiler, 1 warp): the op_ld / op_st counter; for
// LDGSTS the total minus the 4 wavefronts every LDGSTS kernel shows whatever the pattern.
double hardwareWavefronts(const Case& c, const RangeData& rd, size_t ci) {
  if (ci >= rd.values.size()) return -1;
  auto get = [&](const char* m) {
    for (size_t i = 0; i < rd.metrics.size(); ++i)
      if (rd.metrics[i] == m) return rd.values[ci][i];
    return -1.0;
  };
  switch (c.op) {
    case Op::Ld: case Op::Ldsm: return get("l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum");
    case Op::St: case Op::Stsm: return get("l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum");
    case Op::Ldgsts: return get("l1tex__data_pipe_lsu_wavefronts_mem_shared.sum") - 4;
  }
  return -1;
}

void report(const std::vector<Case>& cases, const SassMap& sass, const SassData& sd, const RangeData& rd,
            const std::string& jsonPath) {
  section("table: wavefronts per warp-level instruction");
  std::printf("columns: SASS-metric wavefronts / ideal per warp instruction (1 warp, then 4 warps), hardware\n"
              "op_ld/op_st wavefronts (Range Profiler, 1 warp), predictions: phase, warp, rule (hardware), sassm\n");
  std::printf("%-11s %-26s %-34s %6s %6s %6s %6s %6s | %5s %5s %5s %5s | %s\n", "group", "case", "SASS", "wf/i", "ideal",
              "wf/i4", "ideal4", "hw", "phase", "warp", "rule", "sassm", "verdict");
  const std::string WF = "smsp__sass_l1tex_pipe_lsu_wavefronts_mem_shared";
  const std::string ID = "smsp__sass_l1tex_pipe_lsu_wavefronts_mem_shared_ideal";
  const std::string IE = "smsp__sass_inst_executed";
  std::ofstream js(jsonPath);
  js << "{\n  \"sass_metrics\": [";
  for (size_t i = 0; i < sd.metrics.size(); ++i) js << (i ? ", " : "") << "\"" << sd.metrics[i] << "\"";
  js << "],\n  \"range_metrics\": [";
  for (size_t i = 0; i < rd.metrics.size(); ++i) js << (i ? ", " : "") << "\"" << rd.metrics[i] << "\"";
  js << "],\n  \"cases\": [\n";
  int agreePhase = 0, agreeWarp = 0, agreeRule = 0, agreeSass = 0, measured = 0, hwMeasured = 0;
  for (size_t ci = 0; ci < cases.size(); ++ci) {
    const Case& c = cases[ci];
    int pPhase = predictPhase(c), pWarp = predictWarp(c), pRule = predictRule(c), pSass = predictSassModel(c);
    double hw = hardwareWavefronts(c, rd, ci);
    auto pcs = sharedPcs(c.name, sass, sd);
    js << "    {\"name\": \"" << c.name << "\", \"group\": \"" << c.group << "\", \"op\": \"" << opName(c.op)
       << "\", \"width\": " << c.width << ", \"trans\": " << (c.trans ? "true" : "false") << ", \"mask\": " << c.mask
       << ", \"offsets\": [" << hexList(c) << "], \"pattern\": \"" << jsonEscape(c.pattern)
       << "\", \"pred_phase\": " << pPhase << ", \"pred_warp\": " << pWarp << ", \"pred_rule\": " << pRule
       << ", \"pred_sass_model\": " << pSass << ", \"hw_wavefronts\": " << hw
       << ", \"ca\": " << (c.ca ? "true" : "false") << ", \"src\": [";
    for (int l = 0; l < 32; ++l) js << (l ? "," : "") << c.src[l];
    js << "],\n     \"pcs\": [";
    bool firstPc = true;
    for (uint32_t pc : pcs) {
      std::string text = "?";
      auto f = sass.find(c.name);
      if (f != sass.end() && f->second.count(pc)) text = f->second.at(pc);
      bool have1 = false, have4 = false;
      double ie1 = (double)metricAt(sd, 1, c.name, pc, IE, &have1);
      double ie4 = (double)metricAt(sd, kMaxWarps, c.name, pc, IE, &have4);
      double wf1 = ie1 ? metricAt(sd, 1, c.name, pc, WF) / ie1 : -1;
      double id1 = ie1 ? metricAt(sd, 1, c.name, pc, ID) / ie1 : -1;
      double wf4 = ie4 ? metricAt(sd, kMaxWarps, c.name, pc, WF) / ie4 : -1;
      double id4 = ie4 ? metricAt(sd, kMaxWarps, c.name, pc, ID) / ie4 : -1;
      std::string verdict;
      if (ie1 && isSharedOpcode(text)) {
        ++measured;
        agreePhase += wf1 == pPhase;
        agreeWarp += wf1 == pWarp;
        agreeSass += wf1 == pSass;
        verdict = wf1 == pSass ? "sass=sassm" : "SASS!=SASSM";
        bool hwValid = hw >= 0 && !(c.op == Op::Ldgsts && !c.ca);  // LDGSTS.BYPASS: no hardware count
        if (hwValid) {
          ++hwMeasured;
          agreeRule += hw == pRule;
          verdict += hw == pRule ? ", hw=rule" : ", HW!=RULE";
        }
        if (ie4 && wf4 != wf1) verdict += " (4-warp differs)";
        if (ie1 != 1 || (have4 && ie4 != kMaxWarps)) verdict += " (inst count odd)";
      }
      if (text.rfind("@!PT ", 0) == 0) continue;  // "@!PT LDS RZ, [RZ]" filler, never executes
      std::printf("%-11s %-26s %-34.34s %6.2f %6.2f %6.2f %6.2f %6.0f | %5d %5d %5d %5d | %s\n", c.group.c_str(),
                  c.name.c_str(), text.c_str(), wf1, id1, wf4, id4, hw, pPhase, pWarp, pRule, pSass, verdict.c_str());
      if (ie1) {
        // Any other wavefront / conflict metric at this PC, per instruction.
        std::string extra;
        for (auto& m : sd.metrics) {
          if (m == WF || m == ID || m == IE) continue;
          if (m.find("wavefronts") == std::string::npos && m.find("conflicts") == std::string::npos) continue;
          uint64_t v = metricAt(sd, 1, c.name, pc, m);
          if (!v) continue;
          char buf[160];
          std::snprintf(buf, sizeof buf, " %s=%.2f", m.c_str() + std::strlen("smsp__sass_"), v / ie1);
          extra += buf;
        }
        if (!extra.empty()) std::printf("%-38s other:%s\n", "", extra.c_str());
      }
      js << (firstPc ? "" : ", ") << "\n       {\"pc\": " << pc << ", \"sass\": \"" << jsonEscape(text) << "\"";
      firstPc = false;
      for (int w : {1, kMaxWarps}) {
        js << ", \"w" << w << "\": {";
        bool first = true;
        for (auto& m : sd.metrics) {
          bool found = false;
          uint64_t v = metricAt(sd, w, c.name, pc, m, &found);
          if (!found) continue;
          js << (first ? "" : ", ") << "\"" << m << "\": " << v;
          first = false;
        }
        js << "}";
      }
      js << "}";
    }
    if (pcs.empty())
      std::printf("%-11s %-26s %-34s (no shared-memory PC found)\n", c.group.c_str(), c.name.c_str(), "-");
    js << "],\n     \"range\": {";
    if (ci < rd.values.size())
      for (size_t m = 0; m < rd.metrics.size(); ++m)
        js << (m ? ", " : "") << "\"" << rd.metrics[m] << "\": " << rd.values[ci][m];
    js << "}}" << (ci + 1 < cases.size() ? "," : "") << "\n";
  }
  js << "  ]\n}\n";
  std::printf("\nSASS metric over %d cases: equals phase model %d, warp model %d, SASS model %d\n", measured,
              agreePhase, agreeWarp, agreeSass);
  std::printf("hardware counter over %d cases: equals rule %d\n", hwMeasured, agreeRule);
  std::printf("JSON written to %s\n", jsonPath.c_str());

  if (!rd.metrics.empty()) {
    section("Range Profiler per case (1 warp): hardware counters");
    std::printf("%-26s", "case");
    for (auto& m : rd.metrics) {
      std::string s = m;
      for (const char* pre : {"l1tex__data_pipe_lsu_wavefronts_mem_shared", "l1tex__data_bank_conflicts_pipe_lsu_mem_shared"}) {
        if (s.rfind(pre, 0) == 0) s = (std::strstr(pre, "conflicts") ? "bc" : "wf") + s.substr(std::strlen(pre));
      }
      if (s.size() > 4 && s.compare(s.size() - 4, 4, ".sum") == 0) s = s.substr(0, s.size() - 4);
      std::printf(" %14.14s", s.c_str());
    }
    std::printf("\n");
    for (size_t ci = 0; ci < cases.size() && ci < rd.values.size(); ++ci) {
      std::printf("%-26s", cases[ci].name.c_str());
      for (double v : rd.values[ci]) std::printf(" %14.1f", v);
      std::printf("\n");
    }
  }
}

// Timing next to the measured SASS wavefronts of the same pattern.
void reportTiming(const std::vector<Case>& cases, const std::vector<Timing>& timings, const SassData& sd,
                  const std::string& jsonPath) {
  if (timings.empty() || timings[0].cyclesPerInst < 0) return;
  section("timing vs wavefronts (1 warp, SASS metric)");
  std::ofstream js(jsonPath);
  js << "[\n";
  std::printf("%-30s %10s %8s %8s %10s\n", "kernel", "cyc/inst", "wf/inst", "rule", "cyc/wf");
  for (size_t t = 0; t < timings.size(); ++t) {
    const Case& c = cases[timings[t].caseIdx];
    double wf = -1;
    auto w = sd.perWarps.find(1);
    if (w != sd.perWarps.end() && w->second.count(c.name))
      for (auto& [pc, ms] : w->second.at(c.name)) {
        auto ie = ms.find("smsp__sass_inst_executed");
        auto v = ms.find("smsp__sass_l1tex_pipe_lsu_wavefronts_mem_shared");
        if (ie != ms.end() && v != ms.end() && ie->second && v->second) wf = (double)v->second / ie->second;
      }
    std::printf("%-30s %10.2f %8.2f %8d %10.2f\n", timings[t].kernel.c_str(), timings[t].cyclesPerInst, wf,
                predictRule(c), wf > 0 ? timings[t].cyclesPerInst / wf : -1.0);
    js << "  {\"kernel\": \"" << timings[t].kernel << "\", \"case\": \"" << c.name << "\", \"cycles_per_inst\": "
       << timings[t].cyclesPerInst << ", \"best_ms\": " << timings[t].msBest << ", \"sass_wf\": " << wf << "}"
       << (t + 1 < timings.size() ? "," : "") << "\n";
  }
  js << "]\n";
}

void listCases(const std::vector<Case>& cases) {
  section("cases");
  for (auto& c : cases) {
    std::printf("%-11s %-26s %-6s w=%-2d%s mask=%08x phase=%-3d warp=%-3d rule=%-3d sassm=%-3d %s\n", c.group.c_str(),
                c.name.c_str(), opName(c.op), c.width, c.trans ? "T" : " ", c.mask, predictPhase(c), predictWarp(c),
                predictRule(c), predictSassModel(c), c.pattern.c_str());
    std::printf("            offsets: %s\n", hexList(c).c_str());
  }
}

}  // namespace

int main(int argc, char** argv) {
  bool compileOnly = false, kernelsOnly = false, noRange = false, noSass = false, noTiming = false;
  std::string outDir = "build", filter;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--compile-only") compileOnly = true;
    else if (a == "--kernels-only") kernelsOnly = true;
    else if (a == "--no-range") noRange = true;
    else if (a == "--no-sass") noSass = true;
    else if (a == "--no-timing") noTiming = true;
    else if (a.rfind("--out-dir=", 0) == 0) outDir = a.substr(10);
    else if (a.rfind("--filter=", 0) == 0) filter = a.substr(9);
    else {
      std::printf("usage: %s [--compile-only] [--kernels-only] [--no-range] [--no-sass] [--out-dir=DIR] [--filter=S]\n",
                  argv[0]);
      return 2;
    }
  }
  setvbuf(stdout, nullptr, _IOLBF, 0);
  std::vector<Case> cases = buildCases();
  if (!filter.empty()) {
    std::vector<Case> keep;
    std::vector<std::string> parts;
    for (size_t b = 0, e; b <= filter.size(); b = e + 1) {
      e = filter.find('|', b);
      if (e == std::string::npos) e = filter.size();
      if (e > b) parts.push_back(filter.substr(b, e - b));
    }
    for (auto& c : cases)
      for (auto& p : parts)
        if (c.name.find(p) != std::string::npos) { keep.push_back(c); break; }
    cases.swap(keep);
  }
  for (auto& c : cases)
    for (uint32_t o : c.off)
      if (o + laneBytes(c) > kWarpRegion || o % laneBytes(c) != 0) {
        std::printf("case %s: offset %u out of range or misaligned\n", c.name.c_str(), o);
        return 2;
      }
  std::printf("%zu cases\n", cases.size());
  listCases(cases);

  section("NVRTC (sm_90a)");
  std::vector<char> cubin;
  std::vector<Timing> timings = timingList(cases);
  if (!compile(kernelSource(cases, timings), cubin)) return 1;
  std::string cubinPath = outDir + "/bankrules_sm90a.cubin";
  {
    std::ofstream f(cubinPath, std::ios::binary);
    f.write(cubin.data(), (std::streamsize)cubin.size());
  }
  std::printf("cubin                 : %zu bytes -> %s\n", cubin.size(), cubinPath.c_str());
  SassMap sass = disassemble(cubinPath, outDir + "/bankrules_sass.txt");
  if (compileOnly) {  // exercise the report and JSON writer with no measurements
    report(cases, sass, SassData{}, RangeData{}, outDir + "/bankrules_compile_only.json");
    return 0;
  }

  section("driver API");
  Gpu g;
  if (!setupGpu(g, cubin, cases)) return 1;
  if (!plainRun(g, cases, kernelsOnly)) return 1;
  if (kernelsOnly) return 0;
  if (!noTiming) timingRun(g, cases, timings);

  CUpti_Profiler_Initialize_Params pi = {CUpti_Profiler_Initialize_Params_STRUCT_SIZE};
  if (!CUPTI(cuptiProfilerInitialize(&pi))) return 1;
  CUpti_Device_GetChipName_Params cn = {CUpti_Device_GetChipName_Params_STRUCT_SIZE};
  cn.deviceIndex = 0;
  if (!CUPTI(cuptiDeviceGetChipName(&cn))) return 1;
  std::string chip = cn.pChipName ? cn.pChipName : "";
  std::printf("chip                  : %s\n", chip.c_str());
  RangeData rd;
  bool rangeOk = noRange || rangeProfile(g, cases, chip, rd);
  SassData sd;
  bool sassOk = noSass || sassMetrics(g, cases, chip, sd);
  report(cases, sass, sd, rd, outDir + "/bankrules.json");
  reportTiming(cases, timings, sd, outDir + "/bankrules_timing.json");
  CUpti_Profiler_DeInitialize_Params pd = {CUpti_Profiler_DeInitialize_Params_STRUCT_SIZE};
  cuptiProfilerDeInitialize(&pd);
  section("summary");
  std::printf("range profiler: %s, SASS metrics: %s\n", noRange ? "skipped" : rangeOk ? "OK" : "FAILED",
              noSass ? "skipped" : sassOk ? "OK" : "FAILED");
  return sassOk ? 0 : 3;
}
