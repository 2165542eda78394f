/**
 * Audit finding #4 through a real scout: tenant default's secrets sit in the tree under names
 * the old deny-list did not know (`api-key.bak`, `config.env.local`, `service-account.json`),
 * and tenant beta's scout, dispatched through the API and run on the shared worker, asks for
 * them. Its scope is refused, and a scout over their directory finds only the code.
 */
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ScoutReportSchema } from '../../schemas/scout';
import { uniqueId, useApp } from '../helpers';

const SECRETS = ['api-key.bak', 'config.env.local', 'service-account.json'];
/** The scouts' root is the repository (the test worker's working directory): the tree goes under its ignored test-results/. */
const DIR = `test-results/${uniqueId('scout-audit4')}`;
const MARKER = `deployKey${Date.now().toString(36)}`;
/** Tenant default's secret: a plain string, so only the denial (not redaction) can keep it back. */
const SECRET = `tenant-default-only-${Date.now().toString(36)}-9f2c4e71`;
mkdirSync(join(DIR, 'src'), { recursive: true });
writeFileSync(join(DIR, 'api-key.bak'), `${MARKER}=${SECRET}\n`);
writeFileSync(join(DIR, 'config.env.local'), `${MARKER}=${SECRET}\n`);
writeFileSync(join(DIR, 'service-account.json'), JSON.stringify({ [MARKER]: SECRET, type: 'service_account' }, null, 2));
writeFileSync(join(DIR, 'src/app.ts'), `export const ${MARKER} = process.env.DEPLOY_KEY;\n`);
afterAll(() => rmSync(DIR, { recursive: true, force: true }));

const app = useApp({}, 'beta');
const request = (scopePaths: string[]) => ({
  question: `where is \`${MARKER}\` set`,
  scopePaths,
  parentAgent: 'claude-code',
  parentSessionId: uniqueId('sess'),
  parentSessionExcerpt: "Another tenant's agent probing the deployment's tree for keys it was never given access to.",
});

describe("another tenant's scout cannot read secret files the old deny-list did not name", () => {
  it('refuses a scope on api-key.bak, config.env.local or service-account.json before anything runs', async () => {
    for (const name of SECRETS) {
      const res = await app.inject({ method: 'POST', url: '/v1/scouts/prep', payload: request([`${DIR}/${name}`]) });
      expect(res.statusCode, name).toBe(422);
      expect(res.json()).toMatchObject({ code: 'path_denied', errors: [{ path: 'body.scopePaths[0]' }] });
    }
  });

  it('a scout over their directory finds the code that names the key and none of the files that hold it', async () => {
    const res = await app.inject({ method: 'POST', url: '/v1/scouts', payload: request([DIR]) });
    expect(res.statusCode, res.body).toBe(201);
    const scout = (await app.inject({ url: `/v1/scouts/${res.json().id}?waitSeconds=30` })).json();
    expect(scout.state).toBe('committed');
    const report = ScoutReportSchema.parse(scout.report);
    expect(report.findings.map((f) => f.file)).toEqual([`${DIR}/src/app.ts`]);
    const job = (await app.inject({ url: `/v1/jobs/${res.json().jobId}/result` })).json();
    for (const seen of [JSON.stringify(scout), JSON.stringify(job)]) {
      expect(seen).not.toContain(SECRET);
      for (const name of SECRETS) expect(seen).not.toContain(name);
    }
  });
});
