/**
 * A client of an OpenAI-compatible embeddings endpoint (OpenAI, Ollama, vLLM, LiteLLM, …):
 * `POST {url}/embeddings {model, input: [...]}` → `data[].embedding`, and cosine similarity.
 */
import { EmbeddingsResponseSchema, type EmbeddingsRequest } from '../../schemas/embeddings';
import { redact, redactUrl } from '../redact';

/** Where the embeddings come from (DELEGATE_EMBEDDINGS_*). */
export interface EmbeddingsOptions {
  /** Base URL, e.g. `https://api.openai.com/v1`; the client POSTs to `${url}/embeddings`. */
  url: string;
  model: string;
  /** Sent as `Authorization: Bearer …` when set. */
  apiKey?: string;
  /** One request's limit. @default 10000 */
  timeoutMs?: number;
}

/** An embeddings endpoint: one vector per input, in input order. */
export type Embedder = (input: string[]) => Promise<number[][]>;

/** An embedder over HTTP; it throws (naming the endpoint and status, never the key) on any failure or malformed answer. */
export function createEmbedder({ url, model, apiKey, timeoutMs = 10_000 }: EmbeddingsOptions): Embedder {
  const endpoint = `${url.replace(/\/+$/, '')}/embeddings`;
  // named in errors without its path or query: those may carry a key
  const where = redactUrl(endpoint);
  return async (input) => {
    const body: EmbeddingsRequest = { model, input };
    const res = await fetch(endpoint, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(apiKey ? { authorization: `Bearer ${apiKey}` } : {}) },
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(timeoutMs),
      redirect: 'error',
    }).catch((err: unknown) => {
      throw new Error(`embeddings endpoint ${where} unreachable: ${redact(String(err))}`);
    });
    const text = await res.text();
    if (!res.ok) throw new Error(`embeddings endpoint ${where} answered ${res.status}: ${redact(text.slice(0, 200))}`);
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      throw new Error(`embeddings endpoint ${where} answered non-JSON`);
    }
    const parsed = EmbeddingsResponseSchema.safeParse(json);
    if (!parsed.success) throw new Error(`embeddings endpoint ${where} answered an unexpected shape: ${parsed.error.issues[0]?.message}`);
    const vectors: number[][] = [];
    for (const d of parsed.data.data) vectors[d.index] = d.embedding;
    if (vectors.length !== input.length || vectors.some((v) => v === undefined)) {
      throw new Error(`embeddings endpoint ${where} answered ${parsed.data.data.length} vectors for ${input.length} inputs`);
    }
    const dims = vectors[0].length;
    if (vectors.some((v) => v.length !== dims)) throw new Error(`embeddings endpoint ${where} answered vectors of different lengths`);
    return vectors;
  };
}

/** Cosine similarity of two vectors of one length (0 when either is all zeros). */
export function cosine(a: number[], b: number[]): number {
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (let i = 0; i < a.length; i++) {
    dot += a[i] * b[i];
    na += a[i] * a[i];
    nb += b[i] * b[i];
  }
  return na === 0 || nb === 0 ? 0 : dot / Math.sqrt(na * nb);
}
