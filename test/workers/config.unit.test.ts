import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../config/config';

describe('loadConfig', () => {
  it('fills defaults from an empty environment', () => {
    expect(loadConfig({})).toMatchObject({
      TEMPORAL_ADDRESS: 'localhost:7233',
      TEMPORAL_NAMESPACE: 'default',
      DELEGATE_TASK_QUEUE: 'delegate',
      DELEGATE_MAX_DEPTH: 3,
      PORT: 3000,
      TEMPORAL_TLS: false,
    });
  });

  it('coerces numbers and booleans from strings', () => {
    expect(loadConfig({ PORT: '8080', DELEGATE_MAX_DEPTH: '5', TEMPORAL_TLS: 'true' })).toMatchObject({
      PORT: 8080,
      DELEGATE_MAX_DEPTH: 5,
      TEMPORAL_TLS: true,
    });
  });

  it('fails fast naming every bad variable', () => {
    const message = (() => {
      try {
        loadConfig({ PORT: 'eighty', DELEGATE_MAX_DEPTH: '99', TEMPORAL_UI_URL: 'not a url', DELEGATE_WEBHOOK_SECRET: 'short' });
        return '';
      } catch (err) {
        return (err as Error).message;
      }
    })();
    for (const name of ['PORT', 'DELEGATE_MAX_DEPTH', 'TEMPORAL_UI_URL', 'DELEGATE_WEBHOOK_SECRET'])
      expect(message).toContain(`  ${name}: `);
    try {
      loadConfig({ PORT: 'eighty' });
    } catch (err) {
      expect((err as Error).message).toBe('invalid configuration:\n  PORT: Invalid input: expected number, received NaN');
    }
  });
});
