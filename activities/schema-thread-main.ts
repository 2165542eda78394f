/**
 * Inside a schema thread (see schema-thread.ts): compiles and validates outputSchemas with the
 * process's usual compiler, so a costly schema spends this thread's time and heap, never the
 * event loop of the worker or the API. One request at a time; the pool ends the thread when a
 * request passes its bound.
 */
import { parentPort } from 'node:worker_threads';
import { createOutputSchemaCompiler } from './output-schema';
import type { SchemaReply, SchemaRequest } from './schema-thread';

const compiler = createOutputSchemaCompiler();
const port = parentPort!;

port.on('message', (req: SchemaRequest) => {
  let reply: SchemaReply;
  try {
    const compiled = compiler.compile(req.schema);
    if (!compiled.ok) reply = { id: req.id, ok: false, error: compiled.error, compiles: false };
    else reply = { id: req.id, ok: true, why: req.op === 'validate' ? compiled.validate(req.data) : null };
  } catch (err) {
    // a stack overflow is the data's or the schema's nesting; the thread itself is fine
    const why =
      err instanceof RangeError
        ? `ran out of stack (${err.message}): the data or the schema nests too deeply`
        : `failed: ${err instanceof Error ? err.message : String(err)}`;
    reply = {
      id: req.id,
      ok: false,
      error: `outputSchema ${req.op === 'validate' ? 'validation' : 'compilation'} ${why}`.slice(0, 1000),
      compiles: req.op === 'validate',
    };
  }
  port.postMessage(reply);
});
port.postMessage({ ready: true });
