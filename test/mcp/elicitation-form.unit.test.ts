/** The inbox item as an MCP form: what fits goes as it is, what does not as one JSON field, and each form's answer as a decision. */
import { describe, expect, it } from 'vitest';
import type { InboxItem } from '../../schemas';
import { elicitationForm, primitiveField } from '../../mcp/elicitation-form';

const item = (over: Partial<InboxItem>): InboxItem => ({
  id: 'a1',
  kind: 'question',
  reason: 'question',
  state: 'pending',
  jobId: 'j',
  taskId: 't',
  workflowId: 'w',
  labels: {},
  detail: { question: 'Which year?' },
  onTimeout: 'fail',
  requestedAt: '2026-01-01T00:00:00Z',
  expiresAt: '2026-01-02T00:00:00Z',
  ...over,
});

describe('elicitationForm', () => {
  it('asks an approval for approve or reject, and a note', () => {
    const f = elicitationForm(item({ kind: 'approval', reason: 'tool', detail: { tools: ['fetch'] } }));
    expect(f.params.message).toMatch(/^Approve task t of job j to call fetch\?/);
    expect(f.params.requestedSchema).toMatchObject({ properties: { decision: { enum: ['approve', 'reject'] } }, required: ['decision'] });
    expect(f.decision({ decision: 'approve', note: 'fine' })).toEqual({ decision: { decision: 'approve', note: 'fine' } });
    expect(f.decision({ decision: 'maybe' }).error).toMatch(/decision/);
  });

  it('passes a flat object schema through, dropping what MCP has no keyword for (the inbox still checks it)', () => {
    const answerSchema = {
      type: 'object',
      required: ['code', 'n'],
      properties: {
        code: { type: 'string', pattern: '^[A-Z]+$', maxLength: 3 },
        n: { type: 'integer', minimum: 1 },
        ok: { type: 'boolean' },
      },
    };
    const f = elicitationForm(item({ detail: { question: 'q', answerSchema } }));
    expect(f.params.requestedSchema.properties).toMatchObject({
      code: { type: 'string', maxLength: 3 },
      n: { type: 'integer', minimum: 1 },
      ok: { type: 'boolean' },
    });
    expect(f.params.requestedSchema.properties.code).not.toHaveProperty('pattern');
    expect(f.params.requestedSchema.required).toEqual(['code', 'n']);
    expect(f.decision({ code: 'ABC', n: 2, note: 'n' })).toEqual({ decision: { answer: { code: 'ABC', n: 2 }, note: 'n' } });
  });

  it('wraps a primitive schema, and no schema, in one answer field', () => {
    expect(elicitationForm(item({ detail: { question: 'q', answerSchema: { type: 'number' } } })).decision({ answer: 3 })).toEqual({
      decision: { answer: 3 },
    });
    const free = elicitationForm(item({}));
    expect(free.params.requestedSchema.properties.answer).toMatchObject({ type: 'string' });
    expect(free.decision({ answer: 'in 2024' })).toEqual({ decision: { answer: 'in 2024' } });
  });

  it('asks a nested schema as JSON in one field, says so, and refuses what does not parse', () => {
    const answerSchema = { type: 'object', properties: { where: { type: 'object', properties: { city: { type: 'string' } } } } };
    const f = elicitationForm(item({ detail: { question: 'q', answerSchema } }));
    expect(Object.keys(f.params.requestedSchema.properties)).toEqual(['answerJson', 'note']);
    expect(f.params.message).toContain('give it as JSON in answerJson');
    expect(f.decision({ answerJson: '{"where":{"city":"Lima"}}' })).toEqual({ decision: { answer: { where: { city: 'Lima' } } } });
    expect(f.decision({ answerJson: '{oops' }).error).toMatch(/not valid JSON/);
  });

  it('says why the previous answer was refused first', () => {
    expect(elicitationForm(item({}), 'body.answer.year: must be integer').params.message).toMatch(
      /^Your previous answer was refused: body\.answer\.year/,
    );
  });

  it('does not take a non-string enum or an unknown type as a field', () => {
    expect(primitiveField({ type: 'string', enum: [1, 2] })).toBeNull();
    expect(primitiveField({ type: 'array' })).toBeNull();
    expect(primitiveField({ type: 'string', format: 'ipv4' })).toEqual({ type: 'string' });
  });
});
