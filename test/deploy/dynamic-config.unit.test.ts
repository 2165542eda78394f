/**
 * The cluster (npm run cluster, docker-compose.yml) and the dev server run the same dynamic
 * config, but for the dev server's single-shard workarounds, which a cluster replaces with
 * history shards and task-queue partitions (docs/operations/cluster.md, "Temporal server settings").
 */
import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';
import { DEV_THROUGHPUT_SETTINGS } from '../../scripts/dev-server';

/** Dev-server-only keys, each with why a cluster leaves it out. */
const DEV_ONLY: Record<string, string> = {
  'history.transferProcessorSchedulerWorkerCount': 'one shard: a cluster has NUM_HISTORY_SHARDS',
  'history.cacheNonUserContextLockTimeout': 'one shard: a cluster has NUM_HISTORY_SHARDS',
  'matching.numTaskqueueReadPartitions': 'one matching host: a cluster spreads queues over partitions',
  'matching.numTaskqueueWritePartitions': 'one matching host: a cluster spreads queues over partitions',
  'system.forceSearchAttributesCacheRefreshOnRead': "the dev server's own default is true; a server's is already false",
};

/** What every dev server gets besides DEV_THROUGHPUT_SETTINGS: startDevServer's own flag and the CLI's default. */
const DEV_SERVER_FIXED: Record<string, unknown> = {
  'frontend.enableUpdateWorkflowExecution': true,
  'frontend.namespaceRPS.visibility': 100,
};

const cluster = parse(readFileSync(new URL('../../deploy/temporal-dynamicconfig.yaml', import.meta.url), 'utf8')) as Record<string, { value: unknown }[]>;
const dev: Record<string, unknown> = { ...DEV_SERVER_FIXED, ...Object.fromEntries(Object.entries(DEV_THROUGHPUT_SETTINGS).map(([k, v]) => [k, JSON.parse(v)])) };

describe('the dynamic config of the cluster and of the dev server', () => {
  it('sets every cluster key to the dev server value', () => {
    for (const [key, values] of Object.entries(cluster)) {
      expect(values, `${key} in deploy/temporal-dynamicconfig.yaml`).toHaveLength(1);
      expect(dev, `deploy/temporal-dynamicconfig.yaml sets ${key}, the dev server does not`).toHaveProperty([key]);
      expect(values[0].value, `${key}: cluster vs dev server`).toEqual(dev[key]);
    }
  });

  it('leaves out only the single-host workarounds', () => {
    const missing = Object.keys(dev).filter((k) => !(k in cluster));
    expect(missing.sort()).toEqual(Object.keys(DEV_ONLY).sort());
  });
});
