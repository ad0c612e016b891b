# a def with no body
import tilelang.language as T


def helper():
# expected-error@+1 {{expected-indented-block}} col=1
x = 1
