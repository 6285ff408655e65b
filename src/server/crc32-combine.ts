// zlib's crc32_combine, which Node does not expose: the CRC-32 of two byte strings back to back from
// the CRC of each and the second one's length, without reading either again. Each chunk's CRC is taken
// once, when it is deflated (chunk-deflater.ts); a gzip body chains them into its trailer in
// microseconds instead of re-reading megabytes on the event loop.

const POLY = 0xedb88320;

/** a·b modulo the CRC-32 polynomial (reflected bit order, as zlib's multmodp). */
function multiplyModP(a: number, b: number): number {
  let m = 0x80000000;
  let p = 0;
  let factor = b;
  for (;;) {
    if ((a & m) !== 0) {
      p ^= factor;
      if ((a & (m - 1)) === 0) break;
    }
    m >>>= 1;
    factor = factor & 1 ? (factor >>> 1) ^ POLY : factor >>> 1;
  }
  return p >>> 0;
}

/** x^(2^n) modulo the polynomial, for n in 0..31 (zlib's x2n_table), made on first use. */
let powers: number[] | undefined;

function x2nTable(): number[] {
  if (powers !== undefined) return powers;
  const table = [0x40000000];
  let p = 0x40000000;
  for (let n = 1; n < 32; n++) {
    p = multiplyModP(p, p);
    table.push(p);
  }
  powers = table;
  return table;
}

/** x^(n·2^k) modulo the polynomial. */
function x2nModP(n: number, k: number): number {
  const table = x2nTable();
  let p = 0x80000000;
  let rest = n;
  let bit = k;
  while (rest > 0) {
    if (rest % 2 === 1) p = multiplyModP(table[bit & 31] ?? 0, p);
    rest = Math.floor(rest / 2);
    bit++;
  }
  return p;
}

/** The CRC-32 of A then B, from `crcA`, `crcB` and B's length in bytes. */
export function crc32Combine(crcA: number, crcB: number, lengthB: number): number {
  if (lengthB === 0) return crcA >>> 0;
  return (multiplyModP(x2nModP(lengthB, 3), crcA >>> 0) ^ (crcB >>> 0)) >>> 0;
}
