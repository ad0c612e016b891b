// torch tensors in host code (private to engine/elaborate). The host evaluator models a tensor as its shape,
// dtype and device, never its data: that is all a jit call needs (sizes from q.shape, x.size(0), the dtype
// of an eager parameter), and it keeps main() cheap to run. A tensor is an Object of type "Tensor" with the
// attributes shape (a tuple of ints, or host values where a size is unknown), dtype and device; reading its
// data (item(), max(), tolist()) gives a host value that says so, except for a tensor made from a literal
// list of numbers (torch.tensor([2048, 6144])), whose values are kept for max / min / sum / tolist.
#pragma once

#include "engine/elaborate/Value.h"

#include <string>
#include <vector>

namespace tb::elab {

bool isTensor(const Value& v);
Value makeTensor(std::vector<Value> shape, Value dtype, std::string device);
std::vector<Value> tensorShape(const Value& tensor);
// The attributes that are not stored (T, mT, ndim, is_cuda, grad, ...); a method otherwise.
Value tensorAttribute(const Value& tensor, const std::string& attr);
// t[0], t[:, 1:3], t[..., None]: the shape of the view.
Value tensorSubscript(const Value& tensor, const Value& index);
// An element-wise operator (shapes broadcast) or a matrix product.
Value tensorArithmetic(const Value& a, const Value& b, bool matmul);
// torch.<name> is a function the host evaluator models (constructors, *_like, cat, stack, ...).
bool isTorchFunction(const std::string& name);

} // namespace tb::elab
