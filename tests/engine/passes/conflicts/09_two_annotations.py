# Two T.annotate_layout calls give one fragment two different thread maps.
# expect: layout-conflict x
import tilelang
import tilelang.language as T


@tilelang.jit
def kernel(M=64, N=64, K=64):

    @T.prim_func
    def main(A: T.Tensor((M, K), "float16"), B: T.Tensor((K, N), "float16"), C: T.Tensor((M, N), "float")):
        with T.Kernel(1, threads=128) as bx:
            A_shared = T.alloc_shared((M, K), "float16")
            B_shared = T.alloc_shared((K, N), "float16")
            T.copy(A[0, 0], A_shared)
            T.copy(B[0, 0], B_shared)
            x = T.alloc_fragment((M, N), "float")
            T.annotate_layout({x: T.Fragment((M, N), forward_thread_fn=lambda i, j: i * 2 + j // 32)})
            T.annotate_layout({x: T.Fragment((M, N), forward_thread_fn=lambda i, j: j * 2 + i // 32)})
            for i, j in T.Parallel(M, N):
                x[i, j] = A_shared[i, j]
            T.copy(x, C[0, 0])

    return main


kernel()
