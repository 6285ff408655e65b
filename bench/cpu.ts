/**
 * CPU time (user + system, every thread of this process, so GC included) per call of each function,
 * in microseconds. The functions are measured in interleaved rounds so that machine noise hits them
 * alike, and each one's median round is kept.
 */
export function cpuMicrosPerCall(
  functions: readonly (() => unknown)[],
  options: { budgetMs: number; rounds: number },
): number[] {
  for (const fn of functions) for (let i = 0; i < 3; i++) fn(); // warm up the JIT
  const rounds = functions.map((): number[] => []);
  const perRoundMs = options.budgetMs / options.rounds;
  for (let round = 0; round < options.rounds; round++) {
    functions.forEach((fn, index) => {
      const wallStart = performance.now();
      const cpuStart = process.cpuUsage();
      let calls = 0;
      do {
        fn();
        calls++;
      } while (performance.now() - wallStart < perRoundMs);
      const used = process.cpuUsage(cpuStart);
      rounds[index]?.push((used.user + used.system) / calls);
    });
  }
  return rounds.map(median);
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? NaN;
}
