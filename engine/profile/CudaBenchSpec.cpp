// Directives of hand-written CUDA bench files (see CudaBenchSpec.h).
#include "engine/profile/CudaBenchSpec.h"

#include "engine/codegen/DeviceHeader.h"
#include "engine/codegen/HopperDeviceHeader.h"
#include "engine/gpu/RunnerProtocol.h"
#include "engine/support/TextScan.h"

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <sstream>

namespace tb::profile {

namespace {

// Arithmetic on non-negative numbers: + - * / and parentheses ("2*4*8192*8192", "262144/8"); false
// for anything else, a division by zero, or more than 64 tokens deep.
struct Arith {
    const std::string& s;
    size_t pos = 0;
    int depth = 0;
    void space() {
        while (pos < s.size() && s[pos] == ' ')
            ++pos;
    }
    bool atom(double& v) {
        space();
        if (pos < s.size() && s[pos] == '(') {
            if (++depth > 64)
                return false;
            ++pos;
            if (!sum(v))
                return false;
            space();
            --depth;
            return pos < s.size() && s[pos++] == ')';
        }
        const char* begin = s.c_str() + pos;
        char* end = nullptr;
        v = std::strtod(begin, &end);
        if (end == begin || *begin == '-' || *begin == '+')
            return false;
        pos += size_t(end - begin);
        return true;
    }
    bool product(double& v) {
        if (!atom(v))
            return false;
        for (space(); pos < s.size() && (s[pos] == '*' || s[pos] == '/'); space()) {
            char op = s[pos++];
            double r = 0;
            if (!atom(r) || (op == '/' && r == 0))
                return false;
            v = op == '*' ? v * r : v / r;
        }
        return true;
    }
    bool sum(double& v) {
        if (!product(v))
            return false;
        for (space(); pos < s.size() && (s[pos] == '+' || s[pos] == '-'); space()) {
            char op = s[pos++];
            double r = 0;
            if (!product(r))
                return false;
            v = op == '+' ? v + r : v - r;
        }
        return true;
    }
};

bool evalProduct(const std::string& text, double& out) {
    Arith a{text};
    out = 0;
    if (text.empty() || text.size() > 400 || !a.sum(out))
        return false;
    a.space();
    return a.pos == text.size() && out >= 0;
}

// grid= and block= components may be expressions: "grid=262144/8,1" -> "grid=32768,1".
bool evalLaunchFields(const std::string& text, std::string& out) {
    std::stringstream in(text);
    std::string word;
    out.clear();
    while (in >> word) {
        size_t eq = word.find('=');
        std::string key = eq == std::string::npos ? "" : word.substr(0, eq);
        if (key == "grid" || key == "block" || key == "smem") {
            std::string value = word.substr(eq + 1), result;
            std::stringstream parts(value);
            std::string part;
            while (std::getline(parts, part, ',')) {
                double v = 0;
                if (!evalProduct(part, v) || v != double(int64_t(v)) || v > 2147483647.0)
                    return false;
                result += (result.empty() ? "" : ",") + std::to_string(int64_t(v));
            }
            word = key + "=" + result;
        }
        out += (out.empty() ? "" : " ") + word;
    }
    return true;
}

std::map<std::string, std::string> fields(const std::string& text) {
    std::map<std::string, std::string> out;
    std::stringstream in(text);
    std::string word;
    while (in >> word) {
        size_t eq = word.find('=');
        if (eq != std::string::npos)
            out[word.substr(0, eq)] = word.substr(eq + 1);
    }
    return out;
}

// "hopper wgmma=a,b" / "portable": the generated device header's text.
bool deviceHeaderDirective(const std::string& value, std::string& text, std::string& error) {
    std::stringstream words(value);
    std::string word;
    bool hopper = false, portable = false;
    codegen::HopperHeaderNeeds needs;
    while (words >> word) {
        if (word == "hopper") {
            hopper = true;
        } else if (word == "portable") {
            portable = true;
        } else if (word.rfind("wgmma=", 0) == 0) {
            std::stringstream shapes(word.substr(6));
            std::string name;
            while (std::getline(shapes, name, ',')) {
                codegen::WgmmaShape shape;
                if (!codegen::parseWgmmaShape(name, shape, &error))
                    return false;
                needs.wgmma.push_back(shape);
            }
        } else {
            error = "'" + word + "' is not hopper, portable or wgmma=<shapes>";
            return false;
        }
    }
    if (!hopper && !portable) {
        error = "names neither hopper nor portable";
        return false;
    }
    if (!hopper && !needs.wgmma.empty()) {
        error = "wgmma= needs hopper";
        return false;
    }
    text = codegen::cudaDeviceHeader();
    if (hopper)
        text += codegen::hopperDeviceHeader(needs);
    return true;
}

// "NAME BUFFER field=value...": the runner's tensormap request, with products allowed in dims/strides/box.
bool tensorMapDirective(const std::string& value, std::string& name, gpu::TensorMapSpec& map,
                        std::string& error) {
    std::stringstream words(value);
    std::string word, line = "tensormap";
    while (words >> word) {
        size_t eq = word.find('=');
        std::string key = eq == std::string::npos ? "" : word.substr(0, eq);
        if (key == "dims" || key == "strides" || key == "box" || key == "offset") {
            std::stringstream parts(word.substr(eq + 1));
            std::string part, result;
            while (std::getline(parts, part, ',')) {
                double v = 0;
                if (!evalProduct(part, v) || v != double(int64_t(v))) {
                    error = key + " value '" + part + "' is not a whole number";
                    return false;
                }
                result += (result.empty() ? "" : ",") + std::to_string(int64_t(v));
            }
            word = key + "=" + result;
        }
        line += " " + word;
    }
    if (!gpu::parseTensorMapRequest(gpu::parseProtocolLine(line), name, map, error))
        return false;
    if (std::string problem = gpu::tensorMapProblem(map, 0); !problem.empty()) {
        error = problem;
        return false;
    }
    return true;
}

} // namespace

int benchDtypeBytes(const std::string& dtype) {
    if (dtype == "f64" || dtype == "i64")
        return 8;
    if (dtype == "f32" || dtype == "i32" || dtype == "u32")
        return 4;
    if (dtype == "f16" || dtype == "bf16")
        return 2;
    if (dtype == "i8" || dtype == "u8")
        return 1;
    return 0;
}

bool parseCudaBenchSpec(const std::string& text,
                        const std::vector<std::pair<std::string, std::string>>& overrides,
                        CudaBenchSpec& spec, DiagnosticEngine& diags) {
    spec = CudaBenchSpec{};
    std::vector<std::pair<std::string, std::string>> directives; // (kind, value), in file order
    std::map<std::string, std::string> params;
    std::stringstream in(text);
    std::string line;
    for (int n = 0; std::getline(in, line) && n < 1000000; ++n) {
        std::string t = trimmedCopy(line);
        const std::string prefix = "// tilebench-";
        if (t.rfind(prefix, 0) != 0)
            continue;
        size_t colon = t.find(':');
        if (colon == std::string::npos)
            continue;
        std::string kind = t.substr(prefix.size(), colon - prefix.size());
        std::string value = trimmedCopy(t.substr(colon + 1));
        if (kind == "param") {
            size_t eq = value.find('=');
            if (eq == std::string::npos || eq == 0) {
                diags.error("bench-bad-directive", {},
                            "line " + std::to_string(n + 1) + ": tilebench-param '" + value +
                                "' is not NAME=VALUE");
                return false;
            }
            params[trimmedCopy(value.substr(0, eq))] = trimmedCopy(value.substr(eq + 1));
        } else {
            directives.emplace_back(kind, value);
        }
    }
    for (const auto& [name, value] : overrides) {
        if (!params.count(name)) {
            std::string known;
            for (const auto& [p, v] : params)
                known += (known.empty() ? "" : ", ") + p;
            diags.error("bench-unknown-param", {}, "the file has no parameter '" + name + "'",
                        known.empty() ? "declare it with '// tilebench-param: " + name + "=VALUE'"
                                      : "its parameters are " + known);
            return false;
        }
        params[name] = value;
    }
    auto substitute = [&](std::string s) {
        for (int guard = 0; guard < 256; ++guard) {
            size_t open = s.find("${");
            if (open == std::string::npos)
                break;
            size_t close = s.find('}', open);
            if (close == std::string::npos)
                break;
            std::string name = s.substr(open + 2, close - open - 2);
            auto it = params.find(name);
            s.replace(open, close - open + 1, it == params.end() ? "?" + name : it->second);
        }
        return s;
    };
    for (const auto& [kind, raw] : directives) {
        std::string value = substitute(raw);
        if (value.find('?') != std::string::npos && raw.find("${") != std::string::npos) {
            diags.error("bench-unknown-param", {},
                        "tilebench-" + kind + " '" + raw + "' uses an undeclared parameter",
                        "declare it with '// tilebench-param: NAME=VALUE'");
            return false;
        }
        if (kind == "kernel") {
            spec.kernel = value;
        } else if (kind == "launch") {
            if (!evalLaunchFields(value, spec.launchFields)) {
                diags.error("bench-bad-directive", {},
                            "tilebench-launch '" + value +
                                "' has a grid/block/smem value "
                                "that is not a whole number",
                            "write e.g. grid=${ROWS}/8,1 block=256");
                return false;
            }
        } else if (kind == "buffer") {
            std::stringstream words(value);
            BenchBuffer b;
            std::string countText;
            words >> b.name >> b.dtype >> countText >> b.init;
            double count = 0;
            if (b.name.empty() || !benchDtypeBytes(b.dtype) || !evalProduct(countText, count) || count < 1 ||
                count > 4e9) {
                diags.error("bench-bad-buffer", {},
                            "tilebench-buffer '" + value + "' is not NAME DTYPE COUNT [INIT]",
                            "e.g. '// tilebench-buffer: x f16 4096*4096 seed=1' (dtypes f32 f16 bf16 f64 i32 "
                            "u32 i64 i8 u8)");
                return false;
            }
            b.count = static_cast<uint64_t>(count);
            if (b.init.empty())
                b.init = "zero";
            if (b.init != "zero" && b.init != "iota" && b.init.rfind("seed=", 0) != 0) {
                diags.error("bench-bad-buffer", {},
                            "buffer init '" + b.init + "' is not seed=N, zero or iota");
                return false;
            }
            spec.buffers.push_back(b);
        } else if (kind == "work") {
            auto f = fields(value);
            if ((f.count("flops") && !evalProduct(f["flops"], spec.flops)) ||
                (f.count("bytes") && !evalProduct(f["bytes"], spec.bytes))) {
                diags.error("bench-bad-directive", {},
                            "tilebench-work '" + value + "' is not flops=N bytes=N");
                return false;
            }
        } else if (kind == "gemm") {
            auto f = fields(value);
            double m = 0, n = 0, k = 0;
            if (!evalProduct(f["m"], m) || !evalProduct(f["n"], n) || !evalProduct(f["k"], k) || m < 1 ||
                n < 1 || k < 1 || m > 65536 || n > 65536 || k > 65536) {
                diags.error("bench-bad-directive", {},
                            "tilebench-gemm '" + value + "' is not m=M n=N k=K (1..65536)");
                return false;
            }
            spec.gemmM = int(m);
            spec.gemmN = int(n);
            spec.gemmK = int(k);
        } else if (kind == "device-header") {
            std::string error;
            if (!deviceHeaderDirective(value, spec.deviceHeader, error)) {
                diags.error("bench-bad-directive", {}, "tilebench-device-header '" + value + "': " + error,
                            "write e.g. 'hopper wgmma=m64n256k16_f32_f16_ss' or 'portable'");
                return false;
            }
        } else if (kind == "tensormap") {
            std::string name, error;
            gpu::TensorMapSpec map;
            if (!tensorMapDirective(value, name, map, error)) {
                diags.error("bench-bad-directive", {}, "tilebench-tensormap '" + value + "': " + error,
                            "write e.g. 'tA a dtype=f16 rank=2 dims=${K},${M} strides=${K}*2 box=64,128 "
                            "swizzle=128B'");
                return false;
            }
            spec.tensorMaps.emplace_back(name, map);
        } else {
            diags.error("bench-bad-directive", {}, "unknown directive 'tilebench-" + kind + "'",
                        "known: param, kernel, buffer, launch, work, gemm, device-header, tensormap");
            return false;
        }
    }
    if (spec.kernel.empty() || spec.launchFields.find("grid=") == std::string::npos) {
        diags.error("bench-missing-directive", {},
                    "a CUDA bench file needs '// tilebench-kernel: NAME' and "
                    "'// tilebench-launch: grid=.. block=.. args=..'");
        return false;
    }
    // The generated header first: the parameters' #defines (M, N, ...) must not rename its identifiers.
    spec.source = spec.deviceHeader;
    for (const auto& [name, value] : params) {
        spec.source += "#define " + name + " " + value + "\n";
        spec.params.emplace_back(name, value);
    }
    // Keep the file's own line numbers in the line table (and so in SASS-to-line attribution).
    if (!spec.source.empty())
        spec.source += "#line 1\n";
    spec.source += text;
    return true;
}

} // namespace tb::profile
