import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startScript } from './script-process.js';

/**
 * The physical limit: a bare node:http server in its own process that answers with bytes it holds
 * in memory, choosing only between the format and the encoding the request asks for.
 */
const SOURCE = `
import { createServer } from 'node:http';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
const dir = process.env.BARE_BODIES;
const bodies = {};
for (const name of ['text', 'openmetrics', 'text.gz', 'openmetrics.gz']) bodies[name] = readFileSync(join(dir, name));
const types = {
  text: 'text/plain; version=0.0.4; charset=utf-8',
  openmetrics: 'application/openmetrics-text; version=1.0.0; charset=utf-8',
};
const server = createServer((req, res) => {
  const format = (req.headers.accept ?? '').includes('openmetrics') ? 'openmetrics' : 'text';
  const gzip = (req.headers['accept-encoding'] ?? '').includes('gzip');
  const body = bodies[gzip ? format + '.gz' : format];
  res.setHeader('content-type', types[format]);
  if (gzip) res.setHeader('content-encoding', 'gzip');
  res.setHeader('content-length', body.length);
  res.end(body);
});
server.keepAliveTimeout = 65000;
server.listen(0, '127.0.0.1', () => console.log(String(server.address().port)));
process.on('SIGTERM', () => { server.closeAllConnections(); server.close(() => process.exit(0)); });
`;

/** The bodies a bare server answers with, one per format. */
export interface BareBodies {
  readonly text: Buffer;
  readonly openmetrics: Buffer;
  /** The exporter's own gzip bodies, byte for byte: the same bytes, not a recompression. */
  readonly textGzip: Buffer;
  readonly openmetricsGzip: Buffer;
}

/** A running bare server. */
export interface BareServer {
  readonly url: string;
  stop(): Promise<void>;
}

/** Starts the bare server on loopback, answering `bodies`. */
export async function startBareServer(bodies: BareBodies): Promise<BareServer> {
  const dir = mkdtempSync(join(tmpdir(), 'upstash-bare-'));
  writeFileSync(join(dir, 'text'), bodies.text);
  writeFileSync(join(dir, 'openmetrics'), bodies.openmetrics);
  writeFileSync(join(dir, 'text.gz'), bodies.textGzip);
  writeFileSync(join(dir, 'openmetrics.gz'), bodies.openmetricsGzip);
  const script = await startScript(SOURCE, { ...process.env, BARE_BODIES: dir });
  return {
    url: `http://127.0.0.1:${script.firstLine}`,
    async stop() {
      await script.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
