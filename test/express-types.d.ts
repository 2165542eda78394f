/**
 * The little of Express the A2A agent test uses (the remote agent is the SDK's own Express
 * adapter; Express is in the tree through the MCP SDK, its types are not).
 */
declare module 'express' {
  import type { IncomingMessage, Server, ServerResponse } from 'node:http';

  /** A request after `express.json()`. */
  type Request = IncomingMessage & { body?: unknown };
  /** The response methods the test calls. */
  type Response = ServerResponse & { status(code: number): Response };
  type Handler = (req: Request, res: Response, next: () => void) => void;

  interface App {
    use(path: string, ...handlers: unknown[]): App;
    listen(port: number, host: string, ready: () => void): Server;
  }

  interface Express {
    (): App;
    json(): Handler;
  }

  const express: Express;
  export default express;
  export type RequestHandler = Handler;
}
