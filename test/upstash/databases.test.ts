import { afterEach, describe, expect, test } from 'vitest';
import { DEMO_API_KEY, DEMO_EMAIL, startSimulator, type Simulator } from '../../src/demo/simulator.js';
import { UpstashClient } from '../../src/upstash/client.js';
import { fetchDatabases, parseDatabases } from '../../src/upstash/databases.js';
import { invalidAsync } from '../helpers/invalid.js';

const PASSWORD = 'AZxxPASSWORD-kept-nowhere-1';
const REST_TOKEN = 'AYxxREST-TOKEN-kept-nowhere-2';
const READ_ONLY = 'AoxxREAD-ONLY-kept-nowhere-3';
const SECRETS = [PASSWORD, REST_TOKEN, READ_ONLY];

// One entry as the listing sends it (OpenAPI `Database`, plus the credentials the real API adds),
// written as JSON text so that the 19-digit "no limit" parses as JSON.parse does it.
const BODY = `[{
  "database_id": "96ad0856-03b1-4ee7-9666-e81abd0349e1",
  "database_name": "MyRedis",
  "password": "${PASSWORD}",
  "endpoint": "beloved-stallion-58500",
  "port": 6379,
  "rest_token": "${REST_TOKEN}",
  "read_only_rest_token": "${READ_ONLY}",
  "region": "global",
  "type": "paid",
  "creation_time": 1752649602,
  "state": "active",
  "tls": true,
  "db_max_clients": 10000,
  "db_max_request_size": 10485760,
  "db_disk_threshold": 107374182400,
  "db_max_entry_size": 104857600,
  "db_memory_threshold": 3221225472,
  "db_max_commands_per_second": 10000,
  "db_request_limit": 8024278031528736858,
  "budget": 360,
  "primary_region": "us-east-1",
  "primary_members": ["us-east-1"],
  "all_members": ["us-east-1"],
  "securityAddons": {"ipWhitelisting": false, "vpcPeering": true, "privateLink": false, "tlsMutualAuth": "true", "encryptionAtRest": true, "unknownAddon": true},
  "db_acl_enabled": "false",
  "customer_id": "example@upstash.com",
  "eviction": false,
  "daily_backup_enabled": true,
  "consistent": false,
  "auto_upgrade": false,
  "prod_pack_enabled": false,
  "prometheus_enabled": "true",
  "replicas": 5,
  "read_regions": ["us-east-2", "eu-west-1"]
}, {
  "database_id": "db-2",
  "database_name": "free-one",
  "type": "free",
  "state": "suspended",
  "db_max_clients": "1000",
  "budget": null,
  "tls": "yes",
  "prometheus_enabled": "false",
  "replicas": "5",
  "read_regions": null,
  "securityAddons": {"ipWhitelisting": "on", "privateLink": null},
  "db_acl_enabled": "true"
}, {
  "database_id": "db-3",
  "database_name": "odd-addons",
  "securityAddons": "none"
}]`;

describe('parseDatabases', () => {
  test('a realistic listing: the fields we export, numbers beyond 2^53 as the float they parse to', async () => {
    const { entries, rejected } = await parseDatabases(JSON.parse(BODY));
    const [first, second, third] = entries;
    expect(first).toEqual({
      id: '96ad0856-03b1-4ee7-9666-e81abd0349e1',
      name: 'MyRedis',
      type: 'paid',
      region: 'global',
      primaryRegion: 'us-east-1',
      state: 'active',
      creationTime: 1752649602,
      limits: {
        db_max_clients: 10000,
        db_max_commands_per_second: 10000,
        db_request_limit: Number('8024278031528736858'),
        db_max_request_size: 10485760,
        db_max_entry_size: 104857600,
        db_disk_threshold: 107374182400,
        db_memory_threshold: 3221225472,
        budget: 360,
      },
      // Booleans and "true"/"false" strings alike.
      features: {
        tls: true,
        eviction: false,
        daily_backup_enabled: true,
        consistent: false,
        auto_upgrade: false,
        prod_pack_enabled: false,
        prometheus_enabled: true,
        // The switches of securityAddons, and the ACL's "true"/"false".
        'securityAddons.ipWhitelisting': false,
        'securityAddons.vpcPeering': true,
        'securityAddons.privateLink': false,
        'securityAddons.tlsMutualAuth': true,
        'securityAddons.encryptionAtRest': true,
        db_acl_enabled: false,
      },
      replicas: 5,
      readRegions: 2,
    });
    // A limit that is not a number is left out alone; missing texts are empty.
    expect(second).toEqual({
      id: 'db-2',
      name: 'free-one',
      type: 'free',
      region: '',
      primaryRegion: '',
      state: 'suspended',
      creationTime: undefined,
      limits: {},
      // A setting that is neither a boolean nor "true"/"false" is left out alone, as a wrong count is.
      // (A switch of securityAddons that is null is absent; one of the wrong type is absent and named.)
      features: { prometheus_enabled: false, db_acl_enabled: true },
      replicas: undefined,
      readRegions: undefined,
    });
    // …and named, as every listing's optional field of the wrong type is (a null one is just absent).
    // The second entry's replicas, limit and TLS switch, each of the wrong type, in the order read.
    // The third's securityAddons is not an object: rejected as a whole, the entry kept.
    expect(third?.features).toEqual({});
    expect(rejected).toEqual([
      'replicas',
      'db_max_clients',
      'tls',
      'securityAddons.ipWhitelisting',
      'securityAddons',
    ]);
  });

  test('no credential of the listing is kept', async () => {
    const parsed = JSON.stringify(await parseDatabases(JSON.parse(BODY)));
    for (const secret of SECRETS) expect(parsed).not.toContain(secret);
    expect(parsed).not.toMatch(/password|rest_token/);
  });

  test.each([
    ['an object instead of a list', '{"databases": []}', 'top level'],
    [
      'an entry without database_id',
      `[{"database_name": "x", "password": "${PASSWORD}"}]`,
      '[0].database_id',
    ],
    [
      'a numeric database_name',
      `[{"database_id": "a", "database_name": 5, "rest_token": "${REST_TOKEN}"}]`,
      '[0].database_name',
    ],
    [
      'a repeated database_id',
      `[{"database_id": "a", "database_name": "x"}, {"database_id": "a", "database_name": "y", "password": "${PASSWORD}"}]`,
      'database_id',
    ],
  ])('%s → invalid_response naming the place, no credential in the message', async (_, body, where) => {
    const error = await invalidAsync(() =>
      parseDatabases(JSON.parse(body), 'https://api.example.com/v2/redis/databases'),
    );
    expect(error.message).toContain(where);
    expect(error.message).toContain('https://api.example.com/v2/redis/databases');
    for (const secret of SECRETS) expect(error.message).not.toContain(secret);
    expect(JSON.stringify(error)).not.toContain(PASSWORD);
  });

  test('an empty listing is an empty list', async () => {
    expect(await parseDatabases([])).toEqual({ entries: [], rejected: [] });
  });
});

describe('a database listed with its key fields only', () => {
  test('has empty labels, no limits and no switches; a null securityAddons is absent', async () => {
    const listed = await parseDatabases([{ database_id: 'd', database_name: 'n', securityAddons: null }]);
    expect(listed.rejected).toEqual([]);
    expect(listed.entries).toStrictEqual([
      {
        id: 'd',
        name: 'n',
        type: '',
        region: '',
        primaryRegion: '',
        state: '',
        creationTime: undefined,
        limits: {},
        features: {},
        replicas: undefined,
        readRegions: undefined,
      },
    ]);
  });
});

describe('fetchDatabases against the simulator', () => {
  let sim: Simulator | undefined;
  let client: UpstashClient | undefined;
  afterEach(async () => {
    await client?.close();
    await sim?.stop();
  });

  test('Basic auth; every listed database read, credentials dropped', async () => {
    sim = await startSimulator();
    client = new UpstashClient({ timeoutMs: 5000, retries: 0, concurrency: 1, userAgent: 'test' });
    const { entries: databases } = await fetchDatabases(client, {
      baseUrl: sim.url,
      credentials: { api: 'management', email: DEMO_EMAIL, apiKey: { reveal: () => DEMO_API_KEY } },
    });
    const basic = `Basic ${Buffer.from(`${DEMO_EMAIL}:${DEMO_API_KEY}`).toString('base64')}`;
    expect(sim.lastHeaders('databases')?.authorization).toBe(basic);
    const raw = await (
      await fetch(`${sim.url}/v2/redis/databases`, { headers: { authorization: basic } })
    ).text();
    expect(raw).toContain('"password":"SIMULATED-PASSWORD-');
    expect(raw).toContain('"db_request_limit":8024278031528736858');
    expect(databases.map((d) => d.id)).toContain('db-demo-cache');
    expect(databases.find((d) => d.state === 'suspended')).toBeDefined();
    expect(databases.find((d) => d.type === 'free')?.limits.db_request_limit).toBe(500_000);
    expect(JSON.stringify(databases)).not.toContain('SIMULATED-');
  });
});
