import tilelang.language as T
from .util import (a as b, c)
from x import *

@T.prim_func
def f(A: T.Tensor((M, K), "float16"), *args, k=1, **kw) -> None:
    """docstring"""
    x: int = 1
    a, *rest = b = [i * 2 for i in range(10) if i % 2]
    y = {**d, 'k': lambda p, q=2: p ** -q}
    z = A[b, k*64:(k+1)*64, h, ::2] if not x is None else (yield)
    x //= 2; x <<= 1
    assert x > 0 and y != z, f"bad {x}"
    with T.Kernel(8, threads=128) as (bx, by), open(p):
        for i, j in T.Parallel(4, 4):
            if i < j <= 3:
                continue
            elif i in y:
                break
            else:
                pass
        else:
            pass
    while (n := n - 1):
        global g
    return sum(v for v in y), 0x1F, 0o7, 0b1, 1_000, 1e-5, .5, b'\x41', r'\d', '''t'''
