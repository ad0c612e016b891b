import tilelang
import tilelang.language as T
import torch

a = [0] * (1 << 40)
b = [[1, 2, 3]] * 100000
c = b * 100000
c = c * c if False else c
t = (1,) * (10**12)
s = "x" * (1 << 50)
x = torch.randn(1 << 30, 1 << 30, 1 << 30, dtype=torch.float16)
y = x.view(-1).shape[0] * 2 ** 1000
z = 2 ** 2 ** 2 ** 2 ** 2 ** 2
w = 10 ** -400
q = (1 << 63) // -1
r = -(1 << 63) % 0


@tilelang.jit
def kernel(N=len(a)):
    @T.prim_func
    def f(A: T.Tensor((N,), "float32")):
        with T.Kernel(1, threads=32) as bx:
            A[0] = 1.0

    return f


kernel()
