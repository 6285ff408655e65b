import { z } from 'zod';
import { pathSegment, type Target, type UpstashClient } from './client.js';
import { parseListing } from './schema.js';
import { number, optional, optionalText } from './tolerance.js';

/** The states a backup can be in (the Developer API's `Backup.state`). */
export const BACKUP_STATES = ['pending', 'completed', 'failed'] as const;
export type BackupState = (typeof BACKUP_STATES)[number];

/** What the backups of one database say: how many in each state, and the latest of two of them. */
export interface BackupSummary {
  readonly counts: Readonly<Record<BackupState, number>>;
  /** Unix seconds of the newest completed backup; undefined when none has a time. */
  readonly lastCompleted: number | undefined;
  /** Unix seconds of the newest failed backup; undefined when none has a time. */
  readonly lastFailed: number | undefined;
  /** Optional fields skipped alone for their wrong type, in any backup (Upstash's names). */
  readonly rejected: readonly string[];
}

// The backup ID is its identity: missing, empty or repeated is a changed API, loud. A state we do not
// know is counted nowhere; the state and creation time follow the tolerance rule (tolerance.ts).
const entry = z.object({
  backup_id: z.string().min(1),
  state: optionalText,
  creation_time: optional(number),
});

const isState = (state: string | undefined): state is BackupState =>
  (BACKUP_STATES as readonly (string | undefined)[]).includes(state);

/** Parses a backup listing (an array), in slices; throws on any other shape, never quoting a value. */
export async function parseBackups(json: unknown, url = 'list-backup'): Promise<BackupSummary> {
  const { entries, rejected } = await parseListing(json, url, {
    entry,
    keyField: 'backup_id',
    toEntry: (e) => e,
  });
  const counts: Record<BackupState, number> = { pending: 0, completed: 0, failed: 0 };
  const latest: Partial<Record<BackupState, number>> = {};
  for (const { state, creation_time: at } of entries) {
    if (!isState(state)) continue;
    counts[state]++;
    if (at !== undefined && (latest[state] === undefined || at > latest[state])) latest[state] = at;
  }
  return { counts, lastCompleted: latest.completed, lastFailed: latest.failed, rejected };
}

/** GET `{url}/v2/redis/list-backup/{id}`: every backup of one database. */
export async function fetchBackups(
  client: UpstashClient,
  target: Target & { readonly databaseId: string },
): Promise<BackupSummary> {
  const url = `${target.baseUrl}/v2/redis/list-backup/${pathSegment(target.databaseId)}`;
  return parseBackups(await client.getJson({ ...target, url }), url);
}
