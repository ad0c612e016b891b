# a list opened on the last line
import tilelang.language as T

shape = [64, 64  # expected-error {{unbalanced-bracket}}
