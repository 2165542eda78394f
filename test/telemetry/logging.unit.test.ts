/** The SDK's log lines through pino: one JSON object a line, flat fields, the ids a line knows. */
import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createLogger, flatFields, idsFromWorkflowId, sdkLogger } from '../../telemetry/logging';

/** A pino destination that keeps the lines it is given. */
function captured() {
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _enc, done) {
      lines.push(...chunk.toString().split('\n').filter(Boolean));
      done();
    },
  });
  return { lines, stream };
}

describe('log ids', () => {
  it('reads tenant, job and task from Delegate workflow ids, and nothing from others', () => {
    expect(idsFromWorkflowId('job/acme/j1')).toEqual({ tenant: 'acme', jobId: 'j1' });
    expect(idsFromWorkflowId('job/acme/j1/sub_2')).toEqual({ tenant: 'acme', jobId: 'j1', taskId: 'sub_2' });
    expect(idsFromWorkflowId('job/acme/j1/nested/leaf')).toEqual({ tenant: 'acme', jobId: 'j1', taskId: 'leaf' });
    expect(idsFromWorkflowId('job/acme/j1/~webhook')).toEqual({ tenant: 'acme', jobId: 'j1' });
    expect(idsFromWorkflowId('delegate-prune-schedule')).toEqual({});
  });

  it('flattens the SDK metadata: component, agent, run id; no task token; explicit ids win', () => {
    const f = flatFields({
      sdkComponent: 'activity',
      workflowId: 'job/acme/j1/t1',
      workflowRunId: 'r',
      taskToken: 'secret',
      isLocal: false,
      attempt: 2,
      agentId: 'wordcount',
      taskId: 'explicit',
      [Symbol.for('log_timestamp')]: 1n,
    });
    expect(f).toEqual({
      component: 'activity',
      workflowId: 'job/acme/j1/t1',
      runId: 'r',
      attempt: 2,
      agent: 'wordcount',
      tenant: 'acme',
      jobId: 'j1',
      taskId: 'explicit',
    });
  });
});

describe('sdkLogger', () => {
  it('writes each SDK line as one JSON line at its level, below the level not at all', () => {
    const { lines, stream } = captured();
    const log = sdkLogger(createLogger({ level: 'info', proc: 'worker', destination: stream }));
    log.info('step done', { sdkComponent: 'activity', workflowId: 'job/acme/j1/t1', attempt: 1, error: new Error('multi\nline') });
    log.log('WARN', 'slow', { sdkComponent: 'core' });
    log.debug('noise', {});
    expect(lines).toHaveLength(2);
    const [first, second] = lines.map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(first).toMatchObject({
      level: 30,
      proc: 'worker',
      msg: 'step done',
      component: 'activity',
      tenant: 'acme',
      jobId: 'j1',
      taskId: 't1',
      attempt: 1,
    });
    expect(first!.error).toMatchObject({ message: 'multi\nline', type: 'Error' });
    expect(typeof first!.time).toBe('string');
    expect(second).toMatchObject({ level: 40, msg: 'slow', component: 'core' });
  });
});
