import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { gzipSync } from 'node:zlib';

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
}

/** A running bare server. */
export interface BareServer {
  readonly url: string;
  stop(): Promise<void>;
}

/** Starts the bare server on loopback; gzip bodies are compressed once, up front. */
export async function startBareServer(bodies: BareBodies): Promise<BareServer> {
  const dir = mkdtempSync(join(tmpdir(), 'upstash-bare-'));
  writeFileSync(join(dir, 'text'), bodies.text);
  writeFileSync(join(dir, 'openmetrics'), bodies.openmetrics);
  writeFileSync(join(dir, 'text.gz'), gzipSync(bodies.text));
  writeFileSync(join(dir, 'openmetrics.gz'), gzipSync(bodies.openmetrics));
  const child = spawn(process.execPath, ['--input-type=module', '-e', SOURCE], {
    stdio: ['ignore', 'pipe', 'inherit'],
    env: { ...process.env, BARE_BODIES: dir },
  });
  const port = await firstLine(child);
  return {
    url: `http://127.0.0.1:${port}`,
    async stop() {
      if (child.exitCode === null) {
        const exited = new Promise((resolve) => child.once('exit', resolve));
        child.kill('SIGTERM');
        await exited;
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

async function firstLine(child: ChildProcess): Promise<string> {
  const lines = createInterface({ input: child.stdout! });
  for await (const line of lines) {
    lines.close();
    return line.trim();
  }
  throw new Error('bare server exited before listening');
}
