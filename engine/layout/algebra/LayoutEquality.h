// Equality of layouts and of fragments, decided by exact enumeration: two layouts are equal when they have
// the same input shape and agree at every point. Canonical text equality implies equality; the converse
// fails (8*(i//8) + i%8 and i print differently before simplification), so tests and layout inference use
// these functions, not string comparison.
#pragma once

#include "engine/layout/algebra/Fragment.h"
#include "engine/layout/algebra/Layout.h"
#include "engine/layout/algebra/LayoutResult.h"

namespace tb::layout {

// Same input shape and the same physical index tuple at every point (output shapes from interval bounds
// are not compared: they over-approximate). Error
// "layout-domain-too-large" over kMaxEnumerationPoints. Example: linear({4, 8}) equals
// Layout({4, 8}, {8*i + j}) and differs from Layout({4, 8}, {i + 4*j}).
LayoutResult<bool> layoutsEqual(const Layout& a, const Layout& b);

// Same input shape, replicate extent and thread extent; the same thread for every (element, replica) and the
// same register index for every element. (TileLang returns true for different input shapes, its broadcast
// case; TileBench answers false and leaves broadcasting to containment with an access map.)
LayoutResult<bool> fragmentsEqual(const Fragment& a, const Fragment& b);

} // namespace tb::layout
