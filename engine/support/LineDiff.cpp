// Line diff; see LineDiff.h. Myers, "An O(ND) Difference Algorithm and Its Variations" (1986): the greedy
// forward search over diagonals, keeping each step's furthest-reaching x to walk the path back.
#include "engine/support/LineDiff.h"

#include <algorithm>
#include <cstddef>

namespace tb {

std::vector<std::string> splitTextLines(const std::string& text) {
    std::vector<std::string> lines;
    size_t start = 0;
    while (start < text.size()) {
        size_t end = text.find('\n', start);
        if (end == std::string::npos)
            end = text.size();
        lines.push_back(text.substr(start, end - start));
        start = end + 1;
    }
    return lines;
}

namespace {

// The edit script of a[a0, a1) against b[b0, b1), appended to `out` in order; false past maxEdits.
bool myers(const std::vector<std::string>& a, size_t a0, size_t a1, const std::vector<std::string>& b,
           size_t b0, size_t b1, int maxEdits, std::vector<DiffLine>& out) {
    const int n = int(a1 - a0), m = int(b1 - b0), offset = n + m + 1;
    std::vector<int> v(size_t(2 * offset + 1), 0);
    std::vector<std::vector<int>> trace; // trace[d]: v over k in [-d, d] before step d
    int found = -1;
    for (int d = 0; d <= std::min(n + m, maxEdits) && found < 0; ++d) {
        trace.emplace_back(v.begin() + offset - d, v.begin() + offset + d + 1);
        for (int k = -d; k <= d; k += 2) {
            int x = (k == -d || (k != d && v[size_t(offset + k - 1)] < v[size_t(offset + k + 1)]))
                        ? v[size_t(offset + k + 1)]
                        : v[size_t(offset + k - 1)] + 1;
            int y = x - k;
            while (x < n && y < m && a[a0 + size_t(x)] == b[b0 + size_t(y)])
                ++x, ++y;
            v[size_t(offset + k)] = x;
            if (x >= n && y >= m) {
                found = d;
                break;
            }
        }
    }
    if (found < 0)
        return false;
    std::vector<DiffLine> reversed;
    int x = n, y = m;
    auto same = [&] {
        --x, --y;
        reversed.push_back({DiffOp::Same, a[a0 + size_t(x)], int(a0) + x + 1, int(b0) + y + 1});
    };
    for (int d = found; d > 0; --d) {
        const std::vector<int>& before = trace[size_t(d)];
        auto at = [&](int k) { return before[size_t(k + d)]; };
        const int k = x - y;
        const bool down = k == -d || (k != d && at(k - 1) < at(k + 1));
        const int prevK = down ? k + 1 : k - 1;
        const int prevX = at(prevK), prevY = prevX - prevK;
        while (x > prevX && y > prevY)
            same();
        if (down) {
            --y;
            reversed.push_back({DiffOp::Added, b[b0 + size_t(y)], 0, int(b0) + y + 1});
        } else {
            --x;
            reversed.push_back({DiffOp::Removed, a[a0 + size_t(x)], int(a0) + x + 1, 0});
        }
    }
    while (x > 0 && y > 0)
        same();
    out.insert(out.end(), reversed.rbegin(), reversed.rend());
    return true;
}

} // namespace

std::vector<DiffLine> diffLines(const std::vector<std::string>& a, const std::vector<std::string>& b,
                                int maxEdits) {
    std::vector<DiffLine> out;
    // The common head and tail cost nothing; code generated for two settings mostly differs in the middle.
    size_t head = 0;
    while (head < a.size() && head < b.size() && a[head] == b[head])
        ++head;
    size_t tail = 0;
    while (tail < a.size() - head && tail < b.size() - head &&
           a[a.size() - 1 - tail] == b[b.size() - 1 - tail])
        ++tail;
    for (size_t i = 0; i < head; ++i)
        out.push_back({DiffOp::Same, a[i], int(i) + 1, int(i) + 1});
    if (!myers(a, head, a.size() - tail, b, head, b.size() - tail, maxEdits, out)) {
        for (size_t i = head; i < a.size() - tail; ++i)
            out.push_back({DiffOp::Removed, a[i], int(i) + 1, 0});
        for (size_t i = head; i < b.size() - tail; ++i)
            out.push_back({DiffOp::Added, b[i], 0, int(i) + 1});
    }
    for (size_t t = tail; t > 0; --t)
        out.push_back({DiffOp::Same, a[a.size() - t], int(a.size() - t) + 1, int(b.size() - t) + 1});
    return out;
}

std::string unifiedDiff(const std::vector<DiffLine>& lines, const std::string& nameA,
                        const std::string& nameB, int context) {
    std::string out;
    const size_t count = lines.size();
    size_t i = 0;
    while (i < count) {
        if (lines[i].op == DiffOp::Same) {
            ++i;
            continue;
        }
        // A hunk: from `context` lines before this change to `context` lines after the last change that
        // is at most 2 * context lines from the next.
        size_t begin = i >= size_t(context) ? i - size_t(context) : 0, end = i;
        while (end < count) {
            size_t next = end;
            while (next < count && lines[next].op != DiffOp::Same)
                ++next;
            size_t gap = next;
            while (gap < count && lines[gap].op == DiffOp::Same)
                ++gap;
            if (gap < count && gap - next <= size_t(2 * context)) {
                end = gap;
                continue;
            }
            end = std::min(count, next + size_t(context));
            break;
        }
        int startA = 0, startB = 0, lenA = 0, lenB = 0;
        for (size_t k = begin; k < end; ++k) {
            const DiffLine& l = lines[k];
            if (l.op != DiffOp::Added) {
                startA = startA ? startA : l.lineA;
                ++lenA;
            }
            if (l.op != DiffOp::Removed) {
                startB = startB ? startB : l.lineB;
                ++lenB;
            }
        }
        if (out.empty())
            out = "--- " + nameA + "\n+++ " + nameB + "\n";
        out += "@@ -" + std::to_string(startA) + "," + std::to_string(lenA) + " +" + std::to_string(startB) +
               "," + std::to_string(lenB) + " @@\n";
        for (size_t k = begin; k < end; ++k)
            out += (lines[k].op == DiffOp::Same      ? " "
                    : lines[k].op == DiffOp::Removed ? "-"
                                                     : "+") +
                   lines[k].text + "\n";
        i = end;
    }
    return out;
}

} // namespace tb
