"""Variable names as the user typed them: one normal form everywhere, and no look-alikes.

``normalize`` is the one spelling rule for a name, wherever it comes from (the expression,
``--at``, ``--wrt``, a ``--points`` header): NFKC, as Python itself applies to identifiers, so
a fullwidth ``ｘ`` is ``x`` in every place or in none.

``check_look_alikes`` refuses names that would silently become different variables although
they look the same: Latin ``x`` beside Cyrillic ``х``, Greek ``ο`` beside Latin ``o``, or one
name that mixes scripts through such a letter (``cоs`` with a Cyrillic ``о`` is not ``cos``).
A name wholly in one script (Greek ``θ``, a Cyrillic word) is fine on its own. The table lists
the letters of Greek and Cyrillic that are drawn like a Latin letter in common fonts; letters
that are merely similar (Greek ``ν``, ``ρ``, ``χ``), and common in formulas, are left out.
"""
from __future__ import annotations

import re
from typing import Iterable

from .errors import ExprError

#: a Greek or Cyrillic letter -> the Latin letter it is drawn like
LOOK_ALIKES = {
    # Cyrillic lower case
    "а": "a", "в": "b", "е": "e", "о": "o", "р": "p", "с": "c", "у": "y", "х": "x",
    "і": "i", "ј": "j", "ѕ": "s", "ԁ": "d", "ԛ": "q", "ԝ": "w", "һ": "h", "ӏ": "l",
    # Cyrillic upper case
    "А": "A", "В": "B", "Е": "E", "К": "K", "М": "M", "Н": "H", "О": "O", "Р": "P",
    "С": "C", "Т": "T", "Х": "X", "У": "Y", "І": "I", "Ј": "J", "Ѕ": "S", "Ԁ": "D",
    "Ԛ": "Q", "Ԝ": "W", "Ӏ": "I",
    # Greek
    "ο": "o", "ϳ": "j",
    "Α": "A", "Β": "B", "Ε": "E", "Ζ": "Z", "Η": "H", "Ι": "I", "Κ": "K", "Μ": "M",
    "Ν": "N", "Ο": "O", "Ρ": "P", "Τ": "T", "Υ": "Y", "Χ": "X",
}


def normalize(name: str) -> str:
    """The one spelling of a variable name (NFKC, like Python identifiers); surrounding
    spaces are not part of it."""
    name = name.strip()
    if name.isascii():
        return name
    import unicodedata   # only for non-ASCII names: not at every start

    return unicodedata.normalize("NFKC", name)


def _script(ch: str) -> str:
    """The script of a letter as its Unicode name begins (LATIN, GREEK, CYRILLIC, ...)."""
    from unicodedata import name

    return name(ch, "UNKNOWN").split()[0]


def _describe(ch: str) -> str:
    from unicodedata import name

    return f"{ch!r} is {name(ch, 'an unnamed character')}"


def _skeleton(name: str) -> str:
    return "".join(LOOK_ALIKES.get(ch, ch) for ch in name)


def check_look_alikes(names: Iterable[str], text: str = "") -> None:
    """Refuse (ExprError, exit 2) a name, or a run of letters in ``text`` (an expression as
    typed, before the reader splits ``xy`` into x·y), that mixes scripts through a look-alike
    letter, and two different names that look the same; say which characters and scripts
    they are."""
    names = list(dict.fromkeys(names))
    if text.isascii() and all(name.isascii() for name in names):
        return
    runs = [(m.group(), m.span()) for m in re.finditer(r"[^\W\d_]+", text)]
    for word, span in [*runs, *((name, None) for name in names)]:
        scripts = {_script(ch) for ch in word if ch.isalpha()}
        tricky = [ch for ch in word if ch in LOOK_ALIKES]
        if len(scripts) > 1 and tricky:
            ch = tricky[0]
            raise ExprError(f"{word!r} mixes {' and '.join(sorted(scripts)).lower()} letters: "
                            f"{_describe(ch)}, which looks like the Latin "
                            f"{LOOK_ALIKES[ch]!r}; type the name in one script",
                            *((text, *span) if span else ()))
    by_skeleton: dict[str, str] = {}
    for name in names:
        other = by_skeleton.setdefault(_skeleton(name), name)
        if other != name:
            a, b = next((p, q) for p, q in zip(other, name) if p != q)
            raise ExprError(f"{other!r} and {name!r} look alike but are different names "
                           f"({_describe(a)}, {_describe(b)}); type them the same way")
