import type { z } from 'zod';

/** A short, value-free description of why a body failed its schema: where, and what was expected. */
export function describeIssues(error: z.ZodError): string {
  const issue = error.issues[0];
  if (issue === undefined) return 'wrong shape';
  // A union reports one issue; dig into the branch that got deepest into the body for a precise path
  // (a bare array fails the object branch at the top, but the array branch at the bad entry's field).
  const inner =
    issue.code === 'invalid_union'
      ? issue.errors
          .flat()
          .reduce<z.core.$ZodIssue | undefined>(
            (best, candidate) =>
              best === undefined || candidate.path.length > best.path.length ? candidate : best,
            undefined,
          )
      : undefined;
  const chosen = inner ?? issue;
  const path = chosen.path.map((p) => (typeof p === 'number' ? `[${p}]` : `.${String(p)}`)).join('');
  const more = error.issues.length > 1 ? ` and ${error.issues.length - 1} more` : '';
  return `wrong shape at ${path === '' ? 'top level' : path.replace(/^\./, '')}: ${chosen.message}${more}`;
}
