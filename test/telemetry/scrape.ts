/** Reading Prometheus exposition text in tests: a metric's value summed over the series whose labels match. */

/** `name{a="x",...} value` lines of `text`, as name, labels and value. */
function series(text: string) {
  return text.split('\n').flatMap((line) => {
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)/.exec(line);
    if (!m) return [];
    const labels = Object.fromEntries([...(m[2] ?? '').matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g)].map((l) => [l[1], l[2]]));
    return [{ name: m[1]!, labels, value: Number(m[3]) }];
  });
}

/** The sum of `name` over its series carrying every label of `labels`; 0 when there is none. */
export function sumOf(text: string, name: string, labels: Record<string, string> = {}): number {
  return series(text)
    .filter((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v))
    .reduce((sum, s) => sum + s.value, 0);
}

/** True when `text` has a series named `name`. */
export function hasSeries(text: string, name: string): boolean {
  return series(text).some((s) => s.name === name);
}

/** GET `url` (a /metrics endpoint) as text; throws unless 200. */
export async function scrape(url: string, headers: Record<string, string> = {}): Promise<string> {
  const res = await fetch(url, { headers });
  if (res.status !== 200) throw new Error(`${url}: HTTP ${res.status}`);
  return res.text();
}
