/**
 * The `$ref` graph of an `outputSchema`: how many subschemas validating one value can apply
 * once every reference is followed, and whether a reference can come back to itself without
 * stepping into a property or an item (then validation never ends). Pure and linear in the
 * schema's size, so the API checks it on its own thread before anything compiles.
 *
 *   d0 ──allOf──> {$ref d1}, {$ref d1}     expansion: every path through a $ref counts (2^k here)
 *   a ──allOf──> {$ref b} ──not──> {$ref a}  in place all the way round: never terminates
 *   t ──properties.children.items──> {$ref t}  steps into the data: ends with the data
 */
import { schemaPathText } from './output-schema';

/** Most subschema applications one value may cost, counting every path through a `$ref` once per path. */
export const MAX_OUTPUT_SCHEMA_EXPANSION = 20_000;
/** Deepest chain of nested subschemas and references followed. */
export const MAX_OUTPUT_SCHEMA_REF_DEPTH = 1000;

type Path = (string | number)[];
type Node = Record<string, unknown>;
/** One applied subschema: where the keyword sits, and whether it applies to the same value. */
interface Edge {
  target: Node;
  inPlace: boolean;
  at: Path;
  ref?: string;
}

const REF_KEYWORDS = ['$ref', '$dynamicRef', '$recursiveRef'];
const IN_PLACE_ONE = ['not', 'if', 'then', 'else'];
const IN_PLACE_LIST = ['allOf', 'anyOf', 'oneOf'];
const IN_PLACE_MAP = ['dependencies', 'dependentSchemas'];
const STEP_ONE = [
  'items',
  'additionalItems',
  'additionalProperties',
  'contains',
  'propertyNames',
  'unevaluatedItems',
  'unevaluatedProperties',
];
const STEP_LIST = ['items', 'prefixItems'];
const STEP_MAP = ['properties', 'patternProperties'];

const isNode = (v: unknown): v is Node => v !== null && typeof v === 'object' && !Array.isArray(v);

/** What a local reference points at (a JSON pointer or an anchor), and where each object of the schema sits. */
function resolver(root: Node) {
  const anchors = new Map<string, Node>();
  const paths = new Map<Node, Path>();
  const collect = (v: unknown, path: Path): void => {
    if (v === null || typeof v !== 'object' || path.length > MAX_OUTPUT_SCHEMA_REF_DEPTH) return;
    if (Array.isArray(v)) return v.forEach((c, i) => collect(c, [...path, i]));
    paths.set(v as Node, path);
    for (const k of ['$anchor', '$dynamicAnchor'])
      if (typeof v[k as keyof typeof v] === 'string') anchors.set(v[k as keyof typeof v] as string, v as Node);
    for (const [k, c] of Object.entries(v)) collect(c, [...path, k]);
  };
  collect(root, []);
  const pathOf = (node: Node): Path => paths.get(node) ?? [];
  const resolve = (ref: string): Node | undefined => {
    if (!ref.startsWith('#')) return undefined;
    let fragment: string;
    try {
      fragment = decodeURIComponent(ref.slice(1));
    } catch {
      return undefined;
    }
    if (fragment === '') return root;
    if (!fragment.startsWith('/')) return anchors.get(fragment);
    let at: unknown = root;
    for (const raw of fragment.slice(1).split('/')) {
      const key = raw.replace(/~1/g, '/').replace(/~0/g, '~');
      if (at === null || typeof at !== 'object' || !Object.hasOwn(at, key)) return undefined;
      at = (at as Record<string, unknown>)[key];
    }
    return isNode(at) ? at : undefined;
  };
  return { resolve, pathOf };
}

/** The subschemas a schema applies, references included, with their paths inside the schema. */
function edgesOf(node: Node, path: Path, resolve: (ref: string) => Node | undefined): Edge[] {
  const out: Edge[] = [];
  const add = (target: unknown, inPlace: boolean, at: Path) => {
    if (isNode(target)) out.push({ target, inPlace, at });
  };
  for (const [key, value] of Object.entries(node)) {
    const at = [...path, key];
    if (REF_KEYWORDS.includes(key) && typeof value === 'string') {
      const target = resolve(key === '$recursiveRef' ? '#' : value);
      if (target) out.push({ target, inPlace: true, at, ref: value });
    } else if (IN_PLACE_ONE.includes(key)) add(value, true, at);
    else if (IN_PLACE_LIST.includes(key) && Array.isArray(value)) value.forEach((v, i) => add(v, true, [...at, i]));
    else if (IN_PLACE_MAP.includes(key) && isNode(value)) for (const [k, v] of Object.entries(value)) add(v, true, [...at, k]);
    else if (STEP_LIST.includes(key) && Array.isArray(value)) value.forEach((v, i) => add(v, false, [...at, i]));
    else if (STEP_ONE.includes(key)) add(value, false, at);
    else if (STEP_MAP.includes(key) && isNode(value)) for (const [k, v] of Object.entries(value)) add(v, false, [...at, k]);
  }
  return out;
}

/**
 * Why the schema's `$ref` graph cannot be validated within bounds, as (path inside the schema,
 * message): a reference that comes back to itself in place, an expansion past
 * `MAX_OUTPUT_SCHEMA_EXPANSION`, or nesting past `MAX_OUTPUT_SCHEMA_REF_DEPTH`.
 */
export function refGraphProblems(schema: unknown): { path: Path; message: string }[] {
  if (!isNode(schema)) return [];
  const { resolve, pathOf } = resolver(schema);
  const edges = new Map<Node, Edge[]>();
  const edgesAt = (node: Node) => {
    let e = edges.get(node);
    if (!e) edges.set(node, (e = edgesOf(node, pathOf(node), resolve)));
    return e;
  };
  const tooDeep = { path: [] as Path, message: `subschemas and $refs nest deeper than ${MAX_OUTPUT_SCHEMA_REF_DEPTH} levels` };

  // every path through a reference counts; a reference back to a schema being expanded is
  // recursion (counted once: it ends with the data when it steps into it, and is refused below when not)
  const size = new Map<Node, number>();
  const expanding = new Set<Node>();
  let deep = false;
  const expand = (node: Node, depth: number): number => {
    const known = size.get(node);
    if (known !== undefined) return known;
    if (expanding.has(node)) return 1;
    if (depth > MAX_OUTPUT_SCHEMA_REF_DEPTH) {
      deep = true;
      return MAX_OUTPUT_SCHEMA_EXPANSION + 1;
    }
    expanding.add(node);
    let n = 1;
    for (const e of edgesAt(node)) {
      n += expand(e.target, depth + 1);
      if (n > MAX_OUTPUT_SCHEMA_EXPANSION) break;
    }
    expanding.delete(node);
    size.set(node, Math.min(n, MAX_OUTPUT_SCHEMA_EXPANSION + 1));
    return size.get(node)!;
  };
  const total = expand(schema, 0);
  if (deep) return [tooDeep];
  if (total > MAX_OUTPUT_SCHEMA_EXPANSION) {
    return [
      {
        path: [],
        message: `expands to more than ${MAX_OUTPUT_SCHEMA_EXPANSION} subschemas once its $refs are followed (each path through a $ref counts): a definition reached through several references that each multiply; reference shared definitions from fewer places`,
      },
    ];
  }

  // a cycle of in-place edges (allOf/anyOf/oneOf/not/if/then/else/dependencies/$ref) among the reachable schemas
  const state = new Map<Node, 'open' | 'done'>();
  const stack: Edge[] = [];
  const cycle = (node: Node, depth: number): { path: Path; message: string } | undefined => {
    if (depth > MAX_OUTPUT_SCHEMA_REF_DEPTH) return tooDeep;
    state.set(node, 'open');
    for (const e of edges.get(node) ?? []) {
      if (!e.inPlace) continue;
      if (state.get(e.target) === 'open') {
        const from = stack.findIndex((s) => s.target === e.target);
        const refs = [...stack.slice(from + 1), e].filter((s) => s.ref !== undefined).map((s) => `"${s.ref}"`);
        const ref = [...stack.slice(from + 1), e].find((s) => s.ref !== undefined) ?? e;
        return {
          path: ref.at,
          message: `refers to itself (via ${refs.join(' → ') || 'nesting'}) without stepping into a property or an item: validation would never end`,
        };
      }
      if (state.get(e.target) === 'done') continue;
      stack.push(e);
      const found = cycle(e.target, depth + 1);
      stack.pop();
      if (found) return found;
    }
    state.set(node, 'done');
    return undefined;
  };
  for (const node of size.keys()) {
    if (state.has(node)) continue;
    const found = cycle(node, 0);
    if (found) return [found];
  }
  return [];
}

/** The problems above as text: `definitions.a.allOf[0].$ref: refers to itself …`. */
export const refGraphErrors = (schema: unknown): string[] => refGraphProblems(schema).map((p) => `${schemaPathText(p.path)}: ${p.message}`);
