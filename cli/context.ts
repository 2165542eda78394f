/**
 * What every command needs: the API (from `--url`/`--key` or `DELEGATE_URL`/`DELEGATE_KEY`),
 * a client of it, `--json`, and one way to run an action so its errors become exit codes.
 */
import type { Command } from 'commander';
import { createDelegateClient, type DelegateClient } from 'delegate/client';
import { reportError } from './output';

/** Where the CLI looks for the API when neither `--url` nor `DELEGATE_URL` says. */
export const DEFAULT_URL = 'http://127.0.0.1:3000';

/** The options every command takes (declared once on the program). */
export interface GlobalOptions {
  url?: string;
  key?: string;
  json?: boolean;
}

/** A command's view of the world. */
export interface Context {
  client: DelegateClient;
  json: boolean;
  /** No key was given (a 401 then says how to give one). */
  keyMissing: boolean;
  /** Set once the job is accepted: later API errors are failures (1), not refusals (2). */
  dispatched: boolean;
}

/** Builds the context of a command from its options (and the program's) and the environment. */
function contextOf(cmd: Command, env: NodeJS.ProcessEnv = process.env): Context {
  const o = cmd.optsWithGlobals<GlobalOptions>();
  const key = o.key ?? env.DELEGATE_KEY ?? '';
  return {
    client: createDelegateClient({ baseUrl: o.url ?? env.DELEGATE_URL ?? DEFAULT_URL, apiKey: key }),
    json: Boolean(o.json),
    keyMissing: key === '',
    dispatched: false,
  };
}

/**
 * Wraps a command's action: builds its context, runs it, and turns its result (an exit code)
 * or its error into `process.exitCode`. Commander passes the command last.
 */
export function action<A extends unknown[]>(run: (ctx: Context, ...args: A) => Promise<number | void>) {
  return async (...args: unknown[]): Promise<void> => {
    const cmd = args[args.length - 1] as Command;
    const ctx = contextOf(cmd);
    try {
      process.exitCode = (await run(ctx, ...(args.slice(0, -1) as A))) ?? 0;
    } catch (err) {
      process.exitCode = reportError(err, ctx);
    }
  };
}
