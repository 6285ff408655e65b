import { DEMO_DATABASES, DEMO_SUSPENDED_DATABASE } from './fleet.js';

// What the demo fleet's databases say about their safety in their listing entries. The three default
// databases are the healthy ones (daily backups on, TLS on), as the stack test relies on; the
// suspended legacy database is the one left unprotected. Each default database is reachable through
// one network restriction (an IP allowlist, VPC peering, Private Link); the others through none.

/** The database of the demo fleet with replicas, read regions and eviction on. */
export const DEMO_BACKED_UP_DATABASE = 'db-demo-cache';
/** The database with TLS and daily backups off, and no backup at all (the suspended legacy one). */
export const DEMO_UNPROTECTED_DATABASE = DEMO_SUSPENDED_DATABASE;

/** The settings the database listing reports that the demo varies per database. */
export interface DemoRedisSettings {
  readonly tls: boolean;
  readonly dailyBackup: boolean;
  readonly eviction: boolean;
  readonly replicas: number;
  readonly readRegions: readonly string[];
  /** The listing's `securityAddons` object, as the OpenAPI `Database` spells it. */
  readonly securityAddons: {
    readonly ipWhitelisting: boolean;
    readonly vpcPeering: boolean;
    readonly privateLink: boolean;
    readonly tlsMutualAuth: boolean;
    readonly encryptionAtRest: boolean;
  };
  /** `db_acl_enabled`, sent as text. */
  readonly acl: 'true' | 'false';
}

const NO_ADDONS = {
  ipWhitelisting: false,
  vpcPeering: false,
  privateLink: false,
  tlsMutualAuth: false,
  encryptionAtRest: false,
};

/**
 * The network restriction each default database has: one each, so none alerts
 * (docs/troubleshooting.md, UpstashRedisNoNetworkRestriction).
 */
const RESTRICTED: Readonly<Record<string, Partial<DemoRedisSettings['securityAddons']>>> = {
  'db-demo-cache': { ipWhitelisting: true, tlsMutualAuth: true, encryptionAtRest: true },
  'db-demo-sessions': { vpcPeering: true },
  'db-demo-events': { privateLink: true },
};

/** The listing's settings of database `id`: the demo fleet's own, or plain ones (TLS on, no daily backups). */
export function demoRedisSettings(id: string): DemoRedisSettings {
  const plain = {
    tls: true,
    // The default three have daily backups on.
    dailyBackup: DEMO_DATABASES.includes(id),
    eviction: false,
    replicas: 1,
    readRegions: [],
    securityAddons: { ...NO_ADDONS, ...RESTRICTED[id] },
    acl: id === DEMO_BACKED_UP_DATABASE ? ('true' as const) : ('false' as const),
  };
  switch (id) {
    case DEMO_BACKED_UP_DATABASE:
      return { ...plain, eviction: true, replicas: 3, readRegions: ['us-west-1', 'eu-west-1'] };
    case DEMO_UNPROTECTED_DATABASE:
      return { ...plain, tls: false };
    default:
      return plain;
  }
}
