/**
 * /openapi.json validates: swagger-parser checks it against the OpenAPI 3.1 schema and resolves
 * every $ref, Redocly's linter (its recommended rules, the checks `redocly lint` runs) finds
 * no error, and every example of the document is valid against its own schema (Redocly's
 * no-invalid-media-type-examples). `/docs` serves the UI that renders it.
 */
import SwaggerParser from '@apidevtools/swagger-parser';
import { createConfig, lintFromString } from '@redocly/openapi-core';
import { describe, expect, it } from 'vitest';
import { DELIBERATE_LINT_WARNINGS } from '../../api/openapi-doc';
import { useApp } from '../helpers';

const app = useApp();

async function document(): Promise<Record<string, unknown>> {
  const res = await app.inject({ method: 'GET', url: '/openapi.json' });
  expect(res.statusCode).toBe(200);
  return res.json();
}

describe('the OpenAPI document', () => {
  it('is OpenAPI 3.1, with JSON Schema 2020-12 schemas', async () => {
    const doc = await document();
    expect(doc.openapi).toBe('3.1.0');
    // 3.0's `nullable` has no place in 3.1: null is a type
    expect(JSON.stringify(doc)).not.toContain('"nullable"');
  });

  it('validates with swagger-parser', async () => {
    // validate() dereferences in place: give it a copy
    const doc = structuredClone(await document());
    await expect(SwaggerParser.validate(doc as never)).resolves.toBeTruthy();
  });

  it("has no error in Redocly's lint (recommended rules, examples checked against their schemas)", async () => {
    const config = await createConfig({ extends: ['recommended'], rules: { 'no-invalid-media-type-examples': 'error' } });
    const problems = await lintFromString({ source: JSON.stringify(await document()), absoluteRef: 'openapi.json', config });
    const describe = (p: (typeof problems)[number]) =>
      `${p.severity} ${p.ruleId}: ${p.message} at ${p.location.map((l) => l.pointer).join(', ')}`;
    const errors = problems.filter((p) => p.severity === 'error').map(describe);
    expect(errors).toEqual([]);
  });

  it('keeps only the Redocly warnings named as deliberate (api/openapi-doc.ts), and no component nothing reaches', async () => {
    const config = await createConfig({ extends: ['recommended'] });
    const problems = await lintFromString({ source: JSON.stringify(await document()), absoluteRef: 'openapi.json', config });
    const warnings = problems.filter((p) => p.severity === 'warn').map((p) => `${p.ruleId} ${p.location.map((l) => l.pointer).join(', ')}`);
    expect(warnings.sort()).toEqual([...DELIBERATE_LINT_WARNINGS].sort());
  });

  it("describes the job event stream's items: text/event-stream whose data is a JobEvent, one schema per type", async () => {
    const doc = (await document()) as {
      paths: Record<string, Record<string, { responses: Record<string, { content: Record<string, Record<string, unknown>> }> }>>;
      components: { schemas: Record<string, { oneOf?: { properties: { type: { const: string } } }[] }> };
    };
    const content = doc.paths['/v1/jobs/{jobId}/events']!.get!.responses['200']!.content;
    expect(Object.keys(content)).toEqual(['text/event-stream']);
    expect(content['text/event-stream']!['x-itemSchema']).toMatchObject({
      properties: { data: { contentMediaType: 'application/json', contentSchema: { $ref: '#/components/schemas/JobEvent' } } },
    });
    const types = doc.components.schemas.JobEvent!.oneOf!.map((o) => o.properties.type.const);
    expect(types).toEqual(expect.arrayContaining(['job.started', 'subtask.finished', 'job.finished']));
  });

  it('is rendered by /docs', async () => {
    const page = await app.inject({ method: 'GET', url: '/docs/' });
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('swagger-ui');
    const init = await app.inject({ method: 'GET', url: '/docs/static/swagger-initializer.js' });
    expect(init.statusCode).toBe(200);
    // the UI loads the document from the API (its json route)
    const json = await app.inject({ method: 'GET', url: '/docs/json' });
    expect(json.statusCode).toBe(200);
    expect(json.json().openapi).toBe('3.1.0');
  });
});
