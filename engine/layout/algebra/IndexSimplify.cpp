// The IndexExpr simplifier. It works bottom-up: every sum and constant product is brought into an affine
// normal form (sum of coefficient * atom plus a constant, atoms ordered by their first variable and then
// their text), and floordiv/floormod by a positive constant use the variables' ranges:
//   x // c = 0 and x % c = x           when 0 <= x < c
//   (c*a + b) // c = a + b // c,  (c*a + b) % c = b % c        (terms whose coefficient c divides)
//   (g*a + r) // c = a // (c/g),  (g*a + r) % c = g*(a % (c/g)) + r   when g | c and 0 <= r < g
//   (x // a) // b = x // (a*b),   (x % m) % c = x % c  when c | m
//   c*(x // c) + x % c = x
// Bitwise and/or/xor and min/max fold constants, drop identities and use ranges (x & (2^k-1) = x % 2^k
// for x >= 0). Anything that would overflow int64 is left as it is.
#include "engine/layout/algebra/IndexExpr.h"
#include "engine/layout/algebra/IndexMath.h"

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace tb::layout {

namespace {

// Deeper trees are returned unchanged so that no input can exhaust the stack.
constexpr int kMaxSimplifyDepth = 400;

struct Term {
    IndexExpr atom;
    int64_t coef = 1;
    std::string key; // atom text
};

struct Linear {
    std::vector<Term> terms;
    int64_t constant = 0;
    bool overflow = false;
};

std::string firstVariable(const IndexExpr& e) {
    std::vector<std::string> vars = variablesOf(e);
    return vars.empty() ? std::string() : vars.front();
}

class Simplifier {
public:
    IndexExpr run(const IndexExpr& e);

private:
    IndexExpr simplifyDiv(const IndexExpr& a, int64_t c);
    IndexExpr simplifyMod(const IndexExpr& a, int64_t c);
    IndexExpr simplifyBitwise(IndexExprKind kind, IndexExpr a, IndexExpr b);
    IndexExpr simplifyMinMax(IndexExprKind kind, const IndexExpr& a, const IndexExpr& b);
};

void addTerm(Linear& l, const IndexExpr& atom, int64_t coef) {
    std::string key = atom.toString();
    for (Term& t : l.terms) {
        if (t.key == key) {
            auto sum = checkedAdd(t.coef, coef);
            if (!sum)
                l.overflow = true;
            else
                t.coef = *sum;
            return;
        }
    }
    l.terms.push_back({atom, coef, std::move(key)});
}

// Splits an already simplified expression into its affine form.
void linearInto(const IndexExpr& e, int64_t scale, Linear& l) {
    if (e.isConstant()) {
        auto product = checkedMul(e.constantValue(), scale);
        auto sum = product ? checkedAdd(l.constant, *product) : std::nullopt;
        if (!sum)
            l.overflow = true;
        else
            l.constant = *sum;
        return;
    }
    if (e.kind() == IndexExprKind::Add) {
        linearInto(e.lhs(), scale, l);
        linearInto(e.rhs(), scale, l);
        return;
    }
    if (e.kind() == IndexExprKind::Mul && (e.lhs().isConstant() || e.rhs().isConstant())) {
        const IndexExpr& c = e.lhs().isConstant() ? e.lhs() : e.rhs();
        const IndexExpr& x = e.lhs().isConstant() ? e.rhs() : e.lhs();
        auto product = checkedMul(c.constantValue(), scale);
        if (!product) {
            l.overflow = true;
            return;
        }
        linearInto(x, *product, l);
        return;
    }
    addTerm(l, e, scale);
}

Linear linearOf(const IndexExpr& e) {
    Linear l;
    linearInto(e, 1, l);
    return l;
}

// c*(x//c) + k*(x%c)*... : merges the pair k*c*(x//c) + k*(x%c) into k*x.
void mergeDivModPairs(Linear& l) {
    for (size_t m = 0; m < l.terms.size(); ++m) {
        Term& mod = l.terms[m];
        if (mod.coef == 0 || mod.atom.kind() != IndexExprKind::FloorMod || !mod.atom.rhs().isConstant())
            continue;
        int64_t c = mod.atom.rhs().constantValue();
        auto wanted = checkedMul(mod.coef, c);
        if (!wanted || c <= 0)
            continue;
        std::string xKey = mod.atom.lhs().toString();
        for (size_t d = 0; d < l.terms.size(); ++d) {
            Term& div = l.terms[d];
            if (d == m || div.coef != *wanted || div.atom.kind() != IndexExprKind::FloorDiv ||
                !div.atom.rhs().isConstant(c) || div.atom.lhs().toString() != xKey)
                continue;
            IndexExpr x = mod.atom.lhs();
            int64_t k = mod.coef;
            div.coef = 0;
            mod.coef = 0;
            Linear inner = linearOf(x);
            for (const Term& t : inner.terms) {
                auto product = checkedMul(t.coef, k);
                if (!product) {
                    l.overflow = true;
                    return;
                }
                addTerm(l, t.atom, *product);
            }
            auto constant = checkedMul(inner.constant, k);
            auto sum = constant ? checkedAdd(l.constant, *constant) : std::nullopt;
            if (!sum)
                l.overflow = true;
            else
                l.constant = *sum;
            break;
        }
    }
}

IndexExpr build(Linear l) {
    mergeDivModPairs(l);
    std::vector<Term> terms;
    for (Term& t : l.terms)
        if (t.coef != 0)
            terms.push_back(std::move(t));
    std::stable_sort(terms.begin(), terms.end(), [](const Term& a, const Term& b) {
        std::string va = firstVariable(a.atom), vb = firstVariable(b.atom);
        if (va != vb)
            return va < vb;
        return a.key < b.key;
    });
    IndexExpr result;
    bool any = false;
    for (const Term& t : terms) {
        IndexExpr term = t.coef == 1 ? t.atom : makeBinary(IndexExprKind::Mul, IndexExpr(t.coef), t.atom);
        result = any ? makeBinary(IndexExprKind::Add, result, term) : term;
        any = true;
    }
    if (!any)
        return IndexExpr(l.constant);
    if (l.constant != 0)
        result = makeBinary(IndexExprKind::Add, result, IndexExpr(l.constant));
    return result;
}

int64_t gcd64(int64_t a, int64_t b) {
    return std::gcd(a < 0 ? -a : a, b < 0 ? -b : b);
}

bool withinZeroTo(const IndexExpr& e, int64_t limit) {
    IndexBounds b = boundsOf(e);
    return b.lo >= 0 && b.hi < limit;
}

// Looks for a split of the terms into a "big" part whose coefficients share a factor g with g | c and a
// "small" remainder in [0, g). Terms are tried largest coefficient first.
bool findGcdSplit(const Linear& l, int64_t c, int64_t& g, Linear& big, Linear& small) {
    std::vector<Term> sorted = l.terms;
    std::stable_sort(sorted.begin(), sorted.end(), [](const Term& a, const Term& b) {
        int64_t x = a.coef < 0 ? -a.coef : a.coef, y = b.coef < 0 ? -b.coef : b.coef;
        return x > y;
    });
    for (size_t k = 1; k <= sorted.size(); ++k) {
        int64_t factor = 0;
        for (size_t t = 0; t < k; ++t)
            factor = gcd64(factor, sorted[t].coef);
        if (factor <= 1 || c % factor != 0)
            continue;
        Linear lo;
        lo.constant = l.constant;
        for (size_t t = k; t < sorted.size(); ++t)
            lo.terms.push_back(sorted[t]);
        if (!withinZeroTo(build(lo), factor))
            continue;
        Linear hi;
        for (size_t t = 0; t < k; ++t)
            hi.terms.push_back({sorted[t].atom, sorted[t].coef / factor, sorted[t].key});
        g = factor;
        big = std::move(hi);
        small = std::move(lo);
        return true;
    }
    return false;
}

IndexExpr Simplifier::simplifyDiv(const IndexExpr& a, int64_t c) {
    if (c == 1)
        return a;
    if (c <= 0)
        return makeBinary(IndexExprKind::FloorDiv, a, IndexExpr(c));
    if (a.isConstant())
        return IndexExpr(pyFloorDiv(a.constantValue(), c));
    IndexBounds b = boundsOf(a);
    if (b.lo > -kUnboundedIndex && b.hi < kUnboundedIndex && pyFloorDiv(b.lo, c) == pyFloorDiv(b.hi, c))
        return IndexExpr(pyFloorDiv(b.lo, c));
    if (a.kind() == IndexExprKind::FloorDiv && a.rhs().isConstant() && a.rhs().constantValue() > 0) {
        if (auto product = checkedMul(a.rhs().constantValue(), c))
            return simplifyDiv(a.lhs(), *product);
    }
    Linear l = linearOf(a);
    if (l.overflow)
        return makeBinary(IndexExprKind::FloorDiv, a, IndexExpr(c));
    Linear quotient, rest;
    quotient.constant = pyFloorDiv(l.constant, c);
    rest.constant = pyFloorMod(l.constant, c);
    for (const Term& t : l.terms) {
        if (t.coef % c == 0)
            quotient.terms.push_back({t.atom, t.coef / c, t.key});
        else
            rest.terms.push_back(t);
    }
    if (!quotient.terms.empty() || quotient.constant != 0) {
        IndexExpr restQuotient = simplifyDiv(build(rest), c);
        Linear tail = linearOf(restQuotient);
        for (const Term& t : tail.terms)
            addTerm(quotient, t.atom, t.coef);
        quotient.constant += tail.constant;
        return build(quotient);
    }
    int64_t g = 1;
    Linear big, small;
    if (findGcdSplit(l, c, g, big, small))
        return simplifyDiv(build(big), c / g);
    return makeBinary(IndexExprKind::FloorDiv, a, IndexExpr(c));
}

IndexExpr Simplifier::simplifyMod(const IndexExpr& a, int64_t c) {
    if (c == 1)
        return IndexExpr(0);
    if (c <= 0)
        return makeBinary(IndexExprKind::FloorMod, a, IndexExpr(c));
    if (a.isConstant())
        return IndexExpr(pyFloorMod(a.constantValue(), c));
    IndexBounds b = boundsOf(a);
    if (b.lo >= 0 && b.hi < c)
        return a;
    if (b.lo > -kUnboundedIndex && b.hi < kUnboundedIndex && pyFloorDiv(b.lo, c) == pyFloorDiv(b.hi, c)) {
        Linear l = linearOf(a);
        l.constant -= pyFloorDiv(b.lo, c) * c;
        return build(l);
    }
    if (a.kind() == IndexExprKind::FloorMod && a.rhs().isConstant() && a.rhs().constantValue() > 0 &&
        a.rhs().constantValue() % c == 0)
        return simplifyMod(a.lhs(), c);
    Linear l = linearOf(a);
    if (l.overflow)
        return makeBinary(IndexExprKind::FloorMod, a, IndexExpr(c));
    Linear rest;
    rest.constant = pyFloorMod(l.constant, c);
    bool dropped = rest.constant != l.constant;
    for (const Term& t : l.terms) {
        if (t.coef % c == 0)
            dropped = true;
        else
            rest.terms.push_back(t);
    }
    if (dropped)
        return simplifyMod(build(rest), c);
    int64_t g = 1;
    Linear big, small;
    if (findGcdSplit(l, c, g, big, small)) {
        IndexExpr inner = simplifyMod(build(big), c / g);
        Linear result = small;
        Linear scaled = linearOf(inner);
        for (const Term& t : scaled.terms)
            addTerm(result, t.atom, t.coef * g);
        result.constant += scaled.constant * g;
        return build(result);
    }
    return makeBinary(IndexExprKind::FloorMod, a, IndexExpr(c));
}

IndexExpr Simplifier::simplifyBitwise(IndexExprKind kind, IndexExpr a, IndexExpr b) {
    if (a.isConstant() && b.isConstant())
        return IndexExpr(*applyBinary(kind, a.constantValue(), b.constantValue()));
    if (a.isConstant())
        std::swap(a, b); // constants go right; all three operations are commutative
    bool same = sameExpr(a, b);
    switch (kind) {
    case IndexExprKind::Xor:
        if (b.isConstant(0))
            return a;
        if (same)
            return IndexExpr(0);
        break;
    case IndexExprKind::Or:
        if (b.isConstant(0) || same)
            return a;
        break;
    case IndexExprKind::And:
        if (b.isConstant(0))
            return IndexExpr(0);
        if (same)
            return a;
        if (b.isConstant() && b.constantValue() > 0 && ((b.constantValue() + 1) & b.constantValue()) == 0 &&
            boundsOf(a).lo >= 0)
            return simplifyMod(a, b.constantValue() + 1);
        break;
    case IndexExprKind::Constant:
    case IndexExprKind::Var:
    case IndexExprKind::Add:
    case IndexExprKind::Mul:
    case IndexExprKind::FloorDiv:
    case IndexExprKind::FloorMod:
    case IndexExprKind::Min:
    case IndexExprKind::Max:
        break;
    }
    return makeBinary(kind, a, b);
}

IndexExpr Simplifier::simplifyMinMax(IndexExprKind kind, const IndexExpr& a, const IndexExpr& b) {
    if (a.isConstant() && b.isConstant())
        return IndexExpr(*applyBinary(kind, a.constantValue(), b.constantValue()));
    if (sameExpr(a, b))
        return a;
    IndexBounds x = boundsOf(a), y = boundsOf(b);
    bool aBelow = x.hi <= y.lo, bBelow = y.hi <= x.lo;
    if (kind == IndexExprKind::Min) {
        if (aBelow)
            return a;
        if (bBelow)
            return b;
    } else {
        if (aBelow)
            return b;
        if (bBelow)
            return a;
    }
    return makeBinary(kind, a, b);
}

IndexExpr Simplifier::run(const IndexExpr& e) {
    if (e.depth() > kMaxSimplifyDepth)
        return e;
    switch (e.kind()) {
    case IndexExprKind::Constant:
    case IndexExprKind::Var:
        return e;
    case IndexExprKind::Add: {
        Linear l = linearOf(run(e.lhs()));
        Linear r = linearOf(run(e.rhs()));
        if (l.overflow || r.overflow)
            return e;
        for (const Term& t : r.terms)
            addTerm(l, t.atom, t.coef);
        auto sum = checkedAdd(l.constant, r.constant);
        if (!sum || l.overflow)
            return e;
        l.constant = *sum;
        return build(std::move(l));
    }
    case IndexExprKind::Mul: {
        IndexExpr a = run(e.lhs()), b = run(e.rhs());
        if (a.isConstant() || b.isConstant()) {
            Linear l;
            linearInto(b.isConstant() ? a : b, b.isConstant() ? b.constantValue() : a.constantValue(), l);
            if (l.overflow)
                return e;
            return build(std::move(l));
        }
        if (b.toString() < a.toString())
            std::swap(a, b);
        return makeBinary(IndexExprKind::Mul, a, b);
    }
    case IndexExprKind::FloorDiv:
    case IndexExprKind::FloorMod: {
        IndexExpr a = run(e.lhs()), b = run(e.rhs());
        if (!b.isConstant())
            return a.isConstant(0) ? IndexExpr(0) : makeBinary(e.kind(), a, b);
        if (b.constantValue() == 0)
            return makeBinary(e.kind(), a, b); // left for evaluation to report
        return e.kind() == IndexExprKind::FloorDiv ? simplifyDiv(a, b.constantValue())
                                                   : simplifyMod(a, b.constantValue());
    }
    case IndexExprKind::Xor:
    case IndexExprKind::And:
    case IndexExprKind::Or:
        return simplifyBitwise(e.kind(), run(e.lhs()), run(e.rhs()));
    case IndexExprKind::Min:
    case IndexExprKind::Max:
        return simplifyMinMax(e.kind(), run(e.lhs()), run(e.rhs()));
    }
    return e;
}

} // namespace

IndexExpr simplify(const IndexExpr& expr) {
    Simplifier simplifier;
    return simplifier.run(expr);
}

} // namespace tb::layout
