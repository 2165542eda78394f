/**
 * Finishing touches on the generated OpenAPI document: event-stream routes say what each event
 * carries, and components no operation reaches are left out. fastify-type-provider-zod emits
 * every schema with an id twice (as read and as written, `XInput`), most of them reached one way
 * only; a generator reading the document gains nothing from the other.
 */

type Json = Record<string, unknown>;
type Operation = { operationId?: string; responses?: Record<string, { content?: Record<string, Json> }> };

/** Event-stream operations and the component each event's `data` holds (OpenAPI 3.2's `itemSchema`, as `x-itemSchema` in 3.1). */
export const EVENT_STREAMS: Record<string, string> = { streamJobEvents: 'JobEvent' };

/**
 * The Redocly warnings the document keeps on purpose (its `recommended` rules), each with why.
 * test/api/openapi-valid.test.ts fails on any other.
 */
export const DELIBERATE_LINT_WARNINGS = [
  // a private service: there is no license to state
  'info-license #/info',
  // public probes that never refuse: no key needed, nothing to be missing
  'operation-4xx-response #/paths/~1healthz/get/responses',
  'operation-4xx-response #/paths/~1readyz/get/responses',
  // reached only through the event stream's x-itemSchema, which a 3.1 linter does not read
  'no-unused-components #/components/schemas/JobEvent',
];

/** One SSE event as OpenAPI 3.2 describes it: `id`, `event`, and `data` holding `component` as JSON. */
function sseItem(component: string): Json {
  return {
    type: 'object',
    required: ['data'],
    properties: {
      id: { type: 'string', description: "the event's seq, to resume from with Last-Event-ID" },
      event: { type: 'string', description: 'the event type' },
      data: { type: 'string', contentMediaType: 'application/json', contentSchema: { $ref: `#/components/schemas/${component}` } },
    },
  };
}

/** Describes each event-stream operation's 200 as `text/event-stream` with its item schema. */
function describeEventStreams(paths: Record<string, Record<string, Operation>>): void {
  for (const op of Object.values(paths).flatMap((ops) => Object.values(ops))) {
    const component = op.operationId ? EVENT_STREAMS[op.operationId] : undefined;
    const ok = op.responses?.['200'];
    if (!component || !ok) continue;
    ok.content = { 'text/event-stream': { schema: { type: 'string' }, 'x-itemSchema': sseItem(component) } };
  }
}

/** Every component name a `$ref` in `node` points at. */
function refsIn(node: unknown, into: Set<string>): Set<string> {
  if (Array.isArray(node)) for (const n of node) refsIn(n, into);
  else if (node && typeof node === 'object') {
    for (const [k, v] of Object.entries(node)) {
      if (k === '$ref' && typeof v === 'string' && v.startsWith('#/components/schemas/')) into.add(v.slice('#/components/schemas/'.length));
      else refsIn(v, into);
    }
  }
  return into;
}

/** Drops the schema components that neither an operation nor a reached component refers to. */
function pruneUnreached(paths: unknown, schemas: Record<string, unknown>): void {
  const reached = refsIn(paths, new Set());
  for (const todo = [...reached]; todo.length;) {
    for (const name of refsIn(schemas[todo.pop()!], new Set())) {
      if (reached.has(name)) continue;
      reached.add(name);
      todo.push(name);
    }
  }
  for (const name of Object.keys(schemas)) if (!reached.has(name)) delete schemas[name];
}

/** Wraps a swagger `transformObject`: event streams described, unreached components dropped. */
export function finishDocument<I, O>(transformObject: (input: I) => O): (input: I) => O {
  return (input) => {
    const doc = transformObject(input) as { paths?: Record<string, Record<string, Operation>>; components?: { schemas?: Json } };
    if (doc.paths) describeEventStreams(doc.paths);
    if (doc.components?.schemas) pruneUnreached(doc.paths, doc.components.schemas);
    return doc as O;
  };
}
