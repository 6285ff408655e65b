/**
 * CPU time (user + system, every thread of this process, so GC included) per call of each function,
 * in microseconds. The functions are measured in interleaved rounds so that machine noise hits them
 * alike, and each one's median round is kept. A function that answers with a promise is awaited
 * (the list parsers are async: they validate a large body in slices); a synchronous one is not.
 */
export async function cpuMicrosPerCall(
  functions: readonly (() => unknown)[],
  options: { budgetMs: number; rounds: number },
): Promise<number[]> {
  const call = async (fn: () => unknown): Promise<void> => {
    const result = fn();
    if (result instanceof Promise) await result;
  };
  for (const fn of functions) for (let i = 0; i < 3; i++) await call(fn); // warm up the JIT
  const rounds = functions.map((): number[] => []);
  const perRoundMs = options.budgetMs / options.rounds;
  for (let round = 0; round < options.rounds; round++) {
    for (const [index, fn] of functions.entries()) {
      const wallStart = performance.now();
      const cpuStart = process.cpuUsage();
      let calls = 0;
      do {
        await call(fn);
        calls++;
      } while (performance.now() - wallStart < perRoundMs);
      const used = process.cpuUsage(cpuStart);
      rounds[index]?.push((used.user + used.system) / calls);
    }
  }
  return rounds.map(median);
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? NaN;
}
