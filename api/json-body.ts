/**
 * JSON request bodies: strict UTF-8 and a nesting cap before Fastify's own parser (which
 * keeps refusing `__proto__` and `constructor.prototype` keys). Invalid UTF-8 would
 * otherwise be "repaired" into U+FFFD and accepted; a body nested thousands of levels
 * deep would overflow the stack of the recursive JobSpec schema (a 500).
 */
import type { FastifyInstance } from 'fastify';
import { HttpProblem } from './errors';

/** The deepest nesting of objects and arrays a JSON body may have. @default 256 */
export const MAX_JSON_DEPTH = 256;

const strictUtf8 = new TextDecoder('utf-8', { fatal: true });

/** True when JSON text nests objects/arrays deeper than `max` (brackets inside strings do not count). */
export function nestsDeeperThan(text: string, max: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 92)
        i++; // backslash: skip the escaped character
      else if (c === 34) inString = false;
    } else if (c === 34) inString = true;
    else if (c === 123 || c === 91) {
      if (++depth > max) return true;
    } else if (c === 125 || c === 93) depth--;
  }
  return false;
}

/** Replaces the application/json parser with the strict one. */
export function installJsonBodyParser(app: FastifyInstance): void {
  const parse = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (req, body, done) => {
    // a body-less control POST (stop, cancel) sent as application/json: no body, not an error
    if ((body as Buffer).length === 0) return done(null, undefined);
    let text: string;
    try {
      text = strictUtf8.decode(body as Buffer);
    } catch {
      return done(new HttpProblem(400, 'Invalid JSON', 'the body is not valid UTF-8'), undefined);
    }
    if (nestsDeeperThan(text, MAX_JSON_DEPTH)) {
      return done(new HttpProblem(400, 'Invalid JSON', `the body nests deeper than ${MAX_JSON_DEPTH} levels`), undefined);
    }
    void parse(req, text, done);
  });
}
