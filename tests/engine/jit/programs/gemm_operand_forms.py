# The forms a float gemm's operands take on the JIT (engine/jit/FloatGemm.h): tiles used in place, a
# transposed operand, a float16 accumulator (summed in float, rounded back after each gemm), float32
# operands whose products are inexact (no fused multiply-add), and a gemm whose A is its own accumulator
# (the interpreter reads all of A and B before it writes C). Ragged sizes leave column and row
# tails in the kernel's register blocks.
import tilelang
import tilelang.language as T


@tilelang.jit
def gemm_forms(M=37, N=72, K=40):

    @T.prim_func
    def main(A: T.Tensor((M, K), "float16"), Bt: T.Tensor((N, K), "float16"), X: T.Tensor((K, K), "float32"),
             C16: T.Tensor((M, N), "float16"), C32: T.Tensor((K, K), "float32")):
        with T.Kernel(1, threads=128) as bx:
            a = T.alloc_shared((M, K), "float16")
            bt = T.alloc_shared((N, K), "float16")
            acc16 = T.alloc_fragment((M, N), "float16")
            s = T.alloc_shared((K, K), "float32")
            f = T.alloc_fragment((K, K), "float32")
            T.copy(A, a)
            T.copy(Bt, bt)
            T.copy(X, s)
            T.copy(X, f)
            T.clear(acc16)
            T.gemm(a, bt, acc16, transpose_B=True)
            T.gemm(a, bt, acc16, transpose_B=True)
            T.gemm(f, s, f)
            T.gemm(f, s, f, transpose_A=True)
            T.copy(acc16, C16)
            T.copy(f, C32)

    return main
