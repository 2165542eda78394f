/**
 * The API bench's baseline: a bare Fastify server making the same Temporal client calls
 * as Delegate's routes (start the job workflow; describe and fetch the result), with no
 * schemas, no validation, no problem mapping, no OpenAPI.
 */
import { Client, Connection } from '@temporalio/client';
import Fastify from 'fastify';
import { randomUUID } from 'node:crypto';
import { PATTERN_KEY, STATUS_KEY, TENANT_KEY } from '../../core/search-attributes';
import type { JobSpec } from '../../schemas';
import { delegationJob } from '../../workflows/delegation-job';

const connection = await Connection.connect({ address: process.env.TEMPORAL_ADDRESS ?? 'localhost:7233' });
const client = new Client({ connection });
const taskQueue = process.env.DELEGATE_TASK_QUEUE ?? 'delegate';
const app = Fastify({ bodyLimit: 4 * 1024 * 1024 });

app.post('/v1/jobs', async (req, reply) => {
  // a baseline: the body is trusted as a JobSpec, unvalidated (Delegate's API validates it)
  const spec = req.body as JobSpec;
  const jobId = spec.jobId ?? randomUUID();
  const workflowId = `job/default/${jobId}`;
  await client.workflow.start(delegationJob, {
    workflowId,
    taskQueue,
    args: [{ spec: { ...spec, jobId }, tenant: 'default', depth: 0, maxDepth: 3 }],
    memo: { jobId },
    typedSearchAttributes: [
      { key: PATTERN_KEY, value: spec.pattern },
      { key: STATUS_KEY, value: 'running' },
      { key: TENANT_KEY, value: 'default' },
    ],
  });
  return reply.code(201).send({ jobId, workflowId });
});

app.get('/v1/jobs/:jobId', async (req) => {
  const handle = client.workflow.getHandle(`job/default/${(req.params as { jobId: string }).jobId}`);
  const d = await handle.describe();
  return { state: d.status.name, result: d.status.name === 'COMPLETED' ? await handle.result() : undefined };
});

await app.listen({ host: '127.0.0.1', port: Number(process.env.PORT ?? 0) });
console.log('bare api listening');
for (const sig of ['SIGINT', 'SIGTERM'] as const) {
  process.once(sig, async () => {
    await app.close();
    await connection.close();
    process.exit(0);
  });
}
