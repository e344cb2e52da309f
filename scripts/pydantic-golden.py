#!/usr/bin/env python3
"""Golden answers of real pydantic for the field validators of shared/http/fields.ts.

    python3 scripts/pydantic-golden.py          # rewrites test/fixtures/pydantic-golden.json

Needs python3 with pydantic 2.13 (the version FastAPI ran; this file was made with 2.13.4). No FastAPI:
FastAPI's part is small and reproduced here (fastapi-errors.md §1): it json.loads the body, validates
the Python objects (lax mode), puts "body"/"query" in front of each error's loc, drops `url`, turns
exception objects in ctx into {} (jsonable_encoder) and renders compactly with ensure_ascii=False.

FIELDS mirrors how the API's schemas configure each builder (shared/*/schemas.ts), plus a few
configurations that probe the builders' edges (a max of 1 for the plural, odd literal choices, a
list with min 2). For each field kind a fixed-seed generator makes inputs: edge cases by hand (white
space of every Unicode kind, BOM, lone surrogates, huge numbers, -0, 1e308, exponents, underscores,
every textual UUID form) and random mutations around them. Each input is JSON text, sent as the
field's value in a body (or, for query fields, a query string value), so floats stay floats (5.0).

Each case in the output is one line: [field, input, answer], where input is the field's JSON text
(null: the field is absent), and answer is {"ok": <JSON of the validated value>} or {"err": <the
422 body's `detail` as FastAPI would send it>}; in it, `"input":@` stands for an echo that is the
case's input text exactly as written (to keep the file small). Answers FastAPI could not send are
kept all the same, flagged: "unsendable": "nan" (the echo holds NaN/inf: FastAPI answers 500) and
"unsendable": "surrogate" (the echo holds a lone surrogate, which UTF-8 cannot encode: 500). A number
field's input that pydantic reads as NaN or an infinity is flagged "nonfinite": true.

test/http/pydantic-golden.test.ts runs the same inputs through our builders and compares; the
differences we keep on purpose are listed there, each citing docs/decisions.md.
"""

import datetime as dt
import json
import math
import random
import sys
import uuid as uuidlib
from pathlib import Path
from typing import Any, Literal, Optional

import pydantic
from pydantic import Field, ValidationError, create_model
from typing_extensions import Annotated

SEED = 20260818
OUT = Path(__file__).resolve().parent.parent / 'test' / 'fixtures' / 'pydantic-golden.json'
MAX_SAFE = 2**53 - 1  # every integer field's cap (docs/decisions.md, "Integers stop at 2^53 − 1")
WEEKDAYS = ['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday']

# name -> the builder and its options, as the test builds it. `source`: where the value travels.
FIELDS: dict[str, dict[str, Any]] = {
    'str': {'kind': 'string'},
    'str_1_200': {'kind': 'string', 'min': 1, 'max': 200},  # brand name, project title
    'str_max_5': {'kind': 'string', 'max': 5},
    'str_1_1': {'kind': 'string', 'min': 1, 'max': 1},  # the singular of "character"
    'int_1_100': {'kind': 'integer', 'ge': 1, 'le': 100},  # limit
    'int_0_10000': {'kind': 'integer', 'ge': 0, 'le': 10000},  # offset
    'int_ge_0': {'kind': 'integer', 'ge': 0},  # price_min_cents (capped at 2^53 - 1)
    'num_0_1e9': {'kind': 'number', 'ge': 0, 'le': 1_000_000_000},  # budget_usd
    'num': {'kind': 'number'},
    'bool': {'kind': 'boolean'},
    'uuid': {'kind': 'uuid'},
    'lit_weekday': {'kind': 'literal', 'choices': WEEKDAYS},
    'lit_2': {'kind': 'literal', 'choices': ['ready', 'failed']},
    'lit_1': {'kind': 'literal', 'choices': ['only']},
    'lit_odd': {'kind': 'literal', 'choices': ["it's", 'say "hi"', 'a\nb', 'é', 'back\\slash', 'tab\t', 'nul\x00', 'zw\u200b', '\U0001f600', 'both\'"']},
    'list_str_max_3': {'kind': 'list', 'item': {'kind': 'string', 'min': 1, 'max': 10}, 'max': 3},
    'list_weekday_1_7': {'kind': 'list', 'item': {'kind': 'literal', 'choices': WEEKDAYS}, 'min': 1, 'max': 7},
    'list_int_2_3': {'kind': 'list', 'item': {'kind': 'integer', 'ge': 0, 'le': 9}, 'min': 2, 'max': 3},
    'opt_str_max_5': {'kind': 'optional', 'inner': {'kind': 'string', 'max': 5}},
    'opt_uuid': {'kind': 'optional', 'inner': {'kind': 'uuid'}},
    'opt_int_ge_0': {'kind': 'optional', 'inner': {'kind': 'integer', 'ge': 0}},
    'dict': {'kind': 'dict'},
    'date': {'kind': 'date', 'source': 'query', 'name': 'start'},  # the calendar's ?start=
}


def py_type(cfg: dict[str, Any]) -> Any:
    kind = cfg['kind']
    if kind == 'string':
        return Annotated[str, Field(min_length=cfg.get('min'), max_length=cfg.get('max'))]
    if kind == 'integer':
        return Annotated[int, Field(ge=cfg.get('ge'), le=min(cfg.get('le', MAX_SAFE), MAX_SAFE))]
    if kind == 'number':
        return Annotated[float, Field(ge=cfg.get('ge'), le=cfg.get('le'))]
    if kind == 'boolean':
        return bool
    if kind == 'uuid':
        return uuidlib.UUID
    if kind == 'literal':
        return Literal[tuple(cfg['choices'])]
    if kind == 'list':
        return Annotated[list[py_type(cfg['item'])], Field(min_length=cfg.get('min'), max_length=cfg.get('max'))]
    if kind == 'optional':
        return Optional[py_type(cfg['inner'])]
    if kind == 'dict':
        return dict[str, Any]
    if kind == 'date':
        return dt.date
    raise ValueError(kind)


def model_for(name: str, cfg: dict[str, Any]):
    default = None if cfg['kind'] == 'optional' or cfg.get('source') == 'query' else ...
    return create_model(f'M_{name}', f=(py_type(cfg), default))


# ---- FastAPI's rendering ------------------------------------------------------------------------


def jsonable(value: Any) -> Any:
    """jsonable_encoder's share: tuples to lists, exceptions to their __dict__ ({}), UUIDs to str."""
    if isinstance(value, BaseException):
        return {}
    if isinstance(value, (list, tuple)):
        return [jsonable(v) for v in value]
    if isinstance(value, dict):
        return {k: jsonable(v) for k, v in value.items()}
    if isinstance(value, (uuidlib.UUID, dt.date)):
        return str(value)
    return value


def dumps(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(',', ':'))


def unsendable(text: str) -> Optional[str]:
    """Why FastAPI could not send this body (500), or None."""
    try:
        json.loads(text, parse_constant=lambda c: (_ for _ in ()).throw(ValueError(c)))
    except ValueError:
        return 'nan'
    try:
        text.encode('utf-8')
    except UnicodeEncodeError:
        return 'surrogate'
    return None


FLOAT = pydantic.TypeAdapter(float)


def non_finite(cfg: dict[str, Any], input_text: Optional[str]) -> bool:
    """Whether pydantic reads a number field's input as NaN or an infinity."""
    if cfg['kind'] != 'number' or input_text is None:
        return False
    try:
        return not math.isfinite(FLOAT.validate_python(json.loads(input_text)))
    except ValidationError:
        return False


def answer(model: Any, cfg: dict[str, Any], input_text: Optional[str]) -> dict[str, Any]:
    source = cfg.get('source', 'body')
    key = cfg.get('name', 'f')
    data = {} if input_text is None else {'f': json.loads(input_text)}
    try:
        value = model.model_validate(data).f
    except ValidationError as exc:
        items = []
        for err in exc.errors(include_url=False):
            item = {**err, 'loc': (source, key, *err['loc'][1:])}
            if source == 'query' and err['type'] == 'missing':
                item['input'] = None  # FastAPI reads parameters itself
            items.append(jsonable(item))
        text = dumps(items)
        why = unsendable(text)
        if input_text is not None:  # the echo written as the input is: shortened to `@` (file size)
            text = text.replace('"input":' + input_text + ',', '"input":@,').replace('"input":' + input_text + '}', '"input":@}')
        return {'err': text, 'unsendable': why} if why else {'err': text}
    text = dumps(jsonable(value))
    return {'ok': text}


# ---- inputs -------------------------------------------------------------------------------------

rng = random.Random(SEED)

# Every character Python's str.isspace() or Rust's char::is_whitespace() counts, and a few that
# neither does but look like it (BOM, zero-width space, NUL).
SPACES = [
    '\t', '\n', '\x0b', '\x0c', '\r', ' ', '\x1c', '\x1d', '\x1e', '\x1f', '\x85', '\xa0', '\u1680',
    *[chr(c) for c in range(0x2000, 0x200B)], '\u2028', '\u2029', '\u202f', '\u205f', '\u3000',
    '\ufeff', '\u200b', '\u180e', '\x00',
]
ODD = ['é', 'e\u0301', '€', '😀', '👍🏽', '𝟘', '١', '５', 'Ⅻ', '\u0000', '\x7f', '"', '\\', "'", '/']
SURROGATES = ['\\ud800', '\\udbff', '\\udc00', '\\udfff', 'a\\ud83d', '\\ude00b', '\\ud83d\\ude00']


def js(value: Any) -> str:
    """A Python value as JSON text (ASCII, so lone surrogates written as \\uXXXX escapes)."""
    return json.dumps(value, ensure_ascii=True)


def jstr(raw_escaped: str) -> str:
    """A JSON string literal from text that may hold \\uXXXX escapes already (lone surrogates)."""
    return '"' + raw_escaped + '"'


COMMON = ['null', 'true', 'false', '0', '1', '-1', '5.0', '5.5', '[]', '{}', '[1]', '{"a":1}', '""', '" "', '"abc"']


def string_inputs(long_too: bool) -> list[str]:
    out = list(COMMON)
    for n in [0, 1, 2, 3, 4, 5, 6, 7]:
        for unit in ['a', 'é', '😀', 'e\u0301', '中', '\U0010ffff']:
            out.append(js(unit * n))
    if long_too:
        for n in [199, 200, 201]:
            for unit in ['a', '😀', 'e\u0301']:
                out.append(js(unit * n))
    for s in SPACES:
        out += [js(s), js(s * 3), js(' ' + s + 'x'), js('ab' + s)]
    out += [jstr(s) for s in SURROGATES] + [jstr(s + s) for s in SURROGATES[:3]]
    out += [jstr('ab\\ud800cd'), jstr('\\ud800' * 6), jstr('😀😀\\ud800')]
    out += ['5', '-0', '-0.0', '1e308', '1e400', 'NaN', 'Infinity', '99999999999999999999', '[""]', '["a"]', '{"f":"a"}']
    palette = ['a', 'b', ' ', 'é', '😀', '\u0301', '\t', '\ufeff', '\x00', '"', '\\', '中']
    for _ in range(60):
        out.append(js(''.join(rng.choice(palette) for _ in range(rng.randint(0, 8)))))
    return out


INT_LITERALS = [
    '0', '-0', '1', '-1', '2', '9', '10', '99', '100', '101', '9999', '10000', '10001', '2147483647',
    '2147483648', '-2147483649', '9007199254740990', '9007199254740991', '9007199254740992', '9007199254740993',
    '-9007199254740991', '-9007199254740992', '9223372036854775295', '9223372036854775296', '9223372036854775807',
    '9223372036854775808', '-9223372036854775808', '-9223372036854775809', '18446744073709551616',
    '99999999999999999999', '-99999999999999999999', '1' + '0' * 100, '-' + '9' * 60,
]
FLOAT_LITERALS = [
    '0.0', '-0.0', '1.0', '-1.0', '5.0', '5.5', '0.5', '-0.5', '1e2', '1E2', '1.0e1', '1e+2', '1e-2', '100.0',
    '100.5', '101.0', '1e3', '1e4', '1e5', '10000.0', '10000.000000000002', '0.1', '1e-5', '2.5e-5', '1e-400', '-1e-400',
    '1e15', '1e16', '1e18', '9.2e18', '9.223372036854775e18', '9.223372036854776e18', '9.3e18', '1e19', '1e20', '-1e20',
    '1e308', '-1e308', '1.7976931348623157e308', '1e309', '-1e309', '9007199254740991.0', '9007199254740992.0',
    '9007199254740993.0', '4.9e-324', '5e-324', '2.2250738585072014e-308', '0.30000000000000004', '999999999.9999999',
    '1000000000.0', '1000000000.0000001', '1000000001.0', '1e9', '1.0000000000000002', '0.9999999999999999',
    'NaN', 'Infinity', '-Infinity',
]
NUMBER_TEXTS = [
    '', ' ', '0', '00', '007', '-0', '+0', '+1', '-1', '+-1', '-+1', '--1', '++1', '+', '-', '1', '5', '100', '101',
    '10000', '10001', '1.0', '1.00', '1.000000', '-1.0', '+1.0', '1.', '-1.', '.0', '.5', '0.5', '1.5', '1.05', '1.0e0',
    '1e2', '1E2', '1e+2', '1e-2', 'e2', '1e', '1e+', '.', '-.', '+.5', '.e1', '5.e1', '0x10', '0X1F', '0b1', '0o7',
    '0xg', '1_000', '1__000', '_1', '1_', '1_0_0', '+1_0', '-_1', '1_.0', '1._0', '1.0_0', '1_e1', '1e1_0',
    '1_000.000_1', '1,000', '1 000', '1\u00a0000', '1\u202f000', '١٢٣', '１２３', '१२', '²', '٣.٥', 'inf',
    '-inf', '+inf', 'INF', 'Inf', 'infinity', 'Infinity', '-Infinity', 'INFINITY', 'infinit', 'infinityy', 'nan',
    'NaN', '-nan', '+NaN', 'NAN', 'nan(1)', 'snan', '1e308', '1e309', '-1e309', '1.7976931348623157e308',
    '1.7976931348623159e308', '2e-324', '4.9e-324', '1e-400', '9007199254740991', '9007199254740992',
    '9007199254740993', '9223372036854775807', '9223372036854775808', '-9223372036854775808',
    '-9223372036854775809', '99999999999999999999', '1' + '0' * 30, '9' * 4300, '9' * 4301, '1' + '0' * 4300,
    '0' * 4301, '-' + '1' * 4300, '1e9', '1000000000', '1000000000.0', '1000000001', '1000000000.5', 'true',
    'True', 'one', 'abc', '1a', 'a1', '1/2', '½', '0.1e-1', '00.5', '-00', '0e0', '0E-0', '1.5e0',
    '10000.0', '10000.5', '100.00', '99.9', '1.0.0', '1..0', '1e2.0', '2_147_483_648',
]


# Around pydantic's 4,300-character limit on an integer's text: a sign, leading zeros, '.0', spaces, a
# trailing letter (each ~4 KB, so only a few).
LONG_INT_TEXTS = [
    '1' + '0' * 4299, '1' + '0' * 4300, '-1' + '0' * 4299, '+1' + '0' * 4299, '+1' + '0' * 4300, '00' + '1' + '0' * 4299,
    '-0' + '1' + '0' * 4299, '1' + '0' * 4300 + 'x', ' ' + '1' + '0' * 4300, '1' + '0' * 4299 + '.0', 'x' + '0' * 4301,
    '0' * 4301, '1_' * 2150 + '1',
]


def spaced(texts: list[str]) -> list[str]:
    out = []
    for t in ['1', '1.5', '1_0', 'inf']:
        for s in SPACES:
            out += [s + t, t + s]
        out += [' ' + t + ' ', '\t\n' + t + '\r\n', '\ufeff' + t, '\ufeff ' + t, ' \ufeff' + t]
    return out + texts


def number_text_random() -> list[str]:
    palette = list('0123456789') * 3 + ['_', '_', '.', '.', '+', '-', 'e', 'E', ' ', '\xa0', '\ufeff', '\x85', 'i', 'n', 'f']
    return [''.join(rng.choice(palette) for _ in range(rng.randint(1, 8))) for _ in range(300)]


CORE_TEXTS = ['', ' 5 ', '5', '-1', '0', '1.0', '1.5', '1e2', '1_000', '10000', '10001', '100', '101', 'inf', 'nan',
              '9007199254740992', '9223372036854775808', '1e309', '1000000000', '1000000000.5', 'abc']


def integer_inputs(full: bool) -> list[str]:
    texts = spaced(NUMBER_TEXTS) + number_text_random() + LONG_INT_TEXTS if full else CORE_TEXTS
    return ['null', 'true', 'false', '[]', '{}', '[1]', '"1"'] + INT_LITERALS + FLOAT_LITERALS + [js(t) for t in texts]


def number_inputs(full: bool) -> list[str]:
    texts = spaced(NUMBER_TEXTS) + number_text_random() if full else CORE_TEXTS
    exps = [f'{m}e{e}' for m in ['1', '-1', '1.5', '9.99'] for e in ['-400', '-324', '-308', '-5', '0', '8', '9', '300', '308', '309']]
    return ['null', 'true', 'false', '[]', '{}', '[1]'] + INT_LITERALS + FLOAT_LITERALS + exps + [js(t) for t in texts]


def boolean_inputs() -> list[str]:
    words = ['0', '1', 't', 'f', 'y', 'n', 'on', 'off', 'yes', 'no', 'true', 'false']
    out = ['null', 'true', 'false', '0', '1', '2', '-1', '0.0', '1.0', '-0.0', '2.0', '0.5', '1e0', '1e-400', 'NaN',
           'Infinity', '10', '[]', '{}', '[true]', '"true"']
    for w in words:
        variants = {w, w.upper(), w.capitalize(), ''.join(rng.choice([c.upper(), c.lower()]) for c in w)}
        for x in sorted(variants):
            out += [js(x), js(' ' + x), js(x + ' '), js(x + '\n'), js('\ufeff' + x), js(x + '\x00')]
    out += [js(t) for t in ['', ' ', '00', '01', '10', '2', '-1', '+1', '1.0', '0.0', 'tr', 'truee', 'yess', 'ye', 'of', 'offf', 'none',
                             'null', 'None', 'ｙｅｓ', 'ｔｒｕｅ', 'İ', 'ı', 'ON\u0130', 'tRUe', 'nO', 'oN', 'oFf', 'x', '１']]
    return out


HEX = '0123456789abcdef'


def uuid_inputs() -> list[str]:
    out = ['null', 'true', '0', '123', '1.5', '[]', '{}', '["550e8400-e29b-41d4-a716-446655440000"]']
    bases = []
    for version in HEX:
        for variant in '089bcf':
            h = ''.join(rng.choice(HEX) for _ in range(32))
            bases.append(h[:12] + version + h[13:16] + variant + h[17:])
    bases += ['0' * 32, 'f' * 32]

    def forms(h: str) -> list[str]:
        hy = f'{h[:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:]}'
        return [h, hy, hy.upper(), h.upper(), '{' + hy + '}', 'urn:uuid:' + hy, '{' + h + '}', 'urn:uuid:' + h,
                'URN:UUID:' + hy, 'urn:UUID:' + hy, '{' + hy.upper() + '}', ''.join(rng.choice([c, c.upper()]) for c in hy)]

    valid = [f for h in bases for f in forms(h)]
    out += [js(s) for s in valid]
    insertions = ['-', '0', 'a', 'F', 'g', 'G', ' ', '\t', '{', '}', ':', 'é', '😀', '\x00', '\ufeff', 'urn:uuid:', 'x']

    def mutate(s: str) -> str:
        op = rng.randrange(6)
        i = rng.randrange(len(s) + 1)
        if op == 0 and s:
            return s[:min(i, len(s) - 1)] + s[min(i, len(s) - 1) + 1:]  # delete one
        if op == 1:
            return s[:i] + rng.choice(insertions) + s[i:]  # insert one
        if op == 2 and s:
            j = min(i, len(s) - 1)
            return s[:j] + rng.choice(insertions) + s[j + 1:]  # replace one
        if op == 3:
            return s[:i]  # truncate
        if op == 4:
            return s[rng.randrange(len(s) + 1):]  # drop a head
        return s.replace('-', '', 1) if rng.random() < 0.5 else s + rng.choice(insertions)
    for _ in range(600):
        s = rng.choice(valid)
        for _ in range(rng.choice([1, 1, 1, 2, 3])):
            s = mutate(s)
        out.append(js(s))
    hand = ['', ' ', '-', '{}', '{', '}', 'urn:uuid:', 'urn:uuid', 'abc', 'x', 'not-a-valid-uuid', '{x}', '{{}}', 'urn:uuid:{}',
            '{urn:uuid:550e8400-e29b-41d4-a716-446655440000}', 'urn:uuid:{550e8400-e29b-41d4-a716-446655440000}',
            ' 550e8400-e29b-41d4-a716-446655440000', '550e8400-e29b-41d4-a716-446655440000 ',
            '550e8400-e29b-41d4-a716-44665544000é', '550e8400e29b41d4a716446655440zzz', '550e8400-e29b-41d4-a716',
            '550e840-0e29b-41d4-a716-446655440000', '550e8400-e29b-41d4-a716-4466554400000', '----', '--------------------------------',
            '{550e8400-e29b-41d4-a716-44665544000}', '{550e8400-e29b-41d4-a716-4466554400000}',
            'urn:uuid:550e8400-e29b-41d4-a716-44665544000', 'urn:uuid:550e8400-e29b-41d4-a716-4466554400000',
            '{550e8400e29b41d4a716446655440000}', '{550e8400e29b41d4a71644665544000}', 'urn:uuid:550e8400e29b41d4a716446655440000',
            '550e8400-e29b-41d4-a716-446655440000\ud800']
    out += [js(s) for s in hand]
    return out


def date_inputs() -> list[str]:
    texts = ['', ' ', 'abc', '2026-01-01', '2026-1-1', '2026-01-1', '26-01-01', '2026/01/01', '20260101', '2026-13-01',
             '2026-00-10', '2026-12-32', '2026-02-29', '2024-02-29', '2100-02-29', '2000-02-29', '1900-02-29', '0000-01-01',
             '0001-01-01', '9999-12-31', '1969-12-31', '1970-01-01', '2999-12-31', '3000-01-01', '1700000000', '1700000000.5',
             '-1', '0', '86400', '1e9', '2026-01-01T00:00', '2026-01-01T00:00:00', '2026-01-01T00:00:00Z',
             '2026-01-01T00:00:00.000000', '2026-01-01T00:00:00.0000001', '2026-01-01T00:00:00.000001', '2026-01-01T00:00:01',
             '2026-01-01T01:00', '2026-01-01t00:00', '2026-01-01 00:00', '2026-01-01_00:00', '2026-01-01x00:00',
             '2026-01-01T24:00', '2026-01-01T23:60', '2026-01-01T00:00:60', '2026-01-01T00:00:00+01:00',
             '2026-01-01T00:00:00-0100', '2026-01-01T00:00:00\u221201:00', '2026-01-01T00:00:00+24:00', '2026-01-01T00:00:00+23:59',
             '2026-01-01T00:00:00+2400', '2026-01-01T00:00:00+00:60', '2026-01-01T00:00:00+1', '2026-01-01T00:00:00+',
             '2026-01-01T00:00:00Zx', '2026-01-01T00:00:00.', '2026-01-01T00:00:00,5', '2026-01-01T00:00:00,0',
             '2026-01-01T', '2026-01-01T0', '2026-01-01T00', '2026-01-01T00:', '2026-01-01T00:0', '2026-01-01T00:00:0',
             '2026-01-01 ', ' 2026-01-01', '\ufeff2026-01-01', '2026-01-01\n', '２０２６-01-01', '2026-01-01T00:00:00.123456789',
             '2026-01-01T00:00:00.000000000001', '2026-01-01T00:00:00z', '2026-01-01T00:00:00 +01:00', '2026-01-01T00:00+01:00',
             '2026-01-01T00:00:00+01:00:00', '2026-01-01T00:00:00+01:0', '2026-02-30', '2026-04-31', '2026-06-31',
             '2026-01-01T12:00:00', '2026-01-01T00:00:00.5Z', '2026-01-0a', '2026-0a-01', '202a-01-01', '2026x01-01',
             '2026-01x01', '2026-01-01T0a:00', '2026-01-01T00:0a', '2026-01-01T00-00', '2026-01-01T00:00:0a',
             '2026-01-01T00:00:00+0a:00', '2026-01-01T00:00:00+01:0a', '2026-01-01T00:00:00é', 'é026-01-01', '2026-é1-01',
             '2026-01-01é', '2026-01-01T00:00:00.é', '9999-12-31T23:59:59', '0000-00-00', '2026-001', '2026-W01-1', '2026-01-01T00:00:00.+01:00']
    full = '2026-03-15T00:00:00.000000+05:30'
    texts += [full[:i] for i in range(len(full) + 1)]
    palette = list('0123456789') * 2 + ['-', ':', 'T', 't', ' ', '_', '.', ',', 'Z', '+', 'é', 'x', '\u2212']
    seeds = ['2026-03-15', '2026-03-15T00:00', '2026-03-15T00:00:00Z', '2024-02-29T00:00:00.000+01:00', '1999-12-31 00:00:00']
    for _ in range(400):
        s = list(rng.choice(seeds))
        for _ in range(rng.choice([1, 1, 2])):
            i = rng.randrange(len(s))
            op = rng.randrange(3)
            if op == 0:
                s[i] = rng.choice(palette)
            elif op == 1:
                s.insert(i, rng.choice(palette))
            else:
                del s[i]
        texts.append(''.join(s))
    for _ in range(150):  # plausible dates: every month's last days, leap years
        y = rng.choice([0, 4, 100, 1600, 1900, 1970, 2000, 2023, 2024, 2100, 2400, 2999, 3000, 9999])
        m = rng.randint(0, 13)
        d = rng.choice([0, 1, 28, 29, 30, 31, 32])
        texts.append(f'{y:04d}-{m:02d}-{d:02d}')
    return [js(t) for t in texts]


def literal_inputs(choices: list[str]) -> list[str]:
    out = ['null', 'true', 'false', '0', '1', '1.0', '[]', '{}', '""', '" "']
    for c in choices:
        out += [js(c), js(c.upper()), js(c.capitalize()), js(' ' + c), js(c + ' '), js(c + '\x00'), js(c[:-1]), js([c]), js({c: c})]
    out += [js(x) for x in ['Monday', 'mon', 'MONDAY', 'ready ', 'Ready', 'only', 'ONLY', "it's", 'say "hi"', 'a\nb', 'a\\nb']]
    return out


def list_inputs(name: str) -> list[str]:
    out = ['null', 'true', '0', '"abc"', '""', '{}', '{"0":"a"}', '[]', '[null]', '[[]]']
    if name == 'list_str_max_3':
        out += [js(x) for x in [['a'], ['a', 'b'], ['a', 'b', 'c'], ['a', 'b', 'c', 'd'], [''], ['', 'a'], ['a', ''], ['', ''],
                                 [1, 2, 3, 4], ['a' * 11], ['a' * 10], ['', 1, None], ['', '', '', ''], ['😀' * 10], ['😀' * 11], [5], [True]]]
        out += ['["a","\\ud800"]', '["\\ud800","\\ud800","\\ud800","\\ud800"]', '[1.0]', '[1e2,"a"]']
    elif name == 'list_weekday_1_7':
        out += [js(x) for x in [['monday'], WEEKDAYS, WEEKDAYS + ['monday'], ['Monday'], ['monday', 'Tuesday', 'x'], ['monday'] * 7,
                                 ['monday'] * 8, [1], ['x'] * 8, [None, None], ['sunday', 'monday']]]
    else:
        out += [js(x) for x in [[0], [0, 1], [0, 1, 2], [0, 1, 2, 3], [10], [10, 11], [-1, 10], ['1', '2'], [1.5, 2], [True, False],
                                 [None], [0, None, 10], [0, 0, 0, 0, 'x'], ['a']]]
        out += ['[1.0,2.0]', '[1e400,1]', '[5.5]', '["1"]', '["1","2"]', '[true]', '[1.0]']
    return out


def optional_inputs(inner: dict[str, Any]) -> list[Optional[str]]:
    out: list[Optional[str]] = [None, 'null', 'true', '0', '[]', '{}', '""', '"null"', '"None"', '"abc"']
    if inner['kind'] == 'string':
        out += [js('abcde'), js('abcdef'), js('😀' * 5), js('😀' * 6), '"\\ud800"']
    if inner['kind'] == 'uuid':
        out += [js('550e8400-e29b-41d4-a716-446655440000'), js('{550E8400-E29B-41D4-A716-446655440000}'), js('550e8400')]
    if inner['kind'] == 'integer':
        out += ['5', '-1', '5.0', '5.5', '"5"', '" 5 "', '"-1"', '9007199254740992', '1e20']
    return out


def dict_inputs() -> list[str]:
    return ['null', 'true', '0', '1.5', '"a"', '""', '[]', '[1]', '[["a",1]]', '{}', '{"a":1}', '{"a":{"b":[1,"x",null]}}',
            '{"":null}', '{"1":true}', '{"a":"\\u00e9"}', '{"a":1.0}', '{"a":"b","a":"c"}']


def inputs_for(name: str, cfg: dict[str, Any]) -> list[Optional[str]]:
    kind = cfg['kind']
    if kind == 'string':
        base: list[Optional[str]] = list(string_inputs(long_too=cfg.get('max') == 200))
    elif kind == 'integer':
        base = list(integer_inputs(full=name == 'int_1_100'))
    elif kind == 'number':
        base = list(number_inputs(full=name == 'num_0_1e9'))
    elif kind == 'boolean':
        base = list(boolean_inputs())
    elif kind == 'uuid':
        base = list(uuid_inputs())
    elif kind == 'literal' and name == 'lit_odd':  # only its texts matter here: a few inputs
        base = ['null', '1', '"x"'] + [js(c) for c in cfg['choices']] + [js(c.upper()) for c in cfg['choices']]
    elif kind == 'literal':
        base = list(literal_inputs(cfg['choices']))
    elif kind == 'list':
        base = list(list_inputs(name))
    elif kind == 'optional':
        base = optional_inputs(cfg['inner'])
    elif kind == 'dict':
        base = list(dict_inputs())
    elif kind == 'date':
        base = date_inputs()
    else:
        raise ValueError(kind)
    if kind != 'optional':
        base.append(None)  # absent
    seen: set[Optional[str]] = set()
    return [x for x in base if not (x in seen or seen.add(x))]


def main() -> None:
    cases = []
    counts: dict[str, int] = {}
    for name, cfg in FIELDS.items():
        model = model_for(name, cfg)
        for input_text in inputs_for(name, cfg):
            if cfg.get('source') == 'query' and input_text is not None and not isinstance(json.loads(input_text), str):
                continue  # a query value is always text
            result = answer(model, cfg, input_text)
            if non_finite(cfg, input_text):
                result['nonfinite'] = True
            cases.append([name, input_text, result])
            counts[cfg['kind']] = counts.get(cfg['kind'], 0) + 1
    lines = ',\n'.join(json.dumps(case, ensure_ascii=True, separators=(',', ':')) for case in cases)
    header = {
        'about': 'pydantic answers for the field builders of shared/http/fields.ts. Generated by scripts/pydantic-golden.py; do not edit.',
        'pydantic': pydantic.VERSION,
        'python': sys.version.split()[0],
        'seed': SEED,
        'fields': FIELDS,
    }
    head = json.dumps(header, ensure_ascii=True, separators=(',', ':'))[:-1]
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_text(head + ',"cases":[\n' + lines + '\n]}\n', encoding='utf-8')
    print(f'{len(cases)} cases, {OUT.stat().st_size} bytes: ' + ', '.join(f'{k} {n}' for k, n in counts.items()))


if __name__ == '__main__':
    main()
