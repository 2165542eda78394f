/**
 * The agent's model on its provider, as the AI SDK builds it: Anthropic, Google, OpenAI or any
 * OpenAI-compatible server, each with a fetch that traces the call and follows no redirect. Apart
 * from the turn itself (llm-provider.ts) because it is the one place a provider is named: a new
 * provider is a case here, and the turn stays the same for all of them.
 *
 *   LlmAgentConfig ──languageModel(cfg, env, modelId)──> LanguageModel ──> streamTurn (llm-provider.ts)
 */
import { createAnthropic } from '@ai-sdk/anthropic';
import { createGoogleGenerativeAI } from '@ai-sdk/google';
import { createOpenAI } from '@ai-sdk/openai';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import type { LanguageModel } from 'ai';
import type { LlmAgentConfig } from '../../schemas';
import { startHttpCall } from '../../telemetry/tracing';
import { expandEnv } from './remote';

/** A fetch for the providers: a client span per call, and no redirects followed (a key must not travel to another host). */
const tracedFetch = (what: string, onResponse?: (headers: Headers) => void): typeof fetch =>
  (async (url: string | URL | Request, init?: RequestInit) => {
    const call = startHttpCall(init?.method ?? 'POST', String(url), what);
    try {
      const res = await fetch(url, {
        ...init,
        redirect: 'manual',
        headers: { ...(init?.headers as Record<string, string>), ...call.headers },
      });
      call.end(res.status);
      onResponse?.(res.headers);
      return res;
    } catch (err) {
      call.end(undefined, err);
      throw err;
    }
  }) as typeof fetch;

/** The agent's model on its provider; `modelId` overrides the configured one (a job's model); `onResponse` sees every answer's headers (the provider gate reads its rate there). */
export function languageModel(
  cfg: LlmAgentConfig,
  env: NodeJS.ProcessEnv,
  modelId: string,
  onResponse?: (headers: Headers) => void,
): LanguageModel {
  const apiKey = cfg.apiKey ? expandEnv(cfg.apiKey, env) : undefined;
  const base = { ...(cfg.baseUrl ? { baseURL: cfg.baseUrl.replace(/\/$/, '') } : {}), fetch: tracedFetch(`agent ${cfg.id}`, onResponse) };
  switch (cfg.provider) {
    case 'anthropic':
      return createAnthropic({ ...base, apiKey: apiKey ?? '' })(modelId);
    case 'google':
      return createGoogleGenerativeAI({ ...base, apiKey: apiKey ?? '' })(modelId);
    case 'openai':
      // chat completions: the wire format every OpenAI-like server shares (usage in the stream included)
      return createOpenAI({ ...base, apiKey: apiKey ?? '' }).chat(modelId);
    default:
      return createOpenAICompatible({ ...base, baseURL: base.baseURL!, name: cfg.id, ...(apiKey ? { apiKey } : {}), includeUsage: true })(
        modelId,
      );
  }
}
