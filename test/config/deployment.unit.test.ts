/** Deployment identities in worker identities, and which pollers belong to another deployment. */
import { describe, expect, it } from 'vitest';
import { deploymentOfIdentity, otherDeploymentMessage, otherDeploymentPollers, workerIdentity } from '../../config/deployment';

const NOW = 1_000_000_000;

describe('deployment identity', () => {
  it('round-trips through a worker identity; other identities carry none', () => {
    expect(workerIdentity('abc123', 42, 'host-1')).toBe('delegate:abc123:42@host-1');
    expect(deploymentOfIdentity('delegate:abc123:42@host-1')).toBe('abc123');
    expect(deploymentOfIdentity('42@host-1')).toBeUndefined();
    expect(deploymentOfIdentity('delegate:42@host-1')).toBeUndefined();
  });

  it("counts another deployment's pollers of the last minute only, never this one's or identities without an id", () => {
    const pollers = [
      { identity: 'delegate:ours:1@a', lastPolledMs: NOW },
      { identity: 'delegate:theirs:2@b', lastPolledMs: NOW - 30_000 },
      { identity: 'delegate:gone:3@c', lastPolledMs: NOW - 61_000 },
      { identity: 'delegate:fresh:4@d' },
      { identity: '5@old-release', lastPolledMs: NOW },
    ];
    expect(otherDeploymentPollers('q', pollers, 'ours', NOW)).toEqual([
      { deploymentId: 'theirs', identity: 'delegate:theirs:2@b', queue: 'q' },
      { deploymentId: 'fresh', identity: 'delegate:fresh:4@d', queue: 'q' },
    ]);
    expect(otherDeploymentPollers('q', pollers.slice(0, 1), 'ours', NOW)).toEqual([]);
  });

  it('names the queue, both deployments and, unless asked not to, the worker', () => {
    const found = [{ deploymentId: 'theirs', identity: 'delegate:theirs:2@b', queue: 'q' }];
    expect(otherDeploymentMessage('ours', found)).toMatch(
      /task queue "q" is polled by another deployment \(theirs, worker delegate:theirs:2@b\) than this one \(ours\)/,
    );
    expect(otherDeploymentMessage('ours', found, false)).not.toContain('@b');
    expect(otherDeploymentMessage('ours', [])).toBe('');
  });
});
