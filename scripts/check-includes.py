#!/usr/bin/env python3
"""Include what you use, for the standard library: every C++ file that names a standard facility includes its
header itself.

A header that compiles only because another standard header happened to pull `<cstdint>` in breaks on the next
compiler: GCC 13's libstdc++ includes less transitively than Debian 12's GCC 12 (on the GPU machine,
`uint64_t` in a header without `<cstdint>` was an error). Each rule below is a name pattern and the header
that declares it; a file that matches the pattern and includes none of the listed headers is reported.
Comments and string literals are ignored. A source file (`X.cpp`) may rely on its own header (`X.h`).

Usage: scripts/check-includes.py [PATH ...]   (default: engine app views tests; exit 1 on findings)
"""
import os
import re
import sys

RULES = [
    (r"\b(?:std::)?u?int(?:8|16|32|64)_t\b|\bu?intptr_t\b|\bINT64_MAX\b|\bUINT64_MAX\b|\bINT32_MAX\b", ["cstdint"]),
    (r"\bstd::size_t\b|\bstd::ptrdiff_t\b|\bstd::nullptr_t\b|\bstd::byte\b|\boffsetof\b", ["cstddef"]),
    (r"\bstd::(?:w?string|to_string|stoi|stol|stoll|stoul|stoull|stod|stof|getline)\b", ["string"]),
    (r"\bstd::(?:w?string_view)\b", ["string_view"]),
    (r"\bstd::vector\b", ["vector"]),
    (r"\bstd::(?:multi)?map\b", ["map"]),
    (r"\bstd::(?:multi)?set\b", ["set"]),
    (r"\bstd::unordered_(?:multi)?map\b", ["unordered_map"]),
    (r"\bstd::unordered_(?:multi)?set\b", ["unordered_set"]),
    (r"\bstd::(?:optional|nullopt|make_optional)\b", ["optional"]),
    (r"\bstd::(?:variant|visit|holds_alternative|get_if|monostate)\b", ["variant"]),
    (r"\bstd::(?:function|reference_wrapper|ref|cref|hash|invoke|bind)\b", ["functional"]),
    (r"\bstd::(?:unique_ptr|shared_ptr|weak_ptr|make_unique|make_shared|enable_shared_from_this)\b", ["memory"]),
    (r"\bstd::(?:array)\b", ["array"]),
    (r"\bstd::(?:deque)\b", ["deque"]),
    (r"\bstd::(?:list)\b", ["list"]),
    (r"\bstd::(?:span)\b", ["span"]),
    (r"\bstd::(?:tuple|make_tuple|tie|get<\d)\b", ["tuple"]),
    (r"\bstd::(?:pair|make_pair|move|forward|swap|exchange|declval|in_place)\b", ["utility"]),
    (r"\bstd::(?:sort|stable_sort|min_element|max_element|find|find_if|any_of|all_of|none_of|count|count_if|"
     r"reverse|unique|lower_bound|upper_bound|fill|copy|transform|remove_if|clamp|max|min|equal|minmax|"
     r"binary_search|partition|nth_element|rotate|iota)\b(?!_)", ["algorithm", "numeric"]),
    (r"\bstd::(?:accumulate|iota|gcd|lcm|reduce|inner_product|partial_sum|midpoint)\b", ["numeric"]),
    (r"\bstd::numeric_limits\b", ["limits"]),
    (r"\bstd::(?:abs|fabs|sqrt|exp|exp2|log|log2|pow|floor|ceil|round|llround|lround|isnan|isinf|isfinite|"
     r"fmod|trunc|ldexp|frexp|nextafter|signbit|copysign|fma|tanh|sin|cos|erf)\b", ["cmath", "cstdlib"]),
    (r"\bstd::(?:memcpy|memset|memcmp|strlen|strcmp|strncmp|strerror|strchr)\b|(?<![\w:.>])(?:memcpy|memset|"
     r"memcmp|strlen|strerror)\s*\(", ["cstring"]),
    (r"\bstd::(?:printf|fprintf|snprintf|fputs|fopen|fclose|fflush|fwrite|fread|puts|FILE)\b|(?<![\w:.>])"
     r"(?:printf|fprintf|snprintf|fputs|fopen|fflush)\s*\(|\bstderr\b|\bstdout\b", ["cstdio"]),
    (r"\bstd::(?:getenv|exit|abort|strtol|strtoll|strtoull|strtod|atoi|system|malloc|free|EXIT_SUCCESS|"
     r"EXIT_FAILURE)\b|(?<![\w:.>])getenv\s*\(|\bEXIT_(?:SUCCESS|FAILURE)\b", ["cstdlib"]),
    (r"\bstd::(?:ostringstream|istringstream|stringstream)\b", ["sstream"]),
    (r"\bstd::(?:ifstream|ofstream|fstream)\b", ["fstream"]),
    (r"\bstd::(?:cout|cerr|cin|clog)\b", ["iostream"]),
    (r"\bstd::(?:ostream)\b", ["ostream", "iosfwd", "iostream", "sstream", "fstream"]),
    (r"\bstd::(?:istream)\b", ["istream", "iosfwd", "iostream", "sstream", "fstream"]),
    (r"\bstd::(?:setw|setprecision|fixed|hex)\b", ["iomanip", "ios"]),
    (r"\bstd::chrono\b", ["chrono"]),
    (r"\bstd::(?:thread|this_thread)\b", ["thread"]),
    (r"\bstd::(?:mutex|lock_guard|unique_lock|scoped_lock)\b", ["mutex"]),
    (r"\bstd::(?:condition_variable)\b", ["condition_variable"]),
    (r"\bstd::(?:atomic)\b", ["atomic"]),
    (r"\bstd::(?:future|promise|async)\b", ["future"]),
    (r"\bstd::(?:runtime_error|logic_error|invalid_argument|out_of_range)\b", ["stdexcept"]),
    (r"\bstd::(?:exception)\b", ["exception", "stdexcept"]),
    (r"\bstd::(?:is_same_v|is_same|enable_if_t|decay_t|remove_cvref_t|is_integral_v|is_floating_point_v|"
     r"conditional_t|underlying_type_t|is_enum_v|is_arithmetic_v|is_trivially_copyable_v)\b", ["type_traits"]),
    (r"\bstd::(?:from_chars|to_chars|chars_format)\b", ["charconv"]),
    (r"\bstd::(?:bit_cast|popcount|countl_zero|countr_zero|bit_width|has_single_bit|bit_ceil|bit_floor)\b",
     ["bit"]),
    (r"\bstd::filesystem\b", ["filesystem"]),
    (r"\bstd::(?:regex|smatch|regex_search|regex_match|regex_replace)\b", ["regex"]),
    (r"\bstd::(?:random_device|mt19937(?:_64)?|uniform_int_distribution|uniform_real_distribution|"
     r"normal_distribution)\b", ["random"]),
    (r"\bstd::(?:isdigit|isalpha|isalnum|isspace|isupper|islower|tolower|toupper|isxdigit)\b", ["cctype"]),
    (r"\bstd::(?:queue|priority_queue)\b", ["queue"]),
    (r"\bstd::(?:stack)\b", ["stack"]),
    (r"\bstd::(?:bitset)\b", ["bitset"]),
    (r"\bstd::(?:complex)\b", ["complex"]),
    (r"\bstd::(?:initializer_list)\b", ["initializer_list"]),
    (r"\bstd::(?:source_location)\b", ["source_location"]),
    (r"\bstd::(?:format)\b", ["format"]),
]
COMPILED = [(re.compile(p), headers) for p, headers in RULES]
INCLUDE = re.compile(r'^\s*#\s*include\s*[<"]([^>"]+)[>"]', re.M)
SUFFIXES = (".h", ".hpp", ".cpp", ".cc", ".cu", ".cuh")


# Comments, raw strings, string and character literals, in one alternation (first match wins at a position).
TOKENS = re.compile(r'//[^\n]*|/\*.*?\*/|R"([^(]*)\(.*?\)\1"|"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\'',
                    re.S)


def strip_comments_and_strings(text):
    # Keeps line structure (newlines) so that findings keep their line numbers.
    return TOKENS.sub(lambda m: "\n" * m.group(0).count("\n"), text)


def own_header(path):
    base, ext = os.path.splitext(path)
    if ext in (".cpp", ".cc", ".cu"):
        for h in (".h", ".hpp", ".cuh"):
            if os.path.exists(base + h):
                return base + h
    return None


def includes_of(path):
    with open(path, encoding="utf-8", errors="replace") as f:
        return set(INCLUDE.findall(f.read()))


def check(path):
    with open(path, encoding="utf-8", errors="replace") as f:
        raw = f.read()
    code = strip_comments_and_strings(raw)
    have = set(INCLUDE.findall(raw))
    header = own_header(path)
    if header:
        have |= includes_of(header)
    findings = []
    for pattern, headers in COMPILED:
        if any(h in have for h in headers):
            continue
        m = pattern.search(code)
        if m:
            line = code.count("\n", 0, m.start()) + 1
            findings.append(f"{path}:{line}: '{m.group(0)}' needs #include <{headers[0]}>")
    return findings


def main():
    root = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
    paths = sys.argv[1:] or [os.path.join(root, d) for d in ("engine", "app", "views", "tests")]
    findings = []
    for top in paths:
        files = [top] if os.path.isfile(top) else [
            os.path.join(d, f) for d, _, fs in os.walk(top) for f in fs if f.endswith(SUFFIXES)]
        for f in sorted(files):
            findings += check(f)
    for finding in findings:
        print(os.path.relpath(finding, root) if finding.startswith(root) else finding)
    if findings:
        print(f"check-includes: {len(findings)} missing standard include(s)")
        return 1
    print("check-includes: every file includes the standard headers it uses")
    return 0


if __name__ == "__main__":
    sys.exit(main())
