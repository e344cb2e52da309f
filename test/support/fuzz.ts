// fast-check arbitraries for request fuzzing: raw JSON texts (so `__proto__` and duplicate keys
// survive serialisation), hostile strings counted in code points, path ids and query strings.
import fc from 'fast-check';

/** Keys that pollute prototypes when code merges request objects carelessly. */
export const POLLUTING_KEYS = ['__proto__', 'constructor', 'prototype'] as const;

/** `n` code points, all astral (two UTF-16 units each): catches length checks that count units. */
const astral = (n: number) => '𝕏'.repeat(n);

/** Strings around the usual limits, in code points, with astral characters, controls and NULs. */
export const hostileString = (): fc.Arbitrary<string> =>
  fc.oneof(
    fc.string({ unit: 'binary', maxLength: 40 }),
    fc.string({ unit: 'grapheme', maxLength: 20 }),
    fc
      .constantFrom(0, 1, 99, 100, 101, 199, 200, 201, 500, 501, 1000, 1001, 5000, 5001, 10_001)
      .chain((n) => fc.constantFrom(astral(n), 'a'.repeat(n), `${astral(Math.max(0, n - 1))}a`)),
    fc.constantFrom(
      '',
      ' ',
      '\u0000',
      '\uD800', // a lone surrogate
      '\u202E',
      '../../etc/passwd',
      '%2e%2e%2f',
      '\u0024{jndi:ldap://x}',
      '<script>alert(1)</script>',
      "' OR '1'='1",
      '__proto__',
      'constructor',
      'toString',
      'hasOwnProperty',
      'NaN',
      '1e999',
      '01a1fc6e-0000-7000-8000-000000000000',
      '01A1FC6E-0000-7000-8000-00000000000G',
      '{01a1fc6e-0000-7000-8000-000000000000}',
    ),
  );

/** Numbers as JSON text, the ones JavaScript and Python disagree about included. */
export const hostileNumberText = (): fc.Arbitrary<string> =>
  fc.oneof(
    fc.integer().map(String),
    fc.double({ noNaN: true, noDefaultInfinity: true }).map((n) => JSON.stringify(n)),
    fc.constantFrom(
      '0',
      '-0',
      '1e308',
      '-1e308',
      '1e309',
      '1e-400',
      '9007199254740993',
      '-9007199254740993',
      '123456789012345678901234567890',
      // Past what the document client (2^53 − 1) or DynamoDB (1e-130) stores: 500s once, in free-form objects.
      '1e20',
      '1e-200',
      '-5e-324',
      '0.1',
      '1.0',
      '1E2',
      'NaN',
      'Infinity',
      '-Infinity',
    ),
  );

/** A JSON document as text: objects keep every key as written (duplicates, `__proto__`). */
export const jsonText = (fieldNames: readonly string[] = [], maxDepth = 4): fc.Arbitrary<string> => {
  const key = fc.oneof(
    { weight: 4, arbitrary: fc.constantFrom(...(fieldNames.length ? fieldNames : ['name'])) },
    { weight: 2, arbitrary: fc.constantFrom(...POLLUTING_KEYS) },
    { weight: 1, arbitrary: hostileString() },
  );
  const { value } = fc.letrec<{ value: string }>((tie) => ({
    value: fc.oneof(
      { depthSize: 'small', maxDepth, withCrossShrink: true },
      fc.constantFrom('null', 'true', 'false'),
      hostileNumberText(),
      hostileString().map((s) => JSON.stringify(s)),
      fc.array(tie('value'), { maxLength: 6 }).map((items) => `[${items.join(',')}]`),
      fc
        .array(fc.tuple(key, tie('value')), { maxLength: 6 })
        .map((entries) => `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${v}`).join(',')}}`),
    ),
  }));
  return value;
};

/** The payloads that pollute `Object.prototype` when merged naively. */
export const pollutionPayloads = [
  '{"__proto__":{"polluted":"yes"}}',
  '{"constructor":{"prototype":{"polluted":"yes"}}}',
  '{"__proto__":{"__proto__":{"polluted":"yes"}}}',
];

/** An object template's field replaced, dropped or joined by junk; or the whole body replaced. */
export const mutatedBody = (template: Record<string, unknown> | undefined): fc.Arbitrary<string> => {
  const fields = Object.keys(template ?? {});
  const base = template ?? {};
  const entries = Object.entries(base).map(([k, v]) => [JSON.stringify(k), JSON.stringify(v)] as const);
  const render = (list: (readonly [string, string])[]) => `{${list.map(([k, v]) => `${k}:${v}`).join(',')}}`;
  const junk = jsonText(fields, 3);
  const alternatives: fc.Arbitrary<string>[] = [
    jsonText(fields, 4),
    fc.constantFrom(...pollutionPayloads),
    fc.string({ unit: 'binary', maxLength: 60 }), // not JSON at all
  ];
  if (entries.length > 0) {
    alternatives.push(
      fc
        .tuple(fc.nat({ max: entries.length - 1 }), junk)
        .map(([i, value]) => render(entries.map((e, j) => (j === i ? [e[0], value] : e)))),
      fc.nat({ max: entries.length - 1 }).map((i) => render(entries.filter((_, j) => j !== i))),
      fc
        .tuple(fc.constantFrom(...POLLUTING_KEYS, 'extra_field'), fc.constantFrom(...pollutionPayloads))
        .map(([k, v]) => render([...entries, [JSON.stringify(k), v]])),
      fc.constant(render(entries)), // the valid body itself, now and then
    );
  }
  return fc.oneof(...alternatives);
};

/** A path parameter: a real id, a random UUID, or something that is not a UUID at all. */
export const pathId = (real: string | undefined): fc.Arbitrary<string> =>
  fc.oneof(
    { weight: 3, arbitrary: fc.constant(real ?? '01a1fc6e-0000-7000-8000-000000000000') },
    { weight: 2, arbitrary: fc.uuid() },
    { weight: 3, arbitrary: hostileString().filter((s) => s.length > 0 && s.length < 3000) },
  );

/** A query string: the route's own keys with hostile values, polluting keys, repeats. */
export const queryString = (keys: readonly string[]): fc.Arbitrary<string> =>
  fc
    .array(
      fc.tuple(
        fc.oneof(
          fc.constantFrom(...(keys.length ? keys : ['limit'])),
          fc.constantFrom('__proto__', 'constructor[prototype][polluted]', '__proto__[polluted]', 'limit'),
        ),
        fc.oneof(hostileString(), hostileNumberText()),
      ),
      { maxLength: 4 },
    )
    .map((pairs) => new URLSearchParams(pairs).toString());

/** File contents that start like the formats the upload routes accept (and some they refuse). */
const magicContent = fc.oneof(
  fc.constantFrom(
    '%PDF-1.7\n',
    'PK\u0003\u0004',
    '\u0000\u0000\u0000\u0018ftypisom',
    '\u001aE\u00df\u00a3',
    'MZ',
    '',
  ),
  fc.string({ unit: 'binary', maxLength: 30 }),
);

/** A multipart/form-data body built from hostile parts, possibly truncated, with its content type. */
export const multipartBody = (fieldNames: readonly string[]) => {
  const boundary = 'fuzzB0undary';
  const name = fc.oneof(
    fc.constantFrom(...(fieldNames.length ? fieldNames : ['file'])),
    fc.constantFrom(
      '__proto__',
      'constructor',
      '__proto__[x]',
      'constructor[prototype]',
      'toString[]',
      'f[]',
    ),
    hostileString().map((s) => s.replace(/["\r\n]/g, '')),
  );
  const part = fc.record({
    name,
    file: fc.boolean(),
    filename: fc.oneof(fc.constantFrom('a.pdf', 'b.docx', 'me.mp4', '../../x', ''), hostileString()),
    type: fc.constantFrom('application/pdf', 'video/mp4', 'text/plain', 'application/octet-stream', ''),
    content: fc.tuple(magicContent, fc.string({ unit: 'binary', maxLength: 40 })).map(([a, b]) => a + b),
    extraHeaders: fc.array(fc.constantFrom('X-A: b', 'Content-Transfer-Encoding: base64', 'Content-Type:'), {
      maxLength: 2,
    }),
  });
  return fc
    .record({
      parts: fc.array(part, { maxLength: 6 }),
      ending: fc.constantFrom('close', 'close', 'none', 'cut'),
      cut: fc.nat(),
    })
    .map(({ parts, ending, cut }) => {
      let text = '';
      for (const p of parts) {
        const disposition = p.file
          ? `form-data; name="${p.name}"; filename="${p.filename.replace(/["\r\n]/g, '')}"`
          : `form-data; name="${p.name}"`;
        const headers = [
          `Content-Disposition: ${disposition}`,
          ...(p.type ? [`Content-Type: ${p.type}`] : []),
          ...p.extraHeaders,
        ];
        text += `--${boundary}\r\n${headers.join('\r\n')}\r\n\r\n${p.content}\r\n`;
      }
      if (ending !== 'none') text += `--${boundary}--\r\n`;
      if (ending === 'cut') text = text.slice(0, cut % (text.length + 1));
      return {
        body: Buffer.from(text, 'latin1'),
        contentType: `multipart/form-data; boundary=${boundary}`,
      };
    });
};
