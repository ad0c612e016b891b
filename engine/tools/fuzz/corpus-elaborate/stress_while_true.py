import tilelang
import tilelang.language as T

x = 0
while True:
    x = x + 1


def main():
    n = 0
    while n >= 0:
        n += 1
    kernel(n)


@tilelang.jit
def kernel(N):
    @T.prim_func
    def f(A: T.Tensor((N,), "float32")):
        with T.Kernel(1, threads=32) as bx:
            while True:
                A[0] = 1.0

    return f


if __name__ == "__main__":
    main()
