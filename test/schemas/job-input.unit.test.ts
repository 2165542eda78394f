/** The job workflow's own input rules, as the API runs them before a start and the workflow for jobs started straight through Temporal. */
import { describe, expect, it } from 'vitest';
import { jobInputIssues, jobInputProblems } from '../../schemas/job-input';
import { formatPath } from '../../api/errors';

const task = { id: 'a', question: 'q', agent: 'echo' };

describe('job input rules', () => {
  it('accept what the API builds, and say where the rest is wrong: in the spec or around it', () => {
    const ok = {
      spec: { jobId: 'j1', pattern: 'fanout', tasks: [task] },
      tenant: 'acme',
      depth: 0,
      maxDepth: 3,
      agentQueue: 'delegate-agents-acme',
    };
    expect(jobInputIssues(ok)).toEqual([]);
    const bad = {
      spec: { jobId: 'j1', pattern: 'fanout', tasks: [task, { ...task, id: 'b' }], labels: { k: 'a"b' } },
      agentQueue: 'has space',
    };
    const issues = jobInputIssues(bad);
    // the lane's pattern first (the input's own fields), and the spec only once they hold
    expect(issues.map((i) => i.path)).toEqual([['agentQueue']]);
    const spec = jobInputIssues({ ...bad, agentQueue: undefined });
    expect(spec.map((i) => formatPath(i.path.slice(1), 'body'))).toEqual(['body.labels.k']);
    expect(jobInputProblems({ ...bad, agentQueue: undefined })).toEqual([`spec.labels.k: ${spec[0]!.message}`]);
  });
});
