/**
 * The record's step of each agent, read at submission for a fair grant's floor: the p99 of a
 * finished subtask's spend (the top of its histogram bin) over its mean steps; nothing for an
 * agent never measured, nor for one whose spend varies too much to predict a step (p99 over 4× the
 * median), for a greedy job, or for a job that caps neither money nor tokens.
 */
import { describe, expect, it } from 'vitest';
import { recordedStepFloors } from '../../api/jobs/step-floors';
import { addBin, binOf, emptyStats, type TaskStats } from '../../core/forecast-sketch';
import type { JobSpec } from '../../schemas';
import type { AgentStats } from '../../record';

/** Stats of `costs` (µ$) and `tokens`, each subtask of `steps` steps. */
function stats(costs: number[], tokens: number, steps: number): TaskStats {
  const s = emptyStats();
  for (const c of costs) {
    addBin(s, 'outcome', 0, 1);
    addBin(s, 'costMicros', binOf(c), 1);
    addBin(s, 'tokens', binOf(tokens), 1);
    addBin(s, 'steps', binOf(steps), 1);
  }
  return s;
}

const manifest = (id: string) => ({ id, version: '1.0.0', kind: 'llm' }) as never;
const agents = { pricey: manifest('pricey'), cheap: manifest('cheap'), fresh: manifest('fresh'), wild: manifest('wild') };
const window = async () =>
  new Map<string, AgentStats>([
    ['pricey', new Map([['fanout', stats([1000, 1000, 3000], 400, 2)]])],
    ['cheap', new Map([['fanout', stats([100, 120], 50, 1)]])],
    // its cost is whatever the task asks: a thousandfold apart
    ['wild', new Map([['fanout', stats([10, 10, 10, 10000], 50, 1)]])],
  ]);
const spec = (extra: Partial<JobSpec> = {}): JobSpec => ({
  pattern: 'fanout',
  budget: { costUsd: 0.01 },
  tasks: [{ id: 'a', question: 'q', agent: 'pricey' }],
  ...extra,
});

describe('recorded step floors', () => {
  it('are the dearest measured subtask over its mean steps, per agent the record measured and can predict', async () => {
    const { stepFloors } = await recordedStepFloors(spec(), agents, { window }, 'acme');
    // wild's money is not predictable (its p99 is a thousand times its median); its tokens are (all four the same)
    expect(Object.keys(stepFloors!).sort()).toEqual(['cheap', 'pricey', 'wild']);
    expect(stepFloors!.wild).toEqual({ tokens: expect.any(Number) });
    // 3,000 µ$ over two steps: at least 1,500 µ$ a step, and no more than its histogram bins allow (19% wide each)
    expect(stepFloors!.pricey.costUsd).toBeGreaterThanOrEqual(0.0015);
    expect(stepFloors!.pricey.costUsd).toBeLessThanOrEqual(0.002);
    expect(stepFloors!.pricey.tokens).toBeGreaterThanOrEqual(200);
    expect(stepFloors!.cheap.costUsd).toBeGreaterThanOrEqual(0.00012);
  });

  it('are not read for a greedy job, nor one that caps neither money nor tokens; a nested fair job with a cap reads them', async () => {
    let reads = 0;
    const counted = async () => (reads++, window());
    expect(await recordedStepFloors(spec({ allocation: 'greedy' }), agents, { window: counted }, 'acme')).toEqual({});
    expect(await recordedStepFloors(spec({ budget: { latencySeconds: 60 } }), agents, { window: counted }, 'acme')).toEqual({});
    expect(reads).toBe(0);
    const nested = spec({
      budget: undefined,
      tasks: [
        {
          id: 'n',
          question: 'q',
          job: { pattern: 'fanout', budget: { tokens: 1000 }, tasks: [{ id: 'a', question: 'q', agent: 'cheap' }] },
        },
      ],
    });
    expect((await recordedStepFloors(nested, agents, { window: counted }, 'acme')).stepFloors).toHaveProperty('cheap');
  });
});
