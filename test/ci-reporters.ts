/**
 * Under CI, each vitest run also writes a JSON report into .tmp/, so that .ci/run can close with one
 * line counting every test of every run (unit, stack, slow). Locally, only the default reporter.
 */
export function ciReporters(run: string): (string | [string, Record<string, unknown>])[] {
  return process.env.CI === 'true'
    ? ['default', ['json', { outputFile: `.tmp/vitest-${run}.json` }]]
    : ['default'];
}
