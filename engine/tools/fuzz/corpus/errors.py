if x
    pass
y = (1 +
def f(a a):
	pass
  z = "abc
w = 0b12 $ 007
