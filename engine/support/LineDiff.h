// A line diff of two texts (Myers' O(ND) shortest edit script) and its unified form, as `diff -u` prints
// it: what the code views and `tilec emit cuda --against` show between two parameter settings.
#pragma once

#include <string>
#include <vector>

namespace tb {

enum class DiffOp { Same, Removed, Added };

struct DiffLine {
    DiffOp op = DiffOp::Same;
    std::string text;
    int lineA = 0; // 1-based line in the first text (0 for an added line)
    int lineB = 0; // 1-based line in the second text (0 for a removed line)
};

// The lines of `text` without their newlines ("a\nb\n" gives {"a", "b"}).
std::vector<std::string> splitTextLines(const std::string& text);

// Every line of a and b in order, each kept, removed or added: a shortest edit script. Past `maxEdits`
// differences (very different texts) the middle is given as all of a's lines removed, then all of b's added.
std::vector<DiffLine> diffLines(const std::vector<std::string>& a, const std::vector<std::string>& b,
                                int maxEdits = 4000);

// `diff -u` text: "--- nameA", "+++ nameB", then hunks "@@ -l,n +l,n @@" with `context` lines around each
// change. Empty when the texts are equal.
std::string unifiedDiff(const std::vector<DiffLine>& lines, const std::string& nameA,
                        const std::string& nameB, int context = 3);

} // namespace tb
