import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** PEM files made with the openssl CLI for one test run: a CA, server and client certs, a rogue client. */
export interface Pki {
  readonly dir: string;
  readonly caCert: string;
  /** Issues a server certificate for 127.0.0.1/localhost signed by the CA; returns its cert and key paths. */
  server(name: string): { cert: string; key: string };
  /** Issues a client certificate; `selfSigned` makes one the CA never saw. */
  client(name: string, selfSigned?: boolean): { cert: string; key: string };
  read(path: string): Buffer;
}

function openssl(args: string[], cwd: string): void {
  execFileSync('openssl', args, { cwd, stdio: ['ignore', 'ignore', 'pipe'] });
}

/** Creates a throw-away PKI in a temporary folder. */
export function makePki(): Pki {
  const dir = mkdtempSync(join(tmpdir(), 'upstash-exporter-pki-'));
  const days = ['-days', '2'];
  // A new P-256 key, unencrypted, written to NAME.key.
  const newKey = (name: string): string[] => [
    '-newkey',
    'ec',
    '-pkeyopt',
    'ec_paramgen_curve:prime256v1',
    '-nodes',
    '-keyout',
    `${name}.key`,
  ];
  openssl(['req', '-x509', ...newKey('ca'), '-out', 'ca.crt', '-subj', '/CN=test-ca', ...days], dir);
  const issue = (name: string, ext: string, selfSigned: boolean): { cert: string; key: string } => {
    openssl(['req', ...newKey(name), '-out', `${name}.csr`, '-subj', `/CN=${name}`], dir);
    const extFile = join(dir, `${name}.ext`);
    writeFileSync(extFile, `${ext}\n`);
    const signer = selfSigned
      ? ['-signkey', `${name}.key`]
      : ['-CA', 'ca.crt', '-CAkey', 'ca.key', '-CAcreateserial'];
    openssl(
      ['x509', '-req', '-in', `${name}.csr`, ...signer, '-out', `${name}.crt`, '-extfile', extFile, ...days],
      dir,
    );
    return { cert: join(dir, `${name}.crt`), key: join(dir, `${name}.key`) };
  };
  return {
    dir,
    caCert: join(dir, 'ca.crt'),
    server: (name) => issue(name, 'subjectAltName=IP:127.0.0.1,DNS:localhost', false),
    client: (name, selfSigned = false) => issue(name, 'extendedKeyUsage=clientAuth', selfSigned),
    read: (path) => readFileSync(path),
  };
}
