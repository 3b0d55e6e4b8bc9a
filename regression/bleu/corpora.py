"""Test corpora for the realmt-bleu conformance run: generated text that hits every trap of
sacreBLEU's own test suite, and perturbed hypotheses for real references (WMT'14 newstest2014)."""
import random

# Every Python whitespace code point, plus the look-alikes that are not whitespace.
PY_SPACES = ['\t', '\x0b', '\x0c', '\x1c', '\x1d', '\x1e', '\x1f', ' ', '\x85', '\xa0', '\u1680',
             '\u2000', '\u2001', '\u2002', '\u2003', '\u2004', '\u2005', '\u2006', '\u2007', '\u2008',
             '\u2009', '\u200a', '\u2028', '\u2029', '\u202f', '\u205f', '\u3000']
NOT_SPACES = ['\u200b', '\ufeff', '\u180e']
WORDS = ['the', 'The', 'cat', 'CAT', 'sat', 'on', 'mat', 'dog', 'bit', 'man', 'Hello', 'world', "It's",
         "isn't", "John's", 'A-B', 'a.b', '1.b', 'a.1', 'e-mail', 'U.S.', 'Mr.', 'naïve', 'café',
         'cafe\u0301', 'Straße', 'İstanbul', 'ΣΑΣ', 'Οδυσσεύς', 'Москва', 'ﬁne', 'Ǆemal', 'ǅ']
NUMBERS = ['1999', '3.14', '1,000', '1,000.50', '3-4', '3--4', '2000.', '-5', '10%', '$5', '€10', '½']
PUNCT = ['.', ',', '!', '?', ';', ':', '"', "'", '(', ')', '[', ']', '{', '}', '-', '--', '...', '/',
         '\\', '@', '#', '%', '&', '*', '+', '=', '<', '>', '^', '_', '`', '|', '~', '$',
         '…', '«', '»', '—', '–', '“', '”', '‘', '’', '¿', '¡', '·', '§', '¶', '†', '•', '‰', '′']
SYMBOLS = ['©', '®', '°', '±', '×', '÷', '∑', '√', '∞', '≈', '≠', '←', '→', '⇒', '■', '♥', '☺',
           '€', '£', '¥', '₹', '😀', '👍🏽', '🇫🇷', '∀x', '𝔘']
ENTITIES = ['&quot;', '&amp;', '&lt;', '&gt;', '&apos;', '&amp;lt;', '&amp;quot;', '&#39;', '<skipped>',
            '&', 'a&b', '&quot;quoted&quot;']
CJK = ['我爱北京天安门。', '他说：“你好！”2020年', '美众院公布对特', 'りの拳銃を持', '東京は、日本の首都です。',
       '한국어 문장입니다.', 'ｆｕｌｌｗｉｄｔｈ！', '（括弧）', '〈引用〉', '・', '𠀀𠀁', '㐀㐁', '龥', '〇', '々',
       'ｶﾀｶﾅ', '㈱', '㍻', '︰', '﹏']


def trap_piece(rng):
    kind = rng.random()
    if kind < 0.35:
        return rng.choice(WORDS)
    if kind < 0.45:
        return rng.choice(NUMBERS)
    if kind < 0.60:
        return rng.choice(PUNCT)
    if kind < 0.68:
        return rng.choice(SYMBOLS)
    if kind < 0.76:
        return rng.choice(ENTITIES)
    if kind < 0.90:
        return rng.choice(CJK)
    return rng.choice(WORDS) + rng.choice(PUNCT + NOT_SPACES) + rng.choice(WORDS)


def trap_line(rng, max_pieces=25):
    r = rng.random()
    if r < 0.04:
        return ''
    if r < 0.06:
        return rng.choice(PY_SPACES) * rng.randint(1, 3)
    out = []
    for _ in range(rng.randint(1, max_pieces)):
        out.append(trap_piece(rng))
        sep_r = rng.random()
        if sep_r < 0.75:
            out.append(' ')
        elif sep_r < 0.9:
            out.append(rng.choice(PY_SPACES + NOT_SPACES))
        # else: glued to the next piece
    if rng.random() < 0.1:
        out.insert(0, rng.choice(PY_SPACES))
    return ''.join(out)


def perturb(line, rng, strength=0.3):
    """A hypothesis-like variant of a line: drops, swaps, substitutions, case and punctuation."""
    toks = line.split(' ')
    out = []
    for t in toks:
        r = rng.random()
        if r < strength * 0.3:
            continue
        if r < strength * 0.5:
            t = t.upper() if rng.random() < 0.5 else t.lower()
        elif r < strength * 0.7:
            t = t + rng.choice(['', ',', '.', ' .', '!', "'s"])
        elif r < strength * 0.8:
            t = rng.choice(WORDS)
        out.append(t)
    if len(out) > 3 and rng.random() < strength:
        i = rng.randrange(len(out) - 2)
        j = rng.randrange(i + 1, len(out))
        out[i], out[j] = out[j], out[i]
    if len(out) > 6 and rng.random() < strength * 0.5:  # move a block (TER shifts)
        i = rng.randrange(len(out) - 3)
        block = out[i:i + 3]
        del out[i:i + 3]
        k = rng.randrange(len(out) + 1)
        out[k:k] = block
    return ' '.join(out)


def trap_corpus(n, seed):
    """(refs1, refs2, [sys1, sys2, sys3]) of n lines each; line strings without newlines."""
    rng = random.Random(seed)
    ref1 = [trap_line(rng) for _ in range(n)]
    ref2 = [perturb(r, rng, 0.2) if rng.random() < 0.9 else '' for r in ref1]
    systems = [[perturb(r, rng, s) for r in ref1] for s in (0.3, 0.5, 0.35)]
    # CR inside lines stays in files ('\r' is whitespace for split).
    for k in range(0, n, 37):
        systems[0][k] = systems[0][k].replace(' ', ' \r ', 1)
    return ref1, ref2, systems


def real_corpus(lines, seed):
    rng = random.Random(seed)
    ref2 = [perturb(r, rng, 0.15) for r in lines]
    systems = [[perturb(r, rng, s) for r in lines] for s in (0.25, 0.35, 0.3)]
    return lines, ref2, systems
