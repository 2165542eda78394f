/**
 * A seeded generator of invalid and hostile HTTP requests for every API route. Each
 * request is invalid by construction (a wrong type, an unknown field, a bad id, a wrong
 * content type, a body over the limit, invalid UTF-8...), so the only right answer is a
 * 4xx problem+json and no workflow. Hostile decorations (huge strings, deep nesting,
 * `__proto__`/`constructor`/`prototype` keys) ride on top of the flaw that makes it invalid.
 */
import { seededRng } from '../../core/forecast-schedule';

/** One request to send. */
export interface FuzzRequest {
  kind: string;
  method: string;
  path: string;
  headers: Record<string, string>;
  body?: string | Uint8Array;
}

/** mulberry32: a small seeded PRNG (the forecasts' own). */
export const prng = seededRng;

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };

/** A valid job spec: the base every body flaw mutates. */
function validSpec(r: () => number): { [k: string]: Json } {
  const n = 1 + Math.floor(r() * 3);
  return {
    pattern: 'fanout',
    objective: 'fuzz',
    tasks: Array.from({ length: n }, (_, i) => ({ id: `t${i}`, question: `q${i}`, agent: 'sim', params: { steps: 1 } })),
  };
}

const isObject = (v: Json | undefined): v is { [k: string]: Json } => !!v && typeof v === 'object' && !Array.isArray(v);
const JSON_CT = { 'content-type': 'application/json' };
const utf8 = (s: string) => new TextEncoder().encode(s);
const deep = (depth: number, leaf: string) => '['.repeat(depth) + leaf + ']'.repeat(depth);
const deepObject = (depth: number) => '{"a":'.repeat(depth) + '1' + '}'.repeat(depth);

/** Splices raw bytes into JSON text in place of the placeholder string `"@@"`. */
function withBytes(text: string, bytes: number[]): Uint8Array {
  const [head, tail] = text.split('@@');
  return new Uint8Array([...utf8(head), ...bytes, ...utf8(tail)]);
}

const INVALID_UTF8: number[][] = [
  [0xff],
  [0xc3, 0x28],
  [0xe2, 0x82],
  [0xed, 0xa0, 0x80],
  [0xf8, 0x88, 0x80, 0x80, 0x80],
  [0xc0, 0xaf],
  [0x80],
];
const BAD_IDS = [
  '..',
  '%2e%2e',
  'a%20b',
  '%00',
  '%ff',
  '%E0%A4%A',
  'x'.repeat(200),
  '-lead',
  '_lead',
  '%C3%BC',
  'a%2Fb',
  '*',
  '%3Cscript%3E',
  '%22',
  '__proto__%2Fx',
  '.',
];
const BAD_WAIT = ['-1', '61', 'abc', '1e999', 'NaN', 'Infinity', '1,2', '%00', 'true', '[]', '9'.repeat(400)];
const METHODS_WITHOUT_ROUTE = ['PUT', 'DELETE', 'PATCH', 'OPTIONS'];

/** Body flaws of a JobSpec: each makes the spec invalid (400) or unrunnable (422). */
const SPEC_FLAWS: [string, (s: { [k: string]: Json }, r: () => number) => void][] = [
  ['pattern', (s, r) => void (s.pattern = [42, 'star', null, ['fanout'], { fanout: true }][Math.floor(r() * 5)])],
  ['tasks', (s, r) => void (s.tasks = [[], 'tasks', 7, null, { 0: 1 }][Math.floor(r() * 5)] as Json)],
  ['no-tasks', (s) => void delete s.tasks],
  [
    'task-id',
    (s, r) => void ((s.tasks as { [k: string]: Json }[])[0].id = BAD_IDS[Math.floor(r() * BAD_IDS.length)].replace(/%/g, '%25') + '/'),
  ],
  [
    'question',
    (s, r) => void ((s.tasks as { [k: string]: Json }[])[0].question = ['', '   ', 5, null, 'q'.repeat(50_001)][Math.floor(r() * 5)]),
  ],
  ['unknown-agent', (s) => void ((s.tasks as { [k: string]: Json }[])[0].agent = 'no-such-agent')],
  [
    'agent-params',
    (s, r) =>
      void ((s.tasks as { [k: string]: Json }[])[0].params = [
        { steps: 'x' },
        { steps: -1 },
        { latencyMs: 1e12 },
        { bogus: 1 },
        { constructor: 1 },
      ][Math.floor(r() * 5)]),
  ],
  ['tools-outside-scope', (s) => void ((s.tasks as { [k: string]: Json }[])[0].params = { tools: ['search'] })],
  [
    'unknown-field',
    (s, r) => void (s[['prototype', 'constructor', 'extra', 'toString', 'hasOwnProperty'][Math.floor(r() * 5)]] = { polluted: true }),
  ],
  ['unknown-task-field', (s) => void ((s.tasks as { [k: string]: Json }[])[0].prototype = { polluted: true })],
  [
    'budget',
    (s, r) => void (s.budget = [{ costUsd: -1 }, { tokens: 'lots' }, { latencySeconds: 0 }, { bogus: 1 }, []][Math.floor(r() * 5)]),
  ],
  ['duplicate-ids', (s) => void (s.tasks = [...(s.tasks as Json[]), (s.tasks as Json[])[0]])],
  ['quorum', (s) => void (s.aggregation = { quorum: 99 })],
  ['labels', (s, r) => void (s.labels = [{ 'bad key': 'v' }, { k: 5 }, { k: 'v'.repeat(300) }, 'labels'][Math.floor(r() * 4)])],
  [
    'callback',
    (s, r) => void (s.callbackUrl = ['javascript:alert(1)', 'ftp://x', 'not a url', 'http://' + 'a'.repeat(3000)][Math.floor(r() * 4)]),
  ],
  ['max-parallel', (s, r) => void (s.maxParallel = [0, -5, 1e6, 1.5, '10'][Math.floor(r() * 5)])],
  ['retry', (s) => void ((s.tasks as { [k: string]: Json }[])[0].retry = { maxAttempts: 0 })],
  [
    'agent-and-job',
    (s) => void ((s.tasks as { [k: string]: Json }[])[0].job = { pattern: 'fanout', tasks: [{ id: 'x', question: 'q', agent: 'echo' }] }),
  ],
  [
    'too-deep',
    (s) => {
      let job: { [k: string]: Json } = { pattern: 'fanout', tasks: [{ id: 'leaf', question: 'q', agent: 'echo' }] };
      for (let i = 0; i < 6; i++) job = { pattern: 'fanout', tasks: [{ id: `n${i}`, question: 'q', job }] };
      s.tasks = job.tasks;
    },
  ],
  ['job-id', (s, r) => void (s.jobId = BAD_IDS[Math.floor(r() * BAD_IDS.length)] + ' ')],
  // label values that would break out of a visibility query
  ['label-quote', (s, r) => void (s.labels = [{ k: 'a"b' }, { k: "x' OR 1=1" }, { k: 'v\\' }, { 'a"': 'b' }][Math.floor(r() * 4)])],
  // output schemas that would stall or bloat a shared worker, or collide across tenants
  [
    'output-schema',
    (s, r) =>
      void ((s.tasks as { [k: string]: Json }[])[0].outputSchema = [
        { type: 'string', pattern: '^(a+)+$' },
        { type: 'object', patternProperties: { '(\\w+\\s?)*$': {} } },
        { $id: 'https://tenant-a.example/schema', type: 'object' },
        { type: 'object', properties: { x: { $ref: 'https://evil.example/s.json' } } },
        { type: 'string', pattern: '(a)\\1' },
        { type: 'nope' },
        { type: 'string', description: 'x'.repeat(70_000) },
      ][Math.floor(r() * 7)] as Json),
  ],
  // webhooks aimed inward: metadata, private, loopback, plain http
  [
    'callback-inward',
    (s, r) =>
      void (s.callbackUrl = [
        'https://169.254.169.254/latest/meta-data',
        'https://10.0.0.1/hook',
        'https://[::ffff:127.0.0.1]/x',
        'http://example.com/hook',
        'https://metadata.google.internal/computeMetadata',
        'http://127.0.0.1:7233/',
        'https://2130706433/',
        'https://[fd00:ec2::254]/',
      ][Math.floor(r() * 8)]),
  ],
  // nesting cannot multiply the per-job cap: 2 × 5,001 subtasks
  [
    'nested-over-cap',
    (s) =>
      void (s.tasks = [0, 1].map((i) => ({
        id: `n${i}`,
        question: 'q',
        job: { pattern: 'fanout', tasks: Array.from({ length: 5001 }, (_, j) => ({ id: `t${j}`, question: 'q', agent: 'echo' })) },
      }))),
  ],
];

/** Raw body texts that are not a JobSpec at all. */
const RAW_BODIES = [
  '',
  '{',
  '{"pattern":',
  '[]',
  '"fanout"',
  '42',
  'null',
  'true',
  "{'pattern':'fanout'}",
  '{"pattern":"fanout",}',
  '{"pattern":NaN}',
  '{"pattern":"fanout","tasks":[{"id":"a","question":"q","agent":"sim"}]}x',
  '{"__proto__":{"polluted":true},"pattern":"fanout","tasks":[{"id":"a","question":"q","agent":"sim"}]}',
  '{"pattern":"fanout","tasks":[{"id":"a","question":"q","agent":"sim","params":{"__proto__":{"steps":2}}}]}',
  '{"constructor":{"prototype":{"polluted":true}},"pattern":"fanout","tasks":[{"id":"a","question":"q","agent":"echo"}]}',
  '{"pattern":"fanout","tasks":[{"id":"a","question":"q","agent":"echo","params":{"constructor":{"prototype":{"x":1}}}}]}',
  '{"pattern":"fanout","budget":{"costUsd":1e400},"tasks":[{"id":"a","question":"q","agent":"echo"}]}',
  '\u0000',
  '\ufeff{}',
];

/** Builds the i-th request of the run (deterministic for a seed). */
export function fuzzRequest(r: () => number, i: number): FuzzRequest {
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(r() * xs.length)];
  const badId = () => pick(BAD_IDS);
  const okUnknownId = () => `nosuch-${i}`;
  const choice = r();

  // POST /v1/jobs: spec flaws, raw junk, hostile decorations, wrong headers
  if (choice < 0.45) {
    const sub = r();
    if (sub < 0.5) {
      const spec = validSpec(r);
      const [name, flaw] = pick(SPEC_FLAWS);
      flaw(spec, r);
      const deco = r();
      if (deco < 0.15) spec.objective = 'o'.repeat(50_000);
      else if (deco < 0.3 && Array.isArray(spec.tasks) && isObject(spec.tasks[0])) spec.tasks[0].rationale = 'r'.repeat(10_000);
      let text = JSON.stringify(spec);
      if (deco >= 0.3 && deco < 0.45) text = text.replace(/^\{/, `{"deep":${deep(2000 + Math.floor(r() * 8000), '0')},`);
      if (deco >= 0.45 && deco < 0.55) text = text.replace(/^\{/, `{"deepObj":${deepObject(3000)},`);
      if (deco >= 0.55 && deco < 0.7)
        return {
          kind: `jobs:${name}+utf8`,
          method: 'POST',
          path: '/v1/jobs',
          headers: JSON_CT,
          body: withBytes(text.replace(/"fuzz"/, '"@@"'), pick(INVALID_UTF8)),
        };
      return { kind: `jobs:${name}`, method: 'POST', path: '/v1/jobs', headers: JSON_CT, body: text };
    }
    if (sub < 0.65) return { kind: 'jobs:raw', method: 'POST', path: '/v1/jobs', headers: JSON_CT, body: pick(RAW_BODIES) };
    const valid = JSON.stringify(validSpec(r));
    if (sub < 0.73) {
      // a valid spec but for invalid UTF-8 inside a string: must not be silently "repaired"
      return {
        kind: 'jobs:invalid-utf8',
        method: 'POST',
        path: '/v1/jobs',
        headers: JSON_CT,
        body: withBytes(valid.replace('"fuzz"', '"@@"'), pick(INVALID_UTF8)),
      };
    }
    if (sub < 0.81) {
      const ct = pick([
        'text/plain',
        'application/x-www-form-urlencoded',
        'multipart/form-data; boundary=x',
        'application/xml',
        'application/jsonx',
        'image/png',
        'application/json-patch+json',
      ]);
      return { kind: 'jobs:content-type', method: 'POST', path: '/v1/jobs', headers: { 'content-type': ct }, body: valid };
    }
    if (sub < 0.87) return { kind: 'jobs:no-body', method: 'POST', path: '/v1/jobs', headers: {} };
    if (sub < 0.93) {
      // a valid spec with no key, a wrong one, another scheme, or junk: 401, nothing starts
      const authorization = pick([
        '',
        'Bearer',
        'Bearer ',
        'Bearer wrong-key-0123456789',
        'Basic YTpi',
        `Bearer ${'x'.repeat(600)}`,
        'Bearer a b',
        'bearer ../..',
        'Token abc',
      ]);
      return {
        kind: 'jobs:bad-auth',
        method: 'POST',
        path: '/v1/jobs',
        headers: { ...JSON_CT, authorization, 'x-tenant': pick(['default', '../..', 'a/b']) },
        body: valid,
      };
    }
    if (sub < 0.955) {
      const spec = { ...validSpec(r), jobId: `a${i}` };
      return {
        kind: 'jobs:idempotency-key',
        method: 'POST',
        path: '/v1/jobs',
        headers: { ...JSON_CT, 'idempotency-key': pick([`b${i}`, 'a/b', '..', 'x'.repeat(200)]) },
        body: JSON.stringify(spec),
      };
    }
    if (sub < 0.975)
      return {
        kind: 'jobs:too-large',
        method: 'POST',
        path: '/v1/jobs',
        headers: JSON_CT,
        body: `{"pattern":"fanout","objective":"${'x'.repeat(4 * 1024 * 1024 + 10 + Math.floor(r() * 1000))}"}`,
      };
    if (sub < 0.985)
      return {
        kind: 'jobs:deep-nesting',
        method: 'POST',
        path: '/v1/jobs',
        headers: JSON_CT,
        body: `{"pattern":"fanout","tasks":${deep(100_000, '{}')}}`,
      };
    // nested jobs tens or thousands of levels deep: over the depth cap (422), or refused before the schema recursion could blow the stack
    const levels = r() < 0.5 ? 60 + Math.floor(r() * 25) : 1000 + Math.floor(r() * 9000);
    const open = '{"pattern":"fanout","tasks":[{"id":"a","question":"q","job":';
    return {
      kind: 'jobs:deep-jobs',
      method: 'POST',
      path: '/v1/jobs',
      headers: JSON_CT,
      body: open.repeat(levels) + '{"pattern":"fanout","tasks":[{"id":"a","question":"q","agent":"echo"}]}' + '}]}'.repeat(levels),
    };
  }

  // GET /v1/jobs: every query has a flaw
  if (choice < 0.55) {
    const q = pick([
      'pattern=star',
      'status=done',
      'limit=0',
      'limit=abc',
      'limit=1001',
      'limit=-1',
      'label=noequals',
      'bogus=1',
      '__proto__=x',
      '__proto__[polluted]=1',
      'constructor[prototype][x]=1',
      'pattern=fanout&pattern=vote',
      'waitSeconds=1',
      `pattern=${'x'.repeat(5000)}`,
      'label=%ff%fe',
      'limit=1e999',
      'status=%00',
      'label=k%3D%22v%22',
      'label=a%22%3Db',
      "label=k%3Dx'%20OR%201%3D1",
    ]);
    return { kind: 'list:query', method: 'GET', path: `/v1/jobs?${q}`, headers: r() < 0.2 ? { 'x-tenant': '../x' } : {} };
  }

  // the job routes: bad ids, unknown jobs, bad query strings and bodies
  if (choice < 0.85) {
    const sub = r();
    const id = r() < 0.6 ? badId() : okUnknownId();
    if (sub < 0.2) return { kind: 'job:view', method: 'GET', path: `/v1/jobs/${id}${r() < 0.2 ? '?x=1' : ''}`, headers: {} };
    if (sub < 0.4) {
      const wait = r() < 0.7 ? `?waitSeconds=${pick(BAD_WAIT)}` : pick(['?bogus=1', '?waitSeconds=1&waitSeconds=2', '?__proto__=1']);
      return { kind: 'job:result', method: 'GET', path: `/v1/jobs/${r() < 0.5 ? okUnknownId() : id}/result${wait}`, headers: {} };
    }
    if (sub < 0.6) {
      const verb = pick(['stop', 'cancel']);
      const ct = pick([JSON_CT, { 'content-type': 'text/plain' }, {}]);
      return {
        kind: `job:${verb}`,
        method: 'POST',
        path: `/v1/jobs/${id}/${verb}`,
        headers: ct,
        body: 'content-type' in ct ? pick(RAW_BODIES.slice(0, 12)) || '{}' : undefined,
      };
    }
    const body =
      r() < 0.5
        ? JSON.stringify(
            pick<Json>([
              {},
              { add: {} },
              { add: { costUsd: -1 } },
              { add: { costUsd: 'x' } },
              { add: { tokens: 1.5 } },
              { add: { bogus: 1 } },
              [],
              { add: { costUsd: 1 }, extra: 1 },
            ]),
          )
        : pick(RAW_BODIES);
    const valid = JSON.stringify({ add: { costUsd: 1 } });
    // valid budget bodies go only to jobs that do not exist: 404
    const [b, target] = r() < 0.25 ? [valid, okUnknownId()] : [body, id];
    if (sub < 0.8) return { kind: 'job:budget', method: 'POST', path: `/v1/jobs/${target}/budget`, headers: JSON_CT, body: b };
    return {
      kind: 'job:subtask-budget',
      method: 'POST',
      path: `/v1/jobs/${target}/subtasks/${r() < 0.5 ? badId() : 't1'}/budget`,
      headers: JSON_CT,
      body: b,
    };
  }

  // routes without input: wrong methods and garbage paths
  const base = pick(['/healthz', '/readyz', '/v1/agents', '/openapi.json', '/docs', '/v1/jobs']);
  if (r() < 0.6) {
    return { kind: 'system:method', method: pick(METHODS_WITHOUT_ROUTE), path: base, headers: JSON_CT, body: '{"__proto__":{"x":1}}' };
  }
  return {
    kind: 'system:path',
    method: pick(['GET', 'POST']),
    path: `${base}/${pick(['..%2f..%2fetc%2fpasswd', '%00', 'x'.repeat(3000), '%ff', 'static/..%2f..%2fpackage.json', '__proto__', 'constructor/prototype'])}`,
    headers: {},
  };
}
