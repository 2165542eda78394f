/** API process: listens on HOST:PORT and shuts down gracefully on SIGINT/SIGTERM. */
import { Client } from '@temporalio/client';
import { loadRegistry, semanticOptionsFromConfig } from '../activities';
import { openRecord, recordLocation } from '../record';
import { createLogger } from '../telemetry/logging';
import { connectClient, loadConfig } from '../config/config';
import { loadTenants } from '../config/tenants';
import { orExit } from '../config/startup';
import { startTracing } from '../telemetry/tracing';
import { buildApp } from './app';
import { AUTH_OFF_WARNING } from './routes/system';

// a bad environment, keys file or agents file (its roles too) is one line and exit code 1, before any connection
const config = orExit('api', () => loadConfig());
const registry = orExit('api', () => loadRegistry(config.DELEGATE_AGENTS_FILE, semanticOptionsFromConfig(config)));
const tenants = orExit('api', () => loadTenants(config));
// off unless an OTEL_* variable says where spans go (docs/guides/observability.md, "Traces")
const tracing = startTracing({ serviceName: 'delegate-api' });
const connection = await connectClient(config);
const client = new Client({ connection, namespace: config.TEMPORAL_NAMESPACE, interceptors: tracing?.clientInterceptors });
const record = await openRecord(recordLocation(config));
const app = await buildApp({
  config,
  client,
  registry,
  tenants,
  record: record.store,
  tracing: tracing !== undefined,
  fastify: { loggerInstance: createLogger({ level: config.LOG_LEVEL, proc: 'api' }) },
}).catch((err: Error) => {
  // no keys, a bad keys file: say what to set, not a stack
  console.error(`api: ${err.message}`);
  process.exit(1);
});
// one stray promise must not take the API down for every tenant
process.on('unhandledRejection', (reason) => app.log.error({ err: String(reason) }, 'unhandled rejection (kept running)'));
for (const sig of ['SIGINT', 'SIGTERM'] as const) {
  process.once(sig, async () => {
    app.log.info({ signal: sig }, 'api shutting down');
    await app.close();
    await connection.close();
    await record.close();
    await tracing?.shutdown();
    process.exit(0);
  });
}
if (app.tenants.auth === 'off') app.log.warn(`*** ${AUTH_OFF_WARNING} ***`);
else app.log.info({ tenants: app.tenants.list().map((t) => t.tenant) }, 'bearer-key authentication on');
await app.listen({ host: config.HOST, port: config.PORT });
