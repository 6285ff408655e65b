// "Did you mean": the known key nearest to a misspelt one.

/**
 * Edits between two words: insertions, deletions, substitutions and swaps of neighbours (the
 * optimal string alignment distance), so `tokne` is one edit from `token`.
 */
export function editDistance(a: string, b: string): number {
  // rows[i][j]: edits between the first i characters of a and the first j of b.
  const rows: number[][] = Array.from({ length: a.length + 1 }, (_, i) =>
    Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)),
  );
  const at = (i: number, j: number): number => rows[i]?.[j] ?? Infinity;
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let best = Math.min(at(i - 1, j) + 1, at(i, j - 1) + 1, at(i - 1, j - 1) + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) {
        best = Math.min(best, at(i - 2, j - 2) + 1);
      }
      const row = rows[i];
      if (row !== undefined) row[j] = best;
    }
  }
  return at(a.length, b.length);
}

/**
 * The known word nearest to `word`, if near enough to be a slip (at most a third of its letters, and
 * at least one, wrong); the first such in `known` on a tie.
 */
export function nearest(word: string, known: readonly string[]): string | undefined {
  const limit = Math.max(1, Math.floor(word.length / 3));
  let best: { word: string; distance: number } | undefined;
  for (const candidate of known) {
    const distance = editDistance(word.toLowerCase(), candidate.toLowerCase());
    if (distance <= limit && (best === undefined || distance < best.distance)) {
      best = { word: candidate, distance };
    }
  }
  return best?.word;
}
