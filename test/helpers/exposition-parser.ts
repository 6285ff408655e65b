/** One sample line of the text exposition format, label values unescaped. */
export interface ParsedSample {
  readonly name: string;
  readonly labels: Readonly<Record<string, string>>;
  readonly value: number;
}

/**
 * A deliberately small parser of the Prometheus text format (0.0.4) and OpenMetrics sample lines, for
 * round-trip checks: it reads names, labels (unescaping `\\`, `\"` and `\n`) and values, skips comments,
 * and throws on anything it does not understand instead of guessing.
 */
export function parseExposition(text: string): ParsedSample[] {
  const samples: ParsedSample[] = [];
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    samples.push(parseLine(line));
  }
  return samples;
}

function parseLine(line: string): ParsedSample {
  const nameMatch = /^[a-zA-Z_:][a-zA-Z0-9_:]*/.exec(line);
  if (nameMatch === null) throw new Error(`no metric name: ${JSON.stringify(line)}`);
  const name = nameMatch[0];
  let i = name.length;
  const labels: Record<string, string> = {};
  if (line[i] === '{') {
    i++;
    while (line[i] !== '}') {
      const labelMatch = /^[a-zA-Z_][a-zA-Z0-9_]*/.exec(line.slice(i));
      if (labelMatch === null) throw new Error(`bad label name at ${i}: ${JSON.stringify(line)}`);
      i += labelMatch[0].length;
      if (line.slice(i, i + 2) !== '="') throw new Error(`expected =" at ${i}: ${JSON.stringify(line)}`);
      i += 2;
      let value = '';
      for (;;) {
        const c = line[i];
        if (c === undefined) throw new Error(`unterminated label value: ${JSON.stringify(line)}`);
        if (c === '"') break;
        if (c === '\\') {
          const next = line[i + 1];
          if (next === '\\') value += '\\';
          else if (next === '"') value += '"';
          else if (next === 'n') value += '\n';
          else throw new Error(`bad escape at ${i}: ${JSON.stringify(line)}`);
          i += 2;
        } else {
          value += c;
          i++;
        }
      }
      i++;
      if (Object.hasOwn(labels, labelMatch[0])) throw new Error(`label twice: ${JSON.stringify(line)}`);
      labels[labelMatch[0]] = value;
      if (line[i] === ',') i++;
    }
    i++;
  }
  if (line[i] !== ' ') throw new Error(`expected a space before the value: ${JSON.stringify(line)}`);
  const rest = line.slice(i + 1).split(' ');
  const raw = rest[0] ?? '';
  const value = raw === '+Inf' ? Infinity : raw === '-Inf' ? -Infinity : Number(raw);
  if (raw === '' || (Number.isNaN(value) && raw !== 'NaN'))
    throw new Error(`bad value: ${JSON.stringify(line)}`);
  return { name, labels, value };
}

/** The samples of one metric whose labels include `match`. */
export function find(
  samples: readonly ParsedSample[],
  name: string,
  match: Readonly<Record<string, string>> = {},
): ParsedSample[] {
  return samples.filter(
    (s) => s.name === name && Object.entries(match).every(([key, value]) => s.labels[key] === value),
  );
}

/** The sum of the samples of `name` whose labels include `match`. */
export function sumOf(
  samples: readonly ParsedSample[],
  name: string,
  match: Readonly<Record<string, string>> = {},
): number {
  return find(samples, name, match).reduce((total, s) => total + s.value, 0);
}

/** The value of the one sample of `name` matching `match`; undefined when there is none. */
export function valueOf(
  samples: readonly ParsedSample[],
  name: string,
  match: Readonly<Record<string, string>> = {},
): number | undefined {
  const found = find(samples, name, match);
  if (found.length > 1) throw new Error(`${name} ${JSON.stringify(match)} matches ${found.length} samples`);
  return found[0]?.value;
}

/** Every metric name a body mentions, in HELP, TYPE or sample lines (`# EOF` is none). */
export function namesIn(text: string): Set<string> {
  const names = new Set<string>();
  for (const line of text.split('\n')) {
    const name = /^(?:# (?:HELP|TYPE) )?([a-zA-Z_:][a-zA-Z0-9_:]*)/.exec(line)?.[1];
    if (name !== undefined && line !== '# EOF') names.add(name);
  }
  return names;
}
