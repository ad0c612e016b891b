// Reference for samples/07_mla_decode.py: DeepSeek MLA decode. Query head h of batch b attends over the
// seqlen_kv latent rows of its KV head (h / (heads / kv_heads)):
//   score_j = (Q[b,h,:] . KV[b,j,g,:] + Q_pe[b,h,:] . K_pe[b,j,g,:]) / sqrt(dim + pe_dim)
//   Output[b,h,:] = sum_j softmax(score)_j KV[b,j,g,:]
// With num_split > 1 (the last dim of glse) the sample also leaves, per split s, the attention restricted
// to the split's keys in Output_partial[b,h,s,:] and its log2-sum-exp2 of the log2(e)-scaled scores in
// glse[b,h,s] = log2(sum_{j in s} exp(score_j)). Split s owns the KV blocks of block_N keys
// [s * nb / num_split, (s + 1) * nb / num_split), nb = ceil(seqlen_kv / block_N): the sample's contract.
#include "engine/reference/ReferenceSupport.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace tb::reference {

namespace {

struct MlaShape {
    int64_t batch, heads, dim, peDim, seqLen, kvHeads, numSplit;
};

// Softmax of score[begin, end) applied to the KV rows: writes the output row and returns
// log(sum exp(score_j)) over the range (natural log).
double attendRange(const std::vector<double>& score, int64_t begin, int64_t end,
                   const std::vector<double>& kv, int64_t kvRow0, int64_t kvRowStride, int64_t dim,
                   std::vector<double>& out) {
    double mx = -std::numeric_limits<double>::infinity();
    for (int64_t j = begin; j < end; ++j)
        mx = std::max(mx, score[j]);
    double sum = 0;
    std::vector<double> acc(static_cast<size_t>(dim), 0.0);
    for (int64_t j = begin; j < end; ++j) {
        const double w = std::exp(score[j] - mx);
        sum += w;
        const double* row = &kv[kvRow0 + j * kvRowStride];
        for (int64_t d = 0; d < dim; ++d)
            acc[d] += w * row[d];
    }
    for (int64_t d = 0; d < dim; ++d)
        out[d] = acc[d] / sum;
    return mx + std::log(sum);
}

} // namespace

Reference makeMlaDecodeReference() {
    Reference r;
    r.name = "mla_decode";
    r.summary = "MLA decode: softmax((Q KV^T + Q_pe K_pe^T) / sqrt(dim + pe_dim)) KV; params Q, Q_pe, KV, "
                "K_pe, glse, Output_partial, Output (output 6; 4 and 5 too when num_split > 1)";
    r.compute = [](const ReferenceInvocation& in, std::map<int, HostTensor>& expected, std::string& error) {
        if (!expectParamCount(in, 7, "Q, Q_pe, KV, K_pe, glse, Output_partial, Output", error) ||
            !expectOutputMarked(in, 6, error) || !expectRank(in, 0, 3, error) ||
            !expectRank(in, 1, 3, error) || !expectRank(in, 2, 4, error) || !expectRank(in, 4, 3, error))
            return false;
        MlaShape s;
        s.batch = in.params[0].shape[0];
        s.heads = in.params[0].shape[1];
        s.dim = in.params[0].shape[2];
        s.peDim = in.params[1].shape[2];
        s.seqLen = in.params[2].shape[1];
        s.kvHeads = in.params[2].shape[2];
        s.numSplit = in.params[4].shape[2];
        if (!expectShape(in, 1, {s.batch, s.heads, s.peDim}, error) ||
            !expectShape(in, 2, {s.batch, s.seqLen, s.kvHeads, s.dim}, error) ||
            !expectShape(in, 3, {s.batch, s.seqLen, s.kvHeads, s.peDim}, error) ||
            !expectShape(in, 4, {s.batch, s.heads, s.numSplit}, error) ||
            !expectShape(in, 5, {s.batch, s.heads, s.numSplit, s.dim}, error) ||
            !expectShape(in, 6, {s.batch, s.heads, s.dim}, error))
            return false;
        if (s.kvHeads <= 0 || s.heads % s.kvHeads != 0 || s.seqLen <= 0) {
            error = "heads (" + std::to_string(s.heads) + ") must be a multiple of kv heads (" +
                    std::to_string(s.kvHeads) + ") and seqlen_kv (" + std::to_string(s.seqLen) + ") positive";
            return false;
        }
        int64_t numBlocks = 0;
        int64_t blockN = 0;
        if (s.numSplit > 1) {
            blockN = specInt(in.module, "block_N").value_or(0);
            if (blockN <= 0) {
                error = "the specialization has no positive integer block_N, needed to split the keys";
                return false;
            }
            numBlocks = (s.seqLen + blockN - 1) / blockN;
            if (numBlocks < s.numSplit) {
                error = "num_split " + std::to_string(s.numSplit) + " exceeds the " +
                        std::to_string(numBlocks) + " key blocks";
                return false;
            }
        }
        const std::vector<double> q = in.params[0].data.values();
        const std::vector<double> qPe = in.params[1].data.values();
        const std::vector<double> kv = in.params[2].data.values();
        const std::vector<double> kPe = in.params[3].data.values();
        HostTensor out = likeParam(in, 6);
        HostTensor glse = likeParam(in, 4);
        HostTensor partial = likeParam(in, 5);
        const double scale = 1.0 / std::sqrt(static_cast<double>(s.dim + s.peDim));
        const int64_t group = s.heads / s.kvHeads;
        std::vector<double> score(static_cast<size_t>(s.seqLen)), row(static_cast<size_t>(s.dim));
        for (int64_t b = 0; b < s.batch; ++b) {
            for (int64_t h = 0; h < s.heads; ++h) {
                const int64_t g = h / group;
                const double* qRow = &q[(b * s.heads + h) * s.dim];
                const double* qPeRow = &qPe[(b * s.heads + h) * s.peDim];
                for (int64_t j = 0; j < s.seqLen; ++j) {
                    const double* kvRow = &kv[((b * s.seqLen + j) * s.kvHeads + g) * s.dim];
                    const double* kPeRow = &kPe[((b * s.seqLen + j) * s.kvHeads + g) * s.peDim];
                    double dot = 0;
                    for (int64_t d = 0; d < s.dim; ++d)
                        dot += qRow[d] * kvRow[d];
                    for (int64_t d = 0; d < s.peDim; ++d)
                        dot += qPeRow[d] * kPeRow[d];
                    score[j] = dot * scale;
                }
                const int64_t kvRow0 = (b * s.seqLen * s.kvHeads + g) * s.dim;
                const int64_t kvStride = s.kvHeads * s.dim;
                attendRange(score, 0, s.seqLen, kv, kvRow0, kvStride, s.dim, row);
                out.data.write(size_t((b * s.heads + h) * s.dim), row);
                if (s.numSplit <= 1)
                    continue;
                for (int64_t split = 0; split < s.numSplit; ++split) {
                    const int64_t begin = split * numBlocks / s.numSplit * blockN;
                    const int64_t end = std::min(s.seqLen, (split + 1) * numBlocks / s.numSplit * blockN);
                    const double lse = attendRange(score, begin, end, kv, kvRow0, kvStride, s.dim, row);
                    partial.data.write(size_t(((b * s.heads + h) * s.numSplit + split) * s.dim), row);
                    glse.data[(b * s.heads + h) * s.numSplit + split] = lse / std::log(2.0);
                }
            }
        }
        expected.emplace(6, std::move(out));
        if (s.numSplit > 1) {
            expected.emplace(4, std::move(glse));
            expected.emplace(5, std::move(partial));
        }
        return true;
    };
    // As for flash attention: the probabilities are rounded to float16 (S_shared) before the P @ KV GEMM
    // (|error| <= 2^-11 * max|KV|) and the output once to float16; with splits, the float16 partial
    // outputs add one more 2^-11 relative rounding before the combine. The CPU executor's worst error is
    // ~2.4e-4 (partials); atol 1e-3, rtol 5e-3 keep a 4x margin. glse (float32, |glse| ~ log2(seqlen)
    // plus a few) is within 1e-6 of exact, far inside.
    r.atol = 1e-3;
    r.rtol = 5e-3;
    return r;
}

} // namespace tb::reference
