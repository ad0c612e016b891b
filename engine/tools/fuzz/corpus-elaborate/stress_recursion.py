import tilelang
import tilelang.language as T


def depth(n):
    return depth(n + 1) + 1


def mutual_a(n):
    return mutual_b(n) * 2


def mutual_b(n):
    return mutual_a(n - 1)


@tilelang.jit
def kernel(M=depth(0)):
    @T.prim_func
    def main(A: T.Tensor((M,), "float16")):
        with T.Kernel(1, threads=128) as bx:
            A[bx] = mutual_a(3)

    return main


kernel()
