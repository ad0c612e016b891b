# three syntax errors: the parser recovers and reports all of them
import tilelang.language as T

x = (1 +   # expected-error {{unbalanced-bracket}} col=5
y = 3 $    # expected-error {{invalid-character}}
def f(:    # expected-error {{unbalanced-bracket}} col=6
    return 1
