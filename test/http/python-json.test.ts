import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import {
  BodyTooDeepError,
  decodePythonJson,
  decodePythonNumbers,
  encodePythonJson,
  PythonNumber,
  pythonFloatRepr,
  unescapedJsonBytes,
} from '../../shared/http/python-json.ts';
import { asciiJson } from '../support/python-json.ts';

const fails = (text: string) => {
  const r = decodePythonJson(text);
  assert.equal(r.ok, false, `expected ${JSON.stringify(text)} to fail`);
  return r.ok ? undefined : { msg: r.msg, pos: r.pos };
};
const value = (text: string) => {
  const r = decodePythonJson(text);
  assert.ok(r.ok, `expected ${JSON.stringify(text)} to decode: ${JSON.stringify(r)}`);
  return r.value;
};

const PROP = 'Expecting property name enclosed in double quotes';
// fastapi-errors.md §3.2, "JSON decode errors", Python <= 3.12 column.
const TABLE: [string, string, number][] = [
  ['{', PROP, 1],
  ['{a:1}', PROP, 1],
  ["{'a':1}", PROP, 1],
  ['{"a" 1}', "Expecting ':' delimiter", 5],
  ['{"a":1 "b":2}', "Expecting ',' delimiter", 7],
  ['[1 2]', "Expecting ',' delimiter", 3],
  ['{"a":1,}', PROP, 7],
  ['[1,2,]', 'Expecting value', 5],
  ['{"a":tru}', 'Expecting value', 5],
  ['{"a":-}', 'Expecting value', 5],
  ['{"a":.5}', 'Expecting value', 5],
  ['nul', 'Expecting value', 0],
  ['{"a":1}x', 'Extra data', 7],
  ['{"a":"x', 'Unterminated string starting at', 5],
  ['{"a":"\\q"}', 'Invalid \\escape', 6],
  ['{"a":"\\uZZZZ"}', 'Invalid \\uXXXX escape', 7],
  ['{"a":"a\tb"}', 'Invalid control character at', 7],
  ['{"a":01}', "Expecting ',' delimiter", 6],
  ['{"a":1.}', "Expecting ',' delimiter", 6],
];

describe('decodePythonJson: CPython error messages and positions', () => {
  for (const [text, msg, pos] of TABLE) {
    it(`${JSON.stringify(text)} → ${msg} @${pos}`, () => assert.deepEqual(fails(text), { msg, pos }));
  }

  it('more scanner edge cases', () => {
    const cases: [string, string, number][] = [
      ['', 'Expecting value', 0],
      ['   ', 'Expecting value', 3],
      ['[', 'Expecting value', 1],
      ['[1', "Expecting ',' delimiter", 2],
      ['{"a"', "Expecting ':' delimiter", 4],
      ['{"a":', 'Expecting value', 5],
      ['{"a":1', "Expecting ',' delimiter", 6],
      ['{"a" : 1 ,  }', PROP, 12],
      ['[1,  ]', 'Expecting value', 5],
      ['{"a":1} \n x', 'Extra data', 10],
      ['"abc', 'Unterminated string starting at', 0],
      ['"ab\\', 'Unterminated string starting at', 0],
      ['"\\u004', 'Invalid \\uXXXX escape', 2],
      ['"\\u0041', 'Invalid \\uXXXX escape', 2], // CPython wants a character after the 4 digits
      ['"\\ud800\\uzzzz"', 'Invalid \\uXXXX escape', 8],
      ['"a\u0000', 'Invalid control character at', 2],
      ['["a\nb"]', 'Invalid control character at', 3],
      ['-', 'Expecting value', 0],
      ['-Inf', 'Expecting value', 0],
      ['Nan', 'Expecting value', 0],
      ['infinity', 'Expecting value', 0],
      ['1e', 'Extra data', 1],
      ['1e+', 'Extra data', 1],
      ['0x10', 'Extra data', 1],
      ['[1,]', 'Expecting value', 3],
      ['{"a":1}{', 'Extra data', 7],
      ['\u00a0{}', 'Expecting value', 0], // only space, \t, \n, \r are whitespace
    ];
    for (const [text, msg, pos] of cases) assert.deepEqual(fails(text), { msg, pos }, JSON.stringify(text));
  });

  it('refuses each raw control character U+0000–U+001F inside a string, key or value, at its position', () => {
    // CPython's strict scanner: every character below U+0020 must be escaped (U+001F the last of them).
    for (let code = 0; code <= 0x1f; code++) {
      const c = String.fromCharCode(code);
      const at = `U+${code.toString(16).padStart(4, '0')}`;
      assert.deepEqual(fails(`{"a":"x${c}y"}`), { msg: 'Invalid control character at', pos: 7 }, at);
      assert.deepEqual(fails(`{"k${c}":1}`), { msg: 'Invalid control character at', pos: 3 }, at);
    }
    assert.equal(value('"\u0020"'), ' ');
  });

  it('counts positions in code points, not UTF-16 units', () => {
    assert.deepEqual(fails('{"😀":x}'), { msg: 'Expecting value', pos: 5 });
    assert.deepEqual(fails('["😀😀", "\\x"]'), { msg: 'Invalid \\escape', pos: 8 });
    assert.deepEqual(fails('😀'), { msg: 'Expecting value', pos: 0 });
    assert.deepEqual(fails('{"a":1}😀'), { msg: 'Extra data', pos: 7 });
    assert.deepEqual(fails('["\ud800", x]'), { msg: 'Expecting value', pos: 6 }); // a lone surrogate counts once
  });

  it('strips a leading BOM before indexing', () => {
    assert.deepEqual(value('\ufeff{"a":1}'), { a: 1 });
    assert.deepEqual(fails('\ufeff{"a":x}'), { msg: 'Expecting value', pos: 5 });
  });
});

describe('decodePythonJson: accepted values', () => {
  it('accepts NaN, Infinity and -Infinity, also nested and with errors after them', () => {
    assert.ok(Number.isNaN(value('NaN')));
    assert.equal(value('Infinity'), Number.POSITIVE_INFINITY);
    assert.deepEqual(value(' [NaN, -Infinity, {"x": Infinity}, "NaN"] '), [
      Number.NaN,
      Number.NEGATIVE_INFINITY,
      { x: Number.POSITIVE_INFINITY },
      'NaN',
    ]);
    assert.deepEqual(fails('[NaN, nan]'), { msg: 'Expecting value', pos: 6 });
  });

  it('decodes values like Python', () => {
    assert.equal(value('1e400'), Number.POSITIVE_INFINITY);
    assert.equal(value('-1e400'), Number.NEGATIVE_INFINITY);
    assert.equal(value('99999999999999999999'), 1e20); // precision lost, as accepted
    assert.deepEqual(value('{"a":1,"b":2,"a":3}'), { a: 3, b: 2 });
    assert.deepEqual(value('[NaN,{"a":1,"a":"x"}]'), [Number.NaN, { a: 'x' }]);
    assert.equal(value('"\\ud83d\\ude00 \\u00e9\\/\\b\\f\\n\\r\\t\\"\\\\"'), '😀 é/\b\f\n\r\t"\\');
    assert.deepEqual(value('[NaN,"\\ud83d\\ude00\\u00E9\\/\\n\\ud800"]'), [Number.NaN, '😀é/\n\ud800']);
    assert.equal(value('"\u007f\u2028"'), '\u007f\u2028');
  });

  it('accepts top-level scalars', () => {
    assert.equal(value('1'), 1);
    assert.equal(value(' -2.5e1 '), -25);
    assert.equal(value('"s"'), 's');
    assert.equal(value('true'), true);
    assert.equal(value('false'), false);
    assert.equal(value('null'), null);
  });

  it('makes __proto__ and constructor own properties without pollution', () => {
    for (const text of [
      '{"__proto__":{"polluted":1},"constructor":{"prototype":{"polluted":2}}}',
      '{"__proto__":{"polluted":1},"constructor":{"prototype":{"polluted":2}},"n":NaN}',
    ]) {
      const v = value(text) as Record<string, unknown>;
      assert.equal(Object.getPrototypeOf(v), Object.prototype);
      assert.ok(Object.hasOwn(v, '__proto__'));
      assert.ok(Object.hasOwn(v, 'constructor'));
      assert.deepEqual(Object.keys(v).slice(0, 2), ['__proto__', 'constructor']);
      assert.equal(({} as Record<string, unknown>)['polluted'], undefined);
      assert.equal(Reflect.get(Object.getOwnPropertyDescriptor(v, '__proto__')?.value ?? {}, 'polluted'), 1);
    }
  });

  it('round-trips any JSON value (property)', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (v) => {
        const r = decodePythonJson(JSON.stringify(v));
        assert.ok(r.ok);
        assert.deepEqual(r.value, JSON.parse(JSON.stringify(v))); // -0 becomes 0 through stringify
      }),
      { numRuns: 500 },
    );
  });

  it('the scanner builds the same value as JSON.parse (property)', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (v) => {
        const text = `[${JSON.stringify(v, null, 1)}, NaN]`; // NaN forces the scanner
        const r = decodePythonJson(text);
        assert.ok(r.ok);
        assert.deepEqual((r.value as unknown[])[0], JSON.parse(JSON.stringify(v)));
      }),
      { numRuns: 500 },
    );
  });
});

describe('unescapedJsonBytes: the size of what a JSON text says', () => {
  const measure = (text: string) => unescapedJsonBytes(Buffer.from(text, 'utf8'));

  it('is the same however a client escapes the same value (property)', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (v) => {
        const utf8 = JSON.stringify(v);
        assert.equal(measure(asciiJson(v)), measure(utf8));
        assert.ok(measure(utf8) <= Buffer.byteLength(utf8));
      }),
      { numRuns: 500 },
    );
  });

  it('counts each escape as the UTF-8 of what it stands for', () => {
    const raw = String.raw;
    assert.equal(measure(raw`"\\n"`), 4); // quotes, an escaped backslash, a plain n
    assert.equal(measure(raw`"\n\t\"\/"`), 6);
    assert.equal(measure(raw`"\u0041\u00e9\u20ac"`), 2 + 1 + 2 + 3);
    assert.equal(measure(raw`"\ud83d\ude00"`), 2 + 4); // a surrogate pair is one 4-byte character
    assert.equal(measure(raw`"\ud83d"`), 2 + 3); // a lone surrogate: 3 bytes, as U+FFFD
    assert.equal(measure(raw`"\ude00\ud83d"`), 2 + 6); // the wrong order is two lone ones
    assert.equal(measure(raw`"\uZZZZ"`), 2 + 5); // malformed: 2 bytes for 1, parsing refuses it later
    assert.equal(measure(raw`"\u12`), 4);
    assert.equal(measure('"\\'), 1); // a dangling backslash at the end
  });
});

describe('decodePythonJson: bodies CPython refuses outright (FastAPI 400)', () => {
  const nest = (depth: number, inner = '1') => '['.repeat(depth) + inner + ']'.repeat(depth);

  it('allows 1000 levels and rejects 1001', () => {
    assert.ok(decodePythonJson(nest(1000)).ok);
    assert.ok(decodePythonJson('{"a":'.repeat(1000) + '1' + '}'.repeat(1000)).ok);
    assert.throws(() => decodePythonJson(nest(1001)), BodyTooDeepError);
    assert.throws(() => decodePythonJson('{"a":'.repeat(1001) + '1' + '}'.repeat(1001)), BodyTooDeepError);
    assert.throws(() => decodePythonJson(nest(1001, 'NaN')), BodyTooDeepError);
    assert.throws(() => decodePythonJson(nest(5000, 'x')), BodyTooDeepError);
    assert.throws(() => decodePythonJson(nest(100000)), BodyTooDeepError);
  });

  it('reports a syntax error met before the depth limit', () => {
    assert.deepEqual(fails('[x' + nest(2000)), { msg: 'Expecting value', pos: 1 });
  });

  it('does not count brackets inside strings', () => {
    const many = JSON.stringify(['['.repeat(3000), Array.from({ length: 1500 }, () => [{}])]);
    assert.ok(decodePythonJson(many).ok);
  });

  it('rejects integers of more than 4300 digits (sys.int_max_str_digits)', () => {
    assert.ok(decodePythonJson('1'.repeat(4300)).ok);
    assert.ok(decodePythonJson(`-${'1'.repeat(4300)}`).ok);
    assert.ok(decodePythonJson(`["${'1'.repeat(5000)}", 0.${'1'.repeat(5000)}, 1e${'0'.repeat(5000)}]`).ok);
    assert.throws(() => decodePythonJson(`[1, ${'1'.repeat(4301)}]`), BodyTooDeepError);
    assert.throws(() => decodePythonJson(`[NaN, -${'1'.repeat(4301)}]`), BodyTooDeepError);
  });
});

describe('pythonFloatRepr', () => {
  const cases: [number, string][] = [
    [10.0, '10.0'],
    [100, '100.0'],
    [1e20, '1e+20'],
    [1e16, '1e+16'],
    [1e15, '1000000000000000.0'],
    [1234567890123456.8, '1234567890123456.8'],
    [0.0001, '0.0001'],
    [0.00001, '1e-05'],
    [2.5e-5, '2.5e-05'],
    [0, '0.0'],
    [-0, '-0.0'],
    [-1.5, '-1.5'],
    [1 / 3, '0.3333333333333333'],
    [0.1, '0.1'],
    [123.456, '123.456'],
    [1.5e300, '1.5e+300'],
    [5e-324, '5e-324'],
    [Number.MAX_VALUE, '1.7976931348623157e+308'],
    [-1.25e-7, '-1.25e-07'],
    [Number.NaN, 'nan'],
    [Number.POSITIVE_INFINITY, 'inf'],
    [Number.NEGATIVE_INFINITY, '-inf'],
  ];
  for (const [n, repr] of cases) it(`${n} → ${repr}`, () => assert.equal(pythonFloatRepr(n), repr));
});

describe('decodePythonNumbers and encodePythonJson: a 422 echoes number literals as Python does', () => {
  it('marks float literals only, finite ones only', () => {
    const r = decodePythonNumbers('\ufeff[1, -1.0, 1e2, 2.5E-5, -0.0, 1e400, {"a": 0.5}, "1.0"]');
    assert.ok(r.ok);
    assert.deepEqual(r.value, [
      1,
      PythonNumber.float(-1),
      PythonNumber.float(100),
      PythonNumber.float(2.5e-5),
      PythonNumber.float(-0),
      Number.POSITIVE_INFINITY,
      { a: PythonNumber.float(0.5) },
      '1.0',
    ]);
    assert.equal(encodePythonJson(r.value), '[1,-1.0,100.0,2.5e-05,-0.0,null,{"a":0.5},"1.0"]');
  });

  it('marks integer literals past 2^53 with their exact digits', () => {
    const r = decodePythonNumbers('[9007199254740991, 9007199254740993, -99999999999999999999, 1e20]');
    assert.ok(r.ok);
    assert.deepEqual(r.value, [
      9007199254740991,
      new PythonNumber(9007199254740992, '9007199254740993'),
      new PythonNumber(-1e20, '-99999999999999999999'),
      PythonNumber.float(1e20),
    ]);
    assert.equal(
      encodePythonJson(r.value),
      '[9007199254740991,9007199254740993,-99999999999999999999,1e+20]',
    );
  });

  it('is JSON.stringify but for floats and lone surrogates', () => {
    const value = {
      a: [PythonNumber.float(1), 1, PythonNumber.float(-0), PythonNumber.float(2.5e-5), undefined, null],
      '\ud800k': 'v\udc00',
      skipped: undefined,
      pair: '😀',
      text: 'q"\\\n\u0001',
    };
    assert.equal(
      encodePythonJson(value),
      '{"a":[1.0,1,-0.0,2.5e-05,null,null],"\ufffdk":"v\ufffd","pair":"😀","text":"q\\"\\\\\\n\\u0001"}',
    );
    assert.equal(JSON.stringify(PythonNumber.float(1)), '1'); // anywhere else, just the number
    const plain = { detail: [{ loc: ['body', 0], input: { x: [1, 'é', true, null] }, ctx: { error: {} } }] };
    assert.equal(encodePythonJson(plain), JSON.stringify(plain));
    // The one marker or lone surrogate that sends a body down the slow path, however deep it sits.
    const deep = (leaf: unknown) => ({ detail: [{ input: { a: [1, { b: [leaf] }] }, c: undefined }] });
    assert.equal(
      encodePythonJson(deep(PythonNumber.float(2))),
      '{"detail":[{"input":{"a":[1,{"b":[2.0]}]}}]}',
    );
    assert.equal(encodePythonJson(deep('x\udfff')), '{"detail":[{"input":{"a":[1,{"b":["x\ufffd"]}]}}]}');
    assert.equal(encodePythonJson({ deep: { ['\ud800']: 1 } }), '{"deep":{"\ufffd":1}}');
  });
});
