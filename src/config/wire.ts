import { Secret } from './secret.js';
import type { Config, ManagementAccount, QstashAccount } from './types.js';

/**
 * A Config as it crosses to the poll worker (structured clone): a {@link Secret} would arrive as an
 * empty object, so the credentials travel as plain strings inside the message, within the process,
 * and become Secrets again on the other side before anything else sees them. Never log one.
 */
export interface WireConfig extends Omit<Config, 'qstash' | 'management'> {
  readonly qstash: readonly (Omit<QstashAccount, 'token'> & { readonly token: string })[];
  readonly management: readonly (Omit<ManagementAccount, 'apiKey'> & { readonly apiKey: string })[];
}

/** The configuration as the poll worker is sent it. */
export function toWire(config: Config): WireConfig {
  return {
    ...config,
    qstash: config.qstash.map((account) => ({ ...account, token: account.token.reveal() })),
    management: config.management.map((account) => ({ ...account, apiKey: account.apiKey.reveal() })),
  };
}

/** The configuration the poll worker was sent, its credentials Secrets again. */
export function fromWire(wire: WireConfig): Config {
  return {
    ...wire,
    qstash: wire.qstash.map((account) => ({ ...account, token: new Secret(account.token) })),
    management: wire.management.map((account) => ({ ...account, apiKey: new Secret(account.apiKey) })),
  };
}
