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

/** The settings `developmentKey` and `keyNotice` read. */
interface KeyConfig {
  DELEGATE_AUTH: 'on' | 'off';
  DELEGATE_API_KEYS?: unknown;
  DELEGATE_API_KEYS_FILE?: unknown;
}

/** With auth on and no keys configured: the key of tenant `default`, made once in .data/api-key. */
export function developmentKey(root: string, config: KeyConfig): string | undefined {
  return config.DELEGATE_AUTH === 'on' && !config.DELEGATE_API_KEYS && !config.DELEGATE_API_KEYS_FILE ? localApiKey(root, true) : undefined;
}

/** What a launcher prints about keys once the API is up: the development key and a request to try, or that auth is off. */
export function keyNotice(root: string, api: string, key: string | undefined, config: KeyConfig): string {
  if (key) {
    return `API key of tenant "default" (kept in ${apiKeyFile(root)}, mode 0600):
  ${key}
  curl -s ${api}/v1/agents -H "authorization: Bearer $(cat .data/api-key)"
`;
  }
  return config.DELEGATE_AUTH === 'off'
    ? '*** DELEGATE_AUTH=off: the API has no authentication; every caller is tenant "default". ***\n'
    : '';
}
