/** One thing wrong with the configuration: where it is and why. */
export interface ConfigProblem {
  readonly path: string;
  readonly message: string;
}

/** Every problem found in the configuration; main prints one line each and exits 2. */
export class ConfigError extends Error {
  readonly problems: readonly ConfigProblem[];

  constructor(problems: readonly ConfigProblem[]) {
    super(problems.map(formatProblem).join('\n'));
    this.name = 'ConfigError';
    this.problems = problems;
  }
}

/** `path: message`, or the message alone when the problem is not tied to a field. */
export function formatProblem(problem: ConfigProblem): string {
  return problem.path === '' ? problem.message : `${problem.path}: ${problem.message}`;
}

/**
 * The problems one line each, as the program prints them on stderr (`upstash-exporter: config: …`) and
 * `POST /-/reload` answers them.
 */
export function problemLines(problems: readonly ConfigProblem[]): string {
  return problems.map((problem) => `upstash-exporter: config: ${formatProblem(problem)}\n`).join('');
}

/** Why a file could not be read, in words, from its errno code (never the file's content). */
export function describeFsError(error: unknown): string {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  if (code === 'ENOENT') return 'no such file';
  if (code === 'EACCES') return 'permission denied';
  if (code === 'EISDIR') return 'is a directory';
  return code ?? 'unreadable';
}
