import { MAX_WARNING_LENGTH, MAX_WARNINGS, type PollResult } from '../vocabulary.js';

/** What a successful poll says of its data besides its samples, as the poller sees it. */
export interface PollTrouble {
  /** Fields of Upstash's schema skipped for their wrong type. */
  readonly rejectedFields: readonly string[];
  /** Label values cut to length or left out by a cap. */
  readonly labelValuesCut: number;
  /** Requests that waited for Upstash's burst limit ({@link PollResult.burstWaits}). */
  readonly burstWaits?: number;
  /** The source's own warnings ({@link PollResult.warnings}). */
  readonly warnings: readonly string[];
  /** The watched counts of this poll and of the last successful one. */
  readonly watched: PollResult['watched'];
  readonly watchedBefore: PollResult['watched'];
}

/**
 * The landing page's warnings of one unit, from what its last successful poll brought: rejected
 * fields, cut label values, burst-limit waits, the watched counts that rose, then the source's own, at most
 * {@link MAX_WARNINGS} of at most {@link MAX_WARNING_LENGTH} characters each, whatever a source says.
 */
export function pollWarnings(trouble: PollTrouble): string[] {
  const all: string[] = [];
  if (trouble.rejectedFields.length > 0) {
    const fields = [...new Set(trouble.rejectedFields)];
    all.push(
      `${fields.length === 1 ? 'field' : `${fields.length} fields`} rejected (wrong type upstream, skipped): ${fields.join(', ')}`,
    );
  }
  if (trouble.labelValuesCut > 0) {
    all.push(
      `${trouble.labelValuesCut} label value${trouble.labelValuesCut === 1 ? '' : 's'} cut to length or left out by a cap`,
    );
  }
  const waits = trouble.burstWaits ?? 0;
  if (waits > 0) all.push(`waited ${waits} time${waits === 1 ? '' : 's'} for Upstash's burst limit`);
  for (const [what, count] of Object.entries(trouble.watched ?? {})) {
    const before = trouble.watchedBefore?.[what];
    if (before !== undefined && count > before) all.push(`${what} grew: ${before} → ${count}`);
  }
  all.push(...trouble.warnings);
  const kept = all.length > MAX_WARNINGS ? all.slice(0, MAX_WARNINGS - 1) : all;
  if (kept.length < all.length) kept.push(`and ${all.length - kept.length} more warnings`);
  return kept.map(cut);
}

/** A text of at most {@link MAX_WARNING_LENGTH} code points, an ellipsis ending a cut one. */
function cut(text: string): string {
  const points = Array.from(text);
  return points.length <= MAX_WARNING_LENGTH ? text : `${points.slice(0, MAX_WARNING_LENGTH - 1).join('')}…`;
}
