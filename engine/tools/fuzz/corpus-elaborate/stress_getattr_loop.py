import tilelang
import tilelang.language as T


class Loop:
    def __getattr__(self, name):
        return getattr(self, name + "x")

    def __init__(self):
        self.me = self
        self.items = [self]

    def __len__(self):
        return len(self)

    def __repr__(self):
        return repr(self)


class Cycle(Loop):
    pass


obj = Cycle()
obj.items.append(obj.items)
value = obj.anything
n = len(obj)
text = str(obj)


@tilelang.jit
def kernel(N=obj.size):
    @T.prim_func
    def f(A: T.Tensor((N,), "float32")):
        with T.Kernel(1, threads=32) as bx:
            A[0] = 1.0

    return f


kernel()
