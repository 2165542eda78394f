/** The development API key `npm start` creates once in `.data/api-key` (mode 0600) for tenant `default`. */
import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** Where the development key lives. */
export function apiKeyFile(root: string): string {
  return join(root, '.data', 'api-key');
}

/** Reads the development key; creates it (0600) when `create` and it does not exist yet. */
export function localApiKey(root: string, create = false): string | undefined {
  const file = apiKeyFile(root);
  if (existsSync(file)) return readFileSync(file, 'utf8').trim();
  if (!create) return undefined;
  mkdirSync(join(root, '.data'), { recursive: true });
  const key = `dlg_${randomBytes(32).toString('base64url')}`;
  writeFileSync(file, `${key}\n`, { mode: 0o600 });
  chmodSync(file, 0o600);
  return key;
}
