/** A2A messages as the SDK's types spell them (every field present), for the A2A tests. */
import { Role, type Message, type Part } from '@a2a-js/sdk';

/** A user message of `parts`. */
export const a2aMessage = (messageId: string, parts: Part[], contextId = ''): Message => ({
  messageId,
  contextId,
  taskId: '',
  role: Role.ROLE_USER,
  parts,
  metadata: undefined,
  extensions: [],
  referenceTaskIds: [],
});
