/**
 * Elicitation to the calling harness: while a tool waits on a job, each approval or question one
 * of its subtasks opens in the inbox is put to the MCP client (which declared `elicitation`) as a
 * form, one at a time, and the answer goes to the same inbox as `delegate_decide` sends it (the
 * same checks). A refused answer is asked again with the refusal (the item stays pending); after
 * three refusals, or a decline of a question, or a cancel, the item stays pending for the inbox
 * tools, and the call's answer says so.
 *
 *   job events ── approval.requested ──> pending item? ──elicitation/create──> client
 *     accept ──decide──> 422: ask again with the field path · ok: decided · 409: decided elsewhere
 *     decline ──> an approval is rejected · a question stays pending (noted)
 *     cancel / timeout ──> stays pending (noted)
 */
import { ElicitResultSchema, type ElicitRequestFormParams, type ElicitResult } from '@modelcontextprotocol/sdk/types.js';
import type { InboxItem } from 'delegate/client';
import { DelegateError, type DelegateBackend } from './backend';
import { elicitationForm } from './elicitation-form';
import type { ToolExtra } from './tool-helpers';

/** Refused answers before an item is left to the inbox tools. */
export const MAX_ELICIT_TRIES = 3;

/** Sends one form to the client; rejects on a timeout, a cancel or a closed call. */
export type Elicit = (params: ElicitRequestFormParams, signal: AbortSignal, timeoutMs: number) => Promise<ElicitResult>;

/** The elicit of a tool call: the request goes on the call's own stream (streamable HTTP: its SSE answer). */
export const elicitVia =
  (extra: ToolExtra): Elicit =>
  (params, signal, timeout) =>
    extra.sendRequest({ method: 'elicitation/create', params }, ElicitResultSchema, { signal, timeout });

/** Why a decision was refused, in the words the client's user reads. */
function refusalOf(err: DelegateError): string {
  const fields = (err.errors ?? []).map((e) => `${e.path}: ${e.message}`);
  return fields.length ? fields.join('; ') : (err.detail ?? err.title);
}

/**
 * Puts `jobId`'s pending approvals and questions to the client until `signal` aborts. `notes`
 * collects what was left pending and why (the tool's answer carries them).
 */
export function followInbox(backend: DelegateBackend, jobId: string, elicit: Elicit, signal: AbortSignal) {
  const notes: string[] = [];
  const done = new Set<string>();

  async function put(item: InboxItem): Promise<void> {
    let refusal: string | undefined;
    for (let tries = 0; tries < MAX_ELICIT_TRIES; tries++) {
      const form = elicitationForm(item, refusal);
      const timeout = Math.max(1000, Date.parse(item.expiresAt) - Date.now());
      let r: ElicitResult;
      try {
        r = await elicit(form.params, signal, timeout);
      } catch {
        if (!signal.aborted) notes.push(`${item.id} (${item.kind}): the elicitation got no answer; still pending`);
        return;
      }
      if (r.action === 'cancel') {
        notes.push(`${item.id} (${item.kind}): elicitation cancelled; still pending (delegate_decide answers it)`);
        return;
      }
      if (r.action === 'decline') {
        if (item.kind === 'question') {
          notes.push(`${item.id} (question): declined through elicitation; still pending (delegate_decide answers it)`);
          return;
        }
        await decide(item, { decision: 'reject', note: 'declined through MCP elicitation' });
        return;
      }
      const d = form.decision(r.content as Parameters<typeof form.decision>[0]);
      if (d.error !== undefined) {
        refusal = d.error;
        continue;
      }
      const refused = await decide(item, d.decision);
      if (refused === undefined) return;
      refusal = refused;
    }
    notes.push(`${item.id} (${item.kind}): ${MAX_ELICIT_TRIES} answers refused (${refusal}); still pending`);
  }

  /** Decides the item: undefined when settled (or settled elsewhere), else the refusal to show. */
  async function decide(item: InboxItem, decision: Parameters<DelegateBackend['decide']>[1]): Promise<string | undefined> {
    try {
      await backend.decide(item.id, decision);
      return undefined;
    } catch (err) {
      if (err instanceof DelegateError && (err.status === 400 || err.status === 422)) return refusalOf(err);
      if (!(err instanceof DelegateError && (err.status === 404 || err.status === 409)))
        notes.push(`${item.id}: the decision could not be delivered (${(err as Error).message}); still pending`);
      return undefined;
    }
  }

  /** Every pending item of the job not put yet, oldest first. */
  async function putPending(): Promise<void> {
    const items = await backend.approvals({ jobId, state: 'pending' }).catch(() => [] as InboxItem[]);
    for (const item of items.sort((a, b) => a.requestedAt.localeCompare(b.requestedAt))) {
      if (signal.aborted) return;
      if (item.kind === 'budget' || done.has(item.id)) continue;
      done.add(item.id);
      await put(item);
    }
  }

  const running = (async () => {
    try {
      await putPending();
      for await (const e of backend.events(jobId, 0, signal)) {
        if (e.type !== 'approval.requested' || done.has(String(e.data.approvalId))) continue;
        await putPending();
        // an old event (the stream replays from the start) of an item already decided: asked once
        done.add(String(e.data.approvalId));
      }
    } catch {
      // no event stream, or the call ended: the inbox tools still reach every item
    }
  })();

  return { notes, stopped: running };
}
