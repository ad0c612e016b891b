// Fitting a table over (thread, register) to a sum of bit fields; see BitFit.h.
#include "engine/codegen/BitFit.h"

#include <algorithm>
#include <optional>
#include <vector>

namespace tb::codegen {

namespace {

int bitsFor(int64_t extent) {
    int bits = 0;
    while ((int64_t(1) << bits) < extent)
        ++bits;
    return bits;
}

// Terms of one variable: runs of consecutive bits whose coefficients double (c, 2c, 4c, ...) become one
// `((v >> s) & mask) * c` term.
void appendTerms(std::vector<std::string>& terms, const std::vector<int64_t>& coef, const std::string& name,
                 int64_t extent) {
    size_t k = 0;
    while (k < coef.size()) {
        if (coef[k] == 0) {
            ++k;
            continue;
        }
        size_t end = k + 1;
        while (end < coef.size() && coef[end] == coef[end - 1] * 2)
            ++end;
        int64_t c = coef[k];
        std::string field = name;
        if (k > 0)
            field = "(" + name + " >> " + std::to_string(k) + ")";
        bool coversTop = (int64_t(1) << end) >= extent;
        if (!coversTop)
            field = "(" + field + " & " + std::to_string((int64_t(1) << (end - k)) - 1) + ")";
        if (c == 1)
            terms.push_back(field);
        else
            terms.push_back(std::to_string(c) + " * " + field);
        k = end;
    }
}

} // namespace

bool BitFit::dependsOnThread() const {
    if (partition)
        return true;
    for (int64_t c : threadCoef)
        if (c != 0)
            return true;
    return false;
}

bool BitFit::isConstant() const {
    if (partition || dependsOnThread())
        return false;
    for (int64_t c : regCoef)
        if (c != 0)
            return false;
    return true;
}

std::string BitFit::Partition::flatC(int64_t threads, int64_t vector, const std::string& threadName,
                                     const std::string& regName) {
    const std::string v = std::to_string(vector);
    std::string group = vector == 1 ? regName : "(" + regName + " / " + v + ")";
    std::string flat = "(" + group + " * " + std::to_string(threads) + " + " + threadName + ")";
    return vector == 1 ? flat : "(" + flat + " * " + v + " + " + regName + " % " + v + ")";
}

std::string BitFit::toC(const std::string& threadName, const std::string& regName) const {
    if (partition) {
        const Partition& p = *partition;
        std::string flat = Partition::flatC(p.threads, p.vector, threadName, regName);
        std::string text = p.stride == 1 ? flat : "(" + flat + " / " + std::to_string(p.stride) + ")";
        return "(" + text + " % " + std::to_string(p.extent) + ")";
    }
    std::vector<std::string> terms;
    appendTerms(terms, threadCoef, threadName, int64_t(1) << threadCoef.size());
    appendTerms(terms, regCoef, regName, int64_t(1) << regCoef.size());
    std::string text;
    for (const std::string& t : terms)
        text += (text.empty() ? "" : " + ") + t;
    if (base != 0 || text.empty())
        text += (text.empty() ? "" : " + ") + std::to_string(base);
    return text;
}

BitFit BitFit::registerPart() const {
    BitFit part = *this;
    part.base = 0;
    std::fill(part.threadCoef.begin(), part.threadCoef.end(), 0);
    return part;
}

BitFit fitOverBits(const std::vector<std::optional<int64_t>>& values, int64_t threads, int64_t regs) {
    BitFit fit;
    if (threads < 1 || regs < 1 || int64_t(values.size()) != threads * regs || !values[0])
        return fit;
    auto at = [&](int64_t t, int64_t r) { return values[size_t(t * regs + r)]; };
    fit.base = *values[0];
    int tBits = bitsFor(threads), rBits = bitsFor(regs);
    // The coefficient of a bit: the difference between two known slots that differ only in that bit (the
    // basis slot (2^k, 0) first; unused slots are skipped).
    auto coefficient = [&](bool thread, int k, int64_t& out) {
        int64_t bit = int64_t(1) << k;
        for (int64_t t = 0; t < threads; ++t)
            for (int64_t r = 0; r < regs; ++r) {
                if ((thread ? t : r) & bit)
                    continue;
                int64_t t2 = thread ? t | bit : t, r2 = thread ? r : r | bit;
                if (t2 >= threads || r2 >= regs)
                    continue;
                auto a = at(t, r), b = at(t2, r2);
                if (a && b) {
                    out = *b - *a;
                    return true;
                }
            }
        return false;
    };
    for (int k = 0; k < tBits; ++k) {
        int64_t c = 0;
        if (!coefficient(true, k, c))
            return fit;
        fit.threadCoef.push_back(c);
    }
    for (int k = 0; k < rBits; ++k) {
        int64_t c = 0;
        if (!coefficient(false, k, c))
            return fit;
        fit.regCoef.push_back(c);
    }
    // The fit is a thread part plus a register part: tabulate both once, then check every known slot.
    auto partOf = [](const std::vector<int64_t>& coef, int64_t count) {
        std::vector<int64_t> part(size_t(count), 0);
        for (int64_t i = 0; i < count; ++i)
            for (size_t k = 0; k < coef.size(); ++k)
                if ((i >> k) & 1)
                    part[size_t(i)] += coef[k];
        return part;
    };
    const std::vector<int64_t> threadPart = partOf(fit.threadCoef, threads),
                               regPart = partOf(fit.regCoef, regs);
    for (int64_t t = 0; t < threads; ++t) {
        const int64_t rowBase = fit.base + threadPart[size_t(t)];
        for (int64_t r = 0; r < regs; ++r) {
            const std::optional<int64_t>& v = values[size_t(t * regs + r)];
            if (v && rowBase + regPart[size_t(r)] != *v)
                return fit;
        }
    }
    fit.ok = true;
    return fit;
}

} // namespace tb::codegen
