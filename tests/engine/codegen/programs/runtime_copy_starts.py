# Copies into a swizzled shared tile at starts a loop computes at run time. Where the layout repeats at the
# start's known multiple (whole 64-column swizzle atoms, 32-row blocks) the copies are 16-byte vectors
# (cp.async); at 32-column blocks the 128B swizzle's XOR does not repeat and they go element by element.
# Both kinds fill every element the gemm reads, so the result is checkable, ragged shapes included.
import tilelang
import tilelang.language as T


@tilelang.jit
def runtime_copy_starts(M=256, N=256, K=256):

    @T.prim_func
    def main(A: T.Tensor((M, K), "float16"), B: T.Tensor((K, N), "float16"), C: T.Tensor((M, N), "float")):
        with T.Kernel(T.ceildiv(N, 64), T.ceildiv(M, 64), threads=128) as (bx, by):
            A_shared = T.alloc_shared((64, 128), "float16")
            B_shared = T.alloc_shared((128, 64), "float16")
            C_local = T.alloc_fragment((64, 64), "float")
            T.clear(C_local)
            for ko in T.serial(T.ceildiv(K, 128)):
                for ja in T.serial(2):
                    T.copy(A[by * 64, ko * 128 + ja * 64], A_shared[0:64, ja * 64:(ja + 1) * 64])
                for jb in T.serial(4):
                    T.copy(B[ko * 128 + jb * 32, bx * 64], B_shared[jb * 32:(jb + 1) * 32, 0:64])
                T.gemm(A_shared, B_shared, C_local)
                for jc in T.serial(4):
                    T.copy(A[by * 64, ko * 128 + jc * 32], A_shared[0:64, jc * 32:(jc + 1) * 32])
                T.gemm(A_shared, B_shared, C_local)
            T.copy(C_local, C[by * 64, bx * 64])

    return main
