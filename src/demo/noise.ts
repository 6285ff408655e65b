// Deterministic randomness: pure hashes, so a value depends only on (seed, identity, time bucket) and
// never on how many values were drawn before it. That is what keeps frozen bodies byte-identical.

/** Avalanches the bits of a 32-bit integer (murmur3's finaliser); the result is unsigned. */
export function mix(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

/** A 32-bit hash of a string (FNV-1a, then mixed). */
export function hashString(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193);
  return mix(h);
}

/** A number in [0, 1) determined by three integers. */
export function noise(a: number, b: number, c: number): number {
  return mix(mix(mix(a ^ 0x9e3779b9) ^ b) + c) / 0x1_0000_0000;
}

/** Maps u in [0, 1) linearly onto [lo, hi). */
export function between(u: number, lo: number, hi: number): number {
  return lo + u * (hi - lo);
}

/** Rounds to the given number of decimals. */
export function round(value: number, decimals: number): number {
  const f = 10 ** decimals;
  return Math.round(value * f) / f;
}

/** One full turn in radians, for the waves the data rides on. */
export const TAU = 2 * Math.PI;
