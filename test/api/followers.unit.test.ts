/**
 * The shared followers on a fake record: one read per poll however many streams watch a job,
 * late joiners and resumes caught up in order, job.finished and "the job is over" ending every
 * stream, a stream that leaves stopping the follower once it was the last; and the stream caps.
 */
import { describe, expect, it } from 'vitest';
import { createJobFollowers } from '../../api/jobs/followers';
import { createStreamCaps } from '../../api/jobs/stream-caps';
import { HttpProblem } from '../../api/errors';
import type { JobEvent, JobEventType } from '../../schemas';

/** A record of one job's events, counting its reads. */
function fakeRecord() {
  const events: JobEvent[] = [];
  let reads = 0;
  return {
    get reads() {
      return reads;
    },
    write(type: JobEventType = 'subtask.step') {
      events.push({ seq: events.length + 1, type, at: new Date().toISOString(), data: {} });
    },
    async after(_t: string, _j: string, seq: number, limit = 500) {
      reads++;
      return events.filter((e) => e.seq > seq).slice(0, limit);
    },
  };
}

const seqs = async (it: AsyncIterable<JobEvent>) => {
  const out: number[] = [];
  for await (const e of it) out.push(e.seq);
  return out;
};
const tick = (ms = 30) => new Promise((r) => setTimeout(r, ms));

describe('shared job followers', () => {
  it('reads the record once per poll for any number of streams, and ends them all after job.finished', async () => {
    const rec = fakeRecord();
    const f = createJobFollowers({ after: rec.after, ended: async () => false, pollMs: 10 });
    const streams = Array.from({ length: 50 }, () => seqs(f.subscribe('t', 'j', 0)));
    for (let i = 0; i < 5; i++) {
      rec.write();
      await tick();
    }
    const before = rec.reads;
    await tick(100);
    // about 10 polls in 100 ms for 50 streams, not 500
    expect(rec.reads - before).toBeLessThan(20);
    rec.write('job.finished');
    for (const s of await Promise.all(streams)) expect(s).toEqual([1, 2, 3, 4, 5, 6]);
    expect(f.size()).toEqual({ jobs: 0, subscribers: 0 });
  });

  it('catches a late joiner and a resume up from the record, in order, without repeats', async () => {
    const rec = fakeRecord();
    const f = createJobFollowers({ after: rec.after, ended: async () => false, pollMs: 10, page: 2 });
    const first = seqs(f.subscribe('t', 'j', 0));
    for (let i = 0; i < 5; i++) rec.write();
    await tick();
    const late = seqs(f.subscribe('t', 'j', 0));
    const resumed = seqs(f.subscribe('t', 'j', 3));
    const ahead = seqs(f.subscribe('t', 'j', 7));
    for (let i = 0; i < 3; i++) rec.write();
    rec.write('job.finished');
    expect(await first).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9]);
    expect(await late).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9]);
    expect(await resumed).toEqual([4, 5, 6, 7, 8, 9]);
    expect(await ahead).toEqual([8, 9]);
  });

  it('asks whether the job is over once per follower, and ends its streams when it is with nothing more to read', async () => {
    const rec = fakeRecord();
    let asked = 0;
    let over = false;
    const f = createJobFollowers({ after: rec.after, ended: async () => (asked++, over), pollMs: 5, endedEvery: 2 });
    rec.write();
    const streams = Array.from({ length: 20 }, () => seqs(f.subscribe('t', 'j', 0)));
    await tick(60);
    // ~6 checks in 60 ms for the job, not 20 times as many
    expect(asked).toBeGreaterThan(0);
    expect(asked).toBeLessThan(15);
    over = true;
    for (const s of await Promise.all(streams)) expect(s).toEqual([1]);
    expect(f.size().jobs).toBe(0);
  });

  it('stops following once its last stream leaves (abort or return), also one that never iterated', async () => {
    const rec = fakeRecord();
    const f = createJobFollowers({ after: rec.after, ended: async () => false, pollMs: 5 });
    const gone = new AbortController();
    const a = f.subscribe('t', 'j', 0, gone.signal);
    const b = f.subscribe('t', 'j', 0);
    const reading = seqs(a);
    expect(f.size()).toEqual({ jobs: 1, subscribers: 2 });
    gone.abort();
    expect(await reading).toEqual([]);
    await b.return(undefined);
    await tick(20);
    expect(f.size()).toEqual({ jobs: 0, subscribers: 0 });
    const reads = rec.reads;
    await tick(30);
    expect(rec.reads).toBe(reads);
  });

  it('passes a failed read to every stream of the job, and the next stream starts afresh', async () => {
    let fail = true;
    const rec = fakeRecord();
    const f = createJobFollowers({
      after: async (...a) => {
        if (fail) throw new Error('record unavailable');
        return rec.after(...a);
      },
      ended: async () => false,
      pollMs: 5,
    });
    const results = await Promise.allSettled([seqs(f.subscribe('t', 'j', 0)), seqs(f.subscribe('t', 'j', 0))]);
    expect(results.map((r) => r.status)).toEqual(['rejected', 'rejected']);
    fail = false;
    rec.write('job.finished');
    expect(await seqs(f.subscribe('t', 'j', 0))).toEqual([1]);
  });
});

describe('stream caps', () => {
  it('refuses past the tenant cap and the job cap with 429 and Retry-After, and frees a place on release or abort', () => {
    const caps = createStreamCaps({ perTenant: 3, perJob: 2 });
    const r1 = caps.open('a', 'j1');
    caps.open('a', 'j1');
    const refused = (() => {
      try {
        caps.open('a', 'j1');
      } catch (err) {
        return err;
      }
    })() as HttpProblem;
    expect(refused).toBeInstanceOf(HttpProblem);
    expect(refused.status).toBe(429);
    expect(refused.headers?.['retry-after']).toMatch(/^\d+$/);
    const gone = new AbortController();
    caps.open('a', 'j2', gone.signal);
    expect(() => caps.open('a', 'j3')).toThrow(/cap is 3/);
    // another tenant is not counted with this one
    expect(() => caps.open('b', 'j1')).not.toThrow();
    r1();
    r1();
    expect(caps.held('a')).toBe(2);
    gone.abort();
    expect(caps.held('a')).toBe(1);
    expect(() => caps.open('a', 'j1')).not.toThrow();
  });
});
