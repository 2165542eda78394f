/** Worker process: hosts the workflows and the builtin agents until SIGINT/SIGTERM. */
import { pino } from 'pino';
import { loadRegistry, netPolicyFromConfig } from '../activities';
import { connectWorker, loadConfig } from './config';
import { bundleWorkflows, createWorker } from './worker';

const config = loadConfig();
const log = pino({ level: config.LOG_LEVEL, base: { proc: 'worker' } });
const connection = await connectWorker(config);
const worker = await createWorker({
  connection,
  namespace: config.TEMPORAL_NAMESPACE,
  taskQueue: config.DELEGATE_TASK_QUEUE,
  stepLogPath: config.DELEGATE_STEP_LOG,
  registry: loadRegistry(config.DELEGATE_AGENTS_FILE),
  webhookSecret: config.DELEGATE_WEBHOOK_SECRET,
  webhook: { policy: netPolicyFromConfig(config) },
  workflowBundle: await bundleWorkflows(),
});
for (const sig of ['SIGINT', 'SIGTERM'] as const) {
  // the SDK's runtime also reacts to these signals; whoever comes second finds it stopping
  process.on(sig, () => {
    log.info({ signal: sig }, 'worker shutting down');
    if (worker.getState() === 'RUNNING') worker.shutdown();
  });
}
log.info({ address: config.TEMPORAL_ADDRESS, taskQueue: config.DELEGATE_TASK_QUEUE }, 'worker running');
await worker.run();
await connection.close();
log.info('worker stopped');
