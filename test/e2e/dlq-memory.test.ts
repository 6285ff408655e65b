import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

// A DLQ poll must not hold 80,000-character queue names until its
// scan ends. The built program's own DlqTally, in a Node with --expose-gc, so that what stays on the
// heap as pages come is measured, not guessed: a cut name that were a slice of the name would keep all
// of it alive (V8 keeps a sliced string's parent). The page being counted is held, one at a time.

const DIST = fileURLToPath(new URL('../../dist/', import.meta.url));

const SCRIPT = `
const { DlqTally } = await import(process.argv[1] + 'sources/dlq.js');
const tally = new DlqTally('dlq');
const heap = [];
for (let page = 0; page < 5; page++) {
  const messages = [];
  for (let i = 0; i < 100; i++) messages.push({ queueName: ('q' + (page * 100 + i) + '-').padEnd(80000, 'n') });
  tally.add(messages);
  globalThis.gc();
  heap.push(process.memoryUsage().heapUsed);
}
const limits = { maxQueues: 1000, maxUrlGroups: 1000 };
const { samples } = tally.samples('eu', true, limits);
const queues = samples.filter((s) => s.labels.some(([n]) => n === 'queue')).length;
console.log(JSON.stringify({ grown: heap[4] - heap[0], queues }));
`;

describe('a DLQ poll of long queue names', () => {
  it('holds about a label per name once the pages are let go, not the names', async () => {
    const { stdout } = await promisify(execFile)(
      process.execPath,
      ['--expose-gc', '--input-type=module', '-e', SCRIPT, DIST],
      { timeout: 60_000 },
    );
    const { grown, queues } = JSON.parse(stdout) as { grown: number; queues: number };
    expect(queues).toBe(500);
    // Between the first page and the fifth: 400 more stand-ins of about 1,100 UTF-16 characters, under
    // 1 MB; 400 names kept whole would be 32 MB.
    expect(grown).toBeLessThan(4_000_000);
  });
});
