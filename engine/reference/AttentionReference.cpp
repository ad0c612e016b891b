// Reference for samples/06_flash_attention.py: multi-head attention forward on [batch, seq_len, heads, dim]
// tensors, O = softmax(Q K^T / sqrt(dim)) V per (batch, head), with key j hidden from query i when
// is_causal and j > i. K and V may have another sequence length than Q and O when not causal (decoding:
// TileLang's flash_decoding example). The full score row is formed explicitly: no online softmax, no tiling.
#include "engine/reference/ReferenceSupport.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

namespace tb::reference {

Reference makeFlashAttentionReference() {
    Reference r;
    r.name = "flash_attention";
    r.summary = "Output = softmax(Q K^T / sqrt(D), causal if is_causal) V, all [B,S,H,D] (K, V [B,S_kv,H,D] "
                "when not causal); params Q, K, V, Output (output 3)";
    r.compute = [](const ReferenceInvocation& in, std::map<int, HostTensor>& expected, std::string& error) {
        if (!expectParamCount(in, 4, "Q, K, V, Output", error) || !expectOutputMarked(in, 3, error) ||
            !expectRank(in, 0, 4, error))
            return false;
        const std::vector<int64_t>& shape = in.params[0].shape;
        if (!expectRank(in, 1, 4, error))
            return false;
        std::vector<int64_t> kvShape = shape;
        kvShape[1] = in.params[1].shape[1];
        if (!expectShape(in, 1, kvShape, error) || !expectShape(in, 2, kvShape, error) ||
            !expectShape(in, 3, shape, error))
            return false;
        const std::optional<bool> causal = specBool(in.module, "is_causal");
        if (!causal) {
            error = "the specialization has no boolean is_causal";
            return false;
        }
        const int64_t batch = shape[0], seqLen = shape[1], heads = shape[2], dim = shape[3];
        const int64_t keys = kvShape[1];
        if (*causal && keys != seqLen) {
            error = "a causal mask needs K and V as long as Q";
            return false;
        }
        const HostTensor& q = in.params[0];
        const HostTensor& k = in.params[1];
        const HostTensor& v = in.params[2];
        HostTensor o = likeParam(in, 3);
        auto at = [&](int64_t b, int64_t s, int64_t h) { return ((b * seqLen + s) * heads + h) * dim; };
        auto atKv = [&](int64_t b, int64_t s, int64_t h) { return ((b * keys + s) * heads + h) * dim; };
        const double scale = 1.0 / std::sqrt(static_cast<double>(dim));
        // One (batch, head) at a time: K laid out [dim, seq] so that the scores of a query row are
        // accumulated over d in order for all keys at once; each output element sums its weighted values
        // over keys in order. Query rows are independent and split over threads.
        std::vector<double> kt(static_cast<size_t>(dim * keys));
        std::vector<double> vh(static_cast<size_t>(keys * dim)); // V of the head, [keys, dim]
        for (int64_t b = 0; b < batch; ++b) {
            for (int64_t h = 0; h < heads; ++h) {
                for (int64_t j = 0; j < keys; ++j) {
                    for (int64_t d = 0; d < dim; ++d)
                        kt[d * keys + j] = k.data[atKv(b, j, h) + d];
                    v.data.read(atKv(b, j, h), std::span(vh).subspan(j * dim, dim));
                }
                // Four query rows at a time share each row of K^T and of V (every score and every output
                // element is still summed in its natural order).
                constexpr int64_t kRows = 4;
                parallelRanges((seqLen + kRows - 1) / kRows, [&](int64_t begin, int64_t end) {
                    std::vector<double> weights(static_cast<size_t>(kRows * keys));
                    std::vector<double> acc(static_cast<size_t>(kRows * dim));
                    for (int64_t block = begin; block < end; ++block) {
                        const int64_t i0 = block * kRows;
                        const int64_t rows = std::min(kRows, seqLen - i0);
                        const int64_t visible = *causal ? i0 + rows : keys; // the widest row's keys
                        std::fill(weights.begin(), weights.end(), 0.0);
                        double* scoreRows[kRows];
                        double* accRows[kRows];
                        for (int64_t r = 0; r < kRows; ++r) {
                            scoreRows[r] = &weights[std::min(r, rows - 1) * keys];
                            accRows[r] = &acc[std::min(r, rows - 1) * dim];
                        }
                        for (int64_t d = 0; d < dim; ++d) {
                            double qd[kRows];
                            for (int64_t r = 0; r < rows; ++r)
                                qd[r] = q.data[at(b, i0 + r, h) + d];
                            addScaledRows(scoreRows, qd, rows, &kt[d * keys], visible);
                        }
                        std::fill(acc.begin(), acc.end(), 0.0);
                        double sums[kRows] = {0, 0, 0, 0};
                        for (int64_t r = 0; r < rows; ++r) {
                            const int64_t seen = *causal ? i0 + r + 1 : keys;
                            double* w = &weights[r * keys];
                            double mx = -std::numeric_limits<double>::infinity();
                            for (int64_t j = 0; j < seen; ++j) {
                                w[j] *= scale;
                                mx = std::max(mx, w[j]);
                            }
                            for (int64_t j = 0; j < seen; ++j) {
                                w[j] = std::exp(w[j] - mx);
                                sums[r] += w[j];
                            }
                            for (int64_t j = seen; j < visible; ++j)
                                w[j] = 0; // hidden keys weigh nothing
                        }
                        for (int64_t j = 0; j < visible; ++j) {
                            double wj[kRows];
                            for (int64_t r = 0; r < rows; ++r)
                                wj[r] = weights[r * keys + j];
                            addScaledRows(accRows, wj, rows, &vh[j * dim], dim);
                        }
                        for (int64_t r = 0; r < rows; ++r) {
                            for (int64_t d = 0; d < dim; ++d)
                                acc[r * dim + d] /= sums[r];
                            o.data.write(at(b, i0 + r, h), std::span(acc).subspan(r * dim, dim));
                        }
                    }
                });
            }
        }
        expected.emplace(3, std::move(o));
        return true;
    };
    // The kernel rounds the probabilities to float16 before the P @ V GEMM (relative error <= 2^-11 per
    // weight, so |error| <= 2^-11 * max|V| = 4.9e-4 for the executor's inputs in [-1, 1); random signs
    // keep it near 1e-4 in practice) and rounds the output once to float16 (<= 2^-11 relative). atol 1e-3
    // and rtol 5e-3 leave a 2x margin over the worst error seen on the CPU executor (4.9e-4 in the first
    // causal rows) while a wrong scale, mask or rescale (errors of 1e-2 and more) still fails. randn
    // inputs (|V| up to ~4.5) can need a looser atol.
    r.atol = 1e-3;
    r.rtol = 5e-3;
    return r;
}

} // namespace tb::reference
