// Response bodies are decoded so that distinct bytes stay distinct text. The usual decoding puts
// U+FFFD in place of every invalid byte, so two names that differ only there (`q\xff`, `q\xfe`)
// arrive as one, and a listing then fails as "repeated name", or two series merge. Here each byte
// that is not part of valid UTF-8 becomes a lone surrogate U+DC80–U+DCFF instead (Python's
// "surrogateescape"): the names stay apart, and the label repair (metrics/label-limit.ts) already
// turns lone surrogates into U+FFFD plus a hash of the whole value, so they stay apart in
// Prometheus too. Valid UTF-8, nearly every body, is decoded natively in one pass.

const strict = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/** `bytes` as text; a byte that is not part of valid UTF-8 becomes the lone surrogate U+DC00 + byte. */
export function decodeUtf8(bytes: Buffer): string {
  try {
    return strict.decode(bytes);
  } catch {
    return decodeEscaping(bytes);
  }
}

function decodeEscaping(bytes: Buffer): string {
  const parts: string[] = [];
  let validFrom = 0;
  let i = 0;
  while (i < bytes.length) {
    const length = sequenceLength(bytes, i);
    if (length > 0) {
      i += length;
      continue;
    }
    if (validFrom < i) parts.push(bytes.toString('utf8', validFrom, i));
    parts.push(String.fromCharCode(0xdc00 + (bytes[i] ?? 0)));
    i++;
    validFrom = i;
  }
  if (validFrom < bytes.length) parts.push(bytes.toString('utf8', validFrom));
  return parts.join('');
}

/** The length of the well-formed UTF-8 sequence at `at` (Unicode table 3-7), 0 when there is none. */
function sequenceLength(bytes: Buffer, at: number): number {
  const first = bytes[at] ?? 0;
  if (first < 0x80) return 1;
  const inRange = (offset: number, low = 0x80, high = 0xbf): boolean => {
    const byte = bytes[at + offset];
    return byte !== undefined && byte >= low && byte <= high;
  };
  if (first >= 0xc2 && first <= 0xdf) return inRange(1) ? 2 : 0;
  if (first >= 0xe0 && first <= 0xef) {
    const [low, high] = first === 0xe0 ? [0xa0, 0xbf] : first === 0xed ? [0x80, 0x9f] : [0x80, 0xbf];
    return inRange(1, low, high) && inRange(2) ? 3 : 0;
  }
  if (first >= 0xf0 && first <= 0xf4) {
    const [low, high] = first === 0xf0 ? [0x90, 0xbf] : first === 0xf4 ? [0x80, 0x8f] : [0x80, 0xbf];
    return inRange(1, low, high) && inRange(2) && inRange(3) ? 4 : 0;
  }
  return 0;
}
