"""The expression language: a Lark grammar, a compiler to closures, built-ins."""
