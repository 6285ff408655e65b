import { describe, expect, it } from 'vitest';
import { anchoredRegex, databaseSamples, selects } from '../../src/sources/databases.js';
import type { Database } from '../../src/upstash/databases.js';

const db = (id: string, name: string, limits: Database['limits'] = {}): Database => ({
  id,
  name,
  type: 'payg',
  region: 'global',
  primaryRegion: 'eu-west-1',
  state: 'active',
  creationTime: 1_752_649_602,
  limits,
  features: {},
  replicas: undefined,
  readRegions: undefined,
});

describe('databaseSamples', () => {
  it('counts every listed database, and gives info, creation time and number limits of the polled ones', () => {
    const all = [
      db('a', 'prod-a', { db_max_clients: 100, db_request_limit: Number('8024278031528736858') }),
      db('b', 'x'),
    ];
    const samples = databaseSamples('main', all, [all[0]!]);
    const text = samples.map(
      (s) => `${s.metric.name}{${s.labels.map(([k, v]) => `${k}=${v}`).join(',')}} ${s.value}`,
    );
    expect(text).toEqual([
      'upstash_redis_databases{account=main} 2',
      'upstash_redis_database_info{account=main,database_id=a,database_name=prod-a,type=payg,region=global,primary_region=eu-west-1,state=active} 1',
      'upstash_redis_database_created_timestamp_seconds{account=main,database_id=a} 1752649602',
      'upstash_redis_max_clients{account=main,database_id=a} 100',
      'upstash_redis_request_limit{account=main,database_id=a} 8024278031528737000',
    ]);
  });
});

describe('selects', () => {
  const select = (include: string[], exclude: string[], name: string): boolean =>
    selects(
      { ids: undefined, include: include.map(anchoredRegex), exclude: exclude.map(anchoredRegex) },
      db('id', name),
    );

  it('keeps every database without filters', () => {
    expect(select([], [], 'anything')).toBe(true);
  });

  it('anchors both ends, as Prometheus relabelling does', () => {
    expect(select(['prod-.*'], [], 'prod-cache')).toBe(true);
    expect(select(['prod-.*'], [], 'preprod-cache')).toBe(false);
    expect(select(['prod'], [], 'prod-cache')).toBe(false);
    expect(select(['a|b'], [], 'a')).toBe(true);
    expect(select(['a|b'], [], 'ab')).toBe(false);
  });

  it('reads RE2 syntax as Prometheus does', () => {
    expect(select(['(?i)prod-[[:digit:]]+'], [], 'PROD-42')).toBe(true);
    expect(select(['\\pL+'], [], 'Zürich')).toBe(true);
    expect(select(['\\Qa.b\\E'], [], 'axb')).toBe(false);
  });

  it('needs some include and no exclude', () => {
    expect(select(['prod-.*', 'stage-.*'], ['.*-scratch'], 'stage-x')).toBe(true);
    expect(select(['prod-.*'], ['.*-scratch'], 'prod-scratch')).toBe(false);
    expect(select([], ['.*-scratch'], 'dev')).toBe(true);
  });

  it('an explicit list is exactly the IDs, whatever the names', () => {
    const selection = { ids: ['a'], include: [], exclude: [] };
    expect(selects(selection, db('a', 'whatever'))).toBe(true);
    expect(selects(selection, db('b', 'whatever'))).toBe(false);
  });
});
