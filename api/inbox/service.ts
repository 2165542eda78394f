/**
 * The inbox: what the tenant's waiting subtasks ask for, read from the record (any API process,
 * no scan of Temporal), and decisions delivered to the waiting workflow as its decide update.
 * A question's answer is checked against its answerSchema here (in a schema thread), before
 * the workflow sees it.
 *
 *   list / get ── record.inbox ──> items (+ token URL while pending)
 *   decide ── 404 · 409 · 422 ──> decideUpdate (the workflow refuses anything not pending: 409) ──> record settled
 */
import type { Client } from '@temporalio/client';
import { schemaThreads } from '../../activities/schema-thread';
import type { InboxDecision } from '../../core/inbox';
import type { RecordStore } from '../../record';
import type { InboxFilter } from '../../record/inbox';
import type { Config, Decision, InboxItem } from '../../schemas';
import { decideUpdate } from '../../contracts/messages';
import { fromTemporal, HttpProblem, type FieldError } from '../errors';
import { readApprovalToken, signApprovalToken } from './tokens';

/** What the inbox needs. */
export interface InboxDeps {
  client: Client;
  record: RecordStore;
  config: Config;
  publicUrl: string;
}

/** Ajv's error text (`data/a/b must be …, data must …`) as field errors under `body.answer`. */
export function answerErrors(why: string): FieldError[] {
  return why.split(/, (?=data)/).map((part) => {
    const m = /^data(\S*) (.*)$/s.exec(part);
    const path = `body.answer${(m?.[1] ?? '').replace(/\//g, '.')}`;
    return { path, message: m?.[2] ?? part };
  });
}

/** Creates the inbox service. */
export function createInboxService({ client, record, config, publicUrl }: InboxDeps) {
  const master = config.DELEGATE_APPROVAL_SECRET ?? config.DELEGATE_WEBHOOK_SECRET;

  /** The item with its token URL while it is pending (and the deployment signs tokens). */
  function view(tenant: string, item: InboxItem): InboxItem {
    if (!master || item.state !== 'pending') return item;
    const token = signApprovalToken(master, { tenant, id: item.id, expiresAt: Math.floor(Date.parse(item.expiresAt) / 1000) });
    return { ...item, tokenUrl: `${publicUrl}/v1/approvals/token/${token}` };
  }

  async function get(tenant: string, id: string): Promise<InboxItem> {
    const item = await record.inbox.get(tenant, id);
    if (!item) throw new HttpProblem(404, 'Not found', `no approval "${id}"`);
    return item;
  }

  /** The decision as the workflow takes it, or the problem with the body. */
  async function decisionOf(tenant: string, item: InboxItem, body: Decision, by: string): Promise<InboxDecision> {
    const base = { id: item.id, by, at: Date.now(), ...(body.note ? { note: body.note } : {}) };
    if (item.kind === 'question' && body.decision !== 'reject') {
      if (body.answer === undefined)
        throw new HttpProblem(400, 'Invalid request', 'a question takes an answer', [{ path: 'body.answer', message: 'required' }]);
      const schema = item.detail.answerSchema as Record<string, unknown> | undefined;
      if (schema) {
        const checked = await schemaThreads.validate(schema, body.answer, { owner: tenant });
        if (!checked.ok)
          throw new HttpProblem(422, 'Unprocessable answer', `the question's answerSchema cannot be checked: ${checked.error}`);
        if (checked.why)
          throw new HttpProblem(
            422,
            'Unprocessable answer',
            "the answer does not satisfy the question's answerSchema",
            answerErrors(checked.why),
          );
      }
      return { ...base, state: 'answered', answer: body.answer };
    }
    if (item.kind !== 'question' && body.decision === undefined)
      throw new HttpProblem(400, 'Invalid request', `an ${item.kind} takes a decision`, [
        { path: 'body.decision', message: 'approve or reject' },
      ]);
    return { ...base, state: body.decision === 'approve' ? 'approved' : 'rejected' };
  }

  /** Decides a pending item of the tenant's: 404 unknown (or another tenant's), 409 decided or no longer waited on. */
  async function decide(tenant: string, id: string, body: Decision, by: string): Promise<InboxItem> {
    const item = await get(tenant, id);
    if (item.state !== 'pending') throw new HttpProblem(409, 'Conflict', `approval "${id}" is already ${item.state}`);
    const d = await decisionOf(tenant, item, body, by);
    try {
      await client.workflow.getHandle(item.workflowId).executeUpdate(decideUpdate, { args: [d] });
    } catch (err) {
      const p = fromTemporal(err, 'subtask');
      // the subtask ended (or never waited on it): nothing can take the decision any more
      if (p?.status === 404) throw new HttpProblem(409, 'Conflict', `approval "${id}" is no longer waited on (its subtask ended)`);
      throw p ?? err;
    }
    // the workflow settles the record too; writing here makes the listing right at once
    await record.inbox.settle(tenant, id, { state: d.state, by: d.by, at: d.at, note: d.note, answer: d.answer });
    return get(tenant, id);
  }

  return {
    /** The tenant's items (pending by default), filtered by job and labels. */
    list: async (tenant: string, f: InboxFilter) => (await record.inbox.list(tenant, f)).map((i) => view(tenant, i)),
    /** One item of the tenant's (404 otherwise). */
    get: async (tenant: string, id: string) => view(tenant, await get(tenant, id)),
    decide,
    /** The tenant and item a token opens: 404 forged or unknown, 410 expired (a used one is decided: `decide` answers 409). */
    async byToken(token: string): Promise<{ tenant: string; item: InboxItem }> {
      const claims = master ? readApprovalToken(master, token) : undefined;
      if (!claims) throw new HttpProblem(404, 'Not found', 'no approval for this token');
      if (claims.expiresAt * 1000 <= Date.now()) throw new HttpProblem(410, 'Gone', 'this approval link has expired');
      return { tenant: claims.tenant, item: await get(claims.tenant, claims.id) };
    },
  };
}

/** The inbox service's interface. */
export type InboxService = ReturnType<typeof createInboxService>;
