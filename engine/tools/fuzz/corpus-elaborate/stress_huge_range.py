import argparse
import tilelang
import tilelang.language as T

total = sum(range(10**15))
squares = [i * i for i in range(10**12)]
configs = [{"block_M": m, "block_N": n} for m in range(1 << 40) for n in range(1 << 40)]
s = "ab" * (10**11)
d = {i: i for i in range(10**10)}


@tilelang.autotune(configs=configs)
@tilelang.jit
def kernel(M=1 << 62, block_M=128):
    @T.prim_func
    def f(A: T.Tensor((M, M), "float16")):
        with T.Kernel(T.ceildiv(M, block_M), threads=128) as bx:
            for i in range(10**9):
                A[bx, i] = 0

    return f


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--m", type=int, default=10**30)
    args = parser.parse_args()
    kernel(args.m)


main()
