// Helpers shared by the elaborator tests: parse and elaborate a program held in memory or loaded from
// tests/engine/elaborate/programs/, list its diagnostics as "code@line:col", and find IR nodes by kind.
#pragma once

#include "engine/elaborate/Elaborator.h"
#include "engine/frontend/Parser.h"

#include <fstream>
#include <functional>
#include <memory>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

namespace tb::test {

struct Elaborated {
    SourceManager sources;
    DiagnosticEngine diagnostics;
    FileId file = 0;
    ast::Module ast;
    std::unique_ptr<ir::Module> module;

    std::vector<std::string> codes() const {
        std::vector<std::string> out;
        for (const Diagnostic& d : diagnostics.diagnostics()) {
            if (!d.range.valid) {
                out.push_back(d.code + "@?");
                continue;
            }
            LineCol lc = sources.file(d.range.file).lineCol(d.range.begin);
            out.push_back(d.code + "@" + std::to_string(lc.line) + ":" + std::to_string(lc.column));
        }
        return out;
    }
    std::string report() const { return formatDiagnostics(sources, diagnostics.diagnostics()); }
    const Diagnostic* first(const std::string& code) const {
        for (const Diagnostic& d : diagnostics.diagnostics())
            if (d.code == code)
                return &d;
        return nullptr;
    }
    const ir::Buffer* buffer(const std::string& name) const {
        if (!module)
            return nullptr;
        for (const ir::Buffer& b : module->buffers())
            if (b.name == name)
                return &b;
        return nullptr;
    }
    const ir::SpecializationParam* param(const std::string& name) const {
        if (!module)
            return nullptr;
        for (const ir::SpecializationParam& p : module->specialization)
            if (p.name == name)
                return &p;
        return nullptr;
    }
};

inline std::unique_ptr<Elaborated> elaborateText(std::string text, ElaborateOptions options = {}) {
    auto e = std::make_unique<Elaborated>();
    e->file = e->sources.addFile("test.py", std::move(text));
    e->ast = parseModule(e->sources, e->file, e->diagnostics);
    if (!e->diagnostics.hasErrors())
        e->module = elaborate(e->sources, e->ast, options, e->diagnostics);
    return e;
}

inline std::string loadProgram(const std::string& name) {
    for (std::string dir : {std::string(TILEBENCH_TESTS_DIR) + "/programs/",
                            std::string(TILEBENCH_TESTS_DIR) + "/engine/elaborate/programs/"}) {
        std::ifstream in(dir + name);
        if (in) {
            std::stringstream ss;
            ss << in.rdbuf();
            return ss.str();
        }
    }
    return {};
}

// Every statement under `s` (pre-order), including `s`.
inline void walk(const ir::StmtPtr& s, const std::function<void(const ir::Stmt&)>& f) {
    if (!s)
        return;
    f(*s);
    for (const ir::StmtPtr& c : s->stmts)
        walk(c, f);
    walk(s->body, f);
    walk(s->elseBody, f);
}

inline std::vector<const ir::Stmt*> collect(const ir::StmtPtr& root, ir::StmtKind kind) {
    std::vector<const ir::Stmt*> out;
    walk(root, [&](const ir::Stmt& s) {
        if (s.kind == kind)
            out.push_back(&s);
    });
    return out;
}

inline std::string shapeOf(const std::vector<ir::ExprPtr>& dims) {
    std::string out = "[";
    for (size_t k = 0; k < dims.size(); ++k)
        out += (k ? ", " : "") + ir::printExpr(ir::simplify(dims[k]));
    return out + "]";
}

inline std::string regionOf(const ir::Region& r) {
    std::string out = r.buffer ? r.buffer->name : "?";
    out += "[";
    for (size_t k = 0; k < r.mins.size(); ++k)
        out += (k ? ", " : "") + ir::printExpr(ir::simplify(r.mins[k])) + " +" +
               ir::printExpr(ir::simplify(r.extents[k]));
    return out + "]";
}

} // namespace tb::test
