"""The gate in front of text2num (replies/_leaks.py ``_languages_to_read``): it may only
skip a language in which the whole text reads no number. Held on generated texts made of
the number words of every language acap reads (and the words that join them), with the
library called ungated as the reference."""

from __future__ import annotations

import random

import pytest
from text_to_num import alpha2digit

from acap.replies._leaks import READERS, spelled

_WORDS = """a an and et y e und en og one two three four five six seven eight nine ten
eleven twelve thirteen twenty thirty ninety hundred thousand million un une deux trois
quatre cinq six sept huit neuf dix onze vingt trente quatre-vingt quatre-vingts cent cents
mille mil uno una dos tres cuatro cinco seis siete ocho nueve diez once veinte treinta cien
ciento doscientos trescientos noventa ein eine eins zwei drei vier fünf zehn elf zwölf
zwanzig dreißig hundert tausend neunzig dreihundert een twee drie vijf tien twaalf twintig
dertig honderd duizend negentig due tre quattro cinque dieci venti trenta cento novanta
trecento tremila um uma dois três dez vinte trinta cem trezentos to fire fem ti tyve
halvtreds hundrede tusind ninety-five thirty-one vingt-et-un dix-neuf zero nought oh o
first second half quarter dozen the price is from pounds euros kr £ of for la le der die
het il é , . - 1 2 3"""
VOCABULARY = _WORDS.split()


@pytest.mark.parametrize("seed", range(4))
def test_the_gate_skips_only_what_reads_no_number(seed: int) -> None:
    rng = random.Random(seed)
    checked = converted = 0
    for _ in range(3000):
        text = " ".join(rng.choice(VOCABULARY) for _ in range(rng.randint(1, 8)))
        for lang in READERS[1:]:
            whole = alpha2digit(text, lang, threshold=0)
            assert spelled(text, lang) == whole, (lang, text)
            checked += 1
            converted += whole != text
    # the texts exercise both sides: many read numbers, many do not
    assert converted > checked // 10 and checked - converted > checked // 10


def test_a_pair_that_reads_where_its_words_alone_do_not() -> None:
    assert alpha2digit("o", "en", threshold=0) == "o"
    assert spelled("code o o here", "en") == alpha2digit("code o o here", "en", threshold=0)
    assert spelled("code o o here", "en") != "code o o here"
