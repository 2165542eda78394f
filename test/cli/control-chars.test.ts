/**
 * From the attacker's side: job data carrying terminal control sequences (an agent's summary,
 * a question) reaches the operator's terminal without them, as text or as JSON.
 */
import type { FastifyInstance } from 'fastify';
import { afterAll, describe, expect, it } from 'vitest';
import { safeText } from '../../cli/output';
import { finalResult, listeningApp, uniqueId } from '../helpers';
import { cliRunner } from './run-cli';

const { app, url }: { app: FastifyInstance; url: string } = await listeningApp();
afterAll(() => app.close());
const cli = cliRunner(url);

// clear screen, set the window title, an 8-bit CSI (red), a carriage return that overwrites the line, a bell
/** Any control character but newline and tab. */
const CONTROL = /(?![\n\t])\p{Cc}/u;
const HOSTILE = 'fine\u001b[2J\u001b]0;pwned\u0007 \u009b31mred\r\u0008done\ttab';

describe('the CLI and control characters in job data', () => {
  it('prints a hostile summary without its control characters; --json keeps the value, escaped', async () => {
    const jobId = uniqueId('ctl');
    const res = await app.inject({
      method: 'POST',
      url: '/v1/jobs',
      payload: { jobId, pattern: 'fanout', tasks: [{ id: 't', question: HOSTILE, agent: 'echo' }] },
    });
    expect(res.statusCode, res.body).toBe(201);
    expect((await finalResult(app, jobId)).statusCode).toBe(200);

    const text = await cli.delegate(['result', jobId]);
    expect(text.code, text.stderr).toBe(0);
    // the table keeps a summary on one line: the carriage return and the tab are spaces there
    expect(text.stdout).toContain('fine[2J]0;pwned 31mred done tab');
    expect(text.stdout).not.toMatch(CONTROL);

    const json = await cli.delegate(['result', jobId, '--json']);
    expect(json.stdout).not.toMatch(CONTROL);
    expect((JSON.parse(json.stdout) as { results: { summary: string }[] }).results[0]!.summary).toBe(HOSTILE);
  });

  it('safeText keeps newlines and tabs, drops C0, DEL and C1', () => {
    expect(safeText('a\nb\tc\u0000\u001b\u007f\u0085\u009fd')).toBe('a\nb\tcd');
  });
});
