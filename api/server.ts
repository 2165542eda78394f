/** API process: listens on HOST:PORT and shuts down gracefully on SIGINT/SIGTERM. */
import { Client } from '@temporalio/client';
import { loadRegistry } from '../activities';
import { connectClient, loadConfig } from '../workers/config';
import { buildApp } from './app';

const config = loadConfig();
const connection = await connectClient(config);
const client = new Client({ connection, namespace: config.TEMPORAL_NAMESPACE });
const app = await buildApp({
  config,
  client,
  registry: loadRegistry(config.DELEGATE_AGENTS_FILE),
  fastify: { logger: { level: config.LOG_LEVEL, base: { proc: 'api' } } },
});
for (const sig of ['SIGINT', 'SIGTERM'] as const) {
  process.once(sig, async () => {
    app.log.info({ signal: sig }, 'api shutting down');
    await app.close();
    await connection.close();
    process.exit(0);
  });
}
await app.listen({ host: config.HOST, port: config.PORT });
