# a module with host code only  # expected-error {{no-kernel}} col=1
import torch

x = torch.randn(4, 4)
print(x.sum())
