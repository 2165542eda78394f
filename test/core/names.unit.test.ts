import { describe, expect, it } from 'vitest';
import { agentQueueFor, JOB_WORKFLOW, stepQueueFor } from '../../core/names';
import { delegationJob } from '../../workflows/delegation-job';

describe('Temporal names', () => {
  it('names the job workflow as its function is named: the API starts and lists jobs by it', () => {
    expect(JOB_WORKFLOW).toBe(delegationJob.name);
  });

  it('puts a pooled agent on its pool queue of the lane, an unpooled one on the lane', () => {
    const lane = agentQueueFor('delegate', 'acme');
    expect(lane).toBe('delegate-agents-acme');
    expect(stepQueueFor(lane, 'gpu')).toBe('delegate-agents-acme.pool-gpu');
    expect(stepQueueFor(lane)).toBe(lane);
  });
});
