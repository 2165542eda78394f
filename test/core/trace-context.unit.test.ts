import { describe, expect, it } from 'vitest';
import { jobTraceparent } from '../../api/trace-context';
import { traceIdOf, withTraceId } from '../../core/trace-context';

describe("a job's trace context", () => {
  it('makes a W3C traceparent with a new trace id when the caller sent none, or a malformed or all-zero one', () => {
    for (const incoming of [
      undefined,
      'garbage',
      `00-${'0'.repeat(32)}-00f067aa0ba902b7-01`,
      // version ff and an all-zero parent id are invalid too
      'ff-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01',
      `00-4bf92f3577b34da6a3ce929d0e0e4736-${'0'.repeat(16)}-01`,
    ]) {
      const tp = jobTraceparent(incoming);
      expect(tp).toMatch(/^00-[0-9a-f]{32}-[0-9a-f]{16}-01$/);
      expect(traceIdOf(tp)).not.toBe('0'.repeat(32));
      expect(traceIdOf(tp)).not.toBe('4bf92f3577b34da6a3ce929d0e0e4736');
    }
    expect(traceIdOf(jobTraceparent())).not.toBe(traceIdOf(jobTraceparent()));
  });

  it("keeps the caller's trace id and flags with a span id of its own", () => {
    const tp = jobTraceparent('00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-00');
    expect(tp).toMatch(/^00-4bf92f3577b34da6a3ce929d0e0e4736-[0-9a-f]{16}-00$/);
    expect(tp).not.toContain('00f067aa0ba902b7');
  });

  it('reads the trace id of a traceparent and stamps it on a result', () => {
    expect(traceIdOf('00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01')).toBe('4bf92f3577b34da6a3ce929d0e0e4736');
    expect(traceIdOf('00-XYZ-00f067aa0ba902b7-01')).toBeUndefined();
    // a job started straight through Temporal brings its own: version ff and an all-zero parent id are not W3C's
    expect(traceIdOf('ff-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01')).toBeUndefined();
    expect(traceIdOf(`00-4bf92f3577b34da6a3ce929d0e0e4736-${'0'.repeat(16)}-01`)).toBeUndefined();
    expect(withTraceId({ id: 'a' }, undefined)).toEqual({ id: 'a' });
    expect(withTraceId({ id: 'a' }, '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01')).toEqual({
      id: 'a',
      traceId: '4bf92f3577b34da6a3ce929d0e0e4736',
    });
  });
});
