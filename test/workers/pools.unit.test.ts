import { describe, expect, it } from 'vitest';
import { createAgentRegistry, createHttpAgent, loadAgentsFile } from '../../activities';
import { checkRunnable, resolveAgents } from '../../api/spec-check';
import type { AgentManifest, JobSpec, TaskSpec } from '../../schemas';
import { loadConfig } from '../../config/config';
import { hostedPools } from '../../config/pools';
import { stepQueueFor } from '../../core/names';
import { readResolved, runManifest, runManifests, submittedManifest, submittedRouting } from '../../core/routing';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const configError = (env: Record<string, string>): string => {
  try {
    loadConfig(env);
    return '';
  } catch (err) {
    return (err as Error).message;
  }
};

const agent = (id: string, pool?: string): AgentManifest =>
  createHttpAgent({ id, url: 'http://127.0.0.1:9/x', ...(pool ? { pool } : {}) }).manifest;

describe('agent pools', () => {
  it('a pooled agent steps on <lane>.pool-<pool>; one without a pool on the lane itself', () => {
    expect(stepQueueFor('delegate-agents-acme', 'gpu')).toBe('delegate-agents-acme.pool-gpu');
    expect(stepQueueFor('delegate-agents-acme')).toBe('delegate-agents-acme');
  });

  it('DELEGATE_POOLS parses pool=steps pairs', () => {
    expect(loadConfig({ DELEGATE_POOLS: 'gpu=4, cheap=16' }).DELEGATE_POOLS).toEqual({ gpu: 4, cheap: 16 });
    expect(loadConfig({}).DELEGATE_POOLS).toBeUndefined();
  });

  it('a bad DELEGATE_POOLS fails at start naming the variable and each bad pool', () => {
    const message = configError({ DELEGATE_POOLS: 'gpu=four,cheap=0,gpu=2,bad name=3,x=99999' });
    expect(message).toContain(
      'DELEGATE_POOLS: pool "gpu" needs its concurrent steps as a whole number from 1 to 10000 ("gpu=4"), got "four"',
    );
    expect(message).toContain('pool "cheap" needs its concurrent steps');
    expect(message).toContain('pool "gpu" is listed twice');
    expect(message).toContain('pair 4 has an invalid pool name "bad name"');
    expect(message).toContain('pool "x" needs its concurrent steps as a whole number from 1 to 10000 ("x=4"), got "99999"');
    expect(configError({ DELEGATE_POOLS: ' , ' })).toContain('DELEGATE_POOLS: lists no pool');
  });

  it('a worker hosts the pools DELEGATE_POOLS lists, or every declared pool with the default; an unknown pool is an error naming it', () => {
    const agents = [agent('a', 'gpu'), agent('b', 'cheap'), agent('c', 'gpu'), agent('d')];
    expect(hostedPools({ gpu: 4 }, agents)).toEqual({ gpu: 4 });
    expect(hostedPools(undefined, agents)).toEqual({ cheap: 20, gpu: 20 });
    expect(hostedPools(undefined, [agent('d')])).toEqual({});
    expect(() => hostedPools({ gpu: 4, gpux: 2 }, agents)).toThrow(
      'DELEGATE_POOLS: pool "gpux" is not declared by any agent (pools of the agents: cheap, gpu)',
    );
  });

  it('the agents file takes a pool per agent, checked like an id', () => {
    const dir = mkdtempSync(join(tmpdir(), 'pools-'));
    const file = join(dir, 'agents.json');
    writeFileSync(
      file,
      JSON.stringify({
        agents: [
          { id: 'v', url: 'http://127.0.0.1:9/v', pool: 'gpu' },
          { kind: 'llm', id: 'l', baseUrl: 'http://127.0.0.1:9/v1', model: 'm', pool: 'cheap' },
        ],
      }),
    );
    expect(loadAgentsFile(file).map((d) => d.manifest.pool)).toEqual(['gpu', 'cheap']);
    writeFileSync(file, JSON.stringify({ agents: [{ id: 'v', url: 'http://127.0.0.1:9/v', pool: 'g p u' }] }));
    expect(() => loadAgentsFile(file)).toThrow(/agents\[0\] \("v"\)\.pool: a pool name/);
  });
});

describe('routing as the subtask records it', () => {
  const gpu = agent('vision', 'gpu');
  const task = (agentRef: TaskSpec['agent']): TaskSpec => ({ id: 't', question: 'q', agent: agentRef });

  it('a job hands over a named agent, and a capability resolved at submission (its only agent)', () => {
    const agents = { vision: gpu, 'capability:see': gpu };
    expect(submittedManifest(task('vision'), agents)).toEqual(runManifest(gpu));
    expect(submittedManifest(task({ capability: 'see' }), agents)).toEqual(runManifest(gpu));
    // a capability with several agents is not in the map: the subtask routes it by load
    expect(submittedManifest(task({ capability: 'draw' }), agents)).toBeUndefined();
    expect(submittedRouting(task('vision'), gpu)).toEqual({ agent: 'vision', reason: 'named' });
    expect(submittedRouting(task({ capability: 'see' }), gpu)).toEqual({ agent: 'vision', reason: 'only agent with capability see' });
  });

  it("reads resolveAgent's answer, also a bare manifest recorded before routing answered with its reason", () => {
    expect(readResolved({ manifest: gpu, routing: { agent: 'vision', reason: 'load: …' } })).toEqual({
      manifest: gpu,
      routing: { agent: 'vision', reason: 'load: …' },
    });
    expect(readResolved(gpu)).toEqual({ manifest: gpu });
  });
});

describe('capabilities at submission', () => {
  const registry = createAgentRegistry([
    createHttpAgent({
      id: 'see-a',
      url: 'http://127.0.0.1:9/a',
      capabilities: ['see'],
      pool: 'gpu',
      inputSchema: { type: 'object', required: ['image'] },
    }),
    createHttpAgent({
      id: 'see-b',
      url: 'http://127.0.0.1:9/b',
      capabilities: ['see'],
      inputSchema: { type: 'object', additionalProperties: false },
    }),
    createHttpAgent({ id: 'count', url: 'http://127.0.0.1:9/c', capabilities: ['count'] }),
  ]);
  const spec = (tasks: JobSpec['tasks']): JobSpec => ({ pattern: 'fanout', tasks }) as JobSpec;

  it('a capability with one agent is handed over under capability:<name>; one with several is left for the subtask to route by load', () => {
    const { spec: out, agents } = resolveAgents(
      spec([
        { id: 'a', question: 'q', agent: { capability: 'count' } },
        { id: 'b', question: 'q', agent: { capability: 'see' } },
        { id: 'c', question: 'q', agent: 'see-a' },
      ]),
      registry,
    );
    expect(out.tasks.map((t) => t.agent)).toEqual([{ capability: 'count' }, { capability: 'see' }, 'see-a']);
    expect(Object.keys(agents).sort()).toEqual(['capability:count', 'see-a']);
    expect(submittedManifest(out.tasks[0], agents)?.id).toBe('count');
    expect(submittedManifest(out.tasks[1], agents)).toBeUndefined();
  });

  it('hands a job only what its subtasks read of a manifest: the id, the step policy defaults and the pool, not the schemas', () => {
    const { agents } = resolveAgents(spec([{ id: 'c', question: 'q', agent: 'see-a' }]), registry);
    const full = registry.get('see-a')!.manifest;
    const cut = { id: 'see-a', version: full.version, kind: 'http', limits: full.limits, retry: full.retry, pool: 'gpu' };
    expect(agents['see-a']).toEqual(cut);
    // a job started straight through Temporal with whole manifests hands its subtasks the same
    expect(submittedManifest({ id: 'c', question: 'q', agent: 'see-a' }, { 'see-a': full })).toEqual(cut);
    expect(runManifests({ 'see-a': full })).toEqual({ 'see-a': cut });
    // a manifest without a pool gets no pool key; cutting twice changes nothing
    const count = runManifest(registry.get('count')!.manifest);
    expect(count).not.toHaveProperty('pool');
    expect(runManifest(count)).toEqual(count);
    // what it leaves out grows with the agent: its description, schemas, capabilities and tools
    for (const key of ['description', 'inputSchema', 'outputSchema', 'capabilities', 'tools'])
      expect(agents['see-a']).not.toHaveProperty(key);
  });

  it("a capability's params are checked against one of its agents that accepts them", () => {
    // see-a wants an image, see-b takes no params: either is a fit for one of them
    expect(checkRunnable(spec([{ id: 'b', question: 'q', agent: { capability: 'see' }, params: {} }]), registry, 3)).toEqual([]);
    expect(
      checkRunnable(spec([{ id: 'b', question: 'q', agent: { capability: 'see' }, params: { image: 'x.png' } }]), registry, 3),
    ).toEqual([]);
    // neither: the first agent's complaint
    expect(checkRunnable(spec([{ id: 'b', question: 'q', agent: { capability: 'see' }, params: { other: 1 } }]), registry, 3)).toEqual([
      { path: 'tasks[0].params', message: expect.stringContaining('(agent "see-a")') },
    ]);
    expect(registry.candidates('see').map((d) => d.manifest.id)).toEqual(['see-a', 'see-b']);
    expect(registry.candidates('none')).toEqual([]);
  });
});
