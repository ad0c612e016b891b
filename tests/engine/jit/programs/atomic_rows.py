# Blocks combining results through atomic adds into one row of a float16 output: the order of the adds
# decides the rounding, so the JIT runs such a kernel's blocks in order, as the interpreter does.
import tilelang
import tilelang.language as T


@tilelang.jit
def atomic_rows(M=96, N=64, block_M=16):

    @T.prim_func
    def main(A: T.Tensor((M, N), "float32"), S: T.Tensor((N,), "float16")):
        with T.Kernel(T.ceildiv(M, block_M), threads=64) as bx:
            tile = T.alloc_shared((block_M, N), "float32")
            part = T.alloc_fragment((N,), "float32")
            T.copy(A[bx * block_M, 0], tile)
            T.reduce_sum(tile, part, dim=0)
            T.atomic_add(S[0:N], part)

    return main
