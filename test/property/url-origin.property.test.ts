import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { cachedOriginHeads, ORIGIN_CACHE_SIZE, originOf } from '../../src/upstash/url-origin.js';

// originOf caches a URL's origin by its `scheme://authority` head (url-origin.ts). Whatever the text,
// its answer is what `new URL(text).origin` gives for an http(s) URL (undefined otherwise), byte for
// byte, however the cache was filled before; and no head it holds carries user info or anything of
// the path, query or fragment, where the secrets are.

const SECRET = 'tok-SECRET-5e';

/** The answer without any cache. */
function reference(text: string): string | undefined {
  try {
    const url = new URL(text);
    return url.protocol === 'http:' || url.protocol === 'https:' ? url.origin : undefined;
  } catch {
    return undefined;
  }
}

const scheme = fc.constantFrom(
  'http://',
  'https://',
  'HTTP://',
  'Https://',
  'http:',
  'https:///',
  'ftp://',
  'ws://',
  '',
);
const hostPart = fc.constantFrom(
  'example.com',
  'API.Example.COM',
  'a.b.c',
  '127.0.0.1',
  '0x7f.1',
  '[::1]',
  '[::1',
  'münchen.example',
  'xn--mnchen-3ya.example',
  'ＥＸＡＭＰＬＥ.com',
  'a%2eb.com',
  'exa\tmple.com',
  'a b.com',
  'a\\b.com',
  `user:${SECRET}@host.example`,
  `${SECRET}@host.example`,
  '@',
  '',
  'host.example.',
  '-bad-.com',
  'a..b',
);
const port = fc.constantFrom(
  '',
  ':',
  ':80',
  ':443',
  ':8080',
  ':0',
  ':65535',
  ':65536',
  ':99999',
  ':x',
  ':0080',
);
const rest = fc.oneof(
  fc.constantFrom(
    '',
    '/',
    '/a/b',
    `?token=${SECRET}`,
    `#${SECRET}`,
    `/p?x=${SECRET}#f`,
    '/\t\n',
    '\\x',
    ' ',
    '/%zz',
    '/@x',
  ),
  fc.string({ maxLength: 6 }),
);
const urlText = fc.oneof(
  { weight: 6, arbitrary: fc.tuple(scheme, hostPart, port, rest).map((parts) => parts.join('')) },
  {
    weight: 2,
    arbitrary: fc.webUrl({
      withQueryParameters: true,
      withFragments: true,
      authoritySettings: { withUserInfo: true },
    }),
  },
  { weight: 1, arbitrary: fc.string({ maxLength: 20 }) },
  {
    weight: 1,
    arbitrary: fc.tuple(scheme, fc.string({ maxLength: 12 }), rest).map((parts) => parts.join('')),
  },
);

describe('originOf', () => {
  test('is new URL(text).origin for http(s), undefined otherwise, whatever was cached before', () => {
    fc.assert(
      fc.property(fc.array(urlText, { minLength: 1, maxLength: 30 }), (texts) => {
        // Each text twice, the second time from the cache when its head was cacheable.
        for (const text of [...texts, ...texts.reverse()]) expect(originOf(text)).toBe(reference(text));
      }),
      { numRuns: 400 },
    );
  });

  test('holds no user info, path, query or fragment, and no more heads than its bound', () => {
    fc.assert(
      fc.property(fc.array(urlText, { maxLength: 40 }), (texts) => {
        for (const text of texts) originOf(text);
        expect(cachedOriginHeads().length).toBeLessThanOrEqual(ORIGIN_CACHE_SIZE + 8);
      }),
      { numRuns: 200 },
    );
    const heads = cachedOriginHeads();
    expect(heads.length).toBeGreaterThan(10);
    for (const head of heads) {
      expect(head).toMatch(/^https?:\/\/[^/?#@%\\\s]+$/);
      expect(head).not.toMatch(/\p{Cc}/u);
      expect(head).not.toContain(SECRET);
    }
  });

  test('a URL with user info is answered every time without being held', () => {
    const text = `https://user:${SECRET}@api.example.com/hook?token=${SECRET}`;
    expect(originOf(text)).toBe('https://api.example.com');
    expect(originOf(text)).toBe('https://api.example.com');
    expect(cachedOriginHeads().join('\n')).not.toContain(SECRET);
    expect(cachedOriginHeads().some((head) => head.includes('@'))).toBe(false);
  });

  test('default ports dropped, hosts lowercased and IDN-encoded, as new URL does', () => {
    expect(originOf('http://127.0.0.1:80/a')).toBe('http://127.0.0.1');
    expect(originOf('https://API.Example.COM:443/x')).toBe('https://api.example.com');
    expect(originOf('https://münchen.example/x?y')).toBe('https://xn--mnchen-3ya.example');
    expect(originOf('https://a.com:99999/')).toBeUndefined();
    expect(originOf('https://a.com:99999/')).toBeUndefined();
  });

  test('more destinations than the bound keep the cache at its bound and the answers right', () => {
    for (let n = 0; n < ORIGIN_CACHE_SIZE * 2; n++)
      expect(originOf(`https://d${n}.example.com:8443/p?k=${SECRET}`)).toBe(`https://d${n}.example.com:8443`);
    expect(cachedOriginHeads().length).toBeLessThanOrEqual(ORIGIN_CACHE_SIZE + 8);
    expect(originOf('https://d0.example.com:8443/')).toBe('https://d0.example.com:8443');
  });
});
