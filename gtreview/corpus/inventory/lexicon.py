"""Word lists and name keys for the corpus inventory.

The inventory has no dictionary or language model to lean on (it must run offline in
a fraction of a second), so its judgement of "a name", "a generic head word" and
"the same name spelled differently" rests on the small, inspectable lists and keys
below. They are tuned for English-language mining and geological reports; a reviewer
who reads a surprising cluster can trace it to one rule here.
"""

from __future__ import annotations

import re
from functools import lru_cache

STOPWORDS = frozenset(
    """
    a about above after again against all also although am among an and any are as at be because been
    before being below between both but by can could did do does doing down during each either else
    ever every few for from further had has have having he her here hers him his how however i if in
    into is it its itself just least less many may me might more most much must my neither no nor not
    now of off on once only or other otherwise our out over own per perhaps rather same several shall
    she should since so some such than that the their them then there thereby therefore these they this
    those though through thus to too toward towards under until up upon us very was we were what when
    where whether which while who whom whose why will with within without would yet you your
    one two three four five six seven eight nine ten eleven twelve first second third fourth fifth
    hitherto thereof whereof herein namely nearly almost quite sir esq messrs mr mrs dr beneath besides
    across along around behind beside beyond near onto
    """.split()
)
"""Function words: never a name on their own and never a domain term."""

COMMON_WORDS = frozenset(
    """
    able account act action add advantage advice afterwards age agree already always amount another
    anything appear appears application ask attention authority away back bad bear become becomes began
    being believe best better beyond bring brought call called came carry case cause certain chief clear
    clearly close come coming common complete condition conditions consider considerable continue
    continued cost course cut day days deal degree desire detail difference different doubt due early
    effect either end enough equal especially established even evidence evident example except expected
    fact fall far favour fear feel felt find following follows form former found full general give given
    gives go going good great greater greatly ground hand happen hard head hear heard held help high
    higher hold home hope hour idea important instance interest keep kept kind know known large larger
    largest last late later lay lead least leave left length let lie lies life light like likely line
    little long longer look lost low made main make makes making man matter mean means meet men met
    mind moment name named near necessary need new next none note nothing number obtained occasion
    open opinion order ordinary others part particular parts party pass passed past people period
    place placed plain point position possible power present probably proper prove put question
    quarter rate reach read ready real reason received regard remain remains remarkably report
    reported represent respect rest result results right rise round run said saw say see seen seem
    seems seldom sense set short show shown side sides similar simple small sort soon stand state
    stated states still stood subject sufficient suggest sure take taken taking tell term thing things
    think thought time times together took total true turn turned use used useful usual usually value
    various view want way ways well went whole wide work worked working world year years young
    account appears already believe certainly early either end enough however indeed itself merely
    often regard upon whom within without yet less greater made make per cent instant instant last
    following present respectfully honour honor report reports submit forward forwarded inform informs
    north south east west northern southern eastern western
    """.split()
)
"""Frequent general-English words, kept out of the domain-word list."""

UNIT_WORDS = frozenset(
    "ft feet foot inch inches in yds yard yards mile miles oz dwt gr grs ton tons lb lbs cwt deg per cent".split()
)
MONTHS = frozenset("january february march april may june july august september october november december".split())
TITLES = frozenset("mr mrs messrs dr professor prof capt captain sir rev hon".split())
ABBREVIATIONS = frozenset(
    "no nos mr mrs messrs dr st oz dwt gr grs ft in deg lb lbs cwt yds co ltd vol fig sec pp p n s e w "
    "cent viz etc approx ca esq hon rev prof capt".split()
)
"""Words that take a full stop without ending a sentence."""

NEVER_SPLIT = frozenset("no nos mr mrs messrs dr st viz hon rev prof capt fig vol pp p".split())
"""Abbreviations that are never followed by a sentence break, whatever comes next."""

HEAD_CLASSES: dict[str, str] = {}
for _cls, _words in {
    "lode": "reef lode vein line leg saddle shoot",
    "working": "shaft mine claim lease level drive adit tunnel winze workings battery",
    "watercourse": "creek gully river brook stream crossing waterhole",
    "company": "company co consols extended united proprietary syndicate gm north south east west central junction",
    "landform": "mount mountain range spur hill hills plain plains valley flat lake",
    "stratigraphic": "slate slates series beds bed formation group measures sandstones sandstone",
    "marker": "band indicator seam horizon",
    "fault": "slide fault dyke dike",
    "rock": "granite basalt greenstone",
    "lead": "lead deep",
    "place": "division district township field goldfield",
}.items():
    for _word in _words.split():
        HEAD_CLASSES[_word] = _cls
"""Generic head words of place and feature names, each with a class.

Names of the same class that share their specific part may be naming variants
(see RENAMEABLE); names of different classes never are (a creek is not a lead).
"""

LEFT_HEADS = frozenset("mount lake port cape great old new upper lower".split())
"""Generic words written before the specific part (Mount Wirrim, Great Garibaldi)."""

RENAMEABLE = frozenset({"stratigraphic", "marker"})
"""Classes whose names get renamed over the years (Wirrim Slates, Slate Series, Beds),
while two watercourses or mines of one name are usually two different places."""

SUBJECT_CLASSES = frozenset(HEAD_CLASSES.values()) - {"place"}
"""Head classes that make a name a subject a question could be about."""

INSTITUTION_WORDS = frozenset(
    """
    survey office department minister ministry secretary under-secretary laboratory school bank treasury
    government director warden inspector coroner register registrar surveyor geologist metallurgist
    encouragement scheme relief unemployment vote state colony crown society university museum
    honourable honorable bulletin report progress
    """.split()
)
"""Words that mark an institution, office or document rather than a place or feature."""

_MC = re.compile(r"^(?:mac|mc|m')(?=[a-z])")
_APOS = str.maketrans({"\u2019": "'", "\u2018": "'", "`": "'"})


def fold_token(token: str) -> str:
    """Case-fold one word and unify the Mac / Mc / M' surname prefixes and apostrophes.

    ``Maclachlan's``, ``M'Lachlan's`` and ``McLACHLAN'S`` all become ``mclachlans``:
    the three spellings were used interchangeably by clerks and printers.
    """
    word = token.translate(_APOS).casefold()
    word = _MC.sub("mc", word)
    return word.replace("'", "")


def singular(word: str) -> str:
    """Crude English singular for head words (reefs, slates, beds, series stays)."""
    if len(word) > 3 and word.endswith("s") and not word.endswith(("ss", "us", "ies", "series")):
        return word[:-1]
    return word


def split_heads(tokens: list[str]) -> tuple[list[str], list[str], list[str]]:
    """(left heads, specific part, right heads) of a name, all folded.

    The specific part is what tells two names apart (``Wirrim`` in ``Mount Wirrim``
    and ``Wirrim Slate Series``); heads are the generic words around it.
    """
    folded = [fold_token(t) for t in tokens]
    right: list[str] = []
    while folded and singular(folded[-1]) in HEAD_CLASSES and len(folded) > 1:
        right.insert(0, singular(folded.pop()))
    left: list[str] = []
    while folded and folded[0] in LEFT_HEADS and len(folded) > 1:
        left.append(folded.pop(0))
    return left, folded, right


_ABBREVIATED = {"co": "company", "coy": "company", "mt": "mount", "ck": "creek"}


def orth_key(form: str) -> str:
    """Orthographic key: folded words, head words singular, no spaces or punctuation.

    Equal keys mean the forms differ only in case, Mc/Mac/M', apostrophes, a
    possessive, plural heads or word division (``Nulla Bean`` / ``Nullabean``).
    """
    tokens = [_ABBREVIATED.get(t.casefold().rstrip("."), t) for t in form.split()]
    tokens = [re.sub(r"['\u2019][sS]$", "", t) for t in tokens]
    if not tokens:
        return ""
    left, specific, right = split_heads(tokens)
    return "".join(left + specific + right)


_SOUND_CODES = {
    **dict.fromkeys("bfpv", "1"),
    **dict.fromkeys("cgjkqsxz", "2"),
    **dict.fromkeys("dt", "3"),
    "l": "4",
    **dict.fromkeys("mn", "5"),
    "r": "6",
}
_REWRITES = (("ph", "f"), ("ck", "k"), ("gh", "g"), ("sch", "sk"), ("rn", "m"), ("0", "o"), ("1", "l"))


@lru_cache(maxsize=65536)
def phonetic_key(text: str) -> str:
    """A Soundex-like consonant skeleton of a whole (compacted) name, untruncated.

    Vowels are dropped because transliterated names differ mostly in vowels
    (Nulla Bean / Nullabine / Nullabeen all give N415); the first letter is coded
    too, so C/K spellings meet. The common OCR confusions rn/m and 0/o are undone
    first. Keys are only compared between names with the same head words, and a
    match also needs a fair edit similarity, so short names do not collide.
    """
    word = fold_token(text)
    for old, new in _REWRITES:
        word = word.replace(old, new)
    word = re.sub(r"[^a-z]", "", word)
    if not word:
        return ""
    codes = [_SOUND_CODES.get(ch, "0") for ch in word]
    first = codes[0] if codes[0] != "0" else "V"
    out: list[str] = [first]
    previous = codes[0]
    for code in codes[1:]:
        if code != previous and code != "0":
            out.append(code)
        previous = code
    return "".join(out)


def levenshtein(a: str, b: str) -> int:
    """Edit distance (insert, delete, substitute) by the two-row dynamic programme."""
    if a == b:
        return 0
    if len(a) < len(b):
        a, b = b, a
    previous = list(range(len(b) + 1))
    for i, ca in enumerate(a, start=1):
        current = [i]
        for j, cb in enumerate(b, start=1):
            current.append(min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (ca != cb)))
        previous = current
    return previous[-1]


def edit_similarity(a: str, b: str) -> float:
    """1 - distance / longer length: 1.0 for equal strings, 0.0 for nothing in common."""
    longest = max(len(a), len(b))
    return 1.0 if longest == 0 else 1.0 - levenshtein(a, b) / longest
