/**
 * Malformed inputs for the API fuzz test (test/fuzz.test.ts), drawn from a seeded PRNG so that a
 * failing run is reproduced by its seed, and the requests built from /openapi.json.
 */

/** mulberry32: a small seeded PRNG; returns floats in [0, 1). */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** `n` items of `list`, picked by `random` (with repeats possible). */
export function pick<T>(random: () => number, list: readonly T[], n: number): T[] {
  return Array.from({ length: n }, () => list[Math.floor(random() * list.length)]!);
}

const deepArray = (depth: number): unknown => {
  let v: unknown = 'x';
  for (let i = 0; i < depth; i++) v = [v];
  return v;
};
const deepObject = (depth: number): unknown => {
  let v: unknown = 'x';
  for (let i = 0; i < depth; i++) v = { a: v };
  return v;
};

/** Malformed strings for path segments and query values; `raw` ones are sent without encoding. */
export const BAD_STRINGS: readonly { value: string; raw?: boolean }[] = [
  { value: '' },
  { value: ' ' },
  { value: 'a'.repeat(5000) },
  { value: '\u0000' },
  { value: '%00', raw: true },
  { value: '%E0%A4%A', raw: true },
  { value: '%', raw: true },
  { value: '%zz', raw: true },
  { value: "' OR 1=1--" },
  { value: '"; DROP TABLE users;--' },
  { value: '{"$gt":""}' },
  { value: '../../etc/passwd' },
  { value: '\u202e\uffff\ufeff' },
  { value: '%ED%A0%80', raw: true }, // a lone surrogate, UTF-8-encoded
  { value: '😀'.repeat(200) },
  { value: '-1' },
  { value: '0' },
  { value: '1e309' },
  { value: '99999999999999999999999' },
  { value: 'NaN' },
  { value: 'null' },
  { value: '[]' },
  { value: '\r\nX-Injected: 1' },
  { value: '\u0001\u0007\u001b[31m' },
  { value: '00000000-0000-0000-0000-000000000000' },
];

/** Malformed JSON values for body fields. */
export const BAD_VALUES: readonly unknown[] = [
  null,
  true,
  -1,
  0,
  1e308,
  -1e308,
  2 ** 53 + 1,
  '',
  'x'.repeat(100_000),
  '\u0000',
  'a\u0000b',
  '\ud800',
  "' OR 1=1--",
  '{"$where":"1"}',
  '\u0001\u001f\u007f',
  [],
  {},
  [1, 'a', null],
  { $gt: '' },
  JSON.parse('{"__proto__":{"admin":true}}'),
  deepArray(100),
  deepObject(100),
  'AskMe',
  'not-a-date',
];

/** Whole bodies: [raw text, Content-Type]. */
export const BAD_BODIES: readonly [string, string][] = [
  ['', 'application/json'],
  ['null', 'application/json'],
  ['[]', 'application/json'],
  ['"text"', 'application/json'],
  ['{', 'application/json'],
  ['{"a":', 'application/json'],
  ['{"__proto__":{"admin":true}}', 'application/json'],
  ['{"constructor":{"prototype":{"admin":true}}}', 'application/json'],
  [`${'['.repeat(5000)}${']'.repeat(5000)}`, 'application/json'],
  [`${'{"a":'.repeat(3000)}1${'}'.repeat(3000)}`, 'application/json'],
  ['a=1&a=2&__proto__=x', 'application/x-www-form-urlencoded'],
  ['', 'application/x-www-form-urlencoded'],
  ['hello', 'text/plain'],
  ['<a/>', 'application/xml'],
  ['--x\r\n\r\nzz\r\n--x--', 'multipart/form-data; boundary=x'],
  ['\u0000\u0001', 'application/octet-stream'],
];

/** A value that satisfies a (resolved) JSON Schema well enough to reach the route's rules. */
export function sample(schema: any, resolve: (s: any) => any, depth = 0): unknown {
  const s = resolve(schema ?? {});
  if (depth > 4) return null;
  if (s.enum) return s.enum[0];
  if (s.const !== undefined) return s.const;
  if (s.anyOf ?? s.oneOf) return sample((s.anyOf ?? s.oneOf)[0], resolve, depth + 1);
  const type = Array.isArray(s.type) ? s.type[0] : s.type;
  switch (type) {
    case 'integer':
    case 'number':
      return s.minimum ?? 1;
    case 'boolean':
      return true;
    case 'array':
      return [];
    case 'object': {
      const out: Record<string, unknown> = {};
      for (const [k, v] of Object.entries(s.properties ?? {})) out[k] = sample(v, resolve, depth + 1);
      return out;
    }
    default:
      return s.format === 'email' ? 'fuzz@example.org' : 'fuzz';
  }
}
