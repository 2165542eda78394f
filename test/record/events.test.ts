/**
 * A job's event stream in the record, on both stores: seqs are handed out in order per job, one
 * event or many at a time; an event whose key the job already has is skipped and takes no seq.
 */
import { describe, expect, it } from 'vitest';
import { openFreshRecord, RECORD_STORES } from '../record-stores';

describe.each(RECORD_STORES)('job events on %s', (kind) => {
  const record = openFreshRecord(kind);
  const ev = (key: string, type = 'subtask.step' as const) => ({ key, type, data: { key }, at: 1_000 });

  it('numbers events in order, one or many at a time, and skips a key the job already has', async () => {
    const { events } = record.store;
    expect(await events.append('acme', 'j1', [ev('a')])).toEqual([1]);
    expect(await events.append('acme', 'j1', [ev('b'), ev('c')])).toEqual([2, 3]);
    // the same key again: nothing written, no seq taken, alone or in a batch
    expect(await events.append('acme', 'j1', [ev('a')])).toEqual([]);
    expect(await events.append('acme', 'j1', [ev('b'), ev('d')])).toEqual([4]);
    expect(await events.append('acme', 'j1', [ev('e')])).toEqual([5]);
    // another job, another tenant: streams of their own
    expect(await events.append('acme', 'j2', [ev('a')])).toEqual([1]);
    expect(await events.append('other', 'j1', [ev('a')])).toEqual([1]);
    const read = await events.after('acme', 'j1', 0);
    expect(read.map((e) => [e.seq, (e.data as { key: string }).key, e.type])).toEqual([
      [1, 'a', 'subtask.step'],
      [2, 'b', 'subtask.step'],
      [3, 'c', 'subtask.step'],
      [4, 'd', 'subtask.step'],
      [5, 'e', 'subtask.step'],
    ]);
    expect(read[0]).toMatchObject({ data: { key: 'a' }, at: new Date(1_000).toISOString() });
  });

  it('keeps seqs unique when one-event appends of one job race', async () => {
    const { events } = record.store;
    const seqs = (await Promise.all(Array.from({ length: 20 }, (_, i) => events.append('acme', 'race', [ev(`k${i}`)])))).flat();
    expect([...seqs].sort((x, y) => x - y)).toEqual(Array.from({ length: 20 }, (_, i) => i + 1));
  });
});
