"""The options of a choice over several lists (``options: a x b``), listed lazily: an option is
its index, its text and value made when asked for (:class:`ProductOptions`).
"""
from __future__ import annotations

from ..expr.builtins import _check_size
from ..model.cards import Card


def _value_text(v) -> str:
    t = type(v)
    if t is str:  # fast paths: big option lists (product(...)) are mostly strings and numbers
        return v
    if t is int:
        return str(v)
    if t is Card:
        return v.name
    if t is list or t is tuple:
        parts = []
        for x in v:  # inline the common items: this runs once per item of every option
            tx = type(x)
            parts.append(x if tx is str else str(x) if tx is int else _value_text(x))
        return " ".join(parts)
    if isinstance(v, bool):
        return "yes" if v else "no"
    if v is None:
        return "none"
    return str(v)


class ProductOptions:
    """The options of a choice among ``product(A, B, ...)`` (no ``where``), listed lazily: a
    read-only sequence of ``(text, value, None, None)`` tuples in the order ``product`` lists them
    (the last list varying fastest), where option ``i`` is computed from ``i`` alone (mixed radix).
    So a bot draws an index and only that option is built, never the whole list of texts (a
    placement of one side and four tokens on five cells: 2 x 5^4 = 1,250 per seat and round).
    ``len`` builds nothing; :meth:`value` builds an option's value alone; :meth:`text` builds one
    text (the only place one is built: iterating, slicing or indexing builds texts, for display);
    :meth:`index_of` checks a text from its words. The options after the product's ``n`` are the
    ``tail`` (an optional action such as ``pass``).

    Only made when every list's items read differently (as one word each, ignoring case): then
    every option reads differently too, and the eager listing would give exactly these options."""

    __slots__ = ("prefix", "lists", "texts", "lookup", "exact", "sizes", "n", "tail")

    @classmethod
    def make(cls, action, lists, tail=()):
        """A ProductOptions, or None when the lists do not qualify (then list them eagerly)."""
        texts, lookup = [], []
        total = 1
        for xs in lists:
            if isinstance(xs, dict):
                xs = list(xs)
            if not isinstance(xs, list):
                return None
            words = [_value_text(x) for x in xs]
            low = {w.lower(): j for j, w in enumerate(words)}
            if len(low) != len(words) or any(not w or " " in w for w in words):
                return None
            texts.append(words)
            lookup.append(low)
            total *= len(xs)
        if not lists or total == 0:
            return None
        _check_size(total)  # the same bound product() itself enforces
        self = cls.__new__(cls)
        self.prefix = action + " "
        self.lists = [list(xs) if isinstance(xs, dict) else xs for xs in lists]
        self.texts, self.lookup = texts, lookup
        self.exact = [{w: j for j, w in enumerate(words)} for words in texts]
        self.sizes = [len(xs) for xs in self.lists]
        self.n = total
        self.tail = list(tail)
        return self

    def __len__(self):
        return self.n + len(self.tail)

    def picks(self, i: int) -> list:
        """The position in each list of option ``i`` (0 <= i < n, the product's options only)."""
        picks = []
        for size in reversed(self.sizes):
            i, j = divmod(i, size)
            picks.append(j)
        picks.reverse()
        return picks

    def value(self, i: int):
        """The value of option ``i`` (a list with one item of each list; a tail option's value),
        built without its text. Raises IndexError out of range."""
        i = self._index(i)
        if i >= self.n:
            return self.tail[i - self.n][1]
        return [xs[j] for xs, j in zip(self.lists, self.picks(i))]

    def text(self, i: int) -> str:
        """The text of option ``i`` (``prefix`` and one word per list). Raises IndexError out of
        range. The only place a product option's text is built."""
        i = self._index(i)
        if i >= self.n:
            return self.tail[i - self.n][0]
        return self.prefix + " ".join(t[j] for t, j in zip(self.texts, self.picks(i)))

    def _index(self, i: int) -> int:
        n = self.n + len(self.tail)
        if i < 0:
            i += n
        if not 0 <= i < n:
            raise IndexError(i)
        return i

    def __getitem__(self, i):
        if type(i) is slice:
            return [self[k] for k in range(*i.indices(len(self)))]
        i = self._index(i)
        if i >= self.n:
            return self.tail[i - self.n]
        return (self.text(i), self.value(i), None, None)

    def __iter__(self):
        for i in range(len(self)):
            yield self[i]

    def index_of(self, text: str, exact: bool = False):
        """The index of the option whose text is ``text`` (ignoring case; with ``exact``, only
        the text exactly as listed), or None: found from its words (one table look-up per list),
        without building any option's text. This is how a product option is checked."""
        if type(text) is not str:
            return None
        if exact:
            for k, opt in enumerate(self.tail):
                if opt[0] == text:
                    return self.n + k
            if not text.startswith(self.prefix):
                return None
            words, tables = text[len(self.prefix):].split(" "), self.exact
        else:
            low = text.lower()
            for k, opt in enumerate(self.tail):
                if opt[0].lower() == low:
                    return self.n + k
            if not low.startswith(self.prefix.lower()):
                return None
            words, tables = low[len(self.prefix):].split(" "), self.lookup
        if len(words) != len(tables):
            return None
        i = 0
        for word, table, size in zip(words, tables, self.sizes):
            j = table.get(word)
            if j is None:
                return None
            i = i * size + j
        return i

    def find(self, text):
        """The option whose text is ``text`` (compared ignoring case), or None (see :meth:`index`)."""
        i = self.index_of(text)
        return None if i is None else self[i]
