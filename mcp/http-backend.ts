/**
 * The MCP backend over a Delegate API's REST routes (for `delegate mcp` on stdio), with plain
 * `fetch`: refusals become `DelegateError`s from the problem+json body. Events come from the
 * SSE route when the API has one; without it the progress falls back on the job's view.
 */
import type { AgentManifest, JobEvent, JobResult, JobView, Ledger } from '../schemas';
import { DelegateError, type DelegateBackend, type JobSummary } from './backend';

/** Where the API is and the key to call it with. */
export interface HttpBackendOptions {
  /** The API's base URL, e.g. `http://localhost:3000`. */
  url: string;
  /** A bearer key; it decides the tenant. */
  key: string;
}

/** Splits an SSE byte stream into events (`id`, `event`, `data` fields). */
async function* sseEvents(body: ReadableStream<Uint8Array>): AsyncGenerator<{ id?: string; event?: string; data: string }> {
  const decoder = new TextDecoder();
  let buf = '';
  for await (const chunk of body as unknown as AsyncIterable<Uint8Array>) {
    buf += decoder.decode(chunk, { stream: true }).replace(/\r\n?/g, '\n');
    let end: number;
    while ((end = buf.indexOf('\n\n')) >= 0) {
      const block = buf.slice(0, end);
      buf = buf.slice(end + 2);
      const e: { id?: string; event?: string; data: string[] } = { data: [] };
      for (const line of block.split('\n')) {
        const at = line.indexOf(':');
        if (at === 0) continue; // a comment (keep-alive)
        const field = at < 0 ? line : line.slice(0, at);
        const value = at < 0 ? '' : line.slice(at + 1).replace(/^ /, '');
        if (field === 'id') e.id = value;
        else if (field === 'event') e.event = value;
        else if (field === 'data') e.data.push(value);
      }
      if (e.data.length) yield { id: e.id, event: e.event, data: e.data.join('\n') };
    }
  }
}

/** Creates the backend that calls the API at `url` with `key`. */
export function createHttpBackend({ url, key }: HttpBackendOptions): DelegateBackend {
  const base = url.replace(/\/+$/, '');
  const job = (jobId: string) => `/v1/jobs/${encodeURIComponent(jobId)}`;

  async function call<T>(method: 'GET' | 'POST', path: string, body?: unknown): Promise<{ status: number; body: T }> {
    const res = await fetch(base + path, {
      method,
      headers: { authorization: `Bearer ${key}`, accept: 'application/json', ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    const parsed: unknown = text ? JSON.parse(text) : undefined;
    if (res.status >= 400) {
      const p = (parsed ?? {}) as { title?: string; detail?: string; errors?: { path: string; message: string }[] };
      const hint = res.status === 401 ? ' (check DELEGATE_KEY)' : '';
      throw new DelegateError(res.status, p.title ?? res.statusText, `${p.detail ?? `${method} ${path}`}${hint}`, p.errors);
    }
    return { status: res.status, body: parsed as T };
  }

  return {
    async submit(spec) {
      const r = await call<{ jobId: string }>('POST', '/v1/jobs', spec);
      return { jobId: r.body.jobId, created: r.status === 201 };
    },
    view: async (jobId) => (await call<JobView>('GET', job(jobId))).body,
    async result(jobId, waitSeconds) {
      const r = await call<JobResult>('GET', `${job(jobId)}/result?waitSeconds=${Math.min(60, Math.max(0, waitSeconds))}`);
      return r.status === 200 ? r.body : undefined;
    },
    stop: async (jobId) => void (await call('POST', `${job(jobId)}/stop`, {})),
    cancel: async (jobId) => void (await call('POST', `${job(jobId)}/cancel`, {})),
    async topUp(jobId, add, taskId) {
      const path = taskId === undefined ? `${job(jobId)}/budget` : `${job(jobId)}/subtasks/${encodeURIComponent(taskId)}/budget`;
      return (await call<{ ledger: Ledger }>('POST', path, { add })).body.ledger;
    },
    agents: async () => (await call<{ agents: AgentManifest[] }>('GET', '/v1/agents')).body.agents,
    async *events(jobId, afterSeq, signal) {
      const res = await fetch(`${base}${job(jobId)}/events`, {
        headers: { authorization: `Bearer ${key}`, accept: 'text/event-stream', ...(afterSeq > 0 ? { 'last-event-id': String(afterSeq) } : {}) },
        signal,
      }).catch(() => undefined);
      // no stream here (an API without the route, an aborted call): the view reports progress instead
      if (!res?.ok || !res.body) return;
      try {
        for await (const e of sseEvents(res.body)) {
          const data = JSON.parse(e.data) as Partial<JobEvent>;
          // the event itself, or its data with the type and seq in the SSE fields
          const event: JobEvent = data.seq !== undefined && data.type !== undefined
            ? (data as JobEvent)
            : { seq: Number(e.id), type: e.event as JobEvent['type'], at: new Date().toISOString(), data: data as Record<string, unknown> };
          yield event;
          if (event.type === 'job.finished') return;
        }
      } catch (err) {
        if (!signal.aborted) throw err;
      }
    },
    async list(filter) {
      const q = new URLSearchParams({ limit: String(filter.limit), ...(filter.status ? { status: filter.status } : {}) });
      return (await call<{ jobs: JobSummary[] }>('GET', `/v1/jobs?${q}`)).body.jobs;
    },
  };
}
